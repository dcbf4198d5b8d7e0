package onsocmax

import (
	"fmt"

	"github.com/msched/msched/bipartite"
)

// Status is the termination status of a per-job solver.
type Status int

// Termination statuses.
const (
	NotTerminated Status = iota
	// Success: the solver met its tolerances.
	Success
	// IterationLimit: the outer iteration limit was reached; SolveResult holds
	// the last (projected feasible) iterate.
	IterationLimit
	// InnerIterationLimit: an inner minimisation hit its limit on the last
	// outer iteration (ALM only).
	InnerIterationLimit
	// Trivial: the problem was solved without iterating (empty job, zero
	// target, or the unconstrained optimum already feasible).
	Trivial
	// Failure: an iterate became NaN or infinite (the solver also returns
	// an error wrapping ErrValue); dst is not a solution.
	Failure
)

var statusNames = [...]string{"NotTerminated", "Success", "IterationLimit", "InnerIterationLimit", "Trivial", "Failure"}

// String returns the status name.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Err returns the error of an early stop: an error wrapping
// ErrIterationLimit for IterationLimit and InnerIterationLimit, ErrValue
// for Failure, nil for every other status (NotTerminated included, as in
// gonum's optimize).
func (s Status) Err() error {
	switch s {
	case IterationLimit, InnerIterationLimit:
		return fmt.Errorf("%w: status %v", ErrIterationLimit, s)
	case Failure:
		return fmt.Errorf("%w: status %v: non-finite iterate", ErrValue, s)
	}
	return nil
}

// SolveResult reports a per-job solve. The solution itself is written to the
// caller's dst slice.
type SolveResult struct {
	Mu         float64 // multiplier mu_n of sum_r x_r <= rho_n, eq. (13)
	Objective  float64 // pseudo-social welfare W(x) of P3
	Iterations int     // bisection steps (water-filling) or outer iterations (ALM)
	Inner      int     // total inner gradient iterations (ALM only)
	Violation  float64 // constraint violation (25) at return (ALM only)
	Status     Status
}

// Allocation is one decision x_nr > 0: Job's workload X on the resource
// unit of Node in absolute slot Slot. Unit is its index in the policy's
// window, Node*W + Slot%W for a window of W = mesh.Slots slots; for a
// slot below W (every slot of an Instance) this is the mesh index
// Node*Slots + Slot. OnSocMax reserves units of later slots (resource
// reservation); the baselines allocate only units of the current slot.
type Allocation struct {
	Job  int     `json:"job"` // Job.ID
	Unit int     `json:"unit"`
	Node int     `json:"node"`
	Slot int     `json:"slot"` // absolute slot
	X    float64 `json:"x"`
}

// Reason says why a job got what it got.
type Reason int

// Reasons.
const (
	// NotDecided is the zero Reason.
	NotDecided Reason = iota
	// Allocated: the job got some workload.
	Allocated
	// PricedOut: P3 gave it nothing: its marginal welfare is below the
	// marginal cost phi_r of every unit it may use at the current usage
	// (or its Rho or every XBar is 0).
	PricedOut
	// NoCapacity: none of its units has positive capacity.
	NoCapacity
	// AboveBounds: rejected by RejectOutOfBounds, a unit's marginal
	// welfare f'_nr(x) + beta_nr/C_r exceeds Settings.V.
	AboveBounds
	// BelowBounds: rejected by RejectOutOfBounds, a unit's marginal
	// welfare falls below Settings.Iota.
	BelowBounds
)

var reasonNames = [...]string{"NotDecided", "Allocated", "PricedOut", "NoCapacity", "AboveBounds", "BelowBounds"}

// String returns the reason's name.
func (r Reason) String() string {
	if r < 0 || int(r) >= len(reasonNames) {
		return fmt.Sprintf("Reason(%d)", int(r))
	}
	return reasonNames[r]
}

// Outcome is what one job of a Decide batch got: its total workload
// Served (the sum of its allocations' X) and the Reason.
type Outcome struct {
	Job    int     `json:"job"` // Job.ID
	Reason Reason  `json:"reason"`
	Served float64 `json:"served"`
}

// Decision is what Decide returns: the allocations of the batch and, for
// Policy, one Outcome per job of the batch in its order (the baselines,
// which serve a job over its lifetime, leave Outcomes empty). Both slices
// are owned by the policy and valid until its next method call.
type Decision struct {
	Allocations []Allocation `json:"allocations"`
	Outcomes    []Outcome    `json:"outcomes,omitempty"`
}

// OnlinePolicy is the contract of every policy of the family (Policy,
// baselines.MaxFirst, baselines.EqualShare): Decide(t, the jobs arriving
// in slot t).
type OnlinePolicy = bipartite.OnlinePolicy[[]Job, Decision]
