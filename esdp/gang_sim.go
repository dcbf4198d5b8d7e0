package esdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"
)

// GangRunResult is the outcome of RunGang.
type GangRunResult struct {
	T int
	// Optimal[t] is the expected welfare of the omniscient gang oracle
	// (the gang knapsack with the true means: GangExact on models of at
	// most AutoSearchComponents components, GangAuto beyond), and
	// OptimalBound[t] its certified bound (equal when the oracle proved
	// optimality). Regret is measured against Optimal; with OracleGap > 0
	// the true regret may be larger by up to OracleGap.
	Optimal, OptimalBound []float64
	TotalOptimal          float64
	// OracleGap is Σ_t OptimalBound[t] - Optimal[t]: 0 when every slot's
	// oracle solve was proven optimal, so that regret is exact.
	OracleGap float64
	// Series per policy, in the order given; Regret[t] is
	// Optimal[t] - Expected[t].
	Series []Series
	// Violations per policy: the broken gang or capacity constraints of
	// its decisions, counted by bipartite.GangModel.Check (independent of
	// the policies' code), summed over slots.
	Violations []int
}

// RunGang simulates s.T slots of inst for every policy. Slot t's arrivals
// and the rewards of every channel are drawn from rand.NewPCG(s.Seed, t+1)
// (common random numbers). A policy gets Decide(t, arrived); its welfare
// is the sum of the rewards of the components of the arrived jobs it
// serves (at least m_l components on adjacent servers), its expected
// welfare the same sum of means; every decision is checked by
// GangModel.Check and its violations counted (the run does not stop). A
// GangLearner then gets the rewards of the components it placed.
func RunGang(inst *GangInstance, pols []GangOnlinePolicy, s RunSettings) (*GangRunResult, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := inst.Validate(); err != nil {
		return nil, err
	}
	for i, p := range pols {
		if p == nil {
			return nil, fmt.Errorf("%w: policy %d is nil", ErrValue, i)
		}
	}
	ch, _ := inst.Channels()
	T, seed := s.T, s.Seed
	res := &GangRunResult{T: T, Optimal: make([]float64, T), OptimalBound: make([]float64, T),
		Series: make([]Series, len(pols)), Violations: make([]int, len(pols))}
	vbar := make([]float64, ch.Len())
	for i := range vbar {
		vbar[i] = inst.Expected(i)
	}
	// Exact where a proof is affordable; beyond AutoSearchComponents
	// components the certified gap goes to OracleGap instead.
	method := GangExact
	if inst.Model.NumComponents() > AutoSearchComponents {
		method = GangAuto
	}
	orc := GangOracle{Settings: GangOracleSettings{Method: method}}
	kp := &GangKnapsack{Channels: ch, Value: vbar, Arrived: make([]bool, inst.Model.NumJobs())}
	sol := make([]int, inst.Model.NumComponents())
	src := rand.NewPCG(seed, 0)
	rng := rand.New(src)
	// The omniscient oracle depends only on the arrivals: memoised by
	// arrival pattern when there are fewer than 64 job types.
	L := inst.Model.NumJobs()
	memo := map[uint64][2]float64{}
	for t := 0; t < T; t++ {
		src.Seed(seed, uint64(t)+1)
		inst.sampleArrivals(kp.Arrived, rng)
		var key uint64
		v, ok := [2]float64{}, false
		if L < 64 {
			for l, a := range kp.Arrived {
				if a {
					key |= 1 << uint(l)
				}
			}
			v, ok = memo[key]
		}
		if !ok {
			r, err := orc.Solve(sol, kp)
			if err != nil {
				return nil, err
			}
			v = [2]float64{r.Value, r.Bound}
			if L < 64 {
				memo[key] = v
			}
		}
		res.Optimal[t], res.OptimalBound[t] = v[0], v[1]
		res.TotalOptimal += v[0]
		res.OracleGap += v[1] - v[0]
	}
	w := s.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, len(pols))
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for i, pol := range pols {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			res.Series[i], res.Violations[i], errs[i] = runGangOne(inst, ch, pol, T, seed, vbar, res.Optimal, s.Progress)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (in *GangInstance) sampleArrivals(dst []bool, rng *rand.Rand) {
	for l := range dst {
		dst[l] = rng.Float64() < in.Arrival[l]
	}
}

func runGangOne(in *GangInstance, ch *GangChannels, pol GangOnlinePolicy, T int, seed uint64, vbar, opt []float64, progress func(string, int)) (Series, int, error) {
	m := in.Model
	C := m.NumComponents()
	s := Series{Name: pol.Name(), Welfare: make([]float64, T), Expected: make([]float64, T), Regret: make([]float64, T)}
	learner, _ := pol.(GangLearner)
	arrived := make([]bool, m.NumJobs())
	z := make([]float64, ch.Len())
	fb := GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
	src := rand.NewPCG(seed, 0)
	rng := rand.New(src)
	violations := 0
	start := time.Now()
	for t := 0; t < T; t++ {
		src.Seed(seed, uint64(t)+1)
		in.sampleArrivals(arrived, rng)
		for i := range z {
			z[i] = math.Min(math.Max(in.Mean[i]+in.Std[i]*rng.NormFloat64(), 0), 1)
		}
		x, err := pol.Decide(t, arrived)
		if err != nil {
			return s, violations, fmt.Errorf("%s: slot %d: %w", s.Name, t, err)
		}
		chk, err := m.Check(arrived, x)
		if err != nil {
			return s, violations, fmt.Errorf("%s: slot %d: %w", s.Name, t, err)
		}
		violations += chk.Violations
		wel, exp := 0.0, 0.0
		for c := range fb.Server {
			fb.Server[c], fb.Reward[c] = -1, 0
		}
		for l := 0; l < m.NumJobs(); l++ {
			if !arrived[l] {
				continue
			}
			lo, hi := m.Components(l)
			n := 0
			for c := lo; c < hi; c++ {
				if _, ok := ch.Channel(c, x[c]); ok {
					n++
				}
			}
			if n < m.Min(l) {
				continue
			}
			for c := lo; c < hi; c++ {
				if i, ok := ch.Channel(c, x[c]); ok {
					wel += z[i]
					exp += vbar[i]
					fb.Server[c], fb.Reward[c] = x[c], z[i]
				}
			}
		}
		s.Welfare[t], s.Expected[t], s.Regret[t] = wel, exp, opt[t]-exp
		s.Total += wel
		s.TotalExpected += exp
		s.TotalRegret += opt[t] - exp
		if learner != nil {
			if err := learner.Observe(t, fb); err != nil {
				return s, violations, fmt.Errorf("%s: slot %d: %w", s.Name, t, err)
			}
		}
		if progress != nil {
			progress(s.Name, t)
		}
	}
	s.Wall = time.Since(start)
	return s, violations, nil
}
