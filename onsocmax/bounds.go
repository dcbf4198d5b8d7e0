package onsocmax

import (
	"math"

	"github.com/msched/msched/utility"
)

// marginalWelfareRange returns the range [min, max] of the marginal welfare
// f'(x) + beta/c over x in [0, xbar] (eq. (8) for one (n, r)). The
// derivative of a concave f is largest at 0 and smallest at xbar; a utility
// with f'(0) = +Inf (Sqrt) is evaluated at minUnit instead of 0.
func marginalWelfareRange(u utility.Utility, xbar, beta, c, minUnit float64) (lo, hi float64) {
	g := beta / c
	d0 := u.DerivBound()
	if math.IsInf(d0, 1) {
		d0 = u.Deriv(math.Min(minUnit, math.Max(xbar, minUnit)))
	}
	d1 := u.Deriv(math.Max(xbar, minUnit))
	if u.Kind != utility.Sqrt {
		d1 = u.Deriv(xbar)
	}
	return d1 + g, d0 + g
}
