package ogasched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/msched/msched/internal/checked"
)

// Trace is a recorded arrival matrix: Arrivals[t][l] = x_l(t) >= 0.
type Trace struct {
	Ports    int
	Arrivals [][]float64
}

// BernoulliTrace draws T slots of independent Bernoulli(rho) arrivals per port.
func BernoulliTrace(ports, T int, rho float64, rng *rand.Rand) (*Trace, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: rng is a nil *rand.Rand", ErrSettings)
	}
	if ports <= 0 || T < 0 || !(rho >= 0 && rho <= 1) {
		return nil, fmt.Errorf("%w: ports = %d, T = %d, rho = %v", ErrSettings, ports, T, rho)
	}
	if !checked.Within(MaxTraceCells, ports, T) {
		return nil, fmt.Errorf("%w: ports x T = %d x %d above the limit %d", ErrSettings, ports, T, MaxTraceCells)
	}
	tr := &Trace{Ports: ports, Arrivals: make([][]float64, T)}
	flat := make([]float64, ports*T)
	for t := range tr.Arrivals {
		x := flat[t*ports : (t+1)*ports : (t+1)*ports]
		for l := range x {
			if rng.Float64() < rho {
				x[l] = 1
			}
		}
		tr.Arrivals[t] = x
	}
	return tr, nil
}

// Validate checks shapes and values of the trace: 1 <= Ports <= MaxVertices,
// Ports x T <= MaxTraceCells, every row of length Ports, every count finite,
// non-negative and at most MaxValue.
func (tr *Trace) Validate() error {
	if tr.Ports < 1 || tr.Ports > MaxVertices {
		return fmt.Errorf("%w: ports = %d, want 1..%d", ErrDimension, tr.Ports, MaxVertices)
	}
	if !checked.Within(MaxTraceCells, tr.Ports, len(tr.Arrivals)) {
		return fmt.Errorf("%w: ports x T = %d x %d above the limit %d", ErrDimension, tr.Ports, len(tr.Arrivals), MaxTraceCells)
	}
	for t, x := range tr.Arrivals {
		if len(x) != tr.Ports {
			return fmt.Errorf("%w: len(arrivals[%d]) = %d, want %d", ErrDimension, t, len(x), tr.Ports)
		}
		for l, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return fmt.Errorf("%w: arrivals[%d][%d] = %v, want finite in [0, %g]", ErrValue, t, l, v, MaxValue)
			}
		}
	}
	return nil
}

// Series is the per-slot record of one policy in a Run.
type Series struct {
	Name                  string
	Reward, Gain, Penalty []float64 // per slot: q(x(t), y(t)) = Gain - Penalty
	Total                 float64   // sum of Reward
	Wall                  time.Duration
}

// RunSettings configures Run. The zero value runs policies one at a time
// and does not check feasibility.
type RunSettings struct {
	// Workers is the number of policies simulated concurrently; 0 means 1.
	// Results do not depend on it.
	Workers int
	// CheckTol, if positive, checks every decision against (5)-(6) with this
	// tolerance and fails the run on a violation.
	CheckTol float64
	// Progress, if not nil, is called after every ProgressEvery slots of
	// each policy (from the goroutine simulating it) and at its end.
	Progress func(policy string, t, T int)
	// ProgressEvery is the slot interval of Progress; 0 means T/10.
	ProgressEvery int
}

// Result is the outcome of Run: one Series per policy, in the order given.
type Result struct {
	Series []Series
}

// Run replays tr through every policy: at slot t it calls Decide(t, x(t)),
// records q(x(t), y), and, if the policy is a Learner, calls
// Observe(t, x(t)). Policies are independent and see the same arrivals.
// The result does not depend on RunSettings.Workers. The rewards equal
// Problem.RewardParts bit for bit, computed faster: the utilities are
// evaluated in batches by kind from tables built once per Run and shared
// by all policies. A decision of the wrong length is an error
// (ErrDimension).
func Run(p *Problem, tr *Trace, pols []OnlinePolicy, s RunSettings) (*Result, error) {
	if p == nil || tr == nil {
		return nil, fmt.Errorf("%w: nil problem or trace", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	for i, pol := range pols {
		if pol == nil {
			return nil, fmt.Errorf("%w: policy %d is nil", ErrSettings, i)
		}
	}
	if s.Workers < 0 || s.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, s.Workers, MaxWorkers)
	}
	if math.IsNaN(s.CheckTol) || s.CheckTol < 0 {
		return nil, fmt.Errorf("%w: CheckTol = %v, want >= 0", ErrSettings, s.CheckTol)
	}
	if tr.Ports != p.NumPorts() {
		return nil, fmt.Errorf("%w: trace has %d ports, problem %d", ErrDimension, tr.Ports, p.NumPorts())
	}
	if err := tr.Validate(); err != nil {
		return nil, err
	}
	w := s.Workers
	if w <= 0 {
		w = 1
	}
	rt := newRewardTables(p) // shared, read-only, by every policy's goroutine
	out := make([]Series, len(pols))
	errs := make([]error, len(pols))
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for i, pol := range pols {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = runOne(rt, tr, pol, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return &Result{Series: out}, nil
}

func runOne(rt *rewardTables, tr *Trace, pol OnlinePolicy, rs RunSettings) (Series, error) {
	p := rt.p
	sc := rt.scratch()
	T := len(tr.Arrivals)
	tol := rs.CheckTol
	every := rs.ProgressEvery
	if every <= 0 {
		every = max(1, T/10)
	}
	s := Series{Name: pol.Name(), Reward: make([]float64, T), Gain: make([]float64, T), Penalty: make([]float64, T)}
	learner, _ := pol.(Learner)
	oga, _ := pol.(*Policy)
	if oga != nil && oga.p != p {
		oga = nil // another problem's policy: its own gradient, Run's reward
	}
	start := time.Now()
	for t, x := range tr.Arrivals {
		y, err := pol.Decide(t, x)
		if err != nil {
			return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
		}
		if tol > 0 {
			if err := p.Feasible(y, tol); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
			}
		}
		if len(y) != p.Dim() {
			return s, fmt.Errorf("%w: %s: slot %d: len(decision) = %d, want Dim = %d", ErrDimension, pol.Name(), t, len(y), p.Dim())
		}
		var g, pen float64
		if oga != nil {
			// OGASched on Run's problem: the reward and the gradient
			// in one pass (both bit for bit as below).
			var err error
			if g, pen, err = oga.observeRun(t, x, sc); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
			}
		} else {
			g, pen = rt.parts(sc, x, y) // = p.RewardParts(x, y), bit for bit
		}
		s.Gain[t], s.Penalty[t], s.Reward[t] = g, pen, g-pen
		s.Total += g - pen
		if learner != nil && oga == nil {
			if err := learner.Observe(t, x); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
			}
		}
		if rs.Progress != nil && ((t+1)%every == 0 || t+1 == T) {
			rs.Progress(s.Name, t+1, T)
		}
	}
	s.Wall = time.Since(start)
	return s, nil
}
