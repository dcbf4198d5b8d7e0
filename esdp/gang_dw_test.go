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
// and its rounding and its dive find better placements.
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
	rounded := make([]int, len(oracles))
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
		if o.dw.rounded {
			rounded[k]++
		}
		if o.dw.branched {
			branched[k]++
			if k == 1 && o.dw.dived && deep == nil {
				deep = p
			}
		}
	})
	t.Logf("%d instances: the column generation ran on %d and %d, proved the optimum on %d and %d; the rounding improved the incumbent on %d and %d, the dive found a placement on %d and %d, price and branch on %d and %d",
		n, ran[0], ran[1], proved[0], proved[1], rounded[0], rounded[1], dived[0], dived[1], branched[0], branched[1])
	for k := range oracles {
		require.Greater(t, ran[k], n/10, "oracle %d", k)
		require.Greater(t, proved[k], ran[k]/50, "oracle %d", k)
	}
	require.Greater(t, rounded[1], n/100)
	require.Greater(t, dived[1], n/100)
	require.Greater(t, branched[1], n/200) // fewer since the rounding finds many first
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

// TestGangDWFixBounds checks dwFix's bounds against every feasible
// placement, enumerated, on contended and exact-sum instances: each
// channel's bound (o.ldub) is at least the value of every placement
// that uses it, and the search's node bound at a complete placement
// (each server's min(B_r, λ_i + B_r(a_c)) over its channels, each job's
// t_l less the π of its unplaced components when served) is at least
// its value. The second oracle starts from the rounding's weaker
// incumbent, so that more solves reach dwFix.
func TestGangDWFixBounds(t *testing.T) {
	n := 2000 / gangTestScale
	if testing.Short() {
		n = 200
	}
	oracles := []*GangOracle{
		{Settings: GangOracleSettings{Method: GangExact}, testDW: true},
		{Settings: GangOracleSettings{Method: GangExact}, testDW: true, testNoImprove: true},
	}
	rng := rand.New(rand.NewPCG(53, 59))
	ran, checked := 0, 0
	for it := 0; it < n; it++ {
		p := alternateGangKnapsack(t, rng, it)
		m := p.Channels.Model()
		x := make([]int, m.NumComponents())
		for k, o := range oracles {
			_, err := o.Solve(x, p)
			require.NoError(t, err)
			if !o.dw.fixRan {
				continue
			}
			ran++
			dw := &o.dw
			var e gangEnum
			e.visit = func(pl []int, v float64) {
				checked++
				tol := 1e-9 * max(1, math.Abs(v))
				srv := append([]float64(nil), dw.srvB[:m.NumServers()]...)
				for c, r := range pl {
					if r < 0 {
						continue
					}
					i, ok := p.Channels.Channel(c, r)
					require.True(t, ok)
					require.GreaterOrEqual(t, o.ldub[i], v-tol, "instance %d oracle %d: channel %d's bound", it, k, i)
					srv[r] = min(srv[r], dw.chanB[i])
				}
				b := 0.0
				for _, v := range srv {
					b += v
				}
				for l := 0; l < m.NumJobs(); l++ {
					lo, hi := m.Components(l)
					if !p.Arrived[l] || dw.jobRow[l] < 0 {
						continue
					}
					served, u := false, 0.0
					for c := lo; c < hi; c++ {
						if pl[c] >= 0 {
							served = true
						} else {
							u += dw.compPi[c]
						}
					}
					if served {
						b += dw.jobT[l] - u
					}
				}
				require.GreaterOrEqual(t, b, v-tol, "instance %d oracle %d: the node bound of a placement", it, k)
			}
			e.solve(p)
		}
	}
	t.Logf("%d instances: dwFix ran %d times, %d placements checked", n, ran, checked)
	require.Greater(t, ran, n/20)
}
