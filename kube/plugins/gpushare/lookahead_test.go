package gpushare

import (
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// fragRef is FGD's fragmentation of a node over a workload, written from
// the definition independently of FragAmount: a shape that cannot run on
// the node (model refused, too little CPU, no GPU set with GPUCount GPUs
// of GPUMilli free; a CPU shape) fragments all free GPU milli, one that
// can fragments the GPUs with less than its per-GPU milli free.
func fragRef(model string, cpu int64, gpus []int64, w *Workload) float64 {
	var idle int64
	for _, g := range gpus {
		idle += g
	}
	f := 0.0
	for _, t := range w.Shapes {
		s := t.Shape
		var big, small int64
		nbig := 0
		for _, g := range gpus {
			if g >= s.GPUMilli {
				big += g
				nbig++
			} else {
				small += g
			}
		}
		models := t.Shape.request()
		runs := s.GPUCount > 0 && cpu >= s.CPUMilli && nbig >= s.GPUCount && models.Allows(model)
		if runs {
			f += t.P * float64(small)
		} else {
			f += t.P * float64(idle)
		}
	}
	return f
}

// subsets calls fn with every k-subset of [0, n).
func subsets(n, k int, fn func([]int)) {
	var rec func(start int, cur []int)
	rec = func(start int, cur []int) {
		if len(cur) == k {
			fn(cur)
			return
		}
		for i := start; i < n; i++ {
			rec(i+1, append(cur, i))
		}
	}
	rec(0, nil)
}

// nextFragBrute is NextFrag by enumeration: for each shape, every GPU set
// the shape can take on the node (every k-subset of GPUs with enough free
// milli each) is tried and the least fragmentation after it kept; a shape
// that cannot run leaves the node as it is.
func nextFragBrute(model string, cpu int64, gpus []int64, w *Workload) float64 {
	e := 0.0
	for _, t := range w.Shapes {
		s := t.Shape
		req := s.request()
		best := math.Inf(1)
		if req.Allows(model) && cpu >= s.CPUMilli {
			if s.GPUCount == 0 {
				best = fragRef(model, cpu-s.CPUMilli, gpus, w)
			} else {
				subsets(len(gpus), s.GPUCount, func(ids []int) {
					g := slices.Clone(gpus)
					for _, id := range ids {
						if g[id] < s.GPUMilli {
							return
						}
						g[id] -= s.GPUMilli
					}
					best = min(best, fragRef(model, cpu-s.CPUMilli, g, w))
				})
			}
		}
		if math.IsInf(best, 1) {
			best = fragRef(model, cpu, gpus, w)
		}
		e += t.P * best
	}
	return e
}

func randomWorkload(rng *rand.Rand) *Workload {
	var reqs []Request
	for range 2 + rng.IntN(6) {
		r := Request{CPUMilli: int64(1000 * (1 + rng.IntN(12)))}
		switch rng.IntN(4) {
		case 0: // CPU pod
		case 1:
			r.GPUCount, r.GPUMilli = 1+rng.IntN(3), Milli
		default:
			r.GPUCount, r.GPUMilli = 1, int64(50*(1+rng.IntN(20)))
		}
		if r.GPUCount > 0 && rng.IntN(5) == 0 {
			r.Models = []string{"V100"}
		}
		for range 1 + rng.IntN(4) {
			reqs = append(reqs, r)
		}
	}
	return WorkloadOf(reqs, 1)
}

func randomNode(t *testing.T, rng *rand.Rand) *Node {
	n, err := NewNode("n", []string{"T4", "V100"}[rng.IntN(2)], int64(1000*rng.IntN(20)), 1<<20, 1+rng.IntN(4))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n.GPUs {
		n.GPUs[i] = int64(50 * rng.IntN(21))
	}
	return n
}

// NextFrag, the lookahead's expectation, against enumeration on tiny
// nodes (1–4 GPUs) and random workloads (CPU, sharing, whole and
// multi-GPU shapes, model constraints), with FragAmount against the
// independent fragRef on the same nodes.
func TestNextFragBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 1))
	trials := 3000
	if testing.Short() {
		trials = 500
	}
	for trial := range trials {
		w := randomWorkload(rng)
		n := randomNode(t, rng)
		if got, want := FragAmount(n, w), fragRef(n.Model, n.CPUMilli, n.GPUs, w); math.Abs(got-want) > 1e-9 {
			t.Fatalf("trial %d: FragAmount %v, reference %v (node %v cpu %d)", trial, got, want, n.GPUs, n.CPUMilli)
		}
		got, want := NextFrag(n, w), nextFragBrute(n.Model, n.CPUMilli, n.GPUs, w)
		if n.FreeGPUMilli() == 0 {
			want = 0
		}
		if math.Abs(got-want) > 1e-6 {
			t.Fatalf("trial %d: NextFrag %v, enumeration %v (node %s %v cpu %d, workload %+v)", trial, got, want, n.Model, n.GPUs, n.CPUMilli, w.Shapes)
		}
	}
}

// A hand case: one T4 GPU with 600 free, workload half 500-milli pods,
// half 200-milli pods. F = ½·0 + ½·0 = 0 now. After a 500 pod (100 left)
// F = ½·100 + ½·100 = 100; after a 200 pod (400 left) F = ½·400 + 0 = 200.
// NextFrag = ½·100 + ½·200 = 150.
func TestNextFragHand(t *testing.T) {
	n := mustNode(t, 600)
	a := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 500}
	b := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 200}
	w := WorkloadOf([]Request{a, b}, 1)
	if f := FragAmount(n, w); f != 0 {
		t.Fatalf("F = %v, want 0", f)
	}
	if got := NextFrag(n, w); math.Abs(got-150) > 1e-9 {
		t.Fatalf("NextFrag = %v, want 150", got)
	}
	if NextFrag(n, nil) != 0 || NextFrag(mustNode(t, 0, 0), w) != 0 {
		t.Fatal("NextFrag of no workload or a full node is not 0")
	}
}

// With γ = 0 the Lookahead is FGD: same scores and GPU choices.
func TestLookaheadGammaZeroIsFGD(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 2))
	for trial := range 500 {
		w := randomWorkload(rng)
		fgd := &FGD{W: func() *Workload { return w }}
		la := &Lookahead{W: func() *Workload { return w }}
		n := randomNode(t, rng)
		r := w.Shapes[rng.IntN(len(w.Shapes))].Shape.request()
		if !n.Fits(r) {
			continue
		}
		s1, id1 := fgd.Score(n, r)
		s2, id2 := la.Score(n, r)
		if s1 != s2 || !slices.Equal(id1, id2) {
			t.Fatalf("trial %d: FGD %d %v, Lookahead γ=0 %d %v", trial, s1, id1, s2, id2)
		}
	}
}

// Lookahead's score is int(sigmoid((V(n) − V(n+pod))/1000)·100) with V
// from the reference functions, maximised over the pod's GPU choices
// (brute force over GPUs for a sharing pod), and its memo follows a
// change of workload.
func TestLookaheadScoreBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 3))
	const g = LookaheadGamma
	var w *Workload
	la := &Lookahead{W: func() *Workload { return w }, Gamma: g}
	vref := func(model string, cpu int64, gpus []int64) float64 {
		if slices.Max(gpus) == 0 {
			return 0
		}
		return (1-g)*fragRef(model, cpu, gpus, w) + g*nextFragBrute(model, cpu, gpus, w)
	}
	for trial := range 600 {
		if trial%50 == 0 {
			w = randomWorkload(rng)
		}
		n := randomNode(t, rng)
		r := w.Shapes[rng.IntN(len(w.Shapes))].Shape.request()
		if !n.Fits(r) {
			continue
		}
		s, ids := la.Score(n, r)
		before := vref(n.Model, n.CPUMilli, n.GPUs)
		best, bestIDs := int64(-1), []int(nil)
		try := func(ids []int) {
			gp := slices.Clone(n.GPUs)
			for _, id := range ids {
				gp[id] -= r.GPUMilli
			}
			v := int64(1 / (1 + math.Exp(-(before-vref(n.Model, n.CPUMilli-r.CPUMilli, gp))/1000)) * 100)
			if v > best {
				best, bestIDs = v, slices.Clone(ids)
			}
		}
		switch {
		case r.GPUCount == 0:
			try(nil)
		case r.Shares():
			for i, free := range n.GPUs {
				if free >= r.GPUMilli {
					try([]int{i})
				}
			}
		default:
			try(n.WholeIDs(r))
		}
		if s != best {
			t.Fatalf("trial %d: node %v cpu %d pod %+v: score %d on %v, brute force %d on %v", trial, n.GPUs, n.CPUMilli, r, s, ids, best, bestIDs)
		}
		if r.Shares() && n.GPUs[ids[0]] != n.GPUs[bestIDs[0]] {
			t.Fatalf("trial %d: GPU %d (free %d), brute force GPU %d (free %d)", trial, ids[0], n.GPUs[ids[0]], bestIDs[0], n.GPUs[bestIDs[0]])
		}
		if c := n.Clone(); c.Assign(r, ids) != nil {
			t.Fatalf("trial %d: invalid GPU set %v", trial, ids)
		}
	}
}

// No workload yet (a learner before its first arrival), a node with more
// GPUs than the memo keys, a full node: Lookahead scores without panic.
func TestLookaheadEdges(t *testing.T) {
	la := &Lookahead{W: func() *Workload { return nil }, Gamma: LookaheadGamma}
	n, err := NewNode("big", "T4", 64000, 1<<20, MaxGPUs)
	if err != nil {
		t.Fatal(err)
	}
	r := Request{CPUMilli: 1000, GPUCount: 2, GPUMilli: Milli}
	if s, ids := la.Score(n, r); s != 50 || len(ids) != 2 {
		t.Fatalf("nil workload: %d %v", s, ids)
	}
	w := WorkloadOf([]Request{r, {CPUMilli: 1000, GPUCount: 1, GPUMilli: 300}}, 1)
	la.W = func() *Workload { return w }
	if s, ids := la.Score(n, r); s < 0 || s > MaxNodeScore || len(ids) != 2 {
		t.Fatalf("64 GPUs: %d %v", s, ids)
	}
	if v := la.Value(mustNode(t, 0, 0)); v != 0 {
		t.Fatalf("full node value %v", v)
	}
}

// Inputs built by hand: a nil node, a nil W, a node past MaxGPUs, a NaN or
// out-of-range γ: no panic, scores in range, γ clamped.
func TestLookaheadHandBuiltInputs(t *testing.T) {
	w := WorkloadOf([]Request{{CPUMilli: 1000, GPUCount: 1, GPUMilli: 300}, {CPUMilli: 1000, GPUCount: 2, GPUMilli: Milli}}, 1)
	r := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 300}
	if s, ids := (&Lookahead{}).Score(nil, r); s != 0 || ids != nil {
		t.Fatal(s, ids)
	}
	if NextFrag(nil, w) != 0 || (&Lookahead{}).Value(nil) != 0 {
		t.Fatal("nil node")
	}
	big := &Node{Model: "T4", CPUMilli: 64000, MemoryMiB: 1 << 20, GPUs: make([]int64, 2*MaxGPUs)}
	for i := range big.GPUs {
		big.GPUs[i] = int64(100 * (i % 11))
	}
	if f := NextFrag(big, w); !(f >= 0) {
		t.Fatalf("NextFrag on %d GPUs: %v", len(big.GPUs), f)
	}
	told := func() *Workload { return w }
	n := mustNode(t, 700, 1000, 300)
	want, _ := (&Lookahead{W: told, Gamma: 1}).Score(n, r)
	wantZero, _ := (&Lookahead{W: told}).Score(n, r)
	for _, g := range []float64{math.NaN(), -1, 2, math.Inf(1)} {
		la := &Lookahead{W: told, Gamma: g}
		if s, ids := la.Score(big, r); s < 0 || s > MaxNodeScore || len(ids) != 1 {
			t.Fatalf("γ %v on %d GPUs: %d %v", g, len(big.GPUs), s, ids)
		}
		s, _ := la.Score(n, r)
		if w := map[bool]int64{true: want, false: wantZero}[g > 1]; s != w {
			t.Fatalf("γ %v: score %d, want the clamped γ's %d", g, s, w)
		}
	}
	if s, _ := (&Lookahead{Gamma: 0.3}).Score(n, r); s != 50 {
		t.Fatalf("nil W: %d, want 50", s)
	}
}

// One Lookahead shared by goroutines (kube-scheduler scores nodes in
// parallel) scores as a fresh Lookahead per call does, across workload
// changes, its memos (V and the scores by state and request) shared by
// the goroutines and the cycles: scores and GPU ids, nodes repeated with
// their GPUs permuted. Run with -race.
func TestLookaheadConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 9))
	ws := []*Workload{randomWorkload(rng), randomWorkload(rng)}
	shared := &Lookahead{Gamma: LookaheadGamma, Memo: NewFragMemo()}
	hits := 0
	for cyc := range 40 {
		w := ws[cyc%len(ws)]
		r := w.Shapes[rng.IntN(len(w.Shapes))].Shape.request()
		var nodes []*Node
		for len(nodes) < 60 {
			n := randomNode(t, rng)
			if rng.IntN(3) == 0 && len(nodes) > 0 { // the same state, GPUs permuted
				n = nodes[rng.IntN(len(nodes))].Clone()
				rng.Shuffle(len(n.GPUs), func(i, j int) { n.GPUs[i], n.GPUs[j] = n.GPUs[j], n.GPUs[i] })
				hits++
			}
			if n.Fits(r) {
				nodes = append(nodes, n)
			}
		}
		type res struct {
			s   int64
			ids []int
		}
		want := make([]res, len(nodes))
		for i, n := range nodes {
			s, ids := (&Lookahead{Gamma: LookaheadGamma}).score(w, n, r)
			want[i] = res{s, slices.Clone(ids)}
		}
		got := make([]res, len(nodes))
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := g; i < len(nodes); i += 4 {
					s, ids := shared.score(w, nodes[i], r)
					got[i] = res{s, slices.Clone(ids)}
				}
			}()
		}
		wg.Wait()
		for i := range nodes {
			if got[i].s != want[i].s || !slices.Equal(got[i].ids, want[i].ids) {
				t.Fatalf("cycle %d node %d %v pod %+v: shared %v, fresh %v", cyc, i, nodes[i].GPUs, r, got[i], want[i])
			}
		}
	}
	if hits < 100 {
		t.Fatalf("only %d repeated states", hits)
	}
}

// V is the same bits with the fragmentation memoised (FragMemo) and
// under any permutation of the GPUs (what its sorted memo key assumes).
func TestLookaheadValuePermutationAndMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(32, 10))
	for trial := range 500 {
		w := randomWorkload(rng)
		n := randomNode(t, rng)
		want := (&Lookahead{W: func() *Workload { return w }, Gamma: LookaheadGamma}).Value(n)
		p := n.Clone()
		rng.Shuffle(len(p.GPUs), func(i, j int) { p.GPUs[i], p.GPUs[j] = p.GPUs[j], p.GPUs[i] })
		fresh := &Lookahead{W: func() *Workload { return w }, Gamma: LookaheadGamma}
		memo := &Lookahead{W: func() *Workload { return w }, Gamma: LookaheadGamma, Memo: NewFragMemo()}
		for _, got := range []float64{fresh.Value(p), memo.Value(p), memo.Value(n)} {
			if got != want {
				t.Fatalf("trial %d: GPUs %v / %v: V %v, want %v", trial, n.GPUs, p.GPUs, got, want)
			}
		}
	}
}

// The lookahead's memos stay within MaxLookaheadMemo entries, and a new
// workload empties them (hostile: every node state distinct).
func TestLookaheadMemoBounded(t *testing.T) {
	var m laMemo
	var sc laScores
	w1, w2 := &Workload{}, &Workload{}
	for i := range MaxLookaheadMemo + 10 {
		k := laKey{cpu: int64(i), n: 1}
		m.put(w1, k, 1)
		sc.put(w1, laReqKey{state: k}, laScore{s: 1})
		if len(m.m) > MaxLookaheadMemo || len(sc.m) > MaxLookaheadMemo {
			t.Fatalf("after %d puts: %d and %d entries", i+1, len(m.m), len(sc.m))
		}
	}
	m.put(w2, laKey{}, 2)
	if len(m.m) != 1 {
		t.Fatalf("a new workload kept %d entries", len(m.m))
	}
	if _, ok := sc.get(w2, laReqKey{}); ok {
		t.Fatal("a score of another workload was returned")
	}
}
