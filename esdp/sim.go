package esdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"github.com/msched/msched/bipartite"
)

// OnlinePolicy is the contract of the ESDP family: the observation is
// arrived[l] = 1_l(t), the decision x(t) per edge. Policies that learn also
// implement bipartite.Learner[Feedback].
type OnlinePolicy = bipartite.OnlinePolicy[[]bool, []bool]

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

// RunOptions configures RunWith. The zero value uses GOMAXPROCS workers.
type RunOptions struct {
	// Workers is the number of policies simulated concurrently; 0 means
	// GOMAXPROCS. Results do not depend on it.
	Workers int
	// Progress, if not nil, is called after every slot of every policy
	// (from several goroutines when Workers > 1).
	Progress func(policy string, t int)
}

// MaxRunSlots bounds the horizon T of Run and RunWith: each policy's series
// keeps three float64 per slot.
const MaxRunSlots = 1 << 22

// Run simulates T slots of in for every policy with RunOptions{}. See
// RunWith.
func Run(in *Instance, pols []OnlinePolicy, T int, seed uint64) (*Result, error) {
	return RunWith(in, pols, T, seed, RunOptions{})
}

// RunWith simulates T slots of in for every policy. Slot t's arrivals and
// rewards Z~(t) (for every edge) are drawn from rand.NewPCG(seed, t), so all
// policies face the same arrivals and the same rewards, and results depend
// only on seed. At slot t a policy gets Decide(t, arrived); the decision
// must satisfy (1) and (2) or the run fails; a bipartite.Learner[Feedback]
// then gets the rewards of the edges it chose.
func RunWith(in *Instance, pols []OnlinePolicy, T int, seed uint64, o RunOptions) (*Result, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	if T < 0 || T > MaxRunSlots {
		return nil, fmt.Errorf("%w: T = %d, want 0..MaxRunSlots = %d", ErrValue, T, MaxRunSlots)
	}
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
	orc := NewOracle(Settings{})
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
			return nil, fmt.Errorf("%w: slot %d: omniscient oracle %v (gap %v): regret would not be exact", ErrTooLarge, t, r.Status, r.Bound-r.Objective)
		}
		res.Optimal[t] = r.Objective
		res.TotalOptimal += r.Objective
		if L < 64 {
			memo[key] = r.Objective
		}
	}

	w := o.Workers
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
			res.Series[i], errs[i] = runOne(in, pol, T, seed, vbar, res.Optimal, o.Progress)
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
	learner, _ := pol.(bipartite.Learner[Feedback])
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
			return s, fmt.Errorf("%s: slot %d: expected welfare %v exceeds the oracle's %v", s.Name, t, exp, opt[t])
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
