package baselines_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
	"github.com/stretchr/testify/require"
)

func ogaPolicies(t *testing.T, p *ogasched.Problem) []ogasched.OnlinePolicy {
	t.Helper()
	var pols []ogasched.OnlinePolicy
	for _, name := range baselines.OGASchedBaselineNames {
		pol, err := baselines.NewOGASchedBaseline(name, p)
		require.NoError(t, err, name)
		pols = append(pols, pol)
	}
	return pols
}

// ogaMust returns the policy of a constructor, failing the test on error.
func ogaMust[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
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
		for _, pol := range ogaPolicies(t, p) {
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
func ogaTiny(t testing.TB) *ogasched.Problem {
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
		pol  ogasched.OnlinePolicy
		want []float64
	}{
		{ogaMust[*baselines.DRF](t)(baselines.NewDRF(p, baselines.DRFSettings{})), []float64{1, 3, 1, 1}},
		// Node 0: shares 3/4, 1/4 of 2 -> 1.5, 0.5; node 1: 6 -> cap 3, 2 -> cap 1.
		{ogaMust[*baselines.Fairness](t)(baselines.NewFairness(p, baselines.FairnessSettings{})), []float64{1.5, 3, 0.5, 1}},
		// Port 0's pod (demand 3) fits only node 1 (score (0+3)/8);
		// port 1's pod: node 0 scores 1/2, node 1 (3+1)/8 = 1/2: tie -> node 0.
		{ogaMust[*baselines.BinPacking](t)(baselines.NewBinPackingPod(p, baselines.BinPackingSettings{})), []float64{0, 3, 1, 0}},
		// Spreading: port 1 on the least allocated: tie again -> node 0.
		{ogaMust[*baselines.BinPacking](t)(baselines.NewSpreadingPod(p, baselines.BinPackingSettings{})), []float64{0, 3, 1, 0}},
		// Fractional: port 0 first (index order) takes min(3, 2) on node 0
		// and 3 on node 1; port 1 gets min(1, 0) and min(1, 5).
		{ogaMust[*baselines.BinPacking](t)(baselines.NewBinPacking(p, baselines.BinPackingSettings{})), []float64{2, 3, 0, 1}},
		{ogaMust[*baselines.BinPacking](t)(baselines.NewSpreading(p, baselines.BinPackingSettings{})), []float64{2, 3, 0, 1}},
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
	y, _ := ogaMust[*baselines.BinPacking](t)(baselines.NewBinPackingPod(p, baselines.BinPackingSettings{})).Decide(0, []float64{1, 1})
	if y[1] != 1 || y[2] != 0 {
		t.Errorf("BINPACKING-pod y = %v, want port 1 on node 0", y)
	}
	y, _ = ogaMust[*baselines.BinPacking](t)(baselines.NewSpreadingPod(p, baselines.BinPackingSettings{})).Decide(0, []float64{1, 1})
	if y[1] != 0 || y[2] != 1 {
		t.Errorf("SPREADING-pod y = %v, want port 1 on node 1", y)
	}
}

func TestOGASchedBaselinesRejectBadArrivals(t *testing.T) {
	p := ogaTiny(t)
	for _, pol := range ogaPolicies(t, p) {
		if _, err := pol.Decide(0, []float64{1}); err == nil {
			t.Errorf("%s: short x accepted", pol.Name())
		}
		if _, err := pol.Decide(0, []float64{math.NaN(), 1}); err == nil {
			t.Errorf("%s: NaN accepted", pol.Name())
		}
	}
}

// The fractional BINPACKING and SPREADING visit a port's nodes in opposite
// orders, but (5) caps each edge separately, so they must coincide on every
// instance; and both must equal an independent reading: ports in index
// order, each edge filled with min(a_l^k, remaining c_r^k).
func TestFractionalBinPackingSpreadingCoincide(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := 0; trial < 5; trial++ {
		cfg := ogasched.DefaultConfig()
		cfg.Ports, cfg.Nodes = 5, 12
		cfg.Contention = float64(5 + 10*trial)
		p, err := ogasched.Generate(cfg, rng)
		require.NoError(t, err)
		tr, err := ogasched.BernoulliTrace(p.NumPorts(), 30, 0.7, rng)
		require.NoError(t, err)
		bp, sp := ogaMust[*baselines.BinPacking](t)(baselines.NewBinPacking(p, baselines.BinPackingSettings{})), ogaMust[*baselines.BinPacking](t)(baselines.NewSpreading(p, baselines.BinPackingSettings{}))
		g, K := p.Graph, p.K
		for s, x := range tr.Arrivals {
			yb, err := bp.Decide(s, x)
			require.NoError(t, err)
			ys, err := sp.Decide(s, x)
			require.NoError(t, err)
			require.Equal(t, yb, ys)
			rem := make([]float64, p.NumNodes()*K)
			for r := range p.Capacity {
				copy(rem[r*K:], p.Capacity[r])
			}
			want := make([]float64, p.Dim())
			for l := range x {
				if x[l] == 0 {
					continue
				}
				for _, e := range g.LeftEdges(l) {
					r := g.Edge(e).Right
					for k := 0; k < K; k++ {
						v := math.Min(p.Demand[l][k], rem[r*K+k])
						want[e*K+k] = v
						rem[r*K+k] -= v
					}
				}
			}
			require.Equal(t, want, yb)
		}
	}
}

// The fractional baselines land next to DRF on the Table II instance while
// the whole-pod placement gets almost nothing (issue 11.2).
func TestFractionalBaselinesNearDRF(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	p, err := ogasched.Generate(ogasched.DefaultConfig(), rng)
	require.NoError(t, err)
	tr, err := ogasched.BernoulliTrace(p.NumPorts(), 100, 0.7, rng)
	require.NoError(t, err)
	res, err := ogasched.Run(p, tr, []ogasched.OnlinePolicy{
		ogaMust[*baselines.DRF](t)(baselines.NewDRF(p, baselines.DRFSettings{})), ogaMust[*baselines.BinPacking](t)(baselines.NewBinPacking(p, baselines.BinPackingSettings{})), ogaMust[*baselines.BinPacking](t)(baselines.NewBinPackingPod(p, baselines.BinPackingSettings{}))}, ogasched.RunSettings{CheckTol: 1e-9})
	require.NoError(t, err)
	drf, frac, pod := res.Series[0].Total, res.Series[1].Total, res.Series[2].Total
	require.InEpsilon(t, drf, frac, 0.1, "fractional BINPACKING %v vs DRF %v", frac, drf)
	require.Less(t, pod, 0.1*drf, "pod BINPACKING %v vs DRF %v", pod, drf)
}

func TestOGASchedBaselinesNilAndUnknown(t *testing.T) {
	for _, name := range baselines.OGASchedBaselineNames {
		_, err := baselines.NewOGASchedBaseline(name, nil)
		require.ErrorIs(t, err, ogasched.ErrDimension, name)
	}
	_, err := baselines.NewOGASchedBaseline("LOTTERY", ogaTiny(t))
	require.ErrorIs(t, err, ogasched.ErrSettings)
	for _, c := range []func(*ogasched.Problem) error{
		func(p *ogasched.Problem) error { _, err := baselines.NewDRF(p, baselines.DRFSettings{}); return err },
		func(p *ogasched.Problem) error {
			_, err := baselines.NewFairness(p, baselines.FairnessSettings{})
			return err
		},
		func(p *ogasched.Problem) error {
			_, err := baselines.NewBinPacking(p, baselines.BinPackingSettings{})
			return err
		},
		func(p *ogasched.Problem) error {
			_, err := baselines.NewSpreading(p, baselines.BinPackingSettings{})
			return err
		},
		func(p *ogasched.Problem) error {
			_, err := baselines.NewBinPackingPod(p, baselines.BinPackingSettings{})
			return err
		},
		func(p *ogasched.Problem) error {
			_, err := baselines.NewSpreadingPod(p, baselines.BinPackingSettings{})
			return err
		},
	} {
		require.ErrorIs(t, c(nil), ogasched.ErrDimension)
		require.ErrorIs(t, c(&ogasched.Problem{}), ogasched.ErrDimension)
		bad := *ogaTiny(t)
		bad.Beta = []float64{2}
		require.ErrorIs(t, c(&bad), ogasched.ErrValue)
	}
}

func TestOGASchedBaselinesHostileArrivals(t *testing.T) {
	p := ogaTiny(t)
	cases := []struct {
		name string
		t    int
		x    []float64
		err  error
	}{
		{"short", 0, []float64{1}, ogasched.ErrDimension},
		{"long", 0, []float64{1, 1, 1}, ogasched.ErrDimension},
		{"nil", 0, nil, ogasched.ErrDimension},
		{"NaN", 0, []float64{math.NaN(), 1}, ogasched.ErrValue},
		{"+Inf", 0, []float64{1, math.Inf(1)}, ogasched.ErrValue},
		{"negative", 0, []float64{-1, 1}, ogasched.ErrValue},
		{"huge", 0, []float64{1e300, 1}, ogasched.ErrValue},
		{"negative slot", -1, []float64{1, 1}, ogasched.ErrSlot},
	}
	for _, pol := range ogaPolicies(t, p) {
		for _, c := range cases {
			_, err := pol.Decide(c.t, c.x)
			require.ErrorIs(t, err, c.err, "%s: %s", pol.Name(), c.name)
		}
		// Slots increase from one Decide to the next; gaps are allowed.
		_, err := pol.Decide(3, []float64{1, 1})
		require.NoError(t, err, pol.Name())
		for _, s := range []int{3, 2, 0} {
			_, err := pol.Decide(s, []float64{1, 1})
			require.ErrorIs(t, err, ogasched.ErrSlot, "%s: Decide(%d) after Decide(3)", pol.Name(), s)
		}
		// Many arrivals of one port: the pod variants place at most one pod
		// per node and return at once.
		y, err := pol.Decide(math.MaxInt, []float64{1e15, 1e15})
		require.NoError(t, err, pol.Name())
		ogaCheckFeasible(t, pol.Name(), p, []float64{1, 1}, y)
	}
}

// BenchmarkOGASchedRun times ogasched.Run of one policy over 500 slots of
// the large instance (|L| = 100, |R| = 1024, K = 6; examples/ogasched
// -preset large runs 10 000), reward included: OGASched (step (53)) and
// each fractional baseline (benchstat -col /policy).
func BenchmarkOGASchedRun(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	p, err := ogasched.Generate(ogasched.LargeConfig(), rng)
	require.NoError(b, err)
	tr, err := ogasched.BernoulliTrace(p.NumPorts(), 500, 0.7, rng)
	require.NoError(b, err)
	for _, name := range []string{"OGASched", "DRF", "FAIRNESS", "BINPACKING", "SPREADING"} {
		b.Run("policy="+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var pol ogasched.OnlinePolicy
				if name == "OGASched" {
					o, err := ogasched.New(p, ogasched.Settings{Horizon: 10000})
					require.NoError(b, err)
					pol = o
				} else {
					bl, err := baselines.NewOGASchedBaseline(name, p)
					require.NoError(b, err)
					pol = bl
				}
				if _, err := ogasched.Run(p, tr, []ogasched.OnlinePolicy{pol}, ogasched.RunSettings{}); err != nil {
					b.Fatal(err)
				}
				if o, ok := pol.(*ogasched.Policy); ok {
					o.Close()
				}
			}
		})
	}
}
