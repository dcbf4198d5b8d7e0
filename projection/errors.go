package projection

import "errors"

// Sentinel errors returned by ProjectCappedSimplex. They are wrapped with
// fmt.Errorf("%w: ...") naming the offending index and value; test with
// errors.Is.
var (
	// ErrLength reports slices of different lengths.
	ErrLength = errors.New("projection: mismatched lengths")
	// ErrNaN reports a NaN in z, u or c.
	ErrNaN = errors.New("projection: NaN value")
	// ErrInf reports an infinite value in z, u or c.
	ErrInf = errors.New("projection: infinite value")
	// ErrNegativeCap reports a negative upper bound u_i.
	ErrNegativeCap = errors.New("projection: negative upper bound")
	// ErrRange reports a magnitude so large that sums over the block could
	// overflow: |z_i|, u_i or c above math.MaxFloat64 / (4 (n+1)).
	ErrRange = errors.New("projection: value out of range")
	// ErrNegativeCapacity reports a negative capacity c.
	ErrNegativeCapacity = errors.New("projection: negative capacity")
	// ErrNil reports a nil pointer argument (ProjectCappedSimplex8's c
	// or tau).
	ErrNil = errors.New("projection: nil argument")
)
