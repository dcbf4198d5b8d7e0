//go:build amd64 && !noasm && !purego && !gccgo

package kernel

//go:noescape
func tinySolve8AVX512(dst, z, u []float64, c, tau *[8]float64, n int) int

// tinySolve8Asm runs the AVX-512 kernel if it is the implementation in use
// and reports whether it did (ran) and whether the input was valid (ok).
func tinySolve8Asm(dst, z, u []float64, c, tau *[8]float64, n int) (ran, ok bool) {
	if level != levelAVX512 {
		return false, false
	}
	return true, tinySolve8AVX512(dst, z, u, c, tau, n) == 1
}
