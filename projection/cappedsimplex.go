package projection

import (
	"fmt"
	"math"

	"github.com/msched/msched/projection/internal/kernel"
)

// CappedSimplex sets dst to the Euclidean projection of z onto the capped
// simplex {y : 0 <= y <= u, sum y <= c} and returns the multiplier tau >= 0
// of the sum constraint, so that dst[i] = min(max(z[i]-tau, 0), u[i]).
// When some coordinate ends strictly between its bounds tau is unique;
// otherwise it is one valid multiplier (tau = 0 whenever the clipped z
// already fits). The result is exact up to floating-point rounding and
// bit-for-bit deterministic: the same on every call, on every amd64 CPU
// with AVX2 or AVX-512 and, for blocks of 1, 2 or more than 24
// coordinates, in every build (the AVX-512, AVX2 and Go passes sum in the
// same order). With the Go passes (-tags noasm, other architectures)
// blocks of 3 to 24 coordinates are sorted instead of bracketed or
// iterated, so their last bits may differ from the assembly builds.
//
// Preconditions: u[i] >= 0, c >= 0, z and u finite. A NaN or infinite
// value in z or u, a negative u[i], or a NaN or negative c makes
// CappedSimplex panic (the check is fused into its first pass); use
// ProjectCappedSimplex to get an error instead. c = +Inf is allowed and
// means no sum constraint.
//
// dst may be the same slice as z or as u (same first element); any other
// overlap gives undefined results. dst is written only at the end (on a
// panic it is untouched). CappedSimplex panics if the lengths of dst, z and
// u differ. It allocates nothing and needs no scratch space. The sums
// n max(|z_i|, u_i, c) must not overflow (ProjectCappedSimplex checks it).
//
// The method (see the package documentation) is a safeguarded Newton
// iteration on phi(tau) = sum_i min(max(z_i-tau, 0), u_i): each pass finds
// the linear piece of phi at a trial point and stops as soon as the root of
// that piece lies inside it. It costs a few branch-free O(n) passes (2 to 4
// on random data); small blocks (at most 8 coordinates with the assembly
// kernels, 24 in pure Go) sort their breakpoints on the stack instead or,
// from 3 to 8 coordinates with the assembly, evaluate phi at all of them at
// once in vector registers.
func CappedSimplex(dst, z, u []float64, c float64) (tau float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: CappedSimplex lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	if !(c >= 0) {
		panic(fmt.Sprintf("projection: CappedSimplex capacity c = %v", c))
	}
	if n <= kernel.SmallBlock() {
		if n == 0 {
			return 0
		}
		if n >= tinyMin && n <= kernel.TinyBlock() {
			return capTiny(dst, z, u, c)
		}
		return capSmall(dst, z, u, c)
	}
	return capNewton(dst, z, u, c)
}

// capNewton is CappedSimplex by Newton passes, for any n >= 1 (the tests
// also run it on small blocks).
func capNewton(dst, z, u []float64, c float64) (tau float64) {
	// Pass 0 at t = 0: phi(0), the linear piece around 0, max z (phi
	// vanishes there) and the precondition check.
	st, zmax, ok := pieceAt0(z, u)
	if !ok {
		panic(badInput(z, u))
	}
	if st.phi <= c {
		clipTo(dst, z, u, 0)
		return 0
	}
	// tau > 0 solves phi(tau) = c. Invariant: phi(lo) > c >= phi(hi),
	// rLo = phi(lo)-c > 0, rHi = phi(hi)-c <= 0.
	lo, hi := 0.0, zmax
	rLo, rHi := st.phi-c, -c
	t := 0.0
	for iter := 0; ; iter++ {
		// On [st.left, st.right] phi(x) = num - m x + c exactly.
		num := st.sum - c
		m := float64(st.freeM)
		r := num - m*t
		if r == 0 {
			tau = t
			break
		}
		tn := math.NaN()
		if m > 0 {
			tn = num / m // the Newton point: the root of the piece
			if st.left <= tn && tn <= st.right {
				tau = max(tn, 0)
				break
			}
		}
		if r > 0 {
			if st.right >= hi && (m == 0 || tn > st.right) {
				tau = hi // phi > c up to hi, which rounding made a breakpoint
				break
			}
			lo, rLo = t, r
			if x := st.right; x > lo && x < hi && num-m*x > 0 {
				lo, rLo = x, num-m*x // phi is still above c at the piece's end
			}
		} else {
			hi, rHi = t, r
			if x := st.left; x > lo && x < hi && num-m*x < 0 {
				hi, rHi = x, num-m*x
			}
		}
		// Next trial: Newton, else secant, else bisection, strictly inside.
		t = tn
		if !(lo < t && t < hi) || iter >= 64 {
			t = lo + rLo/(rLo-rHi)*(hi-lo)
			if !(lo < t && t < hi) || iter >= 64 {
				t = lo + (hi-lo)/2
			}
			if !(lo < t && t < hi) {
				tau = hi // no float strictly inside the bracket
				break
			}
		}
		st = pieceAt(z, u, t)
		if passCounter != nil {
			*passCounter++
		}
	}
	clipTo(dst, z, u, tau)
	return tau
}

// tinyMin is the smallest block for capTiny: below, sorting 2 or 4
// breakpoints is cheaper (measured, see doc.go).
const tinyMin = 3

// passCounter, when set by a test, counts the Newton passes after pass 0.
var passCounter *int

// piece describes phi(x) = sum_i clip(z_i - x, 0, u_i) around a point t:
// on [left, right] it equals sum - freeM x, where sum adds u_i over the
// coordinates capped at t (z_i - t >= u_i, z_i > t) and z_i over the free
// ones (0 < z_i - t < u_i), and freeM counts the free ones. phi is phi(t).
type piece struct {
	phi, sum    float64
	freeM       int
	left, right float64
}

// pieceAt computes the piece of phi at t in one branch-free pass
// (kernel.Piece: AVX-512, AVX2 or Go, with the same result bit for bit).
func pieceAt(z, u []float64, t float64) piece {
	var l kernel.Lanes
	kernel.Piece(&l, z, u, t)
	sum, m, left, right := l.Reduce()
	return piece{phi: sum - float64(m)*t, sum: sum, freeM: m, left: left, right: right}
}

// pieceAt0 is pieceAt(z, u, 0) fused with the computation of max z and the
// check that every z_i, u_i is finite with u_i >= 0 (ok).
func pieceAt0(z, u []float64) (p piece, zmax float64, ok bool) {
	var l kernel.Lanes
	kernel.Piece0(&l, z, u)
	zmax, ok = l.Reduce0()
	if !ok {
		return piece{}, 0, false
	}
	sum, m, left, right := l.Reduce()
	return piece{phi: sum, sum: sum, freeM: m, left: left, right: right}, zmax, true
}

// clipTo sets dst[i] = min(max(z[i]-tau, 0), u[i]).
func clipTo(dst, z, u []float64, tau float64) {
	kernel.Clip(dst, z, u, tau)
}

// badInput describes the first precondition violation (slow path).
func badInput(z, u []float64) string {
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("projection: CappedSimplex z[%d] = %v", i, v)
		}
	}
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Sprintf("projection: CappedSimplex u[%d] = %v", i, v)
		}
	}
	return "projection: CappedSimplex invalid input"
}
