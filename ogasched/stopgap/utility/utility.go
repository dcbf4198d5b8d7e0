// Package utility is a temporary stand-in for github.com/msched/msched/utility
// (see package stopgap): the utilities (54) of paper 000 plus Sqrt.
package utility

import (
	"errors"
	"math"
)

type Kind int

const (
	Linear Kind = iota
	Log
	Reciprocal
	Poly
	Sqrt
	AlphaFair
	ProportionalFair
)

var names = []string{"linear", "log", "reciprocal", "poly", "sqrt", "alphafair", "proportionalfair"}

func (k Kind) String() string {
	if k < 0 || int(k) >= len(names) {
		return "unknown"
	}
	return names[k]
}
func ParseKind(s string) (Kind, error) {
	for i, n := range names {
		if n == s {
			return Kind(i), nil
		}
	}
	return 0, errors.New("utility: bad kind")
}

type Utility struct {
	Kind  Kind    `json:"kind"`
	A     float64 `json:"a"`
	Alpha float64 `json:"alpha,omitempty"`
}

func New(kind Kind, a float64) (Utility, error) { return Utility{Kind: kind, A: a}, nil }
func (u Utility) Validate() error {
	if u.Kind < 0 || int(u.Kind) >= len(names) {
		return errors.New("utility: unknown kind")
	}
	if !(u.A > 0) || math.IsInf(u.A, 0) {
		return errors.New("utility: bad a")
	}
	return nil
}
func (u Utility) Value(y float64) float64 {
	a := u.A
	switch u.Kind {
	case Linear:
		return a * y
	case Log:
		return a * math.Log(y+1)
	case Reciprocal:
		return 1/a - 1/(y+a)
	case Poly:
		return a*math.Sqrt(y+1) - a
	}
	return a * math.Sqrt(y)
}
func (u Utility) Deriv(y float64) float64 {
	a := u.A
	switch u.Kind {
	case Linear:
		return a
	case Log:
		return a / (y + 1)
	case Reciprocal:
		return 1 / ((y + a) * (y + a))
	case Poly:
		return a / (2 * math.Sqrt(y+1))
	}
	return a / (2 * math.Sqrt(y))
}
func (u Utility) DerivBound() float64 { return u.Deriv(0) }
