package projection

import "github.com/msched/msched/projection/internal/kernel"

// capTiny is CappedSimplex for 1 <= n <= kernel.TinyBlock() (8 with the
// AVX-512 kernels) without sorting, in one call of kernel.TinySolve: it
// checks the input, sums phi(0) and, if the capacity binds, evaluates phi
// at all 2n breakpoints at once (one vector of keys per kind) to bracket
// the root between two consecutive breakpoints lo < hi. phi is linear on
// [lo, hi]; tau is the root of that piece, (sum - c) / m with sum and m
// taken at its midpoint (summed in the lane order of kernel.Lanes.Reduce),
// clamped to [lo, hi]; then dst is clipped at tau.
func capTiny(dst, z, u []float64, c float64) float64 {
	var r kernel.Tiny
	kernel.TinySolve(&r, dst, z, u, c)
	if r.State < 0 {
		panic(badInput(z, u))
	}
	return r.Tau
}
