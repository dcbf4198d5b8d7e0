package kernel

// TinySolve8 is TinySolve on eight blocks of n coordinates at once, one
// block per vector lane: z, u and dst hold n vectors of 8, coordinate i of
// block b at index 8i+b, block b's capacity is c[b], and tau[b] gets its
// multiplier. For every block it gives TinySolve's result bit for bit:
// the AVX-512 kernel runs TinySolve's operations lane by lane (the sums in
// the same order, the same min/max operand order), every other
// implementation copies each block out and calls TinySolve. It returns
// false, writing nothing, if some value is NaN or infinite or some u < 0
// (the caller reports the block). It needs 1 <= n <= 8 and len(dst),
// len(z), len(u) >= 8n, and allocates nothing.
func TinySolve8(dst, z, u []float64, c, tau *[8]float64, n int) bool {
	if n < 1 || n > 8 {
		panic("projection: kernel.TinySolve8 needs 1 to 8 coordinates per block")
	}
	m := 8 * n
	dst, z, u = dst[:m], z[:m], u[:m]
	if ran, ok := tinySolve8Asm(dst, z, u, c, tau, n); ran {
		return ok
	}
	return tinySolve8Go(dst, z, u, c, tau, n)
}

// tinySolve8Go is TinySolve8 block by block: check every block, then
// solve each with TinySolve on a copy (dst may be z or u).
func tinySolve8Go(dst, z, u []float64, c, tau *[8]float64, n int) bool {
	var zb, ub, yb [8]float64
	var r Tiny
	for b := 0; b < 8; b++ {
		for i := 0; i < n; i++ {
			zi, ui := z[8*i+b], u[8*i+b]
			if zi-zi != 0 || ui-ui != 0 || ui < 0 {
				return false
			}
		}
	}
	var out [64]float64
	for b := 0; b < 8; b++ {
		for i := 0; i < n; i++ {
			zb[i], ub[i] = z[8*i+b], u[8*i+b]
		}
		TinySolve(&r, yb[:n], zb[:n], ub[:n], c[b])
		tau[b] = r.Tau
		for i := 0; i < n; i++ {
			out[8*i+b] = yb[i]
		}
	}
	copy(dst, out[:8*n])
	return true
}
