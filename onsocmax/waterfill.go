package onsocmax

import (
	"fmt"
	"math"

	"github.com/msched/msched/utility"
)

// WaterFillSettings configures WaterFill. The zero value is valid.
type WaterFillSettings struct {
	// MaxIterations bounds the bisection steps on mu; 0 means 200, enough to
	// reach adjacent floating-point numbers; at most
	// CeilingWaterFillIterations (the bracket of a float64 bisection is
	// exhausted after about 2100 steps).
	MaxIterations int
}

// CeilingWaterFillIterations bounds WaterFillSettings.MaxIterations.
const CeilingWaterFillIterations = 100_000

// WaterFill solves P3 exactly by dual bisection ("water-filling") and
// writes the solution to dst. For a multiplier mu the per-unit response
//
//	x_r(mu) = argmax_{0 <= x <= U_r} f_nr(x) + (Beta_r/C_r - mu) x - Phi_r(x)
//
// (U_r = min(XBar_r, C_r - omega_r)) is found with the utility's inverse
// derivative on the flat part of phi_r and in closed form (linear f) or by
// bisection (other f) on its exponential part. sum_r x_r(mu) is
// non-increasing; mu* = 0 if x(0) is feasible, otherwise mu* is bracketed
// and bisected, and units whose response jumps at mu* (linear utilities) are
// filled in proportion so that sum_r x_r = Rho exactly.
//
// work is scratch space of length p.Len(); nil allocates it. WaterFill
// panics if len(dst) != p.Len() or a non-nil work has another length; it
// returns an error wrapping ErrValue, ErrDimension or ErrBounds for invalid
// data. It does not allocate when work is given.
func WaterFill(dst []float64, p *P3, settings *WaterFillSettings, work []float64) (SolveResult, error) {
	n := p.Len()
	if len(dst) != n || (work != nil && len(work) != n) {
		panic(panicLen)
	}
	if err := p.Validate(); err != nil {
		return SolveResult{}, err
	}
	maxIter := 200
	if settings != nil && settings.MaxIterations != 0 {
		if settings.MaxIterations < 0 || settings.MaxIterations > CeilingWaterFillIterations {
			return SolveResult{}, fmt.Errorf("%w: MaxIterations = %d, want in [0, CeilingWaterFillIterations = %d]", ErrSettings, settings.MaxIterations, CeilingWaterFillIterations)
		}
		maxIter = settings.MaxIterations
	}
	if work == nil {
		work = make([]float64, n)
	}
	if p.Rho == 0 || n == 0 {
		clear(dst)
		return SolveResult{Mu: p.zeroTargetMu(), Objective: 0, Status: Trivial}, nil
	}
	if s := p.responses(dst, 0); s <= p.Rho {
		return SolveResult{Objective: p.Objective(dst), Status: Trivial}, nil
	}
	// Bracket: S(lo) > Rho >= S(hi).
	lo, hi := 0.0, 1.0
	for p.responseSum(hi) > p.Rho {
		lo = hi
		hi *= 2
		if hi > 1e300 {
			return SolveResult{}, fmt.Errorf("%w: cannot bracket the multiplier (rho = %v)", ErrValue, p.Rho)
		}
	}
	it := 0
	status := Success
	fLo, fHi := p.responseSum(lo)-p.Rho, p.responseSum(hi)-p.Rho
	side := 0
	for ; hi-lo > 1e-15*math.Max(1, hi); it++ {
		if it >= maxIter {
			status = IterationLimit
			break
		}
		// Illinois (regula falsi with halving) with a bisection every fifth
		// step, which keeps the bracket shrinking when S jumps (linear f).
		mid := lo + (hi-lo)/2
		if it%5 != 4 && fLo > fHi {
			mid = lo + (hi-lo)*fLo/(fLo-fHi)
		}
		if !(mid > lo && mid < hi) {
			mid = lo + (hi-lo)/2
			if !(mid > lo && mid < hi) {
				break
			}
		}
		fm := p.responseSum(mid) - p.Rho
		if math.IsNaN(fm) || math.IsInf(fm, 0) {
			return SolveResult{Iterations: it, Status: Failure}, fmt.Errorf("%w: water-filling: non-finite response sum %v at mu = %v", ErrValue, fm, mid)
		}
		if math.Abs(fm) <= 1e-14*math.Max(1, p.Rho) {
			lo, hi = mid, mid
			break
		}
		if fm > 0 {
			lo, fLo = mid, fm
			if side == -1 {
				fHi /= 2
			}
			side = -1
		} else {
			hi, fHi = mid, fm
			if side == 1 {
				fLo /= 2
			}
			side = 1
		}
	}
	sLo := p.responses(work, lo)
	sHi := p.responses(dst, hi)
	theta := 0.0
	if sLo > sHi {
		theta = (p.Rho - sHi) / (sLo - sHi)
	}
	for r := range dst {
		dst[r] += theta * (work[r] - dst[r])
	}
	return SolveResult{Mu: hi, Objective: p.Objective(dst), Iterations: it, Status: status}, nil
}

// tieTol is the relative tolerance within which a linear unit counts as
// indifferent on the flat part of phi (iota = a + beta/C is computed in a
// different order than the solver's q, so exact ties differ by rounding).
const tieTol = 1e-12

func (p *P3) responses(dst []float64, mu float64) float64 {
	var s float64
	for r := range dst {
		dst[r] = p.response(r, mu)
		s += dst[r]
	}
	return s
}

func (p *P3) responseSum(mu float64) float64 {
	var s float64
	for r := range p.XBar {
		s += p.response(r, mu)
	}
	return s
}

// response returns x_r(mu), the maximiser over [0, U_r] of the per-unit
// Lagrangian, whose derivative D(x) = f'(x) + Beta/C - mu - phi(omega+x) is
// non-increasing.
func (p *P3) response(r int, mu float64) float64 {
	ub := p.Upper(r)
	if ub <= 0 {
		return 0
	}
	c, omega := p.Capacity[r], p.Usage[r]
	u := p.Utility[r]
	pr := p.Pricing
	b := p.Beta[r] / c
	// Flat part of phi: omega + x < w.
	xf := math.Min(ub, math.Max(0, pr.Threshold(c)-omega))
	q := mu + pr.Iota - b
	x1 := u.InvDeriv(q)
	if u.Kind == utility.Linear && q <= u.A*(1+tieTol) {
		// Indifferent (or within rounding of it): serve the workload. The
		// proof of Theorem 1 (Case I) assumes x = xbar when phi = iota
		// equals the marginal welfare; utility.InvDeriv returns 0 there.
		x1 = math.Inf(1)
	}
	if x1 < xf {
		return x1
	}
	if xf >= ub {
		return ub
	}
	// Exponential part [xf, ub].
	if p.marginal(r, ub)-mu >= 0 {
		return ub
	}
	if p.marginal(r, xf)-mu <= 0 {
		return xf
	}
	if u.Kind == utility.Linear {
		x := pr.InverseCost(u.A+b-mu, c) - omega
		return math.Min(ub, math.Max(xf, x))
	}
	return p.root(r, mu, xf, ub)
}

// root finds x in [lo, hi] with D(x) = marginal(r, x) - mu = 0 given
// D(lo) > 0 > D(hi), by the Illinois method with a bisection every fifth
// step, to a width of 1e-15 relative to the bracket end (roots near 0,
// where a sqrt utility is steep, need relative, not absolute, accuracy).
func (p *P3) root(r int, mu, lo, hi float64) float64 {
	fLo, fHi := p.marginal(r, math.Max(lo, minDeriv))-mu, p.marginal(r, hi)-mu
	side := 0
	for it := 0; it < 300 && hi-lo > 1e-15*hi; it++ {
		mid := lo + (hi-lo)/2
		if it%5 != 4 && !math.IsInf(fLo, 0) {
			mid = lo + (hi-lo)*fLo/(fLo-fHi)
		}
		if !(mid > lo && mid < hi) {
			mid = lo + (hi-lo)/2
			if !(mid > lo && mid < hi) {
				break
			}
		}
		fm := p.marginal(r, mid) - mu
		if math.Abs(fm) <= 1e-14*math.Max(1, math.Abs(mu)) {
			return mid
		}
		switch {
		case fm > 0:
			lo, fLo = mid, fm
			if side == -1 {
				fHi /= 2
			}
			side = -1
		case fm < 0:
			hi, fHi = mid, fm
			if side == 1 {
				fLo /= 2
			}
			side = 1
		default:
			return mid
		}
	}
	return lo + (hi-lo)/2
}

// zeroTargetMu returns the multiplier of sum_r x_r <= 0: the largest
// marginal at x = 0 over units that could be used (at minDeriv for an
// infinite f'(0)), or 0.
func (p *P3) zeroTargetMu() float64 {
	var mu float64
	for r := range p.XBar {
		if p.Upper(r) > 0 {
			mu = math.Max(mu, p.marginal(r, minDeriv))
		}
	}
	return mu
}
