package projection

import (
	"math"

	"github.com/msched/msched/projection/internal/kernel"
)

// capTiny is CappedSimplex for 1 <= n <= kernel.TinyBlock() (8 with the
// AVX-512 kernels) without sorting: kernel.TinyBrackets checks the input,
// sums phi(0) and, if the capacity binds, evaluates phi at all 2n
// breakpoints at once (one vector of keys per kind) to bracket the root
// between two consecutive breakpoints lo < hi. phi is linear on [lo, hi];
// tau is the root of that piece, (sum - c) / m with sum and m taken at
// its midpoint (summed in the lane order of kernel.Lanes.Reduce), clamped
// to [lo, hi].
func capTiny(dst, z, u []float64, c float64) float64 {
	var r kernel.Tiny
	kernel.TinyBrackets(&r, z, u, c)
	tau := 0.0
	switch r.State {
	case -1:
		panic(badInput(z, u))
	case 1:
		tau = tinyRoot(z, u, c, r.Lo, r.Hi)
	}
	clipTo(dst, z, u, tau)
	return tau
}

// tinyRoot returns the root of phi(x) = c on [lo, hi], where phi is linear.
// The classification at the midpoint is branch-free (masks and bitwise
// selects, as in the kernels): branches on random data mispredicted.
func tinyRoot(z, u []float64, c, lo, hi float64) float64 {
	mid := lo + (hi-lo)/2
	var s [8]float64
	var m uint64
	u = u[:len(z)]
	for i, zi := range z[:min(len(z), 8)] {
		v := zi - mid
		var pos, below uint64
		if v > 0 {
			pos = allOnes
		}
		if v < u[i] {
			below = allOnes
		}
		free := pos & below
		capped := pos &^ below
		s[i] = math.Float64frombits(math.Float64bits(u[i])&capped | math.Float64bits(zi)&free)
		m += free & 1
	}
	if m == 0 {
		return hi
	}
	sum := ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
	return min(max((sum-c)/float64(m), lo), hi)
}

// allOnes is the all-true mask of the branch-free selects.
const allOnes = ^uint64(0)
