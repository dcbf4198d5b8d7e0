package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// TestGangLDFixBruteForce checks the class-form decomposition's bound,
// reduced-cost fixing and node bound (gang_ldfix.go) against exhaustive
// enumeration: GangExact with the enumerated decomposition left out
// (testClassLD), so that they run on small instances, from the improved
// incumbent and from the rounding's (testNoImprove), on contended
// instances (contendedGangKnapsack) and on instances built to sum exactly
// (exactSumKnapsack). Every solve must be Optimal at the enumerated
// optimum with a bound at least it, and the fixing must fix channels
// out on some of them.
func TestGangLDFixBruteForce(t *testing.T) {
	n := 2000 / gangTestScale
	if testing.Short() {
		n = 200
	}
	oracles := []*GangOracle{
		{Settings: GangOracleSettings{Method: GangExact}, testClassLD: true},
		{Settings: GangOracleSettings{Method: GangExact}, testClassLD: true, testNoImprove: true},
	}
	fixedOn := make([]int, len(oracles))
	requireExactBruteForce(t, rand.New(rand.NewPCG(31, 7)), 2*n, oracles, func(k int, o *GangOracle, _ *GangKnapsack, _ float64) {
		if o.fixed > 0 {
			fixedOn[k]++
		}
	})
	t.Logf("%d instances: channels fixed out on %d (from the improved incumbent) and %d (from the rounding's)", 2*n, fixedOn[0], fixedOn[1])
	for k := range oracles {
		require.Greater(t, fixedOn[k], n/10, "the fixing fixes too rarely for the test to check it (oracle %d)", k)
	}
}

// alternateGangKnapsack draws instance it of a brute-force test: a
// contended one (contendedGangKnapsack) for even it, one built to sum
// exactly (exactSumKnapsack) for odd.
func alternateGangKnapsack(t testing.TB, rng *rand.Rand, it int) *GangKnapsack {
	if it%2 == 0 {
		return contendedGangKnapsack(t, rng)
	}
	return exactSumKnapsack(t, rng)
}

// requireExactBruteForce solves n instances, contended
// (contendedGangKnapsack) and built to sum exactly (exactSumKnapsack) in
// turn, with each oracle (GangExact, test knobs as they are) and requires
// every solve Optimal at the enumerated optimum, its placement's value
// the one returned and its bound at least the optimum; after each solve
// it calls visit with the oracle's index, the oracle, the instance and
// its enumerated optimum.
func requireExactBruteForce(t *testing.T, rng *rand.Rand, n int, oracles []*GangOracle, visit func(k int, o *GangOracle, p *GangKnapsack, want float64)) {
	t.Helper()
	var e gangEnum
	for it := 0; it < n; it++ {
		p := alternateGangKnapsack(t, rng, it)
		want := e.solve(p)
		tol := 1e-9 * max(1, math.Abs(want))
		x := make([]int, p.Channels.Model().NumComponents())
		for k, o := range oracles {
			r, err := o.Solve(x, p)
			require.NoError(t, err)
			require.Equal(t, Optimal, r.Status, "instance %d, oracle %d", it, k)
			got := gangValue(t, p, x)
			require.InDelta(t, want, got, tol, "instance %d, oracle %d", it, k)
			require.InDelta(t, got, r.Value, tol, "instance %d, oracle %d", it, k)
			require.GreaterOrEqual(t, r.Bound, want-tol, "instance %d, oracle %d", it, k)
			visit(k, o, p, want)
		}
	}
}

// TestGangFromPatterns checks the Lagrangian heuristic's construction on
// random patterns (each channel in or out at random, random lambda), on
// contended and exact-sum instances: the placement passes GangModel.Check
// (every job unplaced or with at least m_l components, every capacity
// under bipartite's rule) and its value is the one returned.
func TestGangFromPatterns(t *testing.T) {
	n := 3000 / gangTestScale
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(37, 11))
	placed := 0
	for it := 0; it < n; it++ {
		p := alternateGangKnapsack(t, rng, it)
		m := p.Channels.Model()
		o := &GangOracle{}
		o.grow(p.Channels)
		s := gangSolve{o: o, ch: p.Channels, p: p, K: m.K()}
		for r := 0; r < m.NumServers(); r++ {
			for k, c := range m.Capacity(r) {
				o.capv[r*s.K+k] = bipartite.FitLimit(c)
			}
		}
		for l := 0; l < m.NumJobs(); l++ {
			if p.Arrived[l] {
				s.active = append(s.active, l)
			}
		}
		N := p.Channels.Len()
		o.ld.lam = make([]float64, N)
		z := make([]int8, N)
		for i := range z {
			o.ld.lam[i] = rng.NormFloat64()
			if rng.IntN(2) == 0 {
				z[i] = 1
			}
		}
		v := s.fromPatterns(z)
		x := o.chosen[:m.NumComponents()]
		require.InDelta(t, gangValue(t, p, x), v, 1e-9, "instance %d", it)
		for _, r := range x {
			if r >= 0 {
				placed++
			}
		}
	}
	t.Logf("%d instances, %d components placed", n, placed)
	require.Greater(t, placed, n)
}
