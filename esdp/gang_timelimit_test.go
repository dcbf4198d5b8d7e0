package esdp

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// mediumGangKnapsack is scripts/gangbench's i-th medium instance
// (GenerateGang with jobs job types, values uniform in [0, 1], arrival
// probability 0.9).
func mediumGangKnapsack(t testing.TB, i, jobs int) *GangKnapsack {
	cfg := DefaultGangConfig()
	cfg.Jobs = jobs
	rng := rand.New(rand.NewPCG(uint64(i), 29))
	in, err := GenerateGang(cfg, rng)
	require.NoError(t, err)
	ch, err := in.Channels()
	require.NoError(t, err)
	p := &GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, in.Model.NumJobs())}
	for i := range p.Value {
		p.Value[i] = rng.Float64()
	}
	for l := range p.Arrived {
		p.Arrived[l] = rng.Float64() < cfg.ArrivalProb
	}
	return p
}

func TestGangOracleTimeLimitSettings(t *testing.T) {
	for _, tl := range []time.Duration{-1, MaxGangTimeLimit + 1} {
		err := GangOracleSettings{TimeLimit: tl}.Validate()
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, "GangOracleSettings.TimeLimit = "+tl.String())
		require.ErrorContains(t, err, "want 0..24h0m0s")
		p := mediumGangKnapsack(t, 1, 4)
		x := make([]int, p.Channels.Model().NumComponents())
		o := GangOracle{Settings: GangOracleSettings{TimeLimit: tl}}
		_, err = o.Solve(x, p)
		require.ErrorIs(t, err, ErrSettings)
	}
	require.NoError(t, GangOracleSettings{TimeLimit: MaxGangTimeLimit}.Validate())
}

// TestGangOracleTimeLimitCutOff: a time limit that has passed before the
// solve starts still gives a feasible placement and a valid bound (at or
// above the enumerated optimum), with TimeLimited set whenever the
// solve was not finished by its first rounding.
func TestGangOracleTimeLimitCutOff(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 300
	}
	for _, meth := range []GangMethod{GangAuto, GangExact, GangScalable} {
		o := GangOracle{Settings: GangOracleSettings{Method: meth, TimeLimit: 1}}
		for it := range n {
			rng := rand.New(rand.NewPCG(uint64(it), 2929))
			p := randomGangKnapsack(t, rng, 4, 3, 3)
			x := make([]int, p.Channels.Model().NumComponents())
			r, err := o.Solve(x, p)
			require.NoError(t, err)
			want := bruteGang(t, p)
			require.InDelta(t, gangValue(t, p, x), r.Value, 1e-9)
			require.GreaterOrEqual(t, r.Bound, want-1e-9, "instance %d, %v", it, meth)
			if r.Status == Optimal {
				require.InDelta(t, want, r.Value, 1e-9, "instance %d, %v", it, meth)
			}
		}
	}
	// A medium instance that no first rounding closes.
	p := mediumGangKnapsack(t, 0, 16)
	x := make([]int, p.Channels.Model().NumComponents())
	o := GangOracle{Settings: GangOracleSettings{Method: GangExact, TimeLimit: 1}}
	r, err := o.Solve(x, p)
	require.NoError(t, err)
	require.True(t, r.TimeLimited)
	require.Equal(t, NodeLimit, r.Status)
	require.Zero(t, r.Nodes)
	require.InDelta(t, gangValue(t, p, x), r.Value, 1e-9)
	require.Greater(t, r.Bound, r.Value)
}

// TestGangOracleTimeLimitReproducible: with a time limit that the node
// budget ends first, a solve is reproducible bit for bit (the clock does
// not steer the steps), TimeLimited is false, and the continued
// improvement never returns less than the solve without a time limit
// (its first phases are that solve's). On a small problem with MaxNodes
// at most the default, the solve is the untimed one exactly.
func TestGangOracleTimeLimitReproducible(t *testing.T) {
	solve := func(p *GangKnapsack, set GangOracleSettings) ([]int, GangKnapsackResult) {
		x := make([]int, p.Channels.Model().NumComponents())
		o := GangOracle{Settings: set}
		r, err := o.Solve(x, p)
		require.NoError(t, err)
		require.InDelta(t, gangValue(t, p, x), r.Value, 1e-9)
		return x, r
	}
	// Large (above AutoSearchComponents): the continuation runs.
	large := mediumGangKnapsack(t, 3, 56)
	require.Greater(t, func() int {
		n := 0
		for l, a := range large.Arrived {
			if a {
				lo, hi := large.Channels.Model().Components(l)
				n += hi - lo
			}
		}
		return n
	}(), AutoSearchComponents)
	for _, meth := range []GangMethod{GangAuto, GangExact} {
		if meth == GangExact && testing.Short() {
			continue // 2^20 nodes first: seconds
		}
		_, base := solve(large, GangOracleSettings{Method: meth})
		set := GangOracleSettings{Method: meth, MaxNodes: 1 << 16, TimeLimit: time.Hour}
		if meth == GangExact {
			set.MaxNodes = DefaultGangNodes + 1<<16
		}
		x1, r1 := solve(large, set)
		x2, r2 := solve(large, set)
		require.Equal(t, x1, x2)
		require.Equal(t, r1, r2)
		require.False(t, r1.TimeLimited)
		require.LessOrEqual(t, r1.Nodes, set.MaxNodes)
		require.GreaterOrEqual(t, r1.Value, base.Value, "%v", meth)
		require.GreaterOrEqual(t, r1.Bound, r1.Value)
		t.Logf("%v: %.4f (%d nodes) without a time limit, %.4f (%d nodes) continued", meth, base.Value, base.Nodes, r1.Value, r1.Nodes)
	}
	// Small: the same solve as without a time limit.
	small := mediumGangKnapsack(t, 4, 16)
	for _, nodes := range []int64{1 << 10, 1 << 14} {
		x0, r0 := solve(small, GangOracleSettings{Method: GangExact, MaxNodes: nodes})
		x1, r1 := solve(small, GangOracleSettings{Method: GangExact, MaxNodes: nodes, TimeLimit: time.Hour})
		require.Equal(t, x0, x1)
		require.Equal(t, r0, r1)
	}
}

// TestGangPolicyTimeLimitError: ESDP-gang with GangExact and a time limit
// that ends the knapsack fails its Decide with ErrNodeLimit naming the
// time limit, and the policy's fingerprint covers the limit.
func TestGangPolicyTimeLimitError(t *testing.T) {
	cfg := DefaultGangConfig()
	cfg.Jobs = 16
	in, err := GenerateGang(cfg, rand.New(rand.NewPCG(0, 29)))
	require.NoError(t, err)
	p, err := NewGang(in.Model, GangSettings{Oracle: GangOracleSettings{Method: GangExact, TimeLimit: 1}})
	require.NoError(t, err)
	q, err := NewGang(in.Model, GangSettings{Oracle: GangOracleSettings{Method: GangExact}})
	require.NoError(t, err)
	require.NotEqual(t, p.fp, q.fp)
	arrived := make([]bool, in.Model.NumJobs())
	for l := range arrived {
		arrived[l] = true
	}
	// Play every channel first, so that the slot solves the UCB knapsack.
	ch, err := in.Channels()
	require.NoError(t, err)
	for i := range ch.Len() {
		p.stats.count[i], p.stats.sum[i] = 1, float64(i%7)/7
	}
	p.started = true
	_, err = p.Decide(1, arrived)
	require.ErrorIs(t, err, ErrNodeLimit)
	require.ErrorContains(t, err, "GangOracleSettings.TimeLimit = 1ns")
}

// TestGangDecompositionBoundUsed: on a medium instance (few patterns per
// server) GangExact uses the Lagrangian decomposition bound, GangAuto
// does not,
// and a repeated Solve allocates nothing; it logs whether a 56-job-type
// instance still has few enough patterns.
func TestGangDecompositionBoundUsed(t *testing.T) {
	p := mediumGangKnapsack(t, 4, 16)
	x := make([]int, p.Channels.Model().NumComponents())
	for _, meth := range []GangMethod{GangExact, GangAuto} {
		o := GangOracle{Settings: GangOracleSettings{Method: meth}}
		r, err := o.Solve(x, p)
		require.NoError(t, err)
		require.Equal(t, meth == GangExact, o.ld.on, "%v", meth)
		if meth == GangExact {
			require.Equal(t, Optimal, r.Status)
		}
		require.Zero(t, testing.AllocsPerRun(3, func() { _, _ = o.Solve(x, p) }), "%v", meth)
	}
	big := mediumGangKnapsack(t, 3, 56)
	xb := make([]int, big.Channels.Model().NumComponents())
	o := GangOracle{Settings: GangOracleSettings{Method: GangExact, MaxNodes: 1 << 10}}
	_, err := o.Solve(xb, big)
	require.NoError(t, err)
	t.Logf("56 job types: decomposition bound used: %v", o.ld.on)
}
