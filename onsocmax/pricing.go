package onsocmax

import (
	"fmt"
	"math"
)

// CompetitiveRatio returns alpha-hat of Theorem 2, the root alpha >= 2 of the
// cleaned equation (40)
//
//	alpha - 1 = 1/(alpha-1) + ln((alpha*v/iota - 1)/(alpha-1)),
//
// for marginal-welfare bounds 0 < iota <= v < Inf (eq. (8)). It is 2 when
// v = iota and grows like 1 + ln(v/iota) for large ratios. The left minus
// the right side is strictly increasing in alpha on [2, Inf), so the root is
// unique; it is bracketed by doubling and found by bisection to the last bit.
func CompetitiveRatio(iota, v float64) (float64, error) {
	if err := checkBounds(iota, v); err != nil {
		return 0, err
	}
	k := v / iota
	if k == 1 {
		return 2, nil
	}
	lo, hi := 2.0, 4.0
	for ratioEquation(hi, k) <= 0 {
		lo = hi
		hi *= 2
		if hi > 1e300 {
			return 0, fmt.Errorf("%w: no root of (40) for v/iota = %v", ErrBounds, k)
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid <= lo || mid >= hi {
			break
		}
		if ratioEquation(mid, k) <= 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Pick the endpoint with the smaller residual.
	if math.Abs(ratioEquation(hi, k)) < math.Abs(ratioEquation(lo, k)) {
		return hi, nil
	}
	return lo, nil
}

// RatioResidual returns the left minus the right side of (40) at alpha for
// v/iota = k; it is zero at CompetitiveRatio.
func RatioResidual(alpha, iota, v float64) float64 { return ratioEquation(alpha, v/iota) }

func ratioEquation(a, k float64) float64 {
	m := a - 1
	return m - 1/m - math.Log((a*k-1)/m)
}

func checkBounds(iota, v float64) error {
	if !(iota > 0) || math.IsInf(iota, 0) {
		return fmt.Errorf("%w: iota = %v, want finite iota > 0", ErrBounds, iota)
	}
	if !(v >= iota) || math.IsInf(v, 0) {
		return fmt.Errorf("%w: v = %v, want finite v >= iota = %v", ErrBounds, v, iota)
	}
	return nil
}

// Pricing is the marginal-cost design of Theorem 2 for the bounds iota <= v
// of eq. (8) and the competitive ratio Alpha of (40). With the threshold
// w = C/(Alpha-1) of a unit of capacity C,
//
//	phi(u) = Iota                                            u < w
//	phi(u) = Iota/Alpha + (Iota - Iota/Alpha) exp(Alpha (u-w)/C)   w <= u <= C
//	phi(u) = +Inf                                            u > C
//
// so phi is continuous at w and phi(C) = V. A Pricing is a small value; its
// methods are safe for concurrent use and do not allocate.
type Pricing struct {
	Iota  float64 `json:"iota"`  // lower bound of the marginal welfare, eq. (8)
	V     float64 `json:"v"`     // upper bound of the marginal welfare, eq. (8)
	Alpha float64 `json:"alpha"` // competitive ratio alpha-hat, eq. (40)
}

// NewPricing returns the Theorem 2 design for 0 < iota <= v < Inf.
func NewPricing(iota, v float64) (Pricing, error) {
	a, err := CompetitiveRatio(iota, v)
	if err != nil {
		return Pricing{}, err
	}
	return Pricing{Iota: iota, V: v, Alpha: a}, nil
}

// Validate checks the bounds and that Alpha solves (40) to 1e-9.
func (p Pricing) Validate() error {
	if err := checkBounds(p.Iota, p.V); err != nil {
		return err
	}
	if !(p.Alpha >= 2) || math.Abs(ratioEquation(p.Alpha, p.V/p.Iota)) > 1e-9 {
		return fmt.Errorf("%w: alpha = %v does not solve (40) for iota = %v, v = %v", ErrBounds, p.Alpha, p.Iota, p.V)
	}
	return nil
}

// Threshold returns the utilisation threshold w = c/(Alpha-1) of a unit of
// capacity c (Theorem 2).
func (p Pricing) Threshold(c float64) float64 { return c / (p.Alpha - 1) }

// MarginalCost returns phi_r(u) for a unit of capacity c: Iota below the
// threshold (also for u < 0, the linear extension used by solvers),
// the exponential branch on [w, c], +Inf above c. A unit of zero capacity
// costs +Inf for any u > 0.
func (p Pricing) MarginalCost(u, c float64) float64 {
	if u > c {
		return math.Inf(1)
	}
	w := p.Threshold(c)
	if u < w {
		return p.Iota
	}
	b := p.Iota / p.Alpha
	return b + (p.Iota-b)*math.Exp(p.Alpha*(u-w)/c)
}

// costIntegral returns G(u) = int_0^u phi (linear Iota*u for u < w).
func (p Pricing) costIntegral(u, c float64) float64 {
	w := p.Threshold(c)
	if u <= w {
		return p.Iota * u
	}
	if u > c {
		return math.Inf(1)
	}
	b := p.Iota / p.Alpha
	d := u - w
	return p.Iota*w + b*d + (p.Iota-b)*(c/p.Alpha)*math.Expm1(p.Alpha*d/c)
}

// Cost returns Phi_r(x) of eq. (12), the integral of phi_r from the usage
// omega to omega+x, in closed form, for a unit of capacity c. It is +Inf
// when omega+x > c. x may be negative (the solvers' linear extension below
// zero usage is Iota per unit).
func (p Pricing) Cost(omega, x, c float64) float64 {
	if omega+x > c {
		return math.Inf(1)
	}
	return p.costIntegral(omega+x, c) - p.costIntegral(omega, c)
}

// InverseCost returns the largest usage u in [0, c] with phi(u) <= q for a
// unit of capacity c: 0 when q < Iota, c when q >= V (up to rounding), and
// the inverse of the exponential branch in between. It is the water level of
// price q.
func (p Pricing) InverseCost(q, c float64) float64 {
	if q < p.Iota {
		return 0
	}
	w := p.Threshold(c)
	b := p.Iota / p.Alpha
	u := w + c/p.Alpha*math.Log((q-b)/(p.Iota-b))
	if u > c {
		return c
	}
	return math.Max(u, w)
}
