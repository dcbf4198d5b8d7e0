package gpushare

import (
	"math"
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
func NextFrag(c *Node, w *Workload) float64 {
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
				f0 = FragAmount(c, w)
			}
			e += t.P * f0
			continue
		}
		e += t.P * bestAfter(c, d, *r, w)
	}
	return e
}

// bestAfter returns min over r's GPU choices on n of FragAmount(n with r
// placed), using d (GPUs of n's length) as scratch. r must fit n.
func bestAfter(n, d *Node, r Request, w *Workload) float64 {
	place := func(ids []int) float64 {
		copy(d.GPUs, n.GPUs)
		d.CPUMilli, d.MemoryMiB = n.CPUMilli-r.CPUMilli, n.MemoryMiB
		for _, id := range ids {
			d.GPUs[id] -= r.GPUMilli
		}
		return FragAmount(d, w)
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
// V is memoised by the node's state (model, free CPU, each GPU's free
// milli; nodes of at most 8 GPUs), dropped when the workload changes
// (pointer) or the memo holds MaxLookaheadMemo entries: a Lookahead is
// not safe for concurrent use. A nil W is no workload (score 50, as FGD
// with nothing to fragment); a Gamma outside [0, 1] is clamped to it, NaN
// taken as 0.
type Lookahead struct {
	W     func() *Workload
	Gamma float64
	Label string // Name(); "Lookahead" when empty

	w    *Workload
	memo map[laKey]float64
}

// MaxLookaheadMemo bounds the memo of a Lookahead (entries).
const MaxLookaheadMemo = 1 << 20

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

// workload returns W() (nil without W) and resets the memo when it
// changed or is full.
func (l *Lookahead) workload() *Workload {
	var w *Workload
	if l.W != nil {
		w = l.W()
	}
	if w != l.w || l.memo == nil || len(l.memo) >= MaxLookaheadMemo {
		l.w, l.memo = w, map[laKey]float64{}
	}
	return w
}

func (l *Lookahead) value(c *Node, w *Workload) float64 {
	var k laKey
	keyed := len(c.GPUs) <= laGPUs
	if keyed {
		k = laKey{model: c.Model, cpu: c.CPUMilli, n: len(c.GPUs)}
		copy(k.g[:], c.GPUs)
		if v, ok := l.memo[k]; ok {
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
	v := FragAmount(c, w)
	if g > 0 {
		v = (1-g)*v + g*NextFrag(c, w)
	}
	if keyed {
		l.memo[k] = v
	}
	return v
}

// Score implements Scorer.
func (l *Lookahead) Score(n *Node, r Request) (int64, []int) {
	if n == nil {
		return 0, nil
	}
	w := l.workload()
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
	if !r.Shares() {
		ids := n.WholeIDs(r)
		if r.GPUCount > 0 && ids == nil {
			return 0, nil
		}
		return score(after(ids)), ids
	}
	best, bestID := int64(0), -1
	var bufG, bufS [MaxGPUs]int64
	tried, triedS := bufG[:0], bufS[:0]
	var one [1]int
	for i, g := range n.GPUs {
		if g < r.GPUMilli {
			continue
		}
		s, ok := int64(0), false
		for k, t := range tried {
			if t == g {
				s, ok = triedS[k], true
				break
			}
		}
		if !ok {
			one[0] = i
			s = score(after(one[:]))
			tried, triedS = append(tried, g), append(triedS, s)
		}
		if bestID < 0 || s > best {
			best, bestID = s, i
		}
	}
	if bestID < 0 {
		return 0, nil
	}
	return best, []int{bestID}
}
