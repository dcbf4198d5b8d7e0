package ogasched

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// TestDecisionsFeasibleAtValueLimits is issue 22 class 3: with a step of
// 1e15 and arrivals of 1e15 (MaxValue) the gradient step reaches 1e30 and
// the projection's rounding gave capacity 2, allocated 3. Every decision
// now satisfies (5) and (6) within FeasibilityTol, across demands,
// capacities, arrivals and steps up to the documented limits, for the exact
// and the paper's projection.
func TestDecisionsFeasibleAtValueLimits(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	kinds := []utility.Kind{utility.Linear, utility.Log, utility.Reciprocal}
	for it := 0; it < 300; it++ {
		ports, nodes, K := 1+rng.IntN(12), 1+rng.IntN(4), 1+rng.IntN(3)
		g := bipartite.Complete(ports, nodes)
		mag := func() float64 {
			return []float64{1, 2, 1e-3, 1e6, 1e15, MaxValue}[rng.IntN(6)] * (0.5 + rng.Float64()/2)
		}
		demand := make([][]float64, ports)
		for l := range demand {
			demand[l] = make([]float64, K)
			for k := range demand[l] {
				demand[l][k] = mag()
			}
		}
		capacity := make([][]float64, nodes)
		util := make([][]utility.Utility, nodes)
		for r := range capacity {
			capacity[r] = make([]float64, K)
			util[r] = make([]utility.Utility, K)
			for k := range capacity[r] {
				capacity[r][k] = []float64{2, 1, 1e-3, 1e6, MaxValue}[rng.IntN(5)]
				util[r][k] = mustU(t, kinds[rng.IntN(len(kinds))], 1+rng.Float64())
			}
		}
		beta := make([]float64, K)
		for k := range beta {
			beta[k] = 0.3 + 0.2*rng.Float64()
		}
		p, err := NewProblem(g, demand, capacity, util, beta)
		require.NoError(t, err)
		eta := []float64{1, 1e6, 1e15}[rng.IntN(3)]
		pol, err := New(p, Settings{Step: Constant(eta), PaperProjection: it%4 == 3})
		require.NoError(t, err)
		x := make([]float64, ports)
		for s := 0; s < 6; s++ {
			for l := range x {
				x[l] = []float64{0, 1, 1e15, MaxValue}[rng.IntN(4)]
			}
			y, err := pol.Decide(s, x)
			require.NoError(t, err)
			require.NoError(t, pol.feasible(y), "it %d slot %d eta %g", it, s, eta)
			if err := pol.Observe(s, x); err != nil {
				require.ErrorIs(t, err, ErrValue) // an overflowing step is refused, the policy unchanged
			}
			require.NoError(t, pol.feasible(pol.Y()), "it %d after slot %d eta %g", it, s, eta)
			if !pol.paper { // the paper's projection may break (5) by design
				require.NoError(t, p.Feasible(pol.Y(), FeasibilityTol*p.scale()), "it %d after slot %d eta %g", it, s, eta)
			}
		}
		pol.Close()
	}
}

// TestIssue22InfeasibleCase is the issue's exact case: capacity 2, a step of
// 1e15 and arrivals of 1e15.
func TestIssue22InfeasibleCase(t *testing.T) {
	g := bipartite.Complete(3, 1)
	u := mustU(t, utility.Linear, 1)
	p, err := NewProblem(g, [][]float64{{1.5}, {1.25}, {1}}, [][]float64{{2}}, [][]utility.Utility{{u}}, []float64{0.5})
	require.NoError(t, err)
	for _, paper := range []bool{false, true} {
		pol, err := New(p, Settings{Step: Constant(1e15), PaperProjection: paper})
		require.NoError(t, err)
		x := []float64{1e15, 3e14, 1e15}
		for s := 0; s < 4; s++ {
			_, err := pol.Decide(s, x)
			require.NoError(t, err)
			require.NoError(t, pol.Observe(s, x))
			require.NoError(t, pol.feasible(pol.Y()))
			sum := 0.0
			for _, v := range pol.Y() {
				sum += v
			}
			require.LessOrEqual(t, sum, 2+FeasibilityTol*p.scale(), "paper %v slot %d: %v", paper, s, pol.Y())
		}
		pol.Close()
	}
}

// TestNilRandErrors is issue 22 class 4: a nil *rand.Rand is an error.
func TestNilRandErrors(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := Generate(DefaultConfig(), nil)
		require.ErrorIs(t, err, ErrSettings)
		_, err = BernoulliTrace(2, 3, 0.5, nil)
		require.ErrorIs(t, err, ErrSettings)
	})
}
