package onsocmax

import (
	"fmt"
	"math"

	"github.com/msched/msched/utility"
)

// P3 is the per-job pseudo-social-welfare problem of paper 001 solved when
// job n arrives (step 4 of Algorithm 1):
//
//	maximise  W(x) = sum_r [ f_nr(x_r) + Beta_r x_r / C_r - Phi_r(x_r) ]
//	s.t.      sum_r x_r <= Rho,   0 <= x_r <= XBar_r,
//
// where Phi_r(x) = int_{omega_r}^{omega_r+x} phi_r is the cost (12) of
// Pricing at the current usage omega_r = Usage[r], and r runs over the
// job's available units R_n (all slices are indexed by position in R_n).
// Phi_r is +Inf beyond C_r - omega_r, so the effective upper bound of x_r is
// min(XBar_r, C_r - omega_r).
type P3 struct {
	Rho      float64           // target workload rho_n
	XBar     []float64         // per-unit caps xbar_nr, constraint (7)
	Utility  []utility.Utility // per-unit job utilities f_nr, eq. (2)
	Beta     []float64         // per-unit weights beta_nr of g_nr, eq. (3)
	Capacity []float64         // C_r of each unit
	Usage    []float64         // usage levels omega_r^(n), eq. (11)
	Pricing  Pricing           // marginal costs of Theorem 2
}

// Len returns |R_n|.
func (p *P3) Len() int {
	if p == nil {
		return 0
	}
	return len(p.XBar)
}

// Validate returns an error naming the first invalid datum of p.
func (p *P3) Validate() error {
	if p == nil {
		return fmt.Errorf("%w: nil P3", ErrValue)
	}
	n := len(p.XBar)
	if len(p.Utility) != n || len(p.Beta) != n || len(p.Capacity) != n || len(p.Usage) != n {
		return fmt.Errorf("%w: len(XBar)=%d len(Utility)=%d len(Beta)=%d len(Capacity)=%d len(Usage)=%d",
			ErrDimension, n, len(p.Utility), len(p.Beta), len(p.Capacity), len(p.Usage))
	}
	if !finiteNonNeg(p.Rho) {
		return fmt.Errorf("%w: rho = %v", ErrValue, p.Rho)
	}
	if err := p.Pricing.Validate(); err != nil {
		return err
	}
	for r := range n {
		if !finiteNonNeg(p.XBar[r]) {
			return fmt.Errorf("%w: xbar index %d value %v", ErrValue, r, p.XBar[r])
		}
		if !finiteNonNeg(p.Beta[r]) {
			return fmt.Errorf("%w: beta index %d value %v", ErrValue, r, p.Beta[r])
		}
		if !(p.Capacity[r] > 0) || math.IsInf(p.Capacity[r], 0) {
			return fmt.Errorf("%w: capacity index %d value %v", ErrValue, r, p.Capacity[r])
		}
		if !finiteNonNeg(p.Usage[r]) || p.Usage[r] > p.Capacity[r] {
			return fmt.Errorf("%w: usage index %d value %v (capacity %v)", ErrValue, r, p.Usage[r], p.Capacity[r])
		}
		if err := p.Utility[r].Validate(); err != nil {
			return fmt.Errorf("%w: utility index %d: %w", ErrValue, r, err)
		}
	}
	return nil
}

func finiteNonNeg(x float64) bool { return x >= 0 && !math.IsInf(x, 1) }

// Upper returns the effective upper bound min(XBar_r, C_r - omega_r), >= 0.
func (p *P3) Upper(r int) float64 {
	return math.Max(0, math.Min(p.XBar[r], p.Capacity[r]-p.Usage[r]))
}

// Objective returns the pseudo-social welfare W(x) (-Inf if x leaves the
// domain of Phi). It panics if len(x) != p.Len().
func (p *P3) Objective(x []float64) float64 {
	if len(x) != len(p.XBar) {
		panic(panicLen)
	}
	var w float64
	for r, xr := range x {
		c := p.Capacity[r]
		w += p.Utility[r].Value(xr) + p.Beta[r]*xr/c - p.cost(r, xr)
	}
	return w
}

// Welfare returns the true social welfare sum_r f_nr(x_r) + Beta_r x_r / C_r
// of x (the P1 objective restricted to this job), without the costs.
func (p *P3) Welfare(x []float64) float64 {
	if len(x) != len(p.XBar) {
		panic(panicLen)
	}
	var w float64
	for r, xr := range x {
		w += p.Utility[r].Value(xr) + p.Beta[r]*xr/p.Capacity[r]
	}
	return w
}

// level returns omega_r + x, clamped to C_r when x <= C_r - omega_r in
// floating point (the sum can exceed C_r by rounding at the bound).
func (p *P3) level(r int, x float64) float64 {
	c, u := p.Capacity[r], p.Usage[r]+x
	if u > c && x <= c-p.Usage[r] {
		return c
	}
	return u
}

// cost returns Phi_r(x) of (12) with level's clamping.
func (p *P3) cost(r int, x float64) float64 {
	c := p.Capacity[r]
	return p.Pricing.costIntegral(p.level(r, x), c) - p.Pricing.costIntegral(p.Usage[r], c)
}

// marginal returns f'_nr(x) + Beta_r/C_r - phi_r(omega_r + x), the partial
// derivative of W (before the multiplier).
func (p *P3) marginal(r int, x float64) float64 {
	c := p.Capacity[r]
	return p.Utility[r].Deriv(x) + p.Beta[r]/c - p.Pricing.MarginalCost(p.level(r, x), c)
}

// KKTResidual returns the largest violation of the KKT conditions (13) of P3
// at the primal x and the multiplier mu of sum_r x_r <= Rho, measured by the
// natural residual: per unit |x_r - clip(x_r + g_r, 0, U_r)| with
// g_r = f'_nr(x_r) + Beta_r/C_r - phi_r(omega_r + x_r) - mu, which is zero
// exactly when stationarity and the sign conditions gamma, zeta >= 0 with
// their complementarity hold; together with primal feasibility, mu >= 0 and
// |mu (sum x - Rho)| (feasibility and complementarity scaled by max(1, Rho)).
// It panics if len(x) != p.Len().
func (p *P3) KKTResidual(x []float64, mu float64) float64 {
	if len(x) != len(p.XBar) {
		panic(panicLen)
	}
	res := math.Max(0, -mu)
	var sum float64
	for r, xr := range x {
		sum += xr
		ub := p.Upper(r)
		res = math.Max(res, math.Max(-xr, xr-ub))
		if ub <= 0 {
			continue
		}
		xc := math.Min(math.Max(xr, 0), ub)
		g := p.marginal(r, math.Max(xc, minDeriv)) - mu
		if xc > minDeriv {
			g = p.marginal(r, xc) - mu
		}
		res = math.Max(res, math.Abs(xc-math.Min(ub, math.Max(0, xc+g))))
	}
	res = math.Max(res, (sum-p.Rho)/math.Max(1, p.Rho))
	res = math.Max(res, math.Abs(mu*(sum-p.Rho))/math.Max(1, p.Rho))
	return res
}
