package utility

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// FuzzUnmarshalJSON checks that arbitrary input decodes to a valid utility
// or an error, never a panic, and that decoded utilities round-trip.
func FuzzUnmarshalJSON(f *testing.F) {
	f.Add([]byte(`{"kind":"log","a":1.2}`))
	f.Add([]byte(`{"kind":"alphafair","a":1,"alpha":0.5}`))
	f.Add([]byte(`{"kind":"poly","a":-3}`))
	f.Add([]byte(`{"a":1}`))
	f.Add([]byte(`{"kind":"log","a":1}x`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var u Utility
		if err := json.Unmarshal(b, &u); err != nil {
			return
		}
		if err := u.Validate(); err != nil {
			t.Fatalf("decoded invalid utility %+v: %v", u, err)
		}
		if !bytes.Contains(bytes.ToLower(b), []byte(`"kind"`)) && !bytes.Contains(b, []byte(`\u`)) {
			t.Fatalf("%s decoded without a kind to %+v", b, u)
		}
		out, err := json.Marshal(u)
		if err != nil {
			t.Fatal(err)
		}
		var v Utility
		if err := json.Unmarshal(out, &v); err != nil || v != u {
			t.Fatalf("round trip %+v -> %s -> %+v, %v", u, out, v, err)
		}
	})
}

// FuzzInvDeriv checks the optimality of InvDeriv for any valid utility and
// positive price.
func FuzzInvDeriv(f *testing.F) {
	f.Add(uint8(1), 1.2, 0.0, 0.3)
	f.Add(uint8(5), 2.0, 3.0, 1e-3)
	f.Add(uint8(4), 1e-3, 0.0, 1e6)
	f.Fuzz(func(t *testing.T, kind uint8, a, alpha, p float64) {
		u := Utility{Kind: Kind(kind % uint8(numKinds)), A: a}
		if u.Kind == AlphaFair {
			u.Alpha = alpha
		}
		if u.Validate() != nil || !(p > 0) || math.IsInf(p, 1) || a > 1e6 || a < 1e-6 || u.Alpha > 50 || p < 1e-9 {
			return
		}
		x := u.InvDeriv(p)
		if math.IsNaN(x) || x < 0 {
			t.Fatalf("%v: InvDeriv(%v) = %v", u, p, x)
		}
		if math.IsInf(x, 1) {
			// +Inf is right only if f'(x) > p even at the largest float (the
			// root overflows) or the utility is linear below its slope.
			if p >= u.DerivBound() || u.Deriv(math.MaxFloat64) < p {
				t.Fatalf("%v: InvDeriv(%v) = +Inf", u, p)
			}
			return
		}
		if x > 0 && x < 1e12 {
			if d := u.Deriv(x); math.Abs(d-p) > 1e-6*p {
				t.Fatalf("%v: f'(InvDeriv(%v) = %v) = %v", u, p, x, d)
			}
		}
		if x == 0 && u.Deriv(0) > p*(1+1e-9) {
			t.Fatalf("%v: InvDeriv(%v) = 0 but f'(0) = %v", u, p, u.Deriv(0))
		}
	})
}
