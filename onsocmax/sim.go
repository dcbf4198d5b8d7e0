package onsocmax

import (
	"fmt"
	"math"
)

// RunSettings configures Run. The zero value checks feasibility with a
// relative tolerance of 1e-9.
type RunSettings struct {
	// Tol is the tolerance of the final feasibility check
	// (Instance.CheckFeasible); 0 means 1e-9.
	Tol float64
}

// Series is the result of one policy on one instance.
type Series struct {
	Policy  string
	Welfare float64     // P1 objective sum f_nr + g_nr
	X       [][]float64 // x_nr per job, aligned with Job.Units
	Served  float64     // total workload dispatched
}

// Result is the result of Run: one Series per policy, in their order.
type Result struct {
	Series []Series
}

// Run replays the instance slot by slot through each policy: in every slot
// t of [0, Slots) it hands the jobs arriving at t (possibly none) to
// Decide and records the allocations. It checks that every allocation
// names an arrived job and one of its units in slot >= t (no allocation in
// the past), and that the final allocation is feasible for P1; otherwise it
// returns an error naming the policy and the violation. Policies are run
// one after the other on fresh state they bring themselves (build each
// with New or the baselines' constructors on inst.Mesh).
func Run(inst *Instance, policies []OnlinePolicy, settings RunSettings) (*Result, error) {
	if inst == nil {
		return nil, fmt.Errorf("%w: nil instance", ErrValue)
	}
	if err := inst.Validate(); err != nil {
		return nil, err
	}
	tol := settings.Tol
	if tol == 0 {
		tol = 1e-9
	}
	if !(tol > 0) || math.IsInf(tol, 1) {
		return nil, fmt.Errorf("%w: RunSettings.Tol = %v", ErrSettings, settings.Tol)
	}
	for k, pol := range policies {
		if pol == nil {
			return nil, fmt.Errorf("%w: nil policy at index %d", ErrValue, k)
		}
	}
	res := &Result{Series: make([]Series, 0, len(policies))}
	for _, pol := range policies {
		s, err := run(inst, pol, tol)
		if err != nil {
			return nil, err
		}
		res.Series = append(res.Series, *s)
	}
	return res, nil
}

func run(in *Instance, pol OnlinePolicy, tol float64) (*Series, error) {
	byID := make(map[int]int, len(in.Jobs))
	pos := make([]map[int]int, len(in.Jobs))
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		j := &in.Jobs[n]
		byID[j.ID] = n
		pos[n] = make(map[int]int, len(j.Units))
		for i, r := range j.Units {
			pos[n][r] = i
		}
		x[n] = make([]float64, len(j.Units))
	}
	next := 0
	for t := range in.Mesh.Slots {
		lo := next
		for next < len(in.Jobs) && in.Jobs[next].Arrival == t {
			next++
		}
		dec, err := pol.Decide(t, in.Jobs[lo:next])
		if err != nil {
			return nil, fmt.Errorf("onsocmax: %s at slot %d: %w", pol.Name(), t, err)
		}
		for _, a := range dec.Allocations {
			n, ok := byID[a.Job]
			if !ok || n >= next {
				return nil, fmt.Errorf("%w: %s at slot %d allocates to unknown or future job %d", ErrValue, pol.Name(), t, a.Job)
			}
			i, ok := pos[n][a.Unit]
			if !ok {
				return nil, fmt.Errorf("%w: %s at slot %d allocates job %d to unit %d outside R_n", ErrValue, pol.Name(), t, a.Job, a.Unit)
			}
			if node, s := in.Mesh.NodeSlot(a.Unit); s < t || s != a.Slot || node != a.Node {
				return nil, fmt.Errorf("%w: %s at slot %d allocates job %d to unit %d (node %d, slot %d) named node %d, slot %d", ErrValue, pol.Name(), t, a.Job, a.Unit, node, s, a.Node, a.Slot)
			}
			if !(a.X >= 0) || math.IsInf(a.X, 0) {
				return nil, fmt.Errorf("%w: %s at slot %d allocates x = %v", ErrValue, pol.Name(), t, a.X)
			}
			x[n][i] += a.X
		}
	}
	if err := in.CheckFeasible(x, tol); err != nil {
		return nil, fmt.Errorf("onsocmax: %s is infeasible: %w", pol.Name(), err)
	}
	var served float64
	for _, row := range x {
		for _, v := range row {
			served += v
		}
	}
	return &Series{Policy: pol.Name(), Welfare: in.Welfare(x), X: x, Served: served}, nil
}
