package utility

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile JSON never decodes to a utility: a missing kind is not Linear,
// unknown fields and trailing data are errors, and parameters outside the
// domain are rejected with the field named.
func TestUnmarshalJSONRejectsHostile(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
		says string
	}{
		{`{"a":1}`, ErrKind, `missing "kind"`},
		{`{"kind":null,"a":1}`, ErrKind, `missing "kind"`},
		{`{"kind":"linear"}`, ErrParameter, `missing "a"`},
		{`{"kind":"linear","a":null}`, ErrParameter, `missing "a"`},
		{`{"kind":"cubic","a":1}`, ErrKind, `"cubic"`},
		{`{"kind":0,"a":1}`, ErrSyntax, ""},
		{`{"kind":"linear","a":1,"b":2}`, ErrSyntax, `unknown field "b"`},
		{`{"kind":"linear","a":1} x`, ErrSyntax, "after"},
		{`{"kind":"linear","a":1}{}`, ErrSyntax, "after"},
		{`{"kind":"linear","a":"1"}`, ErrSyntax, ""},
		{`{"kind":"linear","a":1e400}`, ErrSyntax, ""},
		{`{"kind":"linear","a":0}`, ErrParameter, "a = 0"},
		{`{"kind":"log","a":-1}`, ErrParameter, "a = -1"},
		{`{"kind":"reciprocal","a":1e-200}`, ErrParameter, "a = 1e-200"},
		{`{"kind":"linear","a":1e308}`, ErrParameter, "a = 1e+308"},
		{`{"kind":"log","a":1,"alpha":0.5}`, ErrParameter, "alpha = 0.5"},
		{`{"kind":"alphafair","a":1,"alpha":-1}`, ErrParameter, "alpha = -1"},
		{`{"kind":"alphafair","a":1,"alpha":1e400}`, ErrSyntax, ""},
		{`[]`, ErrSyntax, ""},
		{`null`, ErrKind, `missing "kind"`},
		// Duplicate keys and keys in another case (encoding/json keeps
		// the last duplicate and matches case-insensitively).
		{`{"kind":"linear","kind":"sqrt","a":1}`, ErrSyntax, `"kind" given twice`},
		{`{"kind":"linear","a":1,"a":2}`, ErrSyntax, `"a" given twice`},
		{`{"kind":"alphafair","a":1,"alpha":2,"alpha":0}`, ErrSyntax, `"alpha" given twice`},
		{`{"KIND":"linear","A":1}`, ErrSyntax, `unknown field "KIND"`},
		{`{"kind":"linear","A":1}`, ErrSyntax, `unknown field "A"`},
		{`{"Kind":"linear","a":1}`, ErrSyntax, `unknown field "Kind"`},
		{"\ufeff" + `{"kind":"linear","a":1}`, ErrSyntax, ""},
	} {
		var u Utility
		err := u.UnmarshalJSON([]byte(tc.in))
		require.ErrorIs(t, err, tc.want, tc.in)
		assert.Contains(t, err.Error(), tc.says, tc.in)
		assert.Equal(t, Utility{}, u, "%s: the target is untouched on error", tc.in)
		var v Utility
		require.Error(t, json.Unmarshal([]byte(tc.in), &v), tc.in)
	}
	var u Utility
	require.NoError(t, json.Unmarshal([]byte(` {"alpha":2,"a":1.5,"kind":"alphafair"} `), &u))
	assert.Equal(t, Utility{Kind: AlphaFair, A: 1.5, Alpha: 2}, u)
}

// Every constructor applies the same rule as Validate.
func TestConstructorsValidate(t *testing.T) {
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, -1, math.SmallestNonzeroFloat64, MinA / 2, MaxA * 2, math.MaxFloat64}
	for _, k := range Kinds() {
		for _, a := range bad {
			if k == AlphaFair {
				_, err := NewAlphaFair(a, 0.5)
				require.ErrorIs(t, err, ErrParameter, "%v a=%v", k, a)
				continue
			}
			_, err := New(k, a)
			require.ErrorIs(t, err, ErrParameter, "%v a=%v", k, a)
		}
	}
	for _, alpha := range []float64{math.NaN(), math.Inf(1), -1e-9} {
		_, err := NewAlphaFair(1, alpha)
		require.ErrorIs(t, err, ErrParameter, "alpha=%v", alpha)
	}
	_, err := New(Kind(99), 1)
	require.ErrorIs(t, err, ErrKind)
	_, err = New(Kind(-1), 1)
	require.ErrorIs(t, err, ErrKind)
}

// At the ends of [MinA, MaxA] every kind's value, derivative, bound and
// inverse derivative are finite (but Sqrt's derivative and bound at 0,
// which are +Inf by its formula), which is what the bounds promise.
func TestScaleBoundsKeepEvaluationFinite(t *testing.T) {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, k := range Kinds() {
		for _, a := range []float64{MinA, 1, MaxA} {
			u := Utility{Kind: k, A: a}
			if k == AlphaFair {
				u.Alpha = 2
			}
			require.NoError(t, u.Validate())
			if k != Sqrt {
				assert.True(t, finite(u.DerivBound()) && u.DerivBound() > 0, "%v: DerivBound = %v", u, u.DerivBound())
			}
			for _, y := range []float64{0, 1e-150, 1, 1e150} {
				assert.True(t, finite(u.Value(y)), "%v: Value(%g) = %v", u, y, u.Value(y))
				if k != Sqrt || y > 0 {
					assert.True(t, finite(u.Deriv(y)), "%v: Deriv(%g) = %v", u, y, u.Deriv(y))
				}
			}
			for _, p := range []float64{1e-100, 1, 1e100} {
				assert.False(t, math.IsNaN(u.InvDeriv(p)), "%v: InvDeriv(%g)", u, p)
			}
		}
	}
}

// FuzzValidMeansFinite checks the promise of [MinA, MaxA]: every utility
// that Validate accepts has a finite value, derivative and bound f'(0)
// (Sqrt's derivative at 0 excepted) for every y in [0, 1e150], and
// InvDeriv never returns NaN or a negative amount for a finite p > 0.
func FuzzValidMeansFinite(f *testing.F) {
	f.Add(uint8(2), MinA, 0.0, 0.0, 1.0)
	f.Add(uint8(0), MaxA, 0.0, 1e150, 1e-300)
	f.Add(uint8(5), 1.0, 1e-300, 1e150, 1e300)
	f.Add(uint8(5), MaxA, 1e300, 1e-150, 5e-324)
	f.Add(uint8(4), MinA, 0.0, 5e-324, 1.0)
	f.Fuzz(func(t *testing.T, kind uint8, a, alpha, y, p float64) {
		u := Utility{Kind: Kind(kind % uint8(numKinds)), A: a}
		if u.Kind == AlphaFair {
			u.Alpha = alpha
		}
		if u.Validate() != nil || !(y >= 0 && y <= 1e150) {
			return
		}
		finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
		if v := u.Value(y); !finite(v) || v < 0 {
			t.Fatalf("%v: Value(%g) = %v", u, y, v)
		}
		if u.Kind != Sqrt || y > 0 {
			if d := u.Deriv(y); !finite(d) || d < 0 {
				t.Fatalf("%v: Deriv(%g) = %v", u, y, d)
			}
		}
		if u.Kind != Sqrt {
			if d := u.DerivBound(); !finite(d) || d <= 0 {
				t.Fatalf("%v: DerivBound = %v", u, d)
			}
		}
		if p > 0 && !math.IsInf(p, 1) {
			if x := u.InvDeriv(p); math.IsNaN(x) || x < 0 {
				t.Fatalf("%v: InvDeriv(%g) = %v", u, p, x)
			}
		}
	})
}

// A Utility built by hand with an unknown kind evaluates to NaN instead of
// panicking inside the host process (issue 12 class 3); Validate names it.
func TestInvalidKindEvaluatesToNaN(t *testing.T) {
	for _, k := range []Kind{-1, numKinds, 99, math.MaxInt} {
		u := Utility{Kind: k, A: 1}
		require.NotPanics(t, func() {
			for _, y := range []float64{0, 1, -1, math.Inf(1), math.NaN()} {
				assert.True(t, math.IsNaN(u.Value(y)), "Value %v", k)
				assert.True(t, math.IsNaN(u.Deriv(y)), "Deriv %v", k)
				assert.True(t, math.IsNaN(u.InvDeriv(y)), "InvDeriv %v", k)
			}
			assert.True(t, math.IsNaN(u.DerivBound()), "DerivBound %v", k)
		}, "kind %d", int(k))
		require.ErrorIs(t, u.Validate(), ErrKind)
	}
}
