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

// Settings configures Policy (New). Its zero value is the paper's setup,
// as package bipartite's zero-value rule asks: the bounds of the paper's
// experiments (see Iota and V), the exact solver, partitionable jobs,
// out-of-bounds jobs rejected.
type Settings struct {
	// Iota and V are the bounds 0 < Iota <= V < Inf of the marginal
	// welfare f'_nr(x) + beta_nr/C_r of the jobs to come, eq. (8); the
	// Theorem 2 pricing (NewPricing) is built from them.
	//
	// Both zero (the default) means the bounds of the paper's experimental
	// setup (Section IV-A of paper 001): Config.MarginalBounds(MinUnit) of
	// DefaultConfig with the paper's three utilities linear, log and poly
	// a*sqrt(x) (utility.Linear, Log, Sqrt), a ~ U[1, 3], beta ~ U[0.1,
	// 0.5], C ~ N(20, 2) and xbar ~ N(7, 1) within GenerateSigmas standard
	// deviations; with MinUnit's default that is Iota ≈ 0.0746 (log at
	// xbar = 13) and V ≈ 15.06 (sqrt at MinUnit = 0.01). Every job Generate
	// draws from such a configuration lies within them. A user whose own
	// utilities, betas or capacities leave these ranges must set both
	// (Instance.MarginalBounds computes them for a known instance,
	// Config.MarginalBounds for a generator's ranges): a job outside the
	// bounds gets nothing under RejectOutOfBounds (Reason AboveBounds or
	// BelowBounds) and voids Theorem 2's ratio under AdmitOutOfBounds.
	// Tighter bounds give a smaller ratio Alpha (a linear-only workload:
	// DefaultConfig().MarginalBounds(0), V/Iota ≈ 3). One of the two zero
	// and the other not is an error.
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
	if s.Iota != 0 || s.V != 0 { // both zero: the paper's bounds, derived by New
		hint := ""
		if s.Iota == 0 || s.V == 0 {
			hint = " (set both, or neither for the paper's bounds)"
		}
		if err := checkBounds(s.Iota, s.V); err != nil {
			errs = append(errs, fmt.Errorf("%w: Settings.Iota = %v, Settings.V = %v%s: %w", ErrSettings, s.Iota, s.V, hint, err))
		}
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

// withDefaults returns s with the bounds of the zero value resolved
// (Settings.Iota and V) for the effective minUnit.
func (s Settings) withDefaults(minUnit float64) (Settings, error) {
	if s.Iota == 0 && s.V == 0 {
		iota, v, err := paperBounds(minUnit)
		if err != nil {
			return s, fmt.Errorf("%w: the paper's bounds at MinUnit = %v: %w", ErrSettings, minUnit, err)
		}
		s.Iota, s.V = iota, v
	}
	return s, nil
}
