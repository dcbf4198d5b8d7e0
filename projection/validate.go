package projection

import (
	"fmt"
	"math"
)

// ProjectCappedSimplex is CappedSimplex for untrusted input: it checks the
// data first and returns an error wrapping ErrLength, ErrNaN, ErrInf,
// ErrNegativeCap, ErrNegativeCapacity or ErrRange that names the offending index and
// value, leaving dst untouched. On success it returns the multiplier tau
// and dst holds the projection. dst may be z or u. As for CappedSimplex,
// c = +Inf is accepted and means no sum constraint (the box projection,
// tau = 0); every other infinity is an error.
func ProjectCappedSimplex(dst, z, u []float64, c float64) (float64, error) {
	if err := checkProjectInput(dst, z, u, c, true); err != nil {
		return 0, err
	}
	return CappedSimplex(dst, z, u, c), nil
}

// checkProjectInput is the validation of ProjectCappedSimplex and
// ProjectCappedSimplexPaper; infC accepts c = +Inf (no sum constraint).
func checkProjectInput(dst, z, u []float64, c float64, infC bool) error {
	if len(dst) != len(z) || len(u) != len(z) {
		return fmt.Errorf("%w: dst %d, z %d, u %d", ErrLength, len(dst), len(z), len(u))
	}
	if !(infC && math.IsInf(c, 1)) {
		if err := checkValue("c", -1, c); err != nil {
			return err
		}
	}
	if c < 0 {
		return fmt.Errorf("%w: c = %v", ErrNegativeCapacity, c)
	}
	limit := math.MaxFloat64 / (4 * float64(len(z)+1))
	if c > limit && !(infC && math.IsInf(c, 1)) {
		return fmt.Errorf("%w: c = %v", ErrRange, c)
	}
	for i, v := range z {
		if err := checkValue("z", i, v); err != nil {
			return err
		}
		if math.Abs(v) > limit {
			return fmt.Errorf("%w: z index %d value %v", ErrRange, i, v)
		}
	}
	for i, v := range u {
		if err := checkValue("u", i, v); err != nil {
			return err
		}
		if v < 0 {
			return fmt.Errorf("%w: index %d value %v", ErrNegativeCap, i, v)
		}
		if v > limit {
			return fmt.Errorf("%w: u index %d value %v", ErrRange, i, v)
		}
	}
	return nil
}

func checkValue(name string, i int, v float64) error {
	var err error
	switch {
	case math.IsNaN(v):
		err = ErrNaN
	case math.IsInf(v, 0):
		err = ErrInf
	default:
		return nil
	}
	if i < 0 {
		return fmt.Errorf("%w: %s = %v", err, name, v)
	}
	return fmt.Errorf("%w: %s index %d value %v", err, name, i, v)
}
