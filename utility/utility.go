package utility

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Kind names a family of utility functions.
type Kind int

// The utility kinds; see the package documentation for their formulas.
const (
	Linear Kind = iota
	Log
	Reciprocal
	Poly
	Sqrt
	AlphaFair
	ProportionalFair
	numKinds
)

var kindNames = [numKinds]string{"linear", "log", "reciprocal", "poly", "sqrt", "alphafair", "proportionalfair"}

// Kinds returns every kind in declaration order.
func Kinds() []Kind {
	ks := make([]Kind, numKinds)
	for i := range ks {
		ks[i] = Kind(i)
	}
	return ks
}

// String returns the kind's name as used in JSON and on command lines.
func (k Kind) String() string {
	if k < 0 || k >= numKinds {
		return fmt.Sprintf("Kind(%d)", int(k))
	}
	return kindNames[k]
}

// ParseKind returns the kind with the given name ("linear", "log",
// "reciprocal", "poly", "sqrt", "alphafair", "proportionalfair").
func ParseKind(name string) (Kind, error) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), nil
		}
	}
	return 0, fmt.Errorf("%w: %q (want one of %v)", ErrKind, name, kindNames)
}

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) {
	if k < 0 || k >= numKinds {
		return nil, fmt.Errorf("%w: %d", ErrKind, int(k))
	}
	return []byte(kindNames[k]), nil
}

// UnmarshalText decodes a kind name.
func (k *Kind) UnmarshalText(b []byte) error {
	v, err := ParseKind(string(b))
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Utility is one concave, non-decreasing, zero-start utility function:
// a kind with its scale A > 0 and, for AlphaFair only, the fairness
// parameter Alpha >= 0. The zero value is not valid; build utilities with
// New or NewAlphaFair, or validate literals with Validate.
type Utility struct {
	Kind  Kind    `json:"kind"`
	A     float64 `json:"a"`
	Alpha float64 `json:"alpha,omitempty"`
}

// New returns the utility of the given kind with scale a. Use NewAlphaFair
// for the AlphaFair kind.
func New(kind Kind, a float64) (Utility, error) {
	u := Utility{Kind: kind, A: a}
	if kind == AlphaFair {
		return Utility{}, fmt.Errorf("%w: kind alphafair needs alpha; use NewAlphaFair", ErrParameter)
	}
	return u, u.Validate()
}

// NewAlphaFair returns the shifted alpha-fair utility
// a*((y+1)^(1-alpha)-1)/(1-alpha) (a*ln(y+1) when alpha = 1).
func NewAlphaFair(a, alpha float64) (Utility, error) {
	u := Utility{Kind: AlphaFair, A: a, Alpha: alpha}
	return u, u.Validate()
}

// Bounds on the scale A of every kind. Within them a², 1/a², a·y and a/y
// stay finite for y in [1e-150, 1e150], so Value, Deriv, DerivBound and
// InvDeriv are finite wherever the kind's formula is (a Reciprocal with
// a = 1e-200 would have f'(0) = 1/a² = +Inf; a Linear with a = 1e308 would
// overflow at y = 2). An algorithm with a finer requirement checks it
// itself.
const (
	MinA = 1e-150
	MaxA = 1e150
)

// Validate reports whether u is a valid utility: a known kind, a finite
// A in [MinA, MaxA], and a finite Alpha >= 0 for AlphaFair (Alpha = 0
// otherwise). The error wraps ErrKind or ErrParameter and names the field
// and the value.
func (u Utility) Validate() error {
	if u.Kind < 0 || u.Kind >= numKinds {
		return fmt.Errorf("%w: kind %d", ErrKind, int(u.Kind))
	}
	if !(u.A > 0) || math.IsInf(u.A, 1) {
		return fmt.Errorf("%w: a = %v for %v, want finite a > 0", ErrParameter, u.A, u.Kind)
	}
	if u.A < MinA || u.A > MaxA {
		return fmt.Errorf("%w: a = %v for %v, want a in [MinA, MaxA] = [%g, %g]", ErrParameter, u.A, u.Kind, MinA, MaxA)
	}
	if u.Kind == AlphaFair {
		if !(u.Alpha >= 0) || math.IsInf(u.Alpha, 1) {
			return fmt.Errorf("%w: alpha = %v for alphafair, want finite alpha >= 0", ErrParameter, u.Alpha)
		}
	} else if u.Alpha != 0 {
		return fmt.Errorf("%w: alpha = %v set for %v, which has no alpha", ErrParameter, u.Alpha, u.Kind)
	}
	return nil
}

// String formats u as kind(a=..., alpha=...).
func (u Utility) String() string {
	if u.Kind == AlphaFair {
		return fmt.Sprintf("%v(a=%g, alpha=%g)", u.Kind, u.A, u.Alpha)
	}
	return fmt.Sprintf("%v(a=%g)", u.Kind, u.A)
}

// UnmarshalJSON decodes {"kind": name, "a": a[, "alpha": alpha]} and
// validates the result. "kind" and "a" are required (an object without a
// kind is an error, not a Linear utility), unknown fields and data after
// the object are errors wrapping ErrSyntax.
func (u *Utility) UnmarshalJSON(b []byte) error {
	var v struct {
		Kind  *Kind    `json:"kind"`
		A     *float64 `json:"a"`
		Alpha float64  `json:"alpha"`
	}
	if err := checkKeys(b); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("%w: %w", ErrSyntax, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return fmt.Errorf("%w: data after the utility object at byte %d", ErrSyntax, dec.InputOffset())
	}
	if v.Kind == nil {
		return fmt.Errorf("%w: missing \"kind\" (want one of %v)", ErrKind, kindNames)
	}
	if v.A == nil {
		return fmt.Errorf("%w: missing \"a\" for %v", ErrParameter, *v.Kind)
	}
	w := Utility{Kind: *v.Kind, A: *v.A, Alpha: v.Alpha}
	if err := w.Validate(); err != nil {
		return err
	}
	*u = w
	return nil
}

// jsonKeys are the fields of a utility's JSON object, spelled exactly.
var jsonKeys = [...]string{"kind", "a", "alpha"}

// checkKeys rejects, in a top-level JSON object, a key that is not one of
// jsonKeys spelled exactly, or one given twice: encoding/json matches keys
// case-insensitively and keeps the last of duplicates, so
// {"kind":"linear","kind":"sqrt","a":1} decoded silently as sqrt and
// {"KIND":"linear","A":1} as linear. Input that is not an object, or is
// malformed, is left to the decoder, which reports it.
func checkKeys(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var seen [len(jsonKeys)]bool
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		i := 0
		for i < len(jsonKeys) && jsonKeys[i] != key {
			i++
		}
		if i == len(jsonKeys) {
			return fmt.Errorf("%w: unknown field %q (want %q, %q or %q, spelled exactly)", ErrSyntax, key, jsonKeys[0], jsonKeys[1], jsonKeys[2])
		}
		if seen[i] {
			return fmt.Errorf("%w: field %q given twice", ErrSyntax, key)
		}
		seen[i] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// Value returns f(y) for y >= 0.
func (u Utility) Value(y float64) float64 {
	a := u.A
	switch u.Kind {
	case Linear:
		return a * y
	case Log, ProportionalFair:
		return a * math.Log1p(y)
	case Reciprocal:
		return y / (a * (y + a)) // = 1/a - 1/(y+a) without cancellation
	case Poly:
		// a*sqrt(y+1) - a = a*y/(sqrt(y+1)+1) without cancellation.
		return a * y / (math.Sqrt(y+1) + 1)
	case Sqrt:
		return a * math.Sqrt(y)
	case AlphaFair:
		return a * alphaFair(y, u.Alpha)
	}
	return math.NaN() // invalid kind: see the package documentation
}

// alphaFair returns ((y+1)^(1-alpha)-1)/(1-alpha), ln(1+y) at alpha = 1.
func alphaFair(y, alpha float64) float64 {
	switch alpha {
	case 0:
		return y
	case 1:
		return math.Log1p(y)
	}
	b := 1 - alpha
	return math.Expm1(b*math.Log1p(y)) / b
}

// Deriv returns f'(y) for y >= 0 (+Inf for Sqrt at 0).
func (u Utility) Deriv(y float64) float64 {
	a := u.A
	switch u.Kind {
	case Linear:
		return a
	case Log, ProportionalFair:
		return a / (y + 1)
	case Reciprocal:
		return 1 / ((y + a) * (y + a))
	case Poly:
		return a / (2 * math.Sqrt(y+1))
	case Sqrt:
		return a / (2 * math.Sqrt(y))
	case AlphaFair:
		if u.Alpha == 0 {
			return a
		}
		return a * math.Exp(-u.Alpha*math.Log1p(y))
	}
	return math.NaN() // invalid kind: see the package documentation
}

// DerivBound returns f'(0) = sup_{y>=0} f'(y), the bound varpi of eq. (13)
// of paper 000; +Inf for Sqrt.
func (u Utility) DerivBound() float64 {
	switch u.Kind {
	case Sqrt:
		return math.Inf(1)
	case Reciprocal:
		return 1 / (u.A * u.A)
	case Poly:
		return u.A / 2
	}
	if u.Kind < 0 || u.Kind >= numKinds {
		return math.NaN()
	}
	return u.A
}

// InvDeriv returns argmax_{x >= 0} f(x) - p*x: the x >= 0 with f'(x) = p,
// 0 when p >= f'(0), and +Inf when the maximum is not attained (p <= 0, or
// p < a for Linear). At p = a a Linear utility is indifferent; InvDeriv
// returns 0. NaN p gives NaN.
func (u Utility) InvDeriv(p float64) float64 {
	if math.IsNaN(p) || u.Kind < 0 || u.Kind >= numKinds {
		return math.NaN()
	}
	a := u.A
	if u.Kind == Linear || (u.Kind == AlphaFair && u.Alpha == 0) {
		if p >= a {
			return 0
		}
		return math.Inf(1)
	}
	if p <= 0 {
		return math.Inf(1)
	}
	var x float64
	switch u.Kind {
	case Log, ProportionalFair:
		x = a/p - 1
	case Reciprocal:
		x = 1/math.Sqrt(p) - a
	case Poly:
		s := a / (2 * p)
		x = s*s - 1
	case Sqrt:
		s := a / (2 * p)
		x = s * s
	case AlphaFair:
		// a*(x+1)^(-alpha) = p  =>  x = (a/p)^(1/alpha) - 1.
		x = math.Expm1(math.Log(a/p) / u.Alpha)
	default:
		return math.NaN()
	}
	if !(x > 0) {
		return 0
	}
	return x
}
