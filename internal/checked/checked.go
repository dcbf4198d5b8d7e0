package checked

import (
	"math"
	"math/bits"
)

// Add returns a + b and true, or 0 and false when a or b is negative or the
// sum exceeds math.MaxInt.
func Add(a, b int) (int, bool) {
	if a < 0 || b < 0 || a > math.MaxInt-b {
		return 0, false
	}
	return a + b, true
}

// Mul returns a * b and true, or 0 and false when a or b is negative or the
// product exceeds math.MaxInt.
func Mul(a, b int) (int, bool) {
	if a < 0 || b < 0 {
		return 0, false
	}
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	if hi != 0 || lo > math.MaxInt {
		return 0, false
	}
	return int(lo), true
}

// Product returns the product of xs (1 for none) and true, or 0 and false as
// soon as an operand is negative or a partial product exceeds math.MaxInt.
func Product(xs ...int) (int, bool) {
	p := 1
	for _, x := range xs {
		var ok bool
		if p, ok = Mul(p, x); !ok {
			return 0, false
		}
	}
	return p, true
}

// Within reports whether the product of xs is at most limit (and no operand
// is negative). It is the test to make before allocating a table whose size
// is that product.
func Within(limit int, xs ...int) bool {
	p, ok := Product(xs...)
	return ok && p <= limit
}
