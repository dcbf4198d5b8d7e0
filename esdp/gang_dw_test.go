package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

// TestGangColGenBruteForce checks the column generation against
// exhaustive enumeration on contended and exact-sum instances: every
// bound it computes is at least the optimum, every placement it keeps
// (the master's integral optimum, or the dive's) passes GangModel.Check,
// and a solve it ends (its proof) is at the optimum. The second oracle
// starts it from the rounding's weaker incumbent, so that its master
// and its dive find better placements.
func TestGangColGenBruteForce(t *testing.T) {
	n := 4000 / gangTestScale
	if testing.Short() {
		n = 300
	}
	oracles := []*GangOracle{
		{Settings: GangOracleSettings{Method: GangExact}, testDW: true},
		{Settings: GangOracleSettings{Method: GangExact}, testDW: true, testNoImprove: true},
	}
	ran := make([]int, len(oracles))
	proved := make([]int, len(oracles))
	dived := make([]int, len(oracles))
	branched := make([]int, len(oracles))
	var deep *GangKnapsack // an instance where oracle 1 dived and branched
	requireExactBruteForce(t, rand.New(rand.NewPCG(41, 43)), n, oracles, func(k int, o *GangOracle, p *GangKnapsack, want float64) {
		if !o.dw.ran {
			return
		}
		ran[k]++
		require.GreaterOrEqual(t, o.dw.bound, want-1e-9*max(1, math.Abs(want)), "oracle %d: the column generation's bound", k)
		if o.dw.proved {
			proved[k]++
		}
		if o.dw.dived {
			dived[k]++
		}
		if o.dw.branched {
			branched[k]++
			if k == 1 && o.dw.dived && deep == nil {
				deep = p
			}
		}
	})
	t.Logf("%d instances: the column generation ran on %d and %d, proved the optimum on %d and %d; the dive found a placement on %d and %d, price and branch on %d and %d",
		n, ran[0], ran[1], proved[0], proved[1], dived[0], dived[1], branched[0], branched[1])
	for k := range oracles {
		require.Greater(t, ran[k], n/10, "oracle %d", k)
		require.Greater(t, proved[k], ran[k]/50, "oracle %d", k)
	}
	require.Greater(t, dived[1], n/100)
	require.Greater(t, branched[1], n/100)
	// nothing allocated once the buffers have grown
	require.NotNil(t, deep)
	x := make([]int, deep.Channels.Model().NumComponents())
	require.Zero(t, testing.AllocsPerRun(3, func() { _, _ = oracles[1].Solve(x, deep) }))
}

// TestGangColGenCapacityRule: the class form's patterns (the pricing)
// take the capacities with ldSlack, above bipartite's rule; a pattern
// that fits only with that slack must not become a placement. One
// server of capacity 1, two one-component jobs of demands 0.5 and
// 0.5(1+3e-9): together 1 + 1.5e-9, over FitLimit(1) = 1 +
// 1e-9 but within ldSlack; the optimum serves one. Dropping the
// capacity check of dwPlacement fails it.
func TestGangColGenCapacityRule(t *testing.T) {
	p := oneServerKnapsack(t, 1, []int{1, 1}, []float64{0.5}, []float64{0.5 * (1 + 3e-9)})
	require.False(t, bipartite.Fits(0.5+0.5*(1+3e-9), 1))
	require.LessOrEqual(t, 0.5+0.5*(1+3e-9), ldSlack(bipartite.FitLimit(1)))
	for _, noImprove := range []bool{false, true} {
		o := &GangOracle{Settings: GangOracleSettings{Method: GangExact}, testDW: true, testNoImprove: noImprove}
		x := make([]int, 2)
		r, err := o.Solve(x, p)
		require.NoError(t, err)
		require.Equal(t, 1.0, gangValue(t, p, x))
		require.Equal(t, 1.0, r.Value)
		require.GreaterOrEqual(t, r.Bound, 1.0)
	}
}
