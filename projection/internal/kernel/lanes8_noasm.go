//go:build !amd64 || noasm || purego || gccgo

package kernel

func tinySolve8Asm(dst, z, u []float64, c, tau *[8]float64, n int) (ran, ok bool) {
	return false, false
}
