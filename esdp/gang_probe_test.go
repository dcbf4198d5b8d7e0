package esdp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// contendedGangKnapsack draws an instance of the kind the job probes are
// for, small enough to enumerate: 5-7 jobs of 2-3 components that want
// all or all but one of them, on 4-6 servers of capacities 1 or 2 per
// resource (2 resources) against demands of 1 or 2, so that a server
// holds one or two components and the jobs compete for the servers. A
// relaxation serves fractions of the contended jobs, which is where the
// probes exclude.
func contendedGangKnapsack(t testing.TB, rng *rand.Rand) *GangKnapsack {
	const K = 2
	for {
		L, R := 5+rng.IntN(3), 4+rng.IntN(3)
		g := randomGangGraph(t, rng, L, R, 0.6)
		capv := make([]float64, R*K)
		for i := range capv {
			capv[i] = float64(1 + rng.IntN(2))
		}
		jobs, total := randomGangJobs(L, K,
			func() int { return 2 + rng.IntN(2) },
			func() float64 { return float64(1 + rng.IntN(2)) },
			func(q int) int { return q - rng.IntN(2) })
		if total > 14 {
			continue
		}
		ch := newTestChannels(t, g, K, capv, jobs)
		val := make([]float64, ch.Len())
		for i := range val {
			val[i] = 0.2 + 0.8*rng.Float64()
		}
		arr := make([]bool, L)
		for l := range arr {
			arr[l] = true
		}
		return &GangKnapsack{Channels: ch, Value: val, Arrived: arr}
	}
}

// TestGangProbeBruteForce checks the job probes against exhaustive
// enumeration (gangEnum) on contended instances (contendedGangKnapsack):
// GangExact must return the optimum, Optimal; GangAuto (whose node
// budget some of them exceed, probes or not) a feasible placement, the
// optimum when it says Optimal; and every bound must be at least the
// optimum. It also requires the probes to
// exclude jobs on some of them (an exclusion that is not sound fails the
// comparison: excluding at 0.3 above the incumbent does on these).
func TestGangProbeBruteForce(t *testing.T) {
	n := 3000 / gangTestScale
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(29, 5))
	exact := GangOracle{Settings: GangOracleSettings{Method: GangExact}}
	weak := GangOracle{Settings: GangOracleSettings{Method: GangExact}, testNoImprove: true}
	auto := GangOracle{}
	var e gangEnum
	excl, proved := map[*GangOracle]int{}, map[*GangOracle]int{}
	for it := 0; it < n; it++ {
		p := contendedGangKnapsack(t, rng)
		want := e.solve(p)
		x := make([]int, p.Channels.Model().NumComponents())
		for _, o := range []*GangOracle{&exact, &weak, &auto} {
			r, err := o.Solve(x, p)
			require.NoError(t, err)
			if o != &auto {
				require.Equal(t, Optimal, r.Status, "instance %d", it)
			}
			got := gangValue(t, p, x)
			require.InDelta(t, got, r.Value, 1e-9, "instance %d %v", it, o.Settings.Method)
			require.LessOrEqual(t, got, want+1e-9, "instance %d %v", it, o.Settings.Method)
			if r.Status == Optimal {
				require.InDelta(t, want, got, 1e-9, "instance %d %v", it, o.Settings.Method)
			}
			require.GreaterOrEqual(t, r.Bound, want-1e-9, "instance %d %v", it, o.Settings.Method)
			if o.probe.excluded > 0 {
				excl[o]++
				if o.probe.proved {
					proved[o]++
				}
			}
		}
	}
	t.Logf("%d instances: the probes excluded jobs on %d (from the improved incumbent), %d (from the rounding's), %d (GangAuto), and proved the incumbent optimal on %d, %d, %d of them",
		n, excl[&exact], excl[&weak], excl[&auto], proved[&exact], proved[&weak], proved[&auto])
	for _, o := range []*GangOracle{&exact, &weak, &auto} {
		require.Greater(t, excl[o], n/20, "the probes exclude too rarely for the test to check them")
	}
}
