package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScalableGapCertified checks the scalable oracle against brute force
// over every x of small random instances: its x is feasible, and the
// optimum of P3(t) (without delta) lies in [f(x), f(x) + Gap].
func TestScalableGapCertified(t *testing.T) {
	worst, n, gap := 0.0, 0, 0.0
	for seed := uint64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewPCG(seed, 51))
		cfg := Config{Ports: 3, Servers: 5, K: 2, EdgeProb: 0.6, ArrivalProb: 0.8, DemandLo: 1, DemandHi: 3,
			MeanLo: 0.1, MeanHi: 1, CapacityRule: CapacityTable2, CapLo: 2, CapHi: 5, Alpha: 0.5}
		in, err := Generate(cfg, rng)
		require.NoError(t, err)
		if in.NumEdges() > 14 {
			continue
		}
		p, err := New(&in.Cluster, Settings{Mode: ModeScalable})
		require.NoError(t, err)
		E := in.NumEdges()
		fb := Feedback{Chosen: make([]bool, E), Reward: make([]float64, E)}
		for round := 0; round < 1+rng.IntN(6); round++ {
			for e := range fb.Chosen {
				fb.Chosen[e] = round == 0 || rng.IntN(2) == 0
				fb.Reward[e] = rng.Float64()
			}
			require.NoError(t, p.Warm(fb))
		}
		arrived := make([]bool, in.NumPorts())
		in.SampleArrivals(arrived, rng)
		slot := 10 + rng.IntN(1000)
		x, err := p.Decide(slot, arrived)
		require.NoError(t, err)
		require.NoError(t, in.Feasible(x, arrived))
		info := p.Last()
		require.True(t, info.Scalable)
		obj := func(x []bool) float64 {
			v, s := 0.0, 0.0
			for e, on := range x {
				if on {
					v += p.Mean(e)
					s += p.Variance(slot, e)
				}
			}
			return v + math.Sqrt(s)
		}
		fx := obj(x)
		opt := 0.0
		y := make([]bool, E)
		for mask := 0; mask < 1<<E; mask++ {
			for e := range y {
				y[e] = mask>>e&1 == 1
			}
			if in.Feasible(y, arrived) == nil {
				opt = math.Max(opt, obj(y))
			}
		}
		require.LessOrEqual(t, fx, opt+1e-9, "seed %d", seed)
		require.LessOrEqual(t, opt, fx+info.Gap+1e-9, "seed %d: optimum above the certified bound", seed)
		require.GreaterOrEqual(t, info.Gap, 0.0)
		worst = math.Max(worst, (opt-fx)/opt)
		gap = math.Max(gap, info.Gap/opt)
		n++
	}
	require.Greater(t, n, 20)
	t.Logf("%d instances: worst relative shortfall against brute force %.3g, largest certified relative gap %.3g", n, worst, gap)
}

// TestAutoFallsBackToScalable: under ModeAuto a dynamic program over the
// work budget (OracleSettings.MaxCells) gives way to the scalable oracle,
// ModeExact fails with ErrTooLarge, and without a budget nothing changes.
func TestAutoFallsBackToScalable(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(52, 1)))
	require.NoError(t, err)
	E := in.NumEdges()
	fb := Feedback{Chosen: make([]bool, E), Reward: make([]float64, E)}
	for e := range fb.Chosen {
		fb.Chosen[e], fb.Reward[e] = true, in.Expected(e)
	}
	all := make([]bool, in.NumPorts())
	for l := range all {
		all[l] = true
	}
	tiny := OracleSettings{MaxCells: 10}
	auto, _ := New(&in.Cluster, Settings{Oracle: tiny})
	exact, _ := New(&in.Cluster, Settings{Oracle: tiny, Mode: ModeExact})
	plain, _ := New(&in.Cluster, Settings{})
	for _, p := range []*Policy{auto, exact, plain} {
		require.NoError(t, p.Warm(fb))
	}
	x, err := auto.Decide(100, all)
	require.NoError(t, err)
	require.NoError(t, in.Feasible(x, all))
	require.True(t, auto.Last().Scalable)
	_, err = exact.Decide(100, all)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = plain.Decide(100, all)
	require.NoError(t, err)
	require.False(t, plain.Last().Scalable)
	require.Zero(t, plain.Last().Gap)
}
