package gpushare

import (
	"math"
	"slices"
	"sync"
)

// NextFrag is the one-step lookahead of the Lookahead scorer: the
// expected fragmentation of node c after the next pod, drawn from w, is
// placed on it greedily. For each shape s of w with probability p: if s
// can run on c (its GPU set fits, enough free CPU, model accepted: the
// condition FragAmount uses), the term is p × min over s's GPU choices of
// FragAmount(c with s placed), the GPU choice of FGD (a sharing shape
// tries every GPU that holds it, a whole-GPU shape takes the first wholly
// free GPUs); otherwise s would go elsewhere and the term is
// p × FragAmount(c). With w nil or c without free GPU milli it is 0.
// Memory is not part of a shape and is ignored, as in FragAmount.
func NextFrag(c *Node, w *Workload) float64 { return nextFrag(c, w, nil) }

// nextFrag is NextFrag with FragAmount taken from fm (nil: computed).
func nextFrag(c *Node, w *Workload, fm *FragMemo) float64 {
	if c == nil || w == nil || c.FreeGPUMilli() == 0 {
		return 0
	}
	f0 := -1.0
	e := 0.0
	var gpus [MaxGPUs]int64
	d := &Node{Model: c.Model, GPUs: scratch(gpus[:], len(c.GPUs))}
	for i := range w.Shapes {
		t := &w.Shapes[i]
		r := &t.req
		if !r.Allows(c.Model) || c.CPUMilli < r.CPUMilli || !c.GPUsFit(*r) {
			if f0 < 0 {
				f0 = fm.FragAmount(c, w)
			}
			e += t.P * f0
			continue
		}
		e += t.P * bestAfter(c, d, *r, w, fm)
	}
	return e
}

// bestAfter returns min over r's GPU choices on n of FragAmount(n with r
// placed), using d (GPUs of n's length) as scratch. r must fit n.
func bestAfter(n, d *Node, r Request, w *Workload, fm *FragMemo) float64 {
	place := func(ids []int) float64 {
		copy(d.GPUs, n.GPUs)
		d.CPUMilli, d.MemoryMiB = n.CPUMilli-r.CPUMilli, n.MemoryMiB
		for _, id := range ids {
			d.GPUs[id] -= r.GPUMilli
		}
		return fm.FragAmount(d, w)
	}
	if !r.Shares() {
		return place(n.WholeIDs(r))
	}
	best := math.Inf(1)
	var buf [MaxGPUs]int64
	tried := buf[:0]
	var one [1]int
outer:
	for i, g := range n.GPUs {
		if g < r.GPUMilli {
			continue
		}
		for _, t := range tried {
			if t == g {
				continue outer
			}
		}
		tried = append(tried, g)
		one[0] = i
		best = min(best, place(one[:]))
	}
	return best
}

// LookaheadGamma is the Lookahead scorer's weight of the lookahead,
// chosen by screening on seeds 1–6 of FGD's protocol (outside the
// reported seeds 42–51): 0.2 to 0.5 all placed more than FGD there, 0.05,
// 0.1 and 0.7 did not (package doc, "Lookahead").
const LookaheadGamma = 0.3

// scratch returns buf[:n], or a new slice when n exceeds buf (a node
// built by hand past MaxGPUs).
func scratch(buf []int64, n int) []int64 {
	if n <= len(buf) {
		return buf[:n]
	}
	return make([]int64, n)
}

// Lookahead is msched's one-step-lookahead scorer for FGD's objective. FGD
// scores a node by the fragmentation its pod adds now, F(n) − F(n+pod),
// over the workload's shapes, one pod ahead. Lookahead values a node state
// c by
//
//	V(c) = (1 − γ)·F(c) + γ·NextFrag(c)
//
// (the fragmentation now, and the fragmentation expected once the next
// pod drawn from the workload is also placed on the node greedily) and
// scores int(sigmoid((V(n) − V(n+pod))/1000) × 100), FGD's scale, so that
// γ = 0 is FGD exactly. γ is the weight of the second pod: the chance that
// the node, not another one, receives the next pod is not 1, and a full
// lookahead (γ = 1) places less than FGD. A sharing pod takes the GPU with
// the best score (lowest id on ties), a whole-GPU pod the first wholly
// free GPUs.
//
// The workload W() may be told (FGD's prior) or learned online (a
// Learner): then Lookahead knows nothing of the shapes in advance and its
// expectation is over the shapes seen so far.
//
// V is memoised by the node's state (model, free CPU, the GPUs' free
// milli sorted; nodes of at most 8 GPUs), dropped when the workload changes
// (pointer) or the memo holds MaxLookaheadMemo entries. A Lookahead is
// safe for concurrent use (the memo is locked; kube-scheduler scores
// nodes from 16 goroutines) as long as W is, and must not be copied
// after first use. A nil W is no workload (score 50, as FGD
// with nothing to fragment); a Gamma outside [0, 1] is clamped to it, NaN
// taken as 0.
type Lookahead struct {
	W     func() *Workload
	Gamma float64
	Label string // Name(); "Lookahead" when empty
	// Memo, when set, memoises the fragmentation V is built from (the
	// same bits as FragAmount; the plugin shares one with FGD's score).
	Memo *FragMemo

	memo   laMemo
	scores laScores
}

// wmemo is a locked memo of values for one workload (w): a lookup under
// another workload misses, and a store drops the memo first when it
// holds another workload's values or MaxLookaheadMemo entries.
type wmemo[K comparable, V any] struct {
	mu sync.RWMutex
	w  *Workload
	m  map[K]V
}

func (m *wmemo[K, V]) get(w *Workload, k K) (V, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.w != w {
		var zero V
		return zero, false
	}
	v, ok := m.m[k]
	return v, ok
}

func (m *wmemo[K, V]) put(w *Workload, k K, v V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.w != w || m.m == nil || len(m.m) >= MaxLookaheadMemo {
		m.w, m.m = w, map[K]V{}
	}
	m.m[k] = v
}

// laMemo is V by node state.
type laMemo = wmemo[laKey, float64]

// MaxLookaheadMemo bounds each of a Lookahead's two memos (V by node
// state, and scores by node state and request): at most 32 768 entries,
// about 4 MiB and 9 MiB with map overhead; a full memo is dropped and
// refilled (the same values: only time is lost).
const MaxLookaheadMemo = 1 << 15

// laGPUs is the largest node the memo keys (larger nodes are not
// memoised).
const laGPUs = 8

type laKey struct {
	model string
	cpu   int64
	n     int
	g     [laGPUs]int64
}

// Name implements Scorer.
func (l *Lookahead) Name() string {
	if l.Label != "" {
		return l.Label
	}
	return "Lookahead"
}

// Normalize implements Scorer (no normalisation, as FGD).
func (l *Lookahead) Normalize() bool { return false }

// Value returns V(c) = (1 − γ)·FragAmount(c, w) + γ·NextFrag(c, w) for the
// current workload, memoised (0 for a nil node).
func (l *Lookahead) Value(c *Node) float64 {
	if c == nil {
		return 0
	}
	return l.value(c, l.workload())
}

// workload returns W() (nil without W); the memo follows it (laMemo).
func (l *Lookahead) workload() *Workload {
	if l.W == nil {
		return nil
	}
	return l.W()
}

func (l *Lookahead) value(c *Node, w *Workload) float64 {
	k, keyed := laStateKey(c)
	if keyed {
		if v, ok := l.memo.get(w, k); ok {
			return v
		}
	}
	g := l.Gamma
	switch {
	case !(g > 0): // also NaN
		g = 0
	case g > 1:
		g = 1
	}
	v := l.Memo.FragAmount(c, w)
	if g > 0 {
		v = (1-g)*v + g*nextFrag(c, w, l.Memo)
	}
	if keyed {
		l.memo.put(w, k, v)
	}
	return v
}

// Score implements Scorer.
func (l *Lookahead) Score(n *Node, r Request) (int64, []int) {
	return l.score(l.workload(), n, r)
}

// laScores memoises Lookahead's scores by (node state, request) for one
// workload: nodes in the same state score a request the same, and a
// sharing pod's best GPUs are the same free-milli values, so a hit
// replaces every V lookup of the node.
type laScores = wmemo[laReqKey, laScore]

type laReqKey struct {
	state                   laKey
	cpu, gpuMilli, gpuCount int64
}

// laScore is a state's score and the free milli of the GPUs that reach it
// (a sharing pod takes the first such GPU in the node's order).
type laScore struct {
	s    int64
	best [laGPUs]int64
	nb   int
}

// score is Score over the workload w (the plugin passes its cycle's).
func (l *Lookahead) score(w *Workload, n *Node, r Request) (int64, []int) {
	if n == nil {
		return 0, nil
	}
	var ids []int
	if !r.Shares() {
		ids = n.WholeIDs(r)
		if r.GPUCount > 0 && ids == nil {
			return 0, nil
		}
	}
	state, keyed := laStateKey(n)
	k := laReqKey{state: state, cpu: r.CPUMilli, gpuMilli: r.GPUMilli, gpuCount: int64(r.GPUCount)}
	st, ok := laScore{}, false
	if keyed {
		st, ok = l.scores.get(w, k)
	}
	if !ok {
		st = l.scoreState(w, n, r, ids)
		if keyed {
			l.scores.put(w, k, st)
		}
	}
	if !r.Shares() {
		return st.s, ids
	}
	if st.nb == 0 {
		return 0, nil
	}
	for i, g := range n.GPUs {
		if g >= r.GPUMilli && slices.Contains(st.best[:st.nb], g) {
			return st.s, []int{i}
		}
	}
	return 0, nil // not reached: the best values are n's
}

// scoreState scores r on n (ids: a whole-GPU pod's set) and, for a
// sharing pod, collects the free milli of every GPU reaching the best
// score.
func (l *Lookahead) scoreState(w *Workload, n *Node, r Request, ids []int) laScore {
	var gpus [MaxGPUs]int64
	c := &Node{Model: n.Model, GPUs: scratch(gpus[:], len(n.GPUs))}
	after := func(ids []int) float64 {
		copy(c.GPUs, n.GPUs)
		c.CPUMilli, c.MemoryMiB = n.CPUMilli-r.CPUMilli, n.MemoryMiB-r.MemoryMiB
		for _, id := range ids {
			c.GPUs[id] -= r.GPUMilli
		}
		return l.value(c, w)
	}
	before := l.value(n, w)
	score := func(a float64) int64 { return int64(sigmoid((before-a)/1000) * MaxNodeScore) }
	var st laScore
	if !r.Shares() {
		st.s = score(after(ids))
		return st
	}
	var bufG [MaxGPUs]int64
	tried := bufG[:0]
	var one [1]int
	best := int64(-1)
	for i, g := range n.GPUs {
		if g < r.GPUMilli || slices.Contains(tried, g) {
			continue
		}
		tried = append(tried, g)
		one[0] = i
		s := score(after(one[:]))
		switch {
		case s > best:
			best, st.nb = s, 0
			fallthrough
		case s == best && st.nb < laGPUs:
			st.best[st.nb] = g
			st.nb++
		}
	}
	st.s = max(best, 0)
	return st
}

// laStateKey is the memo key of n's state (model, free CPU, the GPUs' free
// milli sorted); false for a node with more GPUs than the key holds.
func laStateKey(n *Node) (laKey, bool) {
	if len(n.GPUs) > laGPUs {
		return laKey{}, false
	}
	// V depends on the GPUs' free milli as a multiset (FragAmount sums
	// over GPUs; NextFrag's choices are symmetric): sorted, the key is
	// shared by every permutation.
	k := laKey{model: n.Model, cpu: n.CPUMilli, n: len(n.GPUs)}
	copy(k.g[:], n.GPUs)
	slices.Sort(k.g[:len(n.GPUs)])
	return k, true
}
