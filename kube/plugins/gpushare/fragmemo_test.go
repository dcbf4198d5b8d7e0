package gpushare

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

// testWorkload is an OpenB-like target workload: CPU pods, shares of one
// GPU, whole GPUs, and a shape refusing every model but V100.
func testWorkload(rng *rand.Rand) *Workload {
	counts := map[Shape]float64{}
	for range 40 {
		s := Shape{CPUMilli: int64(rng.IntN(16)+1) * 1000}
		switch rng.IntN(5) {
		case 0:
		case 1, 2:
			s.GPUCount, s.GPUMilli = 1, []int64{100, 250, 300, 460, 500, 700}[rng.IntN(6)]
		case 3:
			s.GPUCount, s.GPUMilli = []int{1, 2, 4, 8}[rng.IntN(4)], Milli
		case 4:
			s.GPUCount, s.GPUMilli, s.Models = 1, 500, "V100"
		}
		counts[s] += float64(rng.IntN(100) + 1)
	}
	return NewWorkload(counts, Coverage)
}

func testRequest(rng *rand.Rand, w *Workload) Request {
	return w.Shapes[rng.IntN(len(w.Shapes))].Shape.request()
}

// testCluster is nodes of 2, 4 or 8 GPUs of three models.
func testCluster(rng *rand.Rand, size int) []*Node {
	nodes := make([]*Node, size)
	for i := range nodes {
		n, err := NewNode(fmt.Sprintf("n%04d", i), []string{"T4", "V100", "A10"}[rng.IntN(3)], int64(rng.IntN(3)+1)*32000, 1<<18, []int{2, 4, 8}[rng.IntN(3)])
		if err != nil {
			panic(err)
		}
		nodes[i] = n
	}
	return nodes
}

// The memo returns FragAmount's bits on every state, through workload
// changes, hand-built nodes it must not key (more than MemoGPUs GPUs, free
// milli outside [0, 1000], a long model), and its bound.
func TestFragMemoIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := NewFragMemo()
	for round := range 4 {
		w := testWorkload(rng)
		for range 20000 {
			g := rng.IntN(10) + 1
			n := &Node{Model: []string{"T4", "V100", "", "A10", string(make([]byte, MaxMemoModel+1))}[rng.IntN(5)],
				CPUMilli: int64(rng.IntN(20000)), GPUs: make([]int64, g)}
			for i := range n.GPUs {
				n.GPUs[i] = []int64{0, 1000, 500, 540, 750, 250, 900, 0}[rng.IntN(8)]
				if rng.IntN(1000) == 0 {
					n.GPUs[i] = []int64{-5, 1200, math.MaxInt64}[rng.IntN(3)]
				}
			}
			a, b := FragAmount(n, w), m.FragAmount(n, w)
			if math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("round %d: node %+v: memo %v, direct %v", round, n, b, a)
			}
		}
		st := m.Stats()
		t.Logf("round %d: %d states held; %+v", round, len(m.m), st)
		if st.Hits == 0 {
			t.Fatal("no hit")
		}
	}
	// the bound: more distinct states than MaxMemoEntries
	w := testWorkload(rng)
	for i := range 2 * MaxMemoEntries {
		n := &Node{Model: "T4", CPUMilli: 1 << 30, GPUs: []int64{int64(i % 1001), int64(i / 1001 % 1001), 0}}
		m.FragAmount(n, w)
		if len(m.m) > MaxMemoEntries {
			t.Fatalf("%d states held, bound %d", len(m.m), MaxMemoEntries)
		}
	}
	if m.Stats().Resets == 0 {
		t.Fatal("the full memo was never cleared")
	}
	var nilMemo *FragMemo
	n := &Node{Model: "T4", CPUMilli: 1000, GPUs: []int64{300}}
	if nilMemo.FragAmount(n, w) != FragAmount(n, w) || m.FragAmount(n, nil) != 0 {
		t.Fatal("nil memo or nil workload")
	}
}

// place runs pods through the cluster with FGD as RunFGD does (best
// score, ties by index) and returns each pod's (node, GPU ids).
func placeFGD(t testing.TB, sc Scorer, nodes []*Node, pods []Request, observe func(Request)) [][]int {
	out := make([][]int, len(pods))
	for k, r := range pods {
		if observe != nil {
			observe(r)
		}
		pick, best := -1, int64(math.MinInt64)
		var ids []int
		for i, n := range nodes {
			if !n.Fits(r) {
				continue
			}
			s, g := sc.Score(n, r)
			if s > best {
				pick, best, ids = i, s, g
			}
		}
		if pick < 0 {
			out[k] = []int{-1}
			continue
		}
		if err := nodes[pick].Assign(r, ids); err != nil {
			t.Fatal(err)
		}
		out[k] = append([]int{pick}, ids...)
	}
	return out
}

func clone(nodes []*Node) []*Node {
	c := make([]*Node, len(nodes))
	for i, n := range nodes {
		c[i] = n.Clone()
	}
	return c
}

// FGD with the memo (and the per-node cache) scores every node as the
// direct computation does, and so places every pod alike, with a fixed
// workload and with a learned one (rebuilt as arrivals come, the memo
// reset each time); and scorers sharing one memo from several goroutines
// agree with the direct one (run with -race in CI).
func TestFGDMemoPlacementsIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	w := testWorkload(rng)
	nodes := testCluster(rng, 300)
	pods := make([]Request, 4000)
	for i := range pods {
		pods[i] = testRequest(rng, w)
	}
	direct := placeFGD(t, &FGD{W: func() *Workload { return w }}, clone(nodes), pods, nil)
	memo := placeFGD(t, &FGD{W: func() *Workload { return w }, Cache: true, Memo: NewFragMemo()}, clone(nodes), pods, nil)
	l1, l2 := NewLearner(100), NewLearner(100)
	learnedDirect := placeFGD(t, &FGD{W: l1.Workload}, clone(nodes), pods, l1.Observe)
	learnedMemo := placeFGD(t, &FGD{W: l2.Workload, Cache: true, Memo: NewFragMemo()}, clone(nodes), pods, l2.Observe)
	failed := 0
	for i := range pods {
		if !slices.Equal(direct[i], memo[i]) || !slices.Equal(learnedDirect[i], learnedMemo[i]) {
			t.Fatalf("pod %d: direct %v, memo %v; learned direct %v, memo %v", i, direct[i], memo[i], learnedDirect[i], learnedMemo[i])
		}
		if direct[i][0] < 0 {
			failed++
		}
	}
	if failed == 0 || failed == len(pods) {
		t.Fatalf("%d of %d pods failed: the test does not fill the cluster", failed, len(pods))
	}

	// concurrent scorers over one memo, on a filled cluster
	full := clone(nodes)
	placeFGD(t, &FGD{W: func() *Workload { return w }}, full, pods[:2000], nil)
	shared := NewFragMemo()
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Go(func() {
			d := &FGD{W: func() *Workload { return w }}
			m := &FGD{W: func() *Workload { return w }, Memo: shared}
			for k := range 300 {
				r := pods[(g*300+k)%len(pods)]
				for _, n := range full {
					if !n.Fits(r) {
						continue
					}
					s1, i1 := d.Score(n, r)
					s2, i2 := m.Score(n, r)
					if s1 != s2 || !slices.Equal(i1, i2) {
						errs <- fmt.Sprintf("node %s pod %+v: direct %d %v, memo %d %v", n.Name, r, s1, i1, s2, i2)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}

// BenchmarkFGDScore scores every feasible node of a 1 213-node cluster
// half filled by FGD, for a stream of pods (no placement: the state is
// fixed, as within one scheduling cycle); direct computation vs the memo
// (shared across pods, as in the plugin and the replay loop).
func BenchmarkFGDScore(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	w := testWorkload(rng)
	nodes := testCluster(rng, 1213)
	pods := make([]Request, 8000)
	for i := range pods {
		pods[i] = testRequest(rng, w)
	}
	placeFGD(b, &FGD{W: func() *Workload { return w }, Memo: NewFragMemo()}, nodes, pods[:4000], nil)
	for _, c := range []struct {
		name string
		sc   func() Scorer
	}{
		{"direct", func() Scorer { return &FGD{W: func() *Workload { return w }} }},
		{"memo", func() Scorer { return &FGD{W: func() *Workload { return w }, Memo: NewFragMemo()} }},
		{"memo+cache", func() Scorer { return &FGD{W: func() *Workload { return w }, Cache: true, Memo: NewFragMemo()} }},
		{"LeastAllocated", func() Scorer { return NewScorer("LeastAllocated", nil, nil) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc := c.sc()
			k := 0
			for b.Loop() {
				r := pods[4000+k%4000]
				k++
				for _, n := range nodes {
					if n.Fits(r) {
						sc.Score(n, r)
					}
				}
			}
		})
	}
}
