package onsocmax

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestCompetitiveRatioSolvesEq40 checks that alpha-hat solves the cleaned
// (40) to 1e-12 over ratios v/iota from 1 to 1e12.
func TestCompetitiveRatioSolvesEq40(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	ks := []float64{1, 1 + 1e-12, 1.0001, 1.5, 2, 3, 10, 36, 100, 1e4, 1e8, 1e12}
	for range 200 {
		ks = append(ks, math.Exp(rng.Float64()*20))
	}
	for _, k := range ks {
		iota := 0.01 + rng.Float64()*5
		a, err := CompetitiveRatio(iota, k*iota)
		if err != nil {
			t.Fatalf("k=%v: %v", k, err)
		}
		if a < 2 {
			t.Fatalf("k=%v: alpha=%v < 2", k, a)
		}
		if r := RatioResidual(a, iota, k*iota); math.Abs(r) > 1e-12 {
			t.Errorf("k=%v: alpha=%v residual %v > 1e-12", k, a, r)
		}
		// Theorem 2 (ii) compares alpha-1 with the one-way-trading optimum
		// ln(v/iota); alpha-1 is never below it.
		if a-1 < math.Log(k)-1e-9 {
			t.Errorf("k=%v: alpha-1=%v < ln k=%v", k, a-1, math.Log(k))
		}
	}
	if a, _ := CompetitiveRatio(3, 3); a != 2 {
		t.Errorf("v = iota: alpha = %v, want 2", a)
	}
}

func TestCompetitiveRatioMonotone(t *testing.T) {
	prev := 0.0
	for k := 1.0; k < 1e6; k *= 1.3 {
		a, err := CompetitiveRatio(1, k)
		if err != nil {
			t.Fatal(err)
		}
		if a < prev {
			t.Fatalf("alpha decreases at k=%v: %v < %v", k, a, prev)
		}
		prev = a
	}
}

func TestCompetitiveRatioRejectsBadBounds(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range [][2]float64{{0, 1}, {-1, 1}, {2, 1}, {nan, 1}, {1, nan}, {1, inf}, {inf, inf}} {
		if _, err := CompetitiveRatio(c[0], c[1]); !errors.Is(err, ErrBounds) {
			t.Errorf("iota=%v v=%v: err = %v, want ErrBounds", c[0], c[1], err)
		}
	}
}

// TestMarginalCostShape checks continuity at the threshold, phi(C) = v,
// monotonicity and +Inf above C.
func TestMarginalCostShape(t *testing.T) {
	for _, k := range []float64{1, 1.2, 3, 24, 1000} {
		p, err := NewPricing(0.7, 0.7*k)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []float64{1, 20, 333.3} {
			w := p.Threshold(c)
			left := p.MarginalCost(w*(1-1e-15), c)
			right := p.MarginalCost(w, c)
			if math.Abs(left-right) > 1e-12*p.V {
				t.Errorf("k=%v c=%v: phi jumps at w: %v -> %v", k, c, left, right)
			}
			if got := p.MarginalCost(c, c); math.Abs(got-p.V) > 1e-9*p.V {
				t.Errorf("k=%v c=%v: phi(C) = %v, want v = %v", k, c, got, p.V)
			}
			if !math.IsInf(p.MarginalCost(c*(1+1e-12)+1e-12, c), 1) {
				t.Errorf("k=%v c=%v: phi above C is finite", k, c)
			}
			prev := -1.0
			for i := 0; i <= 1000; i++ {
				u := c * float64(i) / 1000
				m := p.MarginalCost(u, c)
				if m < prev {
					t.Fatalf("phi decreases at u=%v", u)
				}
				prev = m
			}
		}
	}
}

// TestCostIsIntegralOfMarginalCost checks Phi' = phi by central differences
// and Phi against composite Simpson quadrature of phi.
func TestCostIsIntegralOfMarginalCost(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for range 300 {
		iota := 0.1 + rng.Float64()
		p, _ := NewPricing(iota, iota*(1+rng.Float64()*30))
		c := 1 + rng.Float64()*30
		omega := rng.Float64() * c * 0.9
		x := rng.Float64() * (c - omega) * 0.99
		h := 1e-6 * c
		if x > h && omega+x+h < c {
			d := (p.Cost(omega, x+h, c) - p.Cost(omega, x-h, c)) / (2 * h)
			if want := p.MarginalCost(omega+x, c); math.Abs(d-want) > 1e-5*math.Max(1, want) {
				t.Errorf("Phi'(%v) = %v, phi = %v", x, d, want)
			}
		}
		// Simpson on a fine grid (phi is smooth on each side of w; split there).
		q := simpson(func(u float64) float64 { return p.MarginalCost(u, c) }, omega, omega+x, p.Threshold(c))
		if got := p.Cost(omega, x, c); math.Abs(got-q) > 1e-8*math.Max(1, q) {
			t.Errorf("Phi = %v, quadrature %v", got, q)
		}
	}
}

func simpson(f func(float64) float64, a, b, kink float64) float64 {
	if a < kink && kink < b {
		return simpson(f, a, kink, math.Inf(1)) + simpson(f, kink, b, math.Inf(1))
	}
	const n = 2000
	h := (b - a) / n
	s := f(a) + f(b)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * f(a+float64(i)*h)
	}
	return s * h / 3
}

func TestInverseCostInvertsMarginalCost(t *testing.T) {
	p, _ := NewPricing(1, 20)
	c := 10.0
	for i := 0; i <= 100; i++ {
		u := p.Threshold(c) + (c-p.Threshold(c))*float64(i)/100
		q := p.MarginalCost(u, c)
		if got := p.InverseCost(q, c); math.Abs(got-u) > 1e-9 {
			t.Errorf("InverseCost(phi(%v)) = %v", u, got)
		}
	}
	if got := p.InverseCost(0.5, c); got != 0 {
		t.Errorf("below iota: %v", got)
	}
	if got := p.InverseCost(100, c); got != c {
		t.Errorf("above v: %v", got)
	}
}

func FuzzPricing(f *testing.F) {
	f.Add(1.0, 2.0, 20.0, 3.0, 4.0)
	f.Add(0.5, 0.5, 1.0, 0.0, 1.0)
	f.Add(1e-300, 1e300, 1e-10, 0.5, 0.5)
	f.Add(-1.0, 2.0, 20.0, 3.0, 4.0)
	f.Fuzz(func(t *testing.T, iota, v, c, omega, x float64) {
		p, err := NewPricing(iota, v)
		if err != nil {
			if !errors.Is(err, ErrBounds) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("NewPricing result invalid: %v", err)
		}
		if !(c > 0) || math.IsInf(c, 0) || !(omega >= 0) || !(x >= 0) || math.IsInf(omega+x, 0) {
			return
		}
		m := p.MarginalCost(omega, c)
		if math.IsNaN(m) || m < p.Iota {
			t.Fatalf("phi(%v) = %v", omega, m)
		}
		if cost := p.Cost(omega, x, c); math.IsNaN(cost) || cost < 0 {
			t.Fatalf("Phi(%v, %v) = %v", omega, x, cost)
		}
		if u := p.InverseCost(m, c); math.IsNaN(u) || u < 0 || u > c {
			t.Fatalf("InverseCost = %v", u)
		}
	})
}

// TestTheorem2GapToOneWayTrading checks Theorem 2 (ii) numerically: the gap
// alpha-hat - (1 + ln(v/iota)) to the optimal one-way-trading ratio is
// positive and decreasing in v/iota; it stays above 2/(sqrt5+1) -
// ln((sqrt5+1)/2) ~ 0.1368 for v/iota <= 1e6 but tends to 0 (about
// 2/(alpha-1)) as v/iota grows, so the paper's "at least 0.1368" holds only
// on a bounded range.
func TestTheorem2GapToOneWayTrading(t *testing.T) {
	bound := 2/(math.Sqrt(5)+1) - math.Log((math.Sqrt(5)+1)/2)
	prev := math.Inf(1)
	for k := 1.0; k <= 1e12; k *= 1.5 {
		a, _ := CompetitiveRatio(1, k)
		gap := a - 1 - math.Log(k)
		if gap <= 0 || gap > prev+1e-12 {
			t.Fatalf("k=%v: gap %v (previous %v)", k, gap, prev)
		}
		if k <= 1e6 && gap < bound {
			t.Fatalf("k=%v: gap %v < %v", k, gap, bound)
		}
		prev = gap
	}
	if prev >= bound {
		t.Fatalf("gap at v/iota = 1e12 is %v, expected below %v", prev, bound)
	}
	t.Logf("gap at v/iota ~ 1e12: %.4f (< %.4f)", prev, bound)
}
