package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

// randomGangKnapsack draws a small gang knapsack: up to maxJobs job types
// with 1-3 components, up to maxServers servers, K in 1..2, random edges,
// integer demands and capacities (so ties and exact fits happen), values
// in [-0.3, 1] (some negative), random arrivals.
func randomGangKnapsack(t testing.TB, rng *rand.Rand, maxJobs, maxServers, maxComps int) *GangKnapsack {
	for {
		L, R, K := 1+rng.IntN(maxJobs), 1+rng.IntN(maxServers), 1+rng.IntN(2)
		var edges []bipartite.Edge
		for l := 0; l < L; l++ {
			for r := 0; r < R; r++ {
				if rng.Float64() < 0.7 {
					edges = append(edges, bipartite.Edge{Left: l, Right: r})
				}
			}
		}
		g, err := bipartite.NewGraph(L, R, edges)
		require.NoError(t, err)
		capv := make([]float64, R*K)
		for i := range capv {
			capv[i] = float64(rng.IntN(4))
		}
		jobs, total := randomGangJobs(L, K,
			func() int { return 1 + rng.IntN(maxComps) },
			func() float64 { return float64(rng.IntN(3)) },
			func(q int) int { return rng.IntN(q + 1) })
		if total > 7 {
			continue
		}
		ch := newTestChannels(t, g, K, capv, jobs)
		val := make([]float64, ch.Len())
		for i := range val {
			val[i] = -0.3 + 1.3*rng.Float64()
			if rng.IntN(8) == 0 {
				val[i] = float64(rng.IntN(3)) / 2 // ties
			}
		}
		arr := make([]bool, L)
		for l := range arr {
			arr[l] = rng.IntN(5) > 0
		}
		return &GangKnapsack{Channels: ch, Arrived: arr, Value: val}
	}
}

// bruteGang enumerates every assignment of the components of arrived jobs
// (a server or none) and returns the best feasible value, checking
// feasibility with GangModel.Check (the independent verifier).
func bruteGang(t testing.TB, p *GangKnapsack) float64 {
	m := p.Channels.Model()
	C := m.NumComponents()
	x := make([]int, C)
	best := math.Inf(-1)
	var rec func(c int)
	rec = func(c int) {
		if c == C {
			chk, err := m.Check(p.Arrived, x)
			require.NoError(t, err)
			if chk.Violations > 0 {
				return
			}
			v := 0.0
			for cc, r := range x {
				if r >= 0 {
					i, ok := p.Channels.Channel(cc, r)
					require.True(t, ok)
					v += p.Value[i]
				}
			}
			best = math.Max(best, v)
			return
		}
		x[c] = -1
		rec(c + 1)
		if !p.Arrived[m.Job(c)] {
			return
		}
		lo, hi := p.Channels.Range(c)
		for i := lo; i < hi; i++ {
			x[c] = p.Channels.Server(i)
			rec(c + 1)
		}
		x[c] = -1
	}
	rec(0)
	return best
}

func gangValue(t testing.TB, p *GangKnapsack, x []int) float64 {
	m := p.Channels.Model()
	chk, err := m.Check(p.Arrived, x)
	require.NoError(t, err)
	require.Zero(t, chk.Violations, chk.First)
	v := 0.0
	for c, r := range x {
		if r >= 0 {
			i, ok := p.Channels.Channel(c, r)
			require.True(t, ok)
			v += p.Value[i]
		}
	}
	return v
}

// TestGangOracleBruteForce checks every method against exhaustive
// enumeration on 10 000 small random instances: GangExact and GangAuto are
// optimal (Status Optimal, value equal to brute force), and every method
// returns a feasible placement whose value is within its certified gap of
// the optimum.
func TestGangOracleBruteForce(t *testing.T) {
	n := 10000 / gangTestScale
	if testing.Short() {
		n = 1000
	}
	rng := rand.New(rand.NewPCG(23, 1))
	exact := GangOracle{Settings: GangOracleSettings{Method: GangExact}}
	auto := GangOracle{}
	scal := GangOracle{Settings: GangOracleSettings{Method: GangScalable}}
	closed := 0
	for it := 0; it < n; it++ {
		p := randomGangKnapsack(t, rng, 3, 3, 3)
		want := bruteGang(t, p)
		x := make([]int, p.Channels.Model().NumComponents())
		for _, o := range []*GangOracle{&exact, &auto} {
			r, err := o.Solve(x, p)
			require.NoError(t, err)
			require.Equal(t, Optimal, r.Status, "instance %d %v", it, o.Settings.Method)
			got := gangValue(t, p, x)
			require.InDelta(t, want, got, 1e-9, "instance %d %v", it, o.Settings.Method)
			require.InDelta(t, got, r.Value, 1e-9)
		}
		r, err := scal.Solve(x, p)
		require.NoError(t, err)
		got := gangValue(t, p, x)
		require.InDelta(t, got, r.Value, 1e-9)
		require.LessOrEqual(t, got, want+1e-9)
		require.GreaterOrEqual(t, r.Bound, want-1e-9, "instance %d: bound %v below the optimum %v", it, r.Bound, want)
		require.InDelta(t, r.Bound-r.Value, r.Gap, 1e-9)
		if r.Status == Optimal {
			closed++
			require.InDelta(t, want, got, 1e-9)
		}
	}
	t.Logf("%d instances; the scalable mode closed its gap on %d", n, closed)
}

// TestGangScalableGap measures the scalable mode on instances of the
// default synthetic size (8 job types, 40 servers, 2-4 components): its
// certified bound is never below the exact optimum (GangExact, when it
// proves optimality), its value never above; it logs the certified and
// the true relative gaps.
func TestGangScalableGap(t *testing.T) {
	n := 200 / gangTestScale
	if testing.Short() {
		n = 20
	}
	exact := GangOracle{Settings: GangOracleSettings{Method: GangExact, MaxNodes: 1 << 22}}
	scal := GangOracle{Settings: GangOracleSettings{Method: GangScalable}}
	var certSum, certMax, trueSum, trueMax float64
	proved := 0
	for it := 0; it < n; it++ {
		rng := rand.New(rand.NewPCG(uint64(it), 77))
		in, err := GenerateGang(DefaultGangConfig(), rng)
		require.NoError(t, err)
		ch, err := in.Channels()
		require.NoError(t, err)
		p := &GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, in.Model.NumJobs())}
		for i := range p.Value {
			p.Value[i] = rng.Float64()
		}
		for l := range p.Arrived {
			p.Arrived[l] = rng.Float64() < 0.9
		}
		x := make([]int, in.Model.NumComponents())
		rs, err := scal.Solve(x, p)
		require.NoError(t, err)
		require.InDelta(t, gangValue(t, p, x), rs.Value, 1e-9)
		re, err := exact.Solve(x, p)
		require.NoError(t, err)
		require.InDelta(t, gangValue(t, p, x), re.Value, 1e-9)
		require.GreaterOrEqual(t, re.Value, rs.Value-1e-9)
		require.GreaterOrEqual(t, rs.Bound, re.Value-1e-9)
		require.GreaterOrEqual(t, re.Bound, re.Value-1e-9)
		cert := rs.Gap / math.Max(rs.Value, 1e-12)
		certSum += cert
		certMax = math.Max(certMax, cert)
		if re.Status == Optimal {
			proved++
			g := (re.Value - rs.Value) / math.Max(re.Value, 1e-12)
			trueSum += g
			trueMax = math.Max(trueMax, g)
		}
	}
	t.Logf("%d instances: scalable certified gap mean %.2f%% max %.2f%%; exact proved %d, true gap of the scalable mode mean %.2f%% max %.2f%%",
		n, 100*certSum/float64(n), 100*certMax, proved, 100*trueSum/float64(max(proved, 1)), 100*trueMax)
	require.Equal(t, n, proved, "GangExact should prove every default-size instance")
}
