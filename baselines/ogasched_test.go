package baselines_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

func ogaPolicies(p *ogasched.Problem) []bipartite.OnlinePolicy[[]float64, []float64] {
	return []bipartite.OnlinePolicy[[]float64, []float64]{
		baselines.NewDRF(p), baselines.NewFairness(p), baselines.NewBinPacking(p), baselines.NewSpreading(p),
	}
}

// ogaCheckFeasible checks (5), (6) and that only ports with a job get
// resources, independently of ogasched.Problem.Feasible.
func ogaCheckFeasible(t *testing.T, name string, p *ogasched.Problem, x, y []float64) {
	t.Helper()
	g, K := p.Graph, p.K
	if len(y) != g.NumEdges()*K {
		t.Fatalf("%s: len(y) = %d", name, len(y))
	}
	used := make([]float64, p.NumNodes()*K)
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		for k := 0; k < K; k++ {
			v := y[e*K+k]
			if v < 0 || v > p.Demand[ed.Left][k]+1e-12 {
				t.Fatalf("%s: (5) violated on edge %v type %d: %v", name, ed, k, v)
			}
			if x[ed.Left] == 0 && v != 0 {
				t.Fatalf("%s: idle port %d got %v", name, ed.Left, v)
			}
			used[ed.Right*K+k] += v
		}
	}
	for r := 0; r < p.NumNodes(); r++ {
		for k := 0; k < K; k++ {
			if used[r*K+k] > p.Capacity[r][k]*(1+1e-12)+1e-12 {
				t.Fatalf("%s: (6) violated at node %d type %d: %v > %v", name, r, k, used[r*K+k], p.Capacity[r][k])
			}
		}
	}
}

func TestOGASchedBaselinesFeasibleEverySlot(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 4; trial++ {
		cfg := ogasched.DefaultConfig()
		cfg.Ports, cfg.Nodes = 6, 20
		cfg.Contention = float64(5 + 10*trial)
		p, err := ogasched.Generate(cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := ogasched.BernoulliTrace(p.NumPorts(), 100, 0.7, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range ogaPolicies(p) {
			for s, x := range tr.Arrivals {
				if s%3 == 0 {
					x[s%len(x)] = 2 // multiple arrivals
				}
				y, err := pol.Decide(s, x)
				if err != nil {
					t.Fatal(err)
				}
				ogaCheckFeasible(t, pol.Name(), p, x, y)
			}
		}
	}
}

// ogaTiny: 2 ports, 2 nodes, K = 1, complete graph; demands 3 and 1;
// capacities 2 and 8.
func ogaTiny(t *testing.T) *ogasched.Problem {
	u, _ := utility.New(utility.Log, 1)
	p, err := ogasched.NewProblem(bipartite.Complete(2, 2), [][]float64{{3}, {1}}, [][]float64{{2}, {8}},
		[][]utility.Utility{{u}, {u}}, []float64{0.5})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestOGASchedBaselinesHandInstance(t *testing.T) {
	p := ogaTiny(t)
	x := []float64{1, 1}
	// Edges (0,0),(0,1),(1,0),(1,1). Dominant shares: port 0 3/10, port 1
	// 1/10, so DRF serves port 1 first: y(1,0) = 1, y(1,1) = 1, then
	// port 0: y(0,0) = min(3, 2-1) = 1, y(0,1) = 3.
	cases := []struct {
		pol  bipartite.OnlinePolicy[[]float64, []float64]
		want []float64
	}{
		{baselines.NewDRF(p), []float64{1, 3, 1, 1}},
		// Node 0: shares 3/4, 1/4 of 2 -> 1.5, 0.5; node 1: 6 -> cap 3, 2 -> cap 1.
		{baselines.NewFairness(p), []float64{1.5, 3, 0.5, 1}},
		// Port 0's pod (demand 3) fits only node 1 (score (0+3)/8);
		// port 1's pod: node 0 scores 1/2, node 1 (3+1)/8 = 1/2: tie -> node 0.
		{baselines.NewBinPacking(p), []float64{0, 3, 1, 0}},
		// Spreading: port 1 on the least allocated: tie again -> node 0.
		{baselines.NewSpreading(p), []float64{0, 3, 1, 0}},
	}
	for _, c := range cases {
		y, err := c.pol.Decide(0, x)
		if err != nil {
			t.Fatal(err)
		}
		for i := range y {
			if math.Abs(y[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: y = %v, want %v", c.pol.Name(), y, c.want)
				break
			}
		}
	}
}

func TestBinPackingPrefersMostAllocated(t *testing.T) {
	// 2 ports, 2 nodes of capacity 10; port 0 only on node 0 (demand 4);
	// port 1 on both (demand 1). After port 0, node 0 is 40% used, so
	// BINPACKING puts port 1 there, SPREADING on node 1.
	g, err := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}, {Left: 1, Right: 1}})
	if err != nil {
		t.Fatal(err)
	}
	u, _ := utility.New(utility.Linear, 1)
	p, err := ogasched.NewProblem(g, [][]float64{{4}, {1}}, [][]float64{{10}, {10}}, [][]utility.Utility{{u}, {u}}, []float64{0.3})
	if err != nil {
		t.Fatal(err)
	}
	y, _ := baselines.NewBinPacking(p).Decide(0, []float64{1, 1})
	if y[1] != 1 || y[2] != 0 {
		t.Errorf("BINPACKING y = %v, want port 1 on node 0", y)
	}
	y, _ = baselines.NewSpreading(p).Decide(0, []float64{1, 1})
	if y[1] != 0 || y[2] != 1 {
		t.Errorf("SPREADING y = %v, want port 1 on node 1", y)
	}
}

func TestOGASchedBaselinesRejectBadArrivals(t *testing.T) {
	p := ogaTiny(t)
	for _, pol := range ogaPolicies(p) {
		if _, err := pol.Decide(0, []float64{1}); err == nil {
			t.Errorf("%s: short x accepted", pol.Name())
		}
		if _, err := pol.Decide(0, []float64{math.NaN(), 1}); err == nil {
			t.Errorf("%s: NaN accepted", pol.Name())
		}
	}
}
