package projection

import (
	"fmt"
	"math"
)

// CappedSimplexPaper runs the inner procedure of the paper's Algorithm 1
// (steps 7-31, eqs. (35)-(38) of Zhao et al., OGASched) on one (r,k) block:
// project z onto {0 <= y <= u, sum y <= c} the way the paper does, and return
// its rho/2 (the final tau of eq. (38)).
//
// It is kept for reproducing the paper and is NOT the exact projection: it
// always fills the capacity (eq. (38) is used even when rho < 0), and only
// the coordinate with the largest z is ever capped at its bound, once. See
// the package documentation for where it differs from CappedSimplex and by
// how much. Ports are visited in the order of a stable descending sort of z
// (ties by index); the sort itself is not performed, the result is the same.
// Coordinates in B^2 get 0, as the definition of B^2 says (the pseudo-code
// leaves them at stale values; that literal reading is measured in the tests).
// If B^3 becomes empty, (38) divides by zero; then tau is reported as 0.
//
// dst may be the same slice as z. It panics if the lengths differ and
// allocates nothing. Preconditions as for CappedSimplex (not checked).
func CappedSimplexPaper(dst, z, u []float64, c float64) (tau float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: CappedSimplexPaper lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	return paperProject(dst, z, u, c, false)
}

// paperProject is CappedSimplexPaper; with literal it keeps the stale
// values the pseudo-code leaves in B^2 (dst must not alias z then).
func paperProject(dst, z, u []float64, c float64, literal bool) (tau float64) {
	n := len(z)
	if n == 0 {
		return 0
	}
	// Port 1 of the sorted order: the largest z, lowest index on ties.
	first := 0
	for i, v := range z {
		if v > z[first] {
			first = i
		}
	}
	if literal {
		for i := range dst {
			dst[i] = 0 // step 12
		}
	}
	// B^1 is {first} when capped; B^2 = {l not in B^1 : z_l < thr};
	// B^3 is the rest.
	capped := false
	var thr, half float64
	for outer := 0; outer < 2; outer++ {
		thr = math.Inf(-1) // step 10 (B^2 <- empty), step 12 or 16
		for {              // steps 19-31
			sum, cnt := 0.0, 0
			for l, v := range z {
				if (capped && l == first) || v < thr {
					continue
				}
				sum += v
				cnt++
			}
			sum -= c
			if capped {
				sum += u[first]
			}
			half = 0 // |B^3| = 0: (38) is undefined
			if cnt > 0 {
				half = sum / float64(cnt) // rho/2 of eq. (38)
			}
			// S ∩ B^3 = {l in B^3 : z_l - rho/2 < 0}; in the sorted order
			// the first of them is the largest z (lowest index on ties).
			f := -1
			if cnt > 0 {
				for l, v := range z {
					if (capped && l == first) || v < thr || v >= half {
						continue
					}
					if f < 0 || v > z[f] {
						f = l
					}
				}
			}
			if literal {
				for l, v := range z {
					switch {
					case capped && l == first:
						dst[l] = u[l]
					case v < thr:
					case f < 0 || v > z[f] || (v == z[f] && l <= f):
						dst[l] = v - half
					}
				}
			}
			if f < 0 {
				break
			}
			thr = max(thr, half) // B^2 <- B^2 ∪ S, B^3 <- B^3 \ S
		}
		// Step 15: only port 1 is checked against its bound.
		if capped || z[first] < thr || !(z[first]-half > u[first]) {
			break
		}
		capped = true
	}
	if !literal {
		for l, v := range z {
			switch {
			case capped && l == first:
				dst[l] = u[l]
			case v < thr:
				dst[l] = 0
			default:
				dst[l] = v - half
			}
		}
	}
	return half
}
