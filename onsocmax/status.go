package onsocmax

import "fmt"

// Status is the termination status of a per-job solver.
type Status int

// Termination statuses.
const (
	NotTerminated Status = iota
	// Success: the solver met its tolerances.
	Success
	// IterationLimit: the outer iteration limit was reached; Result holds
	// the last (projected feasible) iterate.
	IterationLimit
	// InnerIterationLimit: an inner minimisation hit its limit on the last
	// outer iteration (ALM only).
	InnerIterationLimit
	// Trivial: the problem was solved without iterating (empty job, zero
	// target, or the unconstrained optimum already feasible).
	Trivial
)

var statusNames = [...]string{"NotTerminated", "Success", "IterationLimit", "InnerIterationLimit", "Trivial"}

// String returns the status name.
func (s Status) String() string {
	if s < 0 || int(s) >= len(statusNames) {
		return fmt.Sprintf("Status(%d)", int(s))
	}
	return statusNames[s]
}

// Result reports a per-job solve. The solution itself is written to the
// caller's dst slice.
type Result struct {
	Mu         float64 // multiplier mu_n of sum_r x_r <= rho_n, eq. (13)
	Objective  float64 // pseudo-social welfare W(x) of P3
	Iterations int     // bisection steps (water-filling) or outer iterations (ALM)
	Inner      int     // total inner gradient iterations (ALM only)
	Violation  float64 // constraint violation (25) at return (ALM only)
	Status     Status
}
