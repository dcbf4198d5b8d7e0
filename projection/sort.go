package projection

import (
	"fmt"
	"slices"
)

// CappedSimplexSort computes the same projection as CappedSimplex by the
// textbook breakpoint method: sort the breakpoints z_i - u_i (where
// coordinate i becomes free) and z_i (where it reaches 0), walk them in
// increasing order keeping phi(tau) = sum_i min(max(z_i-tau, 0), u_i) and its
// slope, stop at the first breakpoint where phi <= c and solve the linear
// piece before it, recomputing its sums in one more pass so the result is
// exact up to rounding. It costs O(n log n) and allocates 2n floats; it is
// the baseline CappedSimplex is measured against.
//
// Preconditions, aliasing and panics on mismatched lengths are as for
// CappedSimplex, except that invalid values are not detected.
func CappedSimplexSort(dst, z, u []float64, c float64) (tau float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: CappedSimplexSort lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	s := 0.0
	var freeM int
	starts := make([]float64, 0, n) // z_i - u_i > 0: capped -> free
	ends := make([]float64, 0, n)   // z_i > 0: free -> zero
	for i, zi := range z {
		if zi <= 0 {
			continue
		}
		ui := u[i]
		if bi := zi - ui; bi > 0 {
			s += ui
			starts = append(starts, bi)
		} else {
			s += zi
			freeM++
		}
		ends = append(ends, zi)
	}
	if s <= c {
		clipTo(dst, z, u, 0)
		return 0
	}
	slices.Sort(starts)
	slices.Sort(ends)
	// Walk the breakpoints; phi is linear with slope -freeM between them.
	prev, phi := 0.0, s
	next := 0.0
	for i, j := 0, 0; j < len(ends); {
		start := i < len(starts) && starts[i] <= ends[j]
		if start {
			next = starts[i]
		} else {
			next = ends[j]
		}
		p := phi - float64(freeM)*(next-prev)
		if p <= c {
			break
		}
		prev, phi = next, p
		if start {
			freeM++
			i++
		} else {
			freeM--
			j++
		}
	}
	// The root lies in [prev, next]; solve that linear piece exactly.
	mid := prev + (next-prev)/2
	var capU, freeZ float64
	freeM = 0
	for i, zi := range z {
		ui := u[i]
		switch {
		case zi <= mid:
		case zi-ui >= mid:
			capU += ui
		default:
			freeZ += zi
			freeM++
		}
	}
	tau = next
	if freeM > 0 {
		tau = min(max((capU+freeZ-c)/float64(freeM), prev), next)
	}
	clipTo(dst, z, u, tau)
	return tau
}
