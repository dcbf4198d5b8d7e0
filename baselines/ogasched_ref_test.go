package baselines_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/ogasched"
	"github.com/stretchr/testify/require"
)

// decideFractionalSorted is the fractional BINPACKING / SPREADING of the
// documentation, literally: port by port in index order, each port visits
// its nodes sorted by score = mean over types with c > 0 of used/c before
// the port (descending for BINPACKING, ascending for SPREADING, ties by
// node index) and takes min(a_l^k, remaining c_r^k) on each.
func decideFractionalSorted(p *ogasched.Problem, spread bool, x []float64) (y []float64, permuted bool) {
	g, K := p.Graph, p.K
	rem := make([]float64, p.NumNodes()*K)
	for r := range p.Capacity {
		copy(rem[r*K:], p.Capacity[r])
	}
	y = make([]float64, p.Dim())
	score := make([]float64, p.NumNodes())
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		nodes := slices.Clone(g.LeftEdges(l))
		for _, e := range nodes {
			r := g.Edge(e).Right
			s, n := 0.0, 0
			for k := 0; k < K; k++ {
				if c := p.Capacity[r][k]; c > 0 {
					s += (c - rem[r*K+k]) / c
					n++
				}
			}
			if n > 0 {
				s /= float64(n)
			}
			score[r] = s
		}
		slices.SortStableFunc(nodes, func(e, f int) int {
			se, sf := score[g.Edge(e).Right], score[g.Edge(f).Right]
			if spread {
				se, sf = sf, se
			}
			switch {
			case se > sf:
				return -1
			case se < sf:
				return 1
			}
			return 0
		})
		permuted = permuted || !slices.IsSorted(nodes)
		for _, e := range nodes {
			r := g.Edge(e).Right
			for k := 0; k < K; k++ {
				v := math.Min(p.Demand[l][k], rem[r*K+k])
				y[e*K+k] = v
				rem[r*K+k] -= v
			}
		}
	}
	return y, permuted
}

// fairnessRef is FAIRNESS written type by type, node by node, as in its
// documentation.
func fairnessRef(p *ogasched.Problem, x []float64) []float64 {
	g, K := p.Graph, p.K
	y := make([]float64, p.Dim())
	for r := 0; r < g.NumRight(); r++ {
		for k := 0; k < K; k++ {
			sum := 0.0
			for _, e := range g.RightEdges(r) {
				if l := g.Edge(e).Left; x[l] > 0 {
					sum += p.Demand[l][k]
				}
			}
			if sum == 0 {
				continue
			}
			for _, e := range g.RightEdges(r) {
				if l := g.Edge(e).Left; x[l] > 0 {
					a := p.Demand[l][k]
					y[e*K+k] = math.Min(a, p.Capacity[r][k]*a/sum)
				}
			}
		}
	}
	return y
}

// TestBaselinesMatchLiteralReadings: the fast FAIRNESS, BINPACKING and
// SPREADING equal the literal readings above bit for bit, on instances from
// sparse to dense and from loose to heavy contention (the sorted visits
// differ there from the index order, so the test would see an order that
// mattered).
func TestBaselinesMatchLiteralReadings(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	orderMattered := false
	for trial := 0; trial < 12; trial++ {
		cfg := ogasched.DefaultConfig()
		cfg.Ports, cfg.Nodes = 3+rng.IntN(12), 4+rng.IntN(30)
		cfg.EdgeProb = 0.1 + 0.8*rng.Float64()
		cfg.Contention = 1 + 30*rng.Float64()
		p, err := ogasched.Generate(cfg, rng)
		require.NoError(t, err)
		tr, err := ogasched.BernoulliTrace(p.NumPorts(), 20, 0.3+0.6*rng.Float64(), rng)
		require.NoError(t, err)
		fair := ogaMust[*baselines.Fairness](t)(baselines.NewFairness(p, baselines.FairnessSettings{}))
		bp := ogaMust[*baselines.BinPacking](t)(baselines.NewBinPacking(p, baselines.BinPackingSettings{}))
		sp := ogaMust[*baselines.BinPacking](t)(baselines.NewSpreading(p, baselines.BinPackingSettings{}))
		for s, x := range tr.Arrivals {
			y, err := fair.Decide(s, x)
			require.NoError(t, err)
			requireBits(t, fairnessRef(p, x), y, "FAIRNESS trial %d slot %d", trial, s)
			for _, c := range []struct {
				pol    *baselines.BinPacking
				spread bool
			}{{bp, false}, {sp, true}} {
				y, err := c.pol.Decide(s, x)
				require.NoError(t, err)
				want, permuted := decideFractionalSorted(p, c.spread, x)
				requireBits(t, want, y, "%s trial %d slot %d", c.pol.Name(), trial, s)
				orderMattered = orderMattered || permuted
			}
		}
	}
	require.True(t, orderMattered, "no slot visited its nodes out of index order: the test would not see an order that mattered")
}

func requireBits(t *testing.T, want, got []float64, msg string, args ...any) {
	t.Helper()
	require.Equal(t, len(want), len(got))
	for i := range want {
		if math.Float64bits(want[i]) != math.Float64bits(got[i]) {
			require.Failf(t, "bits differ", "index %d: want %v, got %v; "+msg, append([]any{i, want[i], got[i]}, args...)...)
		}
	}
}
