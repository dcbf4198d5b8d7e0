package utility

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// testUtilities returns a spread of valid utilities of every kind.
func testUtilities() []Utility {
	var us []Utility
	for _, a := range []float64{0.3, 1, 1.25, 3, 17} {
		for _, k := range Kinds() {
			if k == AlphaFair {
				for _, al := range []float64{0, 0.5, 1, 2, 5} {
					us = append(us, Utility{Kind: k, A: a, Alpha: al})
				}
				continue
			}
			us = append(us, Utility{Kind: k, A: a})
		}
	}
	return us
}

var testPoints = []float64{0, 1e-6, 0.1, 0.5, 1, 2, 7.5, 30, 1e3, 1e6}

func TestZeroStartMonotoneConcave(t *testing.T) {
	for _, u := range testUtilities() {
		if v := u.Value(0); v != 0 {
			t.Errorf("%v: f(0) = %v, want 0", u, v)
		}
		prev := 0.0
		for i := 1; i <= 400; i++ {
			y := float64(i) * 0.05
			v := u.Value(y)
			if v < prev {
				t.Fatalf("%v: decreasing at y = %v: %v < %v", u, y, v, prev)
			}
			// Midpoint concavity.
			h := 0.05
			if mid, ends := u.Value(y), (u.Value(y-h)+u.Value(y+h))/2; ends > mid+1e-12*math.Max(1, mid) {
				t.Fatalf("%v: not concave at y = %v: (f(y-h)+f(y+h))/2 = %v > f(y) = %v", u, y, ends, mid)
			}
			prev = v
		}
	}
}

// TestDerivMatchesFiniteDifference checks f' against a central difference
// of f with step h = 1e-5*(1+y).
func TestDerivMatchesFiniteDifference(t *testing.T) {
	for _, u := range testUtilities() {
		for _, y := range testPoints {
			if y < 1e-3 {
				continue // one-sided at the boundary: checked below
			}
			h := 1e-5 * (1 + y)
			fd := (u.Value(y+h) - u.Value(y-h)) / (2 * h)
			d := u.Deriv(y)
			if math.Abs(fd-d) > 1e-6*math.Max(1, math.Abs(d)) {
				t.Errorf("%v: f'(%v) = %v, finite difference %v", u, y, d, fd)
			}
		}
		// Forward difference at 0 agrees with f'(0) when it is finite.
		if d0 := u.Deriv(0); !math.IsInf(d0, 1) {
			h := 1e-7
			if fd := (u.Value(h) - u.Value(0)) / h; math.Abs(fd-d0) > 1e-5*math.Max(1, d0) {
				t.Errorf("%v: f'(0) = %v, forward difference %v", u, d0, fd)
			}
		}
	}
}

func TestDerivBoundIsDerivAtZero(t *testing.T) {
	for _, u := range testUtilities() {
		b, d0 := u.DerivBound(), u.Deriv(0)
		if math.Abs(b-d0) > 1e-15*math.Abs(b) && b != d0 {
			t.Errorf("%v: DerivBound %v, f'(0) %v", u, b, d0)
		}
		for _, y := range testPoints {
			if d := u.Deriv(y); d > b {
				t.Errorf("%v: f'(%v) = %v exceeds the bound %v", u, y, d, b)
			}
		}
	}
}

// TestInvDerivMaximisesPriceProblem checks x = InvDeriv(p) against the
// optimality condition of max_{x>=0} f(x) - p x: f'(x) = p when x > 0,
// f'(0) <= p when x = 0, and that no grid point does better.
func TestInvDerivMaximisesPriceProblem(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for _, u := range testUtilities() {
		for i := 0; i < 200; i++ {
			b := u.DerivBound()
			if math.IsInf(b, 1) {
				b = 10 * u.A
			}
			p := b * (0.01 + 1.2*rng.Float64())
			x := u.InvDeriv(p)
			if math.IsInf(x, 1) {
				if u.Kind != Linear && !(u.Kind == AlphaFair && u.Alpha == 0) {
					t.Fatalf("%v: InvDeriv(%v) = +Inf for positive price", u, p)
				}
				continue
			}
			if x < 0 || math.IsNaN(x) {
				t.Fatalf("%v: InvDeriv(%v) = %v", u, p, x)
			}
			if x > 0 {
				if d := u.Deriv(x); math.Abs(d-p) > 1e-9*p {
					t.Fatalf("%v: f'(InvDeriv(%v)) = %v", u, p, d)
				}
			} else if d0 := u.Deriv(0); d0 > p*(1+1e-12) {
				t.Fatalf("%v: InvDeriv(%v) = 0 but f'(0) = %v > p", u, p, d0)
			}
			obj := u.Value(x) - p*x
			for _, c := range []float64{0, x * 0.9, x * 1.1, x + 0.01, math.Max(0, x-0.01)} {
				if o := u.Value(c) - p*c; o > obj+1e-9*math.Max(1, math.Abs(obj)) {
					t.Fatalf("%v: p = %v: x = %v gives %v, but %v gives %v", u, p, x, obj, c, o)
				}
			}
		}
	}
}

func TestInvDerivLimits(t *testing.T) {
	lin := Utility{Kind: Linear, A: 2}
	if x := lin.InvDeriv(2); x != 0 {
		t.Errorf("linear at p = a: %v, want 0", x)
	}
	if x := lin.InvDeriv(1.9); !math.IsInf(x, 1) {
		t.Errorf("linear below a: %v, want +Inf", x)
	}
	for _, u := range testUtilities() {
		if x := u.InvDeriv(0); !math.IsInf(x, 1) {
			t.Errorf("%v: InvDeriv(0) = %v, want +Inf", u, x)
		}
		if x := u.InvDeriv(-1); !math.IsInf(x, 1) {
			t.Errorf("%v: InvDeriv(-1) = %v, want +Inf", u, x)
		}
		if x := u.InvDeriv(math.NaN()); !math.IsNaN(x) {
			t.Errorf("%v: InvDeriv(NaN) = %v", u, x)
		}
		if b := u.DerivBound(); !math.IsInf(b, 1) {
			if x := u.InvDeriv(b); x != 0 {
				t.Errorf("%v: InvDeriv(f'(0)) = %v, want 0", u, x)
			}
		}
	}
}

func TestPaperFormulas(t *testing.T) {
	// Hand values of eq. (54), paper 000, at y = 3 with a = 1.5.
	for _, c := range []struct {
		u    Utility
		want float64
	}{
		{Utility{Kind: Linear, A: 1.5}, 4.5},
		{Utility{Kind: Log, A: 1.5}, 1.5 * math.Log(4)},
		{Utility{Kind: Reciprocal, A: 1.5}, 1/1.5 - 1/4.5},
		{Utility{Kind: Poly, A: 1.5}, 1.5*2 - 1.5},
		{Utility{Kind: Sqrt, A: 1.5}, 1.5 * math.Sqrt(3)},
		{Utility{Kind: AlphaFair, A: 1.5, Alpha: 2}, 1.5 * (1 - 1.0/4)},
		{Utility{Kind: AlphaFair, A: 1.5, Alpha: 0.5}, 1.5 * (2 - 1) / 0.5},
		{Utility{Kind: ProportionalFair, A: 1.5}, 1.5 * math.Log(4)},
	} {
		if got := c.u.Value(3); math.Abs(got-c.want) > 1e-14 {
			t.Errorf("%v: f(3) = %v, want %v", c.u, got, c.want)
		}
	}
}

func TestValidateRejectsBadParameters(t *testing.T) {
	bad := []Utility{
		{Kind: Linear, A: 0},
		{Kind: Log, A: -1},
		{Kind: Poly, A: math.NaN()},
		{Kind: Sqrt, A: math.Inf(1)},
		{Kind: AlphaFair, A: 1, Alpha: -0.5},
		{Kind: AlphaFair, A: 1, Alpha: math.NaN()},
		{Kind: AlphaFair, A: 1, Alpha: math.Inf(1)},
		{Kind: Log, A: 1, Alpha: 2},
	}
	for _, u := range bad {
		if err := u.Validate(); !errors.Is(err, ErrParameter) {
			t.Errorf("%+v: Validate = %v, want ErrParameter", u, err)
		}
	}
	for _, k := range []Kind{-1, numKinds, 99} {
		if err := (Utility{Kind: k, A: 1}).Validate(); !errors.Is(err, ErrKind) {
			t.Errorf("kind %d: Validate = %v, want ErrKind", k, err)
		}
	}
	if _, err := New(AlphaFair, 1); !errors.Is(err, ErrParameter) {
		t.Errorf("New(AlphaFair) = %v, want ErrParameter", err)
	}
	if _, err := New(Log, -2); !errors.Is(err, ErrParameter) {
		t.Errorf("New(Log, -2) = %v", err)
	}
	if _, err := NewAlphaFair(1, -1); !errors.Is(err, ErrParameter) {
		t.Errorf("NewAlphaFair(1, -1) = %v", err)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds() {
		got, err := ParseKind(k.String())
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("cubic"); !errors.Is(err, ErrKind) {
		t.Errorf("ParseKind(cubic) = %v", err)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	for _, u := range testUtilities() {
		b, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var v Utility
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if v != u {
			t.Fatalf("round trip %v -> %s -> %v", u, b, v)
		}
	}
	b, _ := json.Marshal(Utility{Kind: Poly, A: 1.25})
	if string(b) != `{"kind":"poly","a":1.25}` {
		t.Errorf("JSON form %s", b)
	}
	for _, s := range []string{`{"kind":"poly","a":0}`, `{"kind":"cubic","a":1}`, `{"kind":3,"a":1}`, `{"kind":"log","a":1,"alpha":1}`, `[1]`, `{"kind":"alphafair","a":1,"alpha":-1}`} {
		var v Utility
		if err := json.Unmarshal([]byte(s), &v); err == nil {
			t.Errorf("%s decoded to %v without error", s, v)
		}
	}
}

func TestCancellationFreeValues(t *testing.T) {
	// Tiny allocations keep full relative precision.
	for _, u := range []Utility{{Kind: Reciprocal, A: 1.2}, {Kind: Poly, A: 1.2}, {Kind: Log, A: 1.2}, {Kind: AlphaFair, A: 1.2, Alpha: 3}} {
		y := 1e-12
		want := u.Deriv(0) * y
		if got := u.Value(y); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%v: f(1e-12) = %v, want ~%v", u, got, want)
		}
	}
}
