package onsocmax

import (
	"fmt"
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

// GenerateSigmas is how far, in standard deviations, Generate lets a
// normal draw of a capacity or an xbar stray from its mean: draws are
// clipped to mean ± GenerateSigmas·std (a normal draw leaves that range
// with probability 2e-9), so that Config.MarginalBounds holds for every
// job Generate draws.
const GenerateSigmas = 6

// paperKinds are the utilities of the paper's experiments: linear, log
// and "poly" a*sqrt(x) (utility.Sqrt).
var paperKinds = []utility.Kind{utility.Linear, utility.Log, utility.Sqrt}

// MarginalBounds returns bounds iota <= v of eq. (8) that hold for every
// job Generate(c, ·) can draw, from c's documented ranges alone: the
// marginal welfare f'(x) + beta/C of a unit, over x in [0, xbar] (a
// utility with f'(0) = +Inf differentiated at minUnit, DefaultMinUnit if
// minUnit is 0, as Instance.MarginalBounds), every kind of c.Kinds, a in
// [AMin, AMax], beta in [BetaMin, BetaMax], a capacity C and an xbar
// within GenerateSigmas standard deviations of their means (C at least
// 1e-3, xbar at least 0, as Generate clips them). The concave utilities'
// derivatives are monotone in x and in a, so the extremes are taken at
// the corners of these ranges. The bounds are wider than those of any one
// instance (Instance.MarginalBounds); they need no instance. An invalid
// c or minUnit is an error wrapping ErrValue, ErrTooLarge or ErrBounds.
//
// Settings{} takes the bounds of DefaultConfig with the paper's three
// utility kinds (Linear, Log, Sqrt).
func (c Config) MarginalBounds(minUnit float64) (iota, v float64, err error) {
	if err := c.validate(); err != nil {
		return 0, 0, err
	}
	if !(minUnit >= 0) || math.IsInf(minUnit, 1) {
		return 0, 0, fmt.Errorf("%w: minUnit = %v", ErrValue, minUnit)
	}
	if minUnit == 0 {
		minUnit = DefaultMinUnit
	}
	cLo, cHi := clipRange(c.CapMean, c.CapStd, 1e-3)
	xLo, xHi := clipRange(c.XBarMean, c.XBarStd, 0)
	iota, v = math.Inf(1), math.Inf(-1)
	for _, k := range c.Kinds {
		for _, a := range [2]float64{c.AMin, c.AMax} {
			u, err := utility.New(k, a)
			if err != nil {
				return 0, 0, fmt.Errorf("%w: Config kind %v, a = %v: %w", ErrValue, k, a, err)
			}
			for _, xb := range [2]float64{xLo, xHi} {
				lo, _ := marginalWelfareRange(u, xb, c.BetaMin, cHi, minUnit)
				_, hi := marginalWelfareRange(u, xb, c.BetaMax, cLo, minUnit)
				iota, v = math.Min(iota, lo), math.Max(v, hi)
			}
		}
	}
	return iota, v, checkBounds(iota, v)
}

// clipRange is the range Generate clips a normal draw N(mean, std) to:
// [max(floor, mean - GenerateSigmas·std), max(floor, mean + GenerateSigmas·std)].
func clipRange(mean, std, floor float64) (lo, hi float64) {
	return math.Max(floor, mean-GenerateSigmas*std), math.Max(floor, mean+GenerateSigmas*std)
}

// clipNormal draws N(mean, std) from rng, clipped to clipRange.
func clipNormal(rng interface{ NormFloat64() float64 }, mean, std, floor float64) float64 {
	lo, hi := clipRange(mean, std, floor)
	return math.Min(hi, math.Max(lo, mean+std*rng.NormFloat64()))
}

// paperBounds returns the bounds Settings{} stands for: Config.MarginalBounds
// of DefaultConfig with the paper's utility kinds, at minUnit.
func paperBounds(minUnit float64) (iota, v float64, err error) {
	c := DefaultConfig()
	c.Kinds = paperKinds
	return c.MarginalBounds(minUnit)
}
