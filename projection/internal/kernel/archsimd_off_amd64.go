//go:build !goexperiment.simd && amd64 && !noasm && !purego && !gccgo

package kernel

// Without GOEXPERIMENT=simd there is no archsimd implementation (see
// archsimd_amd64.go): the table entry is absent and these are never called
// (level is never levelArchsimd).
var archsimdImpls []impl

func pieceArchsimd(l *Lanes, z, u []float64, t float64) {
	panic("projection: kernel: archsimd needs GOEXPERIMENT=simd")
}
func piece0Archsimd(l *Lanes, z, u []float64) {
	panic("projection: kernel: archsimd needs GOEXPERIMENT=simd")
}
func clipArchsimd(dst, z, u []float64, tau float64) {
	panic("projection: kernel: archsimd needs GOEXPERIMENT=simd")
}
func tinySolveArchsimd(r *Tiny, dst, z, u []float64, c float64) {
	panic("projection: kernel: archsimd needs GOEXPERIMENT=simd")
}
