package baselines_test

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

func esdpPolicies(t testing.TB, cl *esdp.Cluster, seed uint64) []esdp.OnlinePolicy {
	t.Helper()
	h, err := baselines.NewHSWF(cl, baselines.HSWFSettings{})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := baselines.NewLCF(cl, baselines.LCFSettings{})
	w, _ := baselines.NewLWTF(cl, baselines.LWTFSettings{})
	c, _ := baselines.NewCUCB(cl, baselines.CUCBSettings{})
	th, err := baselines.NewThompson(cl, baselines.ThompsonSettings{Seed: seed, Stream: 9})
	if err != nil {
		t.Fatal(err)
	}
	hc, _ := baselines.NewHSWFChannel(cl, baselines.HSWFChannelSettings{})
	return []esdp.OnlinePolicy{h, l, w, c, th, hc}
}

// esdpCheckFeasible checks (1) and (2) independently of esdp.Cluster.
func esdpCheckFeasible(t *testing.T, name string, cl *esdp.Cluster, arrived, x []bool) {
	t.Helper()
	if len(x) != cl.NumEdges() {
		t.Fatalf("%s: len(x) = %d", name, len(x))
	}
	use := make([]int, cl.K)
	for e, on := range x {
		if !on {
			continue
		}
		if l := cl.Graph.Edge(e).Left; !arrived[l] {
			t.Fatalf("%s: (2) violated: edge %d of idle port %d", name, e, l)
		}
		for k := range use {
			use[k] += cl.Demand[e*cl.K+k]
		}
	}
	for k, u := range use {
		if u > cl.Capacity[k] {
			t.Fatalf("%s: (1) violated on type %d: %d > %d", name, k, u, cl.Capacity[k])
		}
	}
}

func TestESDPBaselinesFeasibleEverySlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	slots := 200
	if testing.Short() {
		slots = 60
	}
	for trial := 0; trial < 6; trial++ {
		cfg := esdp.DefaultConfig()
		cfg.Alpha = 0.2 + 0.15*float64(trial)
		cfg.DemandLo = trial % 2 // zero demands too
		in, err := esdp.Generate(cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		pols := esdpPolicies(t, &in.Cluster, uint64(trial))
		arrived := make([]bool, in.NumPorts())
		z := make([]float64, in.NumEdges())
		for _, p := range pols {
			fb := esdp.Feedback{Chosen: make([]bool, in.NumEdges()), Reward: z}
			for s := 0; s < slots; s++ {
				in.SampleArrivals(arrived, rng)
				in.SampleRewards(z, rng)
				x, err := p.Decide(s, arrived)
				if err != nil {
					t.Fatal(err)
				}
				esdpCheckFeasible(t, p.Name(), &in.Cluster, arrived, x)
				copy(fb.Chosen, x)
				if err := p.(bipartite.Learner[esdp.Feedback]).Observe(s, fb); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// The knapsack baselines are optimal for their own index: with all edges
// played, CUCB's choice maximises its UCB index among feasible x, checked
// by brute force on a small instance.
func TestCUCBMaximisesIndex(t *testing.T) {
	g, _ := bipartite.NewGraph(2, 3, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2}, {Left: 1, Right: 0}, {Left: 1, Right: 2}})
	cl := &esdp.Cluster{Graph: g, K: 2, Demand: []int{1, 2, 2, 1, 1, 1, 2, 2, 1, 1}, Capacity: []int{3, 3}, Cost: make([]float64, 5)}
	c, err := baselines.NewCUCB(cl, baselines.CUCBSettings{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	fb := esdp.Feedback{Chosen: []bool{true, true, true, true, true}, Reward: make([]float64, 5)}
	n := make([]float64, 5)
	sum := make([]float64, 5)
	for rep := 0; rep < 1+rng.IntN(5); rep++ {
		for e := range fb.Reward {
			fb.Chosen[e] = rep == 0 || rng.IntN(2) == 0
			fb.Reward[e] = rng.Float64()
			if fb.Chosen[e] {
				n[e]++
				sum[e] += fb.Reward[e]
			}
		}
		if err := c.Warm(fb); err != nil {
			t.Fatal(err)
		}
	}
	const slot = 9
	x, err := c.Decide(slot, []bool{true, true})
	if err != nil {
		t.Fatal(err)
	}
	idx := func(mask int) (float64, bool) {
		v := 0.0
		use := [2]int{}
		for e := 0; e < 5; e++ {
			if mask&(1<<e) != 0 {
				v += math.Min(1, sum[e]/n[e]+math.Sqrt(1.5*math.Log(slot+1)/n[e]))
				use[0] += cl.Demand[2*e]
				use[1] += cl.Demand[2*e+1]
			}
		}
		return v, use[0] <= 3 && use[1] <= 3
	}
	best := math.Inf(-1)
	for mask := 0; mask < 32; mask++ {
		if v, ok := idx(mask); ok {
			best = math.Max(best, v)
		}
	}
	got := 0
	for e, on := range x {
		if on {
			got |= 1 << e
		}
	}
	v, ok := idx(got)
	if !ok || math.Abs(v-best) > 1e-12 {
		t.Fatalf("CUCB index %v (feasible %v), brute force %v", v, ok, best)
	}
}

func TestLWTFWaitingTime(t *testing.T) {
	// One server type of capacity 1, two ports with one edge each: LWTF
	// alternates between the two ports when both always have a job.
	g, _ := bipartite.NewGraph(2, 1, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}})
	cl := &esdp.Cluster{Graph: g, K: 1, Demand: []int{1, 1}, Capacity: []int{1}, Cost: []float64{0, 0}}
	w, err := baselines.NewLWTF(cl, baselines.LWTFSettings{})
	if err != nil {
		t.Fatal(err)
	}
	var served []int
	for s := 0; s < 4; s++ {
		x, err := w.Decide(s, []bool{true, true})
		if err != nil {
			t.Fatal(err)
		}
		if x[0] {
			served = append(served, 0)
		} else {
			served = append(served, 1)
		}
	}
	if want := []int{0, 1, 0, 1}; !equalInts(served, want) {
		t.Fatalf("served %v, want %v", served, want)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestESDPBaselinesRejectBadInput(t *testing.T) {
	in, _ := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(5, 5)))
	for _, p := range esdpPolicies(t, &in.Cluster, 1) {
		if _, err := p.Decide(0, make([]bool, in.NumPorts()+1)); err == nil {
			t.Errorf("%s: wrong arrival length accepted", p.Name())
		}
		fb := esdp.Feedback{Chosen: make([]bool, in.NumEdges()), Reward: make([]float64, in.NumEdges())}
		fb.Chosen[0], fb.Reward[0] = true, math.NaN()
		if err := p.(bipartite.Learner[esdp.Feedback]).Observe(0, fb); err == nil {
			t.Errorf("%s: NaN reward accepted", p.Name())
		}
	}
	if _, err := baselines.NewThompson(&in.Cluster, baselines.ThompsonSettings{Oracle: esdp.OracleSettings{MaxNodes: -1}}); !errors.Is(err, esdp.ErrSettings) {
		t.Errorf("Thompson with MaxNodes = -1: %v, want ErrSettings", err)
	}
}

func BenchmarkESDPBaselinesSlot(b *testing.B) {
	in, _ := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	rng := rand.New(rand.NewPCG(2, 2))
	arrived := make([]bool, in.NumPorts())
	z := make([]float64, in.NumEdges())
	for _, p := range esdpPolicies(b, &in.Cluster, 1) {
		b.Run(p.Name(), func(b *testing.B) {
			fb := esdp.Feedback{Chosen: make([]bool, in.NumEdges()), Reward: z}
			for i := 0; i < 50; i++ { // warm up past the unplayed edges
				in.SampleArrivals(arrived, rng)
				in.SampleRewards(z, rng)
				x, _ := p.Decide(i, arrived)
				copy(fb.Chosen, x)
				p.(bipartite.Learner[esdp.Feedback]).Observe(i, fb)
			}
			for l := range arrived {
				arrived[l] = l != 0 // every port but one has a job
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				x, _ := p.Decide(50+i, arrived)
				copy(fb.Chosen, x)
				p.(bipartite.Learner[esdp.Feedback]).Observe(50+i, fb)
			}
		})
	}
}
