package esdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/msched/msched/bipartite"
)

// OnlinePolicy is the contract of the ESDP family: the observation is
// arrived[l] = 1_l(t), the decision x(t) per edge.
type OnlinePolicy = bipartite.OnlinePolicy[[]bool, []bool]

// Learner is implemented by the policies of the family that learn from the
// semi-bandit feedback.
type Learner = bipartite.Learner[Feedback]

// Series is the per-slot record of one policy in a Run.
type Series struct {
	Name string
	// Welfare[t] is the realised social welfare Sw(x(t)) of (4): the sum of
	// the normalised rewards Z~_e(t) of the chosen edges.
	Welfare []float64
	// Expected[t] = v~ . x(t), the expected welfare of the decision.
	Expected []float64
	// Regret[t] = v~ . x*(t) - v~ . x(t) >= 0, the exact per-slot gap (5)
	// against the omniscient oracle (6).
	Regret []float64
	// Totals over the horizon.
	Total, TotalExpected, TotalRegret float64
	Wall                              time.Duration
}

// Result is the outcome of a Run.
type Result struct {
	T            int
	Optimal      []float64 // v~ . x*(t) of the omniscient oracle (6)
	TotalOptimal float64
	Series       []Series // in the order of the policies
}

// RunSettings configures Run. Its zero value simulates zero slots with
// seed 0 on GOMAXPROCS workers.
type RunSettings struct {
	// T is the number of slots, 0..MaxRunSlots.
	T int
	// Seed selects the arrivals and rewards: slot t draws from
	// rand.NewPCG(Seed, t+1).
	Seed uint64
	// Workers is the number of policies simulated concurrently; 0 means
	// GOMAXPROCS. Results do not depend on it.
	Workers int
	// Progress, if not nil, is called after every slot of every policy
	// (from several goroutines when Workers > 1).
	Progress func(policy string, t int)
}

// Validate returns every problem of s, joined, each wrapping ErrSettings.
func (s RunSettings) Validate() error {
	var errs []error
	if s.T < 0 || s.T > MaxRunSlots {
		errs = append(errs, fmt.Errorf("%w: RunSettings.T = %d, want 0..MaxRunSlots = %d", ErrSettings, s.T, MaxRunSlots))
	}
	if s.Workers < 0 {
		errs = append(errs, fmt.Errorf("%w: RunSettings.Workers = %d, want >= 0 (0 means GOMAXPROCS)", ErrSettings, s.Workers))
	}
	return errors.Join(errs...)
}

// MaxRunSlots bounds RunSettings.T: each policy's series keeps three
// float64 per slot.
const MaxRunSlots = 1 << 22

// Run simulates s.T slots of inst for every policy. Slot t's arrivals and
// rewards Z~(t) (for every edge) are drawn from rand.NewPCG(s.Seed, t+1),
// so all policies face the same arrivals and the same rewards, and results
// depend only on the seed. At slot t a policy gets Decide(t, arrived); the
// decision must satisfy (1) and (2) or the run fails; a Learner then gets
// the rewards of the edges it chose.
func Run(inst *Instance, pols []OnlinePolicy, s RunSettings) (*Result, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := inst.Validate(); err != nil {
		return nil, err
	}
	in, T, seed := inst, s.T, s.Seed
	for i, p := range pols {
		if p == nil {
			return nil, fmt.Errorf("%w: policy %d is nil", ErrValue, i)
		}
	}
	res := &Result{T: T, Optimal: make([]float64, T), Series: make([]Series, len(pols))}
	vbar := in.ExpectedRewards(nil)

	// The omniscient oracle, memoised by arrival pattern.
	L := in.NumPorts()
	memo := map[uint64]float64{}
	orc := NewOracle(OracleSettings{})
	kp := &Knapsack{K: in.K, Demand: in.Demand, Capacity: in.Capacity, Value: vbar, Enabled: make([]bool, in.NumEdges())}
	src := rand.NewPCG(seed, 0)
	rng := rand.New(src)
	arrived := make([]bool, L)
	for t := 0; t < T; t++ {
		src.Seed(seed, uint64(t)+1) // the stream of slot t, as in runOne
		in.SampleArrivals(arrived, rng)
		var key uint64
		if L < 64 {
			for l, a := range arrived {
				if a {
					key |= 1 << uint(l)
				}
			}
			if v, ok := memo[key]; ok {
				res.Optimal[t] = v
				res.TotalOptimal += v
				continue
			}
		}
		for l := 0; l < L; l++ {
			lo, hi := in.Graph.LeftRange(l)
			for e := lo; e < hi; e++ {
				kp.Enabled[e] = arrived[l]
			}
		}
		r, err := orc.SolveKnapsack(kp)
		if err != nil {
			return nil, err
		}
		if r.Status != Optimal {
			return nil, fmt.Errorf("%w: slot %d: omniscient oracle %v (gap %v): regret would not be exact: %w", ErrTooLarge, t, r.Status, r.Bound-r.Objective, r.Status.Err())
		}
		res.Optimal[t] = r.Objective
		res.TotalOptimal += r.Objective
		if L < 64 {
			memo[key] = r.Objective
		}
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
			res.Series[i], errs[i] = runOne(in, pol, T, seed, vbar, res.Optimal, s.Progress)
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

func runOne(in *Instance, pol OnlinePolicy, T int, seed uint64, vbar, opt []float64, progress func(string, int)) (Series, error) {
	E, L := in.NumEdges(), in.NumPorts()
	s := Series{Name: pol.Name(), Welfare: make([]float64, T), Expected: make([]float64, T), Regret: make([]float64, T)}
	learner, _ := pol.(Learner)
	arrived := make([]bool, L)
	z := make([]float64, E)
	fb := Feedback{Chosen: make([]bool, E), Reward: z}
	src := rand.NewPCG(seed, 0)
	rng := rand.New(src)
	start := time.Now()
	for t := 0; t < T; t++ {
		src.Seed(seed, uint64(t)+1)
		in.SampleArrivals(arrived, rng)
		in.SampleRewards(z, rng)
		x, err := pol.Decide(t, arrived)
		if err != nil {
			return s, fmt.Errorf("%s: slot %d: %w", s.Name, t, err)
		}
		if err := in.Feasible(x, arrived); err != nil {
			return s, fmt.Errorf("%s: slot %d: infeasible decision: %w", s.Name, t, err)
		}
		wel, exp := 0.0, 0.0
		for e, on := range x {
			if on {
				wel += z[e]
				exp += vbar[e]
			}
		}
		reg := opt[t] - exp
		if reg < -1e-9*(1+math.Abs(opt[t])) {
			return s, fmt.Errorf("%w: %s: slot %d: expected welfare %v exceeds the oracle's %v", ErrValue, s.Name, t, exp, opt[t])
		}
		s.Welfare[t], s.Expected[t], s.Regret[t] = wel, exp, reg
		s.Total += wel
		s.TotalExpected += exp
		s.TotalRegret += reg
		if learner != nil {
			copy(fb.Chosen, x)
			if err := learner.Observe(t, fb); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", s.Name, t, err)
			}
		}
		if progress != nil {
			progress(s.Name, t)
		}
	}
	s.Wall = time.Since(start)
	return s, nil
}
