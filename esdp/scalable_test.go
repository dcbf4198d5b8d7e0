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

// TestScalableGapBySize measures the scalable oracle's certified gap
// (SlotInfo.Gap: the optimum of P3(t) is at most f(x) + Gap) across
// instance sizes, relative to the optimum found by brute force where |E|
// <= 16 and relative to f(x) (an upper bound of the relative shortfall)
// beyond. It checks the certificate on every brute-forced case and logs,
// per size, the cases, how many decisions were optimal, and the largest
// and mean relative gaps (go test -run TestScalableGapBySize -v; the esdp
// doc quotes them).
func TestScalableGapBySize(t *testing.T) {
	table2 := DefaultConfig()
	alpha := DefaultConfig()
	alpha.CapacityRule = CapacityAlpha
	large := DefaultConfig()
	large.Ports, large.Servers, large.CapLo, large.CapHi = 40, 100, 10, 20
	sizes := []struct {
		name  string
		cases int
		cfg   func(rng *rand.Rand) Config
	}{
		{"tiny (2-3 ports, 2-4 servers, K 1-2, c in [1, 2])", 600, func(rng *rand.Rand) Config {
			return Config{Ports: 2 + rng.IntN(2), Servers: 2 + rng.IntN(3), K: 1 + rng.IntN(2), EdgeProb: 0.7, ArrivalProb: 0.9,
				DemandLo: 1, DemandHi: 2, MeanLo: 0.1, MeanHi: 1, CapacityRule: CapacityTable2, CapLo: 1, CapHi: 2, Alpha: 0.5}
		}},
		{"small (3 ports, 5 servers, K 2, c in [2, 5])", 600, func(rng *rand.Rand) Config {
			return Config{Ports: 3, Servers: 5, K: 2, EdgeProb: 0.6, ArrivalProb: 0.8, DemandLo: 1, DemandHi: 3,
				MeanLo: 0.1, MeanHi: 1, CapacityRule: CapacityTable2, CapLo: 2, CapHi: 5, Alpha: 0.5}
		}},
		{"Table 2 (8 x 40, K 3, c in [1, 2])", 300, func(*rand.Rand) Config { return table2 }},
		{"Table 2, alpha rule", 100, func(*rand.Rand) Config { return alpha }},
		{"large (40 x 100, c in [10, 20])", 20, func(*rand.Rand) Config { return large }},
	}
	for si, sz := range sizes {
		cases := sz.cases
		if testing.Short() {
			cases = max(2, cases/20)
		}
		var n, brute, optimal int
		var maxRel, sumRel float64
		for c := range cases {
			rng := rand.New(rand.NewPCG(uint64(si), uint64(c)))
			in, err := Generate(sz.cfg(rng), rng)
			require.NoError(t, err)
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
			slot := rng.IntN(2000)
			x, err := p.Decide(slot, arrived)
			require.NoError(t, err)
			require.NoError(t, in.Feasible(x, arrived))
			info := p.Last()
			if !info.Scalable { // nothing to choose (no arrived playable channel)
				continue
			}
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
			ref := fx
			if E <= 16 {
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
				require.LessOrEqual(t, fx, opt+1e-9)
				require.LessOrEqual(t, opt, fx+info.Gap+1e-9, "%s case %d: optimum above the certified bound", sz.name, c)
				brute++
				if fx >= opt-1e-12*math.Max(1, opt) {
					optimal++
				}
				ref = opt
			}
			if ref > 0 {
				rel := info.Gap / ref
				maxRel = math.Max(maxRel, rel)
				sumRel += rel
			}
			n++
		}
		require.Positive(t, n, sz.name)
		ref := "optimum"
		if brute < n {
			ref = "f(x)" // no brute force: relative to the value found, an upper bound
		}
		t.Logf("%-50s %4d slots, %4d brute-forced, %4d optimal; certified gap / %s: max %.3g, mean %.3g", sz.name, n, brute, optimal, ref, maxRel, sumRel/float64(n))
	}
}
