// Package utility implements the concave, non-decreasing, zero-start
// utility functions used by the msched algorithm families.
//
// # Model
//
// A utility f maps an allocated amount y >= 0 of a resource to a reward with
// f(0) = 0, f' >= 0 and f concave on [0, inf). The kinds, with parameter a > 0
// (and alpha >= 0 for the alpha-fair family), are
//
//	Linear            f(y) = a*y                        f'(y) = a
//	Log               f(y) = a*ln(y+1)                  f'(y) = a/(y+1)
//	Reciprocal        f(y) = 1/a - 1/(y+a)              f'(y) = 1/(y+a)^2
//	Poly              f(y) = a*sqrt(y+1) - a            f'(y) = a/(2*sqrt(y+1))
//	Sqrt              f(y) = a*sqrt(y)                  f'(y) = a/(2*sqrt(y))
//	AlphaFair         f(y) = a*((y+1)^(1-alpha) - 1)/(1-alpha)   (a*ln(y+1) if alpha = 1)
//	                                                    f'(y) = a*(y+1)^(-alpha)
//	ProportionalFair  f(y) = a*ln(y+1)                  (alpha-fair with alpha = 1)
//
// Linear, Log, Reciprocal and Poly are eq. (54) of paper 000 (OGASched,
// "Scheduling Multi-Server Jobs With Sublinear Regrets via Online
// Learning"); Linear, Log and Poly are the job utilities of paper 001
// (OnSocMax), Sqrt the a*sqrt(x) of its discussion.
//
// For every kind the package gives the value, the derivative, the inverse
// derivative and the derivative bound at zero:
//
//   - [Utility.InvDeriv](p) solves the one-dimensional price problem
//     argmax_{x >= 0} f(x) - p*x: the x with f'(x) = p clamped to the
//     domain, 0 when p >= f'(0), +Inf when p <= inf_x f'(x) (for Linear any
//     p < a, for the others p <= 0). Dual ("water-filling") solvers of
//     separable problems are built on it.
//   - [Utility.DerivBound] is f'(0) = sup_y f'(y), the bound varpi of
//     eq. (13) of paper 000 that enters the gradient bound and the regret
//     bound. It is +Inf for Sqrt; callers that need a finite bound evaluate
//     [Utility.Deriv] at their minimum positive allocation unit instead
//     (as package onsocmax does with Settings.MinUnit).
//
// # Deviations and decisions
//
// The alpha-fair utility y^(1-alpha)/(1-alpha) of Mo and Walrand is not
// zero-start (it is -Inf at 0 for alpha >= 1); we shift it by one,
// f(y) = a*((y+1)^(1-alpha)-1)/(1-alpha), which keeps f(0) = 0, a finite
// f'(0) = a, and the same fairness ordering for large y. alpha = 0 is
// Linear, alpha = 1 is Log; ProportionalFair is the alpha = 1 member under
// its usual name.
//
// # Representation
//
// [Utility] is a small value type (kind plus parameters) so that instances
// store them flat and evaluate them without indirect calls; its JSON form is
// {"kind": "log", "a": 1.2} (and "alpha" for AlphaFair); "kind" and "a" are
// required (before, an object without a kind decoded as Linear), unknown
// fields and data after the object are errors. Values are validated by
// [New], [NewAlphaFair], [Utility.Validate] and the JSON decoder: a known
// kind, a in [MinA, MaxA] = [1e-150, 1e150] (the range in which every
// kind's value, derivative and bound f'(0) are finite; before, a
// Reciprocal with a = 1e-200 had f'(0) = +Inf and a Linear with a = 1e308
// overflowed at y = 2), and alpha finite and >= 0. The evaluation methods assume a valid utility and y >= 0 and do
// not check, so that they can sit on hot paths; a utility with a kind
// outside the known ones (built by hand, never validated) evaluates to NaN
// in Value, Deriv, DerivBound and InvDeriv instead of panicking, so that a
// bad value inside a host process is an error downstream, not a crash.
// The JSON decoder also rejects a key given twice or spelled in another
// case ({"kind":"linear","kind":"sqrt"} used to decode as sqrt, the last
// one, and {"KIND":"linear","A":1} as linear).
package utility
