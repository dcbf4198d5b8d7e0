package onsocmax

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
)

// Solver selects the per-job P3 solver of Policy.
type Solver int

// Solvers.
const (
	// WaterFilling is the exact dual bisection (WaterFill), the default.
	WaterFilling Solver = iota
	// AugmentedLagrangian is Algorithm 2 (ALM.SolveP3).
	AugmentedLagrangian
)

// BoundsRule says what Policy does with a job whose marginal welfare
// f'_nr(x) + beta_nr/C_r, over x in [0, xbar_nr] and its units of positive
// capacity, leaves the declared bounds [Settings.Iota, Settings.V] of
// eq. (8).
type BoundsRule int

// Bounds rules.
const (
	// RejectOutOfBounds (the default) gives such a job nothing, with the
	// Reason AboveBounds or BelowBounds in its Outcome. The policy then
	// runs exactly as on the sequence of admitted jobs, which satisfies
	// (8), so Theorem 2's OPT/ONLINE <= Alpha holds against the optimum
	// of the admitted jobs (on a fixed mesh).
	RejectOutOfBounds BoundsRule = iota
	// AdmitOutOfBounds serves such a job under the declared pricing like
	// any other. Every decision stays feasible (phi_r is +Inf above C_r),
	// but Theorem 2 no longer covers the instance: no competitive ratio is
	// claimed once such a job has been served.
	AdmitOutOfBounds
)

// Settings configures Policy (New). Iota and V have no default and are
// the one exception to the zero-value rule of package bipartite: they bound
// the marginal welfare of the jobs to come, which the mesh does not
// determine, so the operator declares them (Instance.MarginalBounds
// computes them for a known instance), and Settings{} is an error naming
// both. Every other zero field is the paper's setup: the exact solver,
// partitionable jobs, out-of-bounds jobs rejected.
type Settings struct {
	// Iota and V are the bounds 0 < Iota <= V < Inf of the marginal
	// welfare, eq. (8), declared by the operator; the Theorem 2 pricing
	// (NewPricing) is built from them. The paper takes them from the whole
	// instance (Instance.MarginalBounds); an online scheduler declares
	// them. Zero is an error.
	Iota, V float64
	// OutOfBounds is the rule for a job outside [Iota, V]; zero is
	// RejectOutOfBounds.
	OutOfBounds BoundsRule
	// MinUnit is the workload at which a utility with f'(0) = +Inf
	// (utility.Sqrt) is differentiated when a job is checked against the
	// bounds; zero means DefaultMinUnit (as Instance.MarginalBounds).
	MinUnit float64
	// Solver is the per-job P3 solver; zero is WaterFilling.
	Solver Solver
	// ALM configures the augmented Lagrangian when Solver is
	// AugmentedLagrangian; its zero value is Table II with tight final
	// tolerances (see ALMSettings).
	ALM ALMSettings
	// NonPartitionable is the variant of Section III-D: x_nr in
	// {0, xbar_nr}. Each unit's net value f_nr(xbar) + beta xbar/C -
	// Phi_r(xbar) is computed with the exact cost (12); units with positive
	// net value that fit (omega + xbar <= C) are taken greedily by net value
	// per workload while sum x <= rho_n. With xbar_nr = rho_n (the paper's
	// setting) this picks the single best unit, i.e. it is exact. Zero
	// (false) is the partitionable OnSocMax.
	NonPartitionable bool
	// Logger receives one Debug record "decide" per Decide (family,
	// policy, slot, jobs, allocations) and one "outcome" per job that got
	// nothing (its Reason), in the log vocabulary of package bipartite; nil
	// (the default) logs nothing and costs one comparison.
	Logger *slog.Logger
}

// Validate reports every invalid field, joined with errors.Join, each
// wrapping ErrSettings (and ErrBounds for the bounds).
func (s Settings) Validate() error {
	var errs []error
	if err := checkBounds(s.Iota, s.V); err != nil {
		errs = append(errs, fmt.Errorf("%w: Settings.Iota = %v, Settings.V = %v: %w", ErrSettings, s.Iota, s.V, err))
	}
	if s.OutOfBounds != RejectOutOfBounds && s.OutOfBounds != AdmitOutOfBounds {
		errs = append(errs, fmt.Errorf("%w: Settings.OutOfBounds = %d", ErrSettings, s.OutOfBounds))
	}
	if !(s.MinUnit >= 0) || math.IsInf(s.MinUnit, 1) {
		errs = append(errs, fmt.Errorf("%w: Settings.MinUnit = %v, want finite >= 0", ErrSettings, s.MinUnit))
	}
	if s.Solver != WaterFilling && s.Solver != AugmentedLagrangian {
		errs = append(errs, fmt.Errorf("%w: Settings.Solver = %d", ErrSettings, s.Solver))
	}
	if _, err := s.ALM.withDefaults(); err != nil {
		errs = append(errs, fmt.Errorf("Settings.ALM: %w", err))
	}
	return errors.Join(errs...)
}
