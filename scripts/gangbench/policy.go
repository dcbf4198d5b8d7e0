package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/msched/msched/esdp"
	"github.com/msched/msched/trace"
)

// policyRun runs ESDP-gang with the given oracle settings on the DLRM
// trace for T slots, as examples/gang's -trace run builds it (the trace
// as trace.DLRMGangInstance maps it with its defaults; Bernoulli arrivals
// with each app's frequency over the trace's slots; channel means uniform
// in [0.1, 1], Std = Mean/2, rewards normal and clipped to [0, 1], seeded)
// and counts the slots whose gang knapsack stopped at its node budget (or
// time limit): Decide then fails with esdp.ErrNodeLimit, and the run goes
// on to the next slot with nothing placed. It prints the count and the
// time per slot.
func policyRun(dir string, T int, seed uint64, set esdp.GangOracleSettings) error {
	tr, err := trace.LoadDLRM(dir)
	if err != nil {
		return err
	}
	g, err := trace.DLRMGangInstance(tr, trace.DLRMGangSettings{})
	if err != nil {
		return err
	}
	m := g.Model
	freq := make([]float64, m.NumJobs())
	for _, x := range g.Arrivals {
		for l, v := range x {
			if v > 0 {
				freq[l]++
			}
		}
	}
	for l := range freq {
		freq[l] /= float64(len(g.Arrivals))
	}
	ch, err := esdp.NewGangChannels(m)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 3))
	mean := make([]float64, ch.Len())
	for i := range mean {
		mean[i] = 0.1 + 0.9*rng.Float64()
	}
	pol, err := esdp.NewGang(m, esdp.GangSettings{Oracle: set})
	if err != nil {
		return err
	}
	arrived := make([]bool, m.NumJobs())
	fb := esdp.GangFeedback{Server: make([]int, m.NumComponents()), Reward: make([]float64, m.NumComponents())}
	var times, limited []float64
	stopped, explore, apps := 0, 0, 0
	start := time.Now()
	for t := 1; t <= T; t++ {
		for l := range arrived {
			arrived[l] = rng.Float64() < freq[l]
			if arrived[l] {
				apps++
			}
		}
		t0 := time.Now()
		x, err := pol.Decide(t, arrived)
		dt := time.Since(t0).Seconds()
		times = append(times, dt)
		if errors.Is(err, esdp.ErrNodeLimit) {
			stopped++
			limited = append(limited, dt)
			continue
		}
		if err != nil {
			return err
		}
		if pol.Last().Explore {
			explore++
		}
		for c, r := range x {
			fb.Server[c], fb.Reward[c] = r, 0
			if r >= 0 {
				i, _ := ch.Channel(c, r)
				fb.Reward[c] = min(1, max(0, mean[i]+mean[i]/2*rng.NormFloat64()))
			}
		}
		if err := pol.Observe(t, fb); err != nil {
			return err
		}
	}
	slices.Sort(times)
	slices.Sort(limited)
	q := func(v []float64, f float64) float64 {
		if len(v) == 0 {
			return 0
		}
		return v[min(len(v)-1, int(f*float64(len(v))))]
	}
	sum := 0.0
	for _, v := range times {
		sum += v
	}
	fmt.Printf("ESDP-gang, oracle %v (MaxNodes %d, TimeLimit %v), DLRM trace, %d slots (seed %d, %.1f apps a slot on average, %d exploration slots):\n",
		set.Method, set.MaxNodes, set.TimeLimit, T, seed, float64(apps)/float64(T), explore)
	fmt.Printf("  stopped at the node budget (ErrNodeLimit): %d of %d slots\n", stopped, T)
	fmt.Printf("  seconds per slot: mean %.4f, median %.4f, p90 %.4f, max %.4f; stopped slots median %.4f, max %.4f; wall %.1f s\n",
		sum/float64(T), q(times, 0.5), q(times, 0.9), q(times, 1), q(limited, 0.5), q(limited, 1), time.Since(start).Seconds())
	return nil
}

// errNoTrace is returned by -policy without the DLRM trace.
var errNoTrace = fmt.Errorf("the DLRM trace is needed ($MSCHED_DLRM_TRACE)")
