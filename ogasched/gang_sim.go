package ogasched

import (
	"fmt"
	"math"
	"time"

	"github.com/msched/msched/bipartite"
)

// GangSeries is the per-slot record of one gang policy in RunGang.
type GangSeries struct {
	Name string
	// Reward[t] is GangReward of the slot's placement (reading
	// GangMinComponents); Total their sum.
	Reward []float64
	Total  float64
	// Relaxed is the total reward q(x(t), Y) of the policy's fractional
	// decisions on the relaxation, for policies whose decisions carry Y
	// (OGASched-gang; NaN otherwise): Relaxed - Total is what the rounding
	// lost or gained.
	Relaxed float64
	// Served counts the (job, slot) pairs served; Arrived those that
	// arrived.
	Served, Arrived int
	// Violations counts every rule GangModel.Check found broken, summed
	// over slots (independent of the policies' code).
	Violations int
	// First is the first violation found ("" when none).
	First string
	Wall  time.Duration
}

// GangResult is the outcome of RunGang: one GangSeries per policy.
type GangResult struct {
	Series []GangSeries
}

// RunGang replays the job arrivals arrivals[t][l] through every policy: at
// slot t it calls Decide(t, x(t)), checks the placement with
// GangModel.Check (counting violations; the run does not stop), records
// the gang reward (GangReward, GangMinComponents, with the utilities and
// beta of p = GangRelaxation(m, s)) and, for a GangLearner, calls
// Observe(t, x(t)). Policies run one after the other. Errors wrap
// ErrDimension, ErrValue or a policy's error.
func RunGang(p *Problem, m *bipartite.GangModel, arrivals [][]float64, pols []GangOnlinePolicy) (*GangResult, error) {
	if p == nil || m == nil {
		return nil, fmt.Errorf("%w: RunGang: nil problem or model", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	J := m.NumJobs()
	for t, x := range arrivals {
		if len(x) != J {
			return nil, fmt.Errorf("%w: len(arrivals[%d]) = %d, want %d jobs", ErrDimension, t, len(x), J)
		}
	}
	res := &GangResult{Series: make([]GangSeries, len(pols))}
	arrived := make([]bool, J)
	xc := make([]float64, m.NumComponents())
	for i, pol := range pols {
		if pol == nil {
			return nil, fmt.Errorf("%w: RunGang: policy %d is nil", ErrSettings, i)
		}
		s := GangSeries{Name: pol.Name(), Reward: make([]float64, len(arrivals))}
		learner, _ := pol.(GangLearner)
		start := time.Now()
		for t, x := range arrivals {
			for l, v := range x {
				arrived[l] = v > 0
				if arrived[l] {
					s.Arrived++
				}
			}
			d, err := pol.Decide(t, x)
			if err != nil {
				return nil, fmt.Errorf("RunGang: %s: slot %d: %w", s.Name, t, err)
			}
			chk, err := m.Check(arrived, d.Server)
			if err != nil {
				return nil, fmt.Errorf("%w: RunGang: %s: slot %d: %w", ErrDimension, s.Name, t, err)
			}
			if chk.Violations > 0 && s.Violations == 0 {
				s.First = fmt.Sprintf("slot %d: %s", t, chk.First)
			}
			s.Violations += chk.Violations
			s.Served += chk.Served
			r, _, err := GangReward(p, m, GangMinComponents, x, d.Server)
			if err != nil {
				return nil, err
			}
			s.Reward[t] = r
			s.Total += r
			if d.Y != nil {
				if len(d.Y) != p.Dim() {
					return nil, fmt.Errorf("%w: RunGang: %s: len(Y) = %d, want %d", ErrDimension, s.Name, len(d.Y), p.Dim())
				}
				s.Relaxed += p.Reward(GangArrivals(xc, m, x), d.Y)
			} else {
				s.Relaxed = math.NaN()
			}
			if learner != nil {
				if err := learner.Observe(t, x); err != nil {
					return nil, fmt.Errorf("RunGang: %s: slot %d: %w", s.Name, t, err)
				}
			}
		}
		s.Wall = time.Since(start)
		res.Series[i] = s
	}
	return res, nil
}
