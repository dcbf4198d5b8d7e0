package esdp

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/checked"
)

// randKnapsack draws n items, K types, demands in [1, dhi] (sometimes 0),
// capacities round(alpha sum_e a_k^e) (the CapacityAlpha scale), values
// uniform in [-0.2, 1) with ties, and sometimes a random Enabled mask.
func randKnapsack(rng *rand.Rand, n, K, dhi int, alpha float64) *Knapsack {
	p := &Knapsack{K: K, Demand: make([]int, n*K), Capacity: make([]int, K), Value: make([]float64, n)}
	for i := range p.Demand {
		p.Demand[i] = 1 + rng.IntN(dhi)
		if rng.IntN(20) == 0 {
			p.Demand[i] = 0
		}
	}
	for k := 0; k < K; k++ {
		sum := 0
		for e := 0; e < n; e++ {
			sum += p.Demand[e*K+k]
		}
		p.Capacity[k] = int(math.Round(alpha * float64(sum)))
	}
	for e := range p.Value {
		if rng.IntN(5) == 0 {
			p.Value[e] = float64(rng.IntN(3)) / 2 // ties
		} else {
			p.Value[e] = 1.2*rng.Float64() - 0.2
		}
	}
	if rng.IntN(3) == 0 {
		p.Enabled = make([]bool, n)
		for e := range p.Enabled {
			p.Enabled[e] = rng.IntN(4) != 0
		}
	}
	return p
}

// TestKnapsackMethodsMatchBruteForce: on thousands of instances with
// |E| <= 16, the DP, branch and bound and the automatic choice all reach
// the brute-force optimum with a feasible X.
func TestKnapsackMethodsMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 18))
	iters := 3000
	if testing.Short() {
		iters = 600
	}
	methods := []KnapsackMethod{KnapsackDP, KnapsackBranchBound, KnapsackAuto}
	oracles := make([]*Oracle, len(methods))
	for i, m := range methods {
		oracles[i] = NewOracle(OracleSettings{Knapsack: m})
	}
	for it := 0; it < iters; it++ {
		n, K := 1+rng.IntN(16), 1+rng.IntN(4)
		p := randKnapsack(rng, n, K, 1+rng.IntN(5), 0.1+0.8*rng.Float64())
		want := bruteKnapsack(p)
		for i, o := range oracles {
			r, err := o.SolveKnapsack(p)
			require.NoError(t, err)
			require.Equal(t, Optimal, r.Status)
			require.InDelta(t, want, r.Objective, 1e-9*(1+want), "instance %d, %v", it, methods[i])
			require.InDelta(t, r.Objective, r.Bound, 1e-9*(1+want))
			checkKnapsackX(t, p, r.X, r.Objective)
		}
	}
}

// TestBranchBoundMatchesDP: at the benchmark sizes (|E| up to 128, where
// brute force is out of reach) branch and bound equals the DP.
func TestBranchBoundMatchesDP(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 63))
	dp := NewOracle(OracleSettings{Knapsack: KnapsackDP})
	bb := NewOracle(OracleSettings{Knapsack: KnapsackBranchBound})
	sizes := []int{20, 28, 40, 63, 80}
	iters := 40
	if testing.Short() {
		iters = 8
	}
	for _, n := range sizes {
		for it := 0; it < iters; it++ {
			p := randKnapsack(rng, n, 3, 2, 0.2+0.6*rng.Float64())
			rd, err := dp.SolveKnapsack(p)
			require.NoError(t, err)
			rb, err := bb.SolveKnapsack(p)
			require.NoError(t, err)
			require.Equal(t, Optimal, rb.Status)
			require.InDelta(t, rd.Objective, rb.Objective, 1e-9*(1+rd.Objective), "n=%d it=%d", n, it)
			checkKnapsackX(t, p, rb.X, rb.Objective)
		}
	}
}

// TestBranchBoundNodeLimit: with a node budget too small, branch and bound
// returns a feasible incumbent, Status NodeLimit and a certified bound;
// KnapsackAuto falls back to the DP and is optimal; when the DP does not
// fit either, Auto returns the incumbent with NodeLimit.
func TestBranchBoundNodeLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	p := randKnapsack(rng, 60, 3, 2, 0.5)
	p.Enabled = nil
	ref, err := SolveKnapsack(p, OracleSettings{Knapsack: KnapsackDP})
	require.NoError(t, err)
	opt := ref.Objective

	r, err := SolveKnapsack(p, OracleSettings{Knapsack: KnapsackBranchBound, MaxNodes: 3})
	require.NoError(t, err)
	require.Equal(t, NodeLimit, r.Status)
	checkKnapsackX(t, p, r.X, r.Objective)
	require.LessOrEqual(t, r.Objective, opt+1e-9)
	require.GreaterOrEqual(t, r.Bound, opt-1e-9, "bound %v below the optimum %v", r.Bound, opt)

	r, err = SolveKnapsack(p, OracleSettings{MaxNodes: 3})
	require.NoError(t, err)
	require.Equal(t, Optimal, r.Status)
	require.Equal(t, KnapsackDP, r.Method)
	require.InDelta(t, opt, r.Objective, 1e-9)

	r, err = SolveKnapsack(p, OracleSettings{MaxNodes: 3, MaxBytes: 1 << 10})
	require.NoError(t, err)
	require.Equal(t, NodeLimit, r.Status)
	checkKnapsackX(t, p, r.X, r.Objective)
	require.GreaterOrEqual(t, r.Bound, opt-1e-9)

	_, err = SolveKnapsack(p, OracleSettings{Knapsack: KnapsackMethod(9)})
	require.ErrorIs(t, err, ErrSettings)
}

// TestBranchBoundHugeIntegers: branch and bound needs no table, so the
// coprime huge demands that the DP refuses are solved exactly.
func TestBranchBoundHugeIntegers(t *testing.T) {
	const M = math.MaxInt
	p := &Knapsack{K: 2, Demand: []int{M, M - 1, M - 1, 3, M / 2, M / 2, M / 3, M / 3}, Capacity: []int{M, M - 1}, Value: []float64{1, 2, 1.5, 1.6}}
	want := bruteKnapsack(p)
	for _, m := range []KnapsackMethod{KnapsackAuto, KnapsackBranchBound} {
		r, err := SolveKnapsack(p, OracleSettings{Knapsack: m})
		require.NoError(t, err, m)
		require.Equal(t, Optimal, r.Status)
		require.InDelta(t, want, r.Objective, 1e-12, m)
		checkKnapsackX(t, p, r.X, r.Objective)
	}
	_, err := SolveKnapsack(p, OracleSettings{Knapsack: KnapsackDP})
	saneTooLarge(t, err)
}

// benchKnapsack is the plain knapsack of the omniscient oracle at the
// CapacityAlpha scale: n channels, K = 3, demands in {1, 2}, capacities
// round(0.5 sum_e a_k^e), values uniform in [0, 1] (the expected
// normalised rewards).
func benchKnapsack(seed uint64, n int) *Knapsack {
	rng := rand.New(rand.NewPCG(seed, uint64(n)))
	p := &Knapsack{K: 3, Demand: make([]int, n*3), Capacity: make([]int, 3), Value: make([]float64, n)}
	for i := range p.Demand {
		p.Demand[i] = 1 + rng.IntN(2)
	}
	for k := 0; k < 3; k++ {
		sum := 0
		for e := 0; e < n; e++ {
			sum += p.Demand[e*3+k]
		}
		p.Capacity[k] = int(math.Round(0.5 * float64(sum)))
	}
	for e := range p.Value {
		p.Value[e] = rng.Float64()
	}
	return p
}

// BenchmarkKnapsack compares the DP and branch and bound (and the automatic
// choice) on the same instances, |E| = 28, 40, 63, 128 (issue 18; HiGHS
// MILP quoted at 0.76 ms for |E| ~ 40 and 2.29 ms for |E| ~ 63).
func BenchmarkKnapsack(b *testing.B) {
	for _, n := range []int{28, 40, 63, 128} {
		for _, m := range []KnapsackMethod{KnapsackDP, KnapsackBranchBound, KnapsackAuto} {
			b.Run(fmt.Sprintf("n=%d/method=%v", n, m), func(b *testing.B) {
				ps := make([]*Knapsack, 8)
				for i := range ps {
					ps[i] = benchKnapsack(uint64(i+1), n)
				}
				o := NewOracle(OracleSettings{Knapsack: m})
				if m == KnapsackDP && n > 64 {
					b.Skip("DP tables beyond a few hundred MiB")
				}
				var nodes int64
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					r, err := o.SolveKnapsack(ps[i%len(ps)])
					if err != nil {
						b.Fatal(err)
					}
					nodes += r.Nodes
					i++
				}
				b.ReportMetric(float64(nodes)/float64(i), "nodes/op")
			})
		}
	}
}

// BenchmarkKnapsackTable2 is the omniscient oracle's knapsack under Table 2
// capacities (c_k in {1, 2}), where KnapsackAuto picks the DP: it checks
// that choice against branch and bound.
func BenchmarkKnapsackTable2(b *testing.B) {
	for _, n := range []int{35, 128} {
		for _, m := range []KnapsackMethod{KnapsackDP, KnapsackBranchBound, KnapsackAuto} {
			b.Run(fmt.Sprintf("n=%d/method=%v", n, m), func(b *testing.B) {
				ps := make([]*Knapsack, 8)
				for i := range ps {
					ps[i] = benchKnapsack(uint64(i+1), n)
					rng := rand.New(rand.NewPCG(uint64(i), 2))
					for k := range ps[i].Capacity {
						ps[i].Capacity[k] = 1 + rng.IntN(2)
					}
				}
				o := NewOracle(OracleSettings{Knapsack: m})
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					if _, err := o.SolveKnapsack(ps[i%len(ps)]); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// TestWeightedSelect checks the linear-time weighted quantile against the
// sorted scan it replaces (descending t, first prefix weight above c).
func TestWeightedSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for it := 0; it < 5000; it++ {
		n := rng.IntN(30)
		ts, as := make([]float64, n), make([]int, n)
		for i := range ts {
			ts[i] = float64(rng.IntN(8)) / 4 // many ties
			as[i] = 1 + rng.IntN(3)
		}
		c := rng.IntN(2*n + 2)
		if rng.IntN(10) == 0 && n > 0 {
			as[0] = math.MaxInt
		}
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(x, y int) int { return cmp.Compare(ts[y], ts[x]) })
		want, wantOK, acc := 0.0, false, 0
		for _, i := range idx {
			var ok bool
			if acc, ok = checked.Add(acc, as[i]); !ok || acc > c {
				want, wantOK = ts[i], true
				break
			}
		}
		got, ok := weightedSelect(slices.Clone(ts), slices.Clone(as), c)
		require.Equal(t, wantOK, ok, "it %d", it)
		require.Equal(t, want, got, "it %d: t=%v a=%v c=%d", it, ts, as, c)
	}
}
