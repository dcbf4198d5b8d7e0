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
// dst may be the same slice as z. It allocates nothing. Preconditions as
// for CappedSimplex: it panics if the lengths differ, if z or u holds a NaN
// or an infinity, if u[i] < 0 or if c is NaN or negative (before, a NaN
// made it loop forever); dst is then untouched. c = +Inf gives +Inf
// coordinates, since the procedure always fills the capacity. Use
// ProjectCappedSimplexPaper to get an error instead of a panic. Every loop
// is bounded: the inner procedure runs at most len(z)+1 rounds per outer
// pass, as each round removes at least one coordinate from B^3.
func CappedSimplexPaper(dst, z, u []float64, c float64) (tau float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: CappedSimplexPaper lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	if !(c >= 0) {
		panic(fmt.Sprintf("projection: CappedSimplexPaper capacity c = %v", c))
	}
	if msg := paperBadInput(z, u); msg != "" {
		panic(msg)
	}
	return paperProject(dst, z, u, c, false)
}

// ProjectCappedSimplexPaper is CappedSimplexPaper for untrusted input: it
// checks the data as ProjectCappedSimplex does (lengths, NaN, Inf, negative
// bounds or capacity, magnitudes whose sums could overflow) and returns an
// error wrapping the same sentinels, leaving dst untouched. Unlike
// ProjectCappedSimplex it rejects c = +Inf (ErrInf): the paper's procedure
// always fills the capacity, so it would return infinite coordinates.
func ProjectCappedSimplexPaper(dst, z, u []float64, c float64) (float64, error) {
	if err := checkProjectInput(dst, z, u, c, false); err != nil {
		return 0, err
	}
	return CappedSimplexPaper(dst, z, u, c), nil
}

// paperBadInput describes the first NaN, infinity or negative bound of
// z and u, or returns "".
func paperBadInput(z, u []float64) string {
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("projection: CappedSimplexPaper z[%d] = %v", i, v)
		}
	}
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Sprintf("projection: CappedSimplexPaper u[%d] = %v", i, v)
		}
	}
	return ""
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
		// Steps 19-31. Each round moves at least one coordinate of B^3 to
		// B^2 (thr rises past it), so n+1 rounds suffice; the bound keeps
		// a NaN that slipped past the checks from looping forever.
		for round := 0; round <= n; round++ {
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
