//go:build amd64 && !noasm && !purego && !gccgo

package kernel

import "golang.org/x/sys/cpu"

// The assembly kernels need len(u) (and len(dst)) >= len(z) and overwrite
// every lane of l. The AVX-512 versions need AVX512F and process all of z
// (the last len(z) % 8 coordinates with masked loads and stores); the AVX2
// ones need AVX2 and process only whole chunks of 8 coordinates,
// len(z) &^ 7 (the caller adds the rest with the Go loop).

//go:noescape
func pieceAVX512(l *Lanes, z, u []float64, t float64)

//go:noescape
func piece0AVX512(l *Lanes, z, u []float64)

//go:noescape
func clipAVX512(dst, z, u []float64, tau float64)

//go:noescape
func tinySolveAVX512(r *Tiny, dst, z, u []float64, c float64)

//go:noescape
func tinySolveAVX2(r *Tiny, dst, z, u []float64, c float64)

//go:noescape
func pieceAVX2(l *Lanes, z, u []float64, t float64)

//go:noescape
func piece0AVX2(l *Lanes, z, u []float64)

//go:noescape
func clipAVX2(dst, z, u []float64, tau float64)

// The implementations, by level.
const (
	levelGo = iota
	levelAVX2
	levelAVX512
)

// impls lists the implementations, fastest first; ok says whether this
// CPU runs it.
var impls = []impl{
	{"avx512", cpu.X86.HasAVX512F, levelAVX512, 8, 8},
	{"avx2", cpu.X86.HasAVX2, levelAVX2, 8, 8},
	{"go", true, levelGo, 24, 0},
}

// asmAll says whether the assembly in use processes the tail too.
func asmAll() bool { return level == levelAVX512 }

var (
	useAsm   bool
	implName string
	level    int
)

func init() {
	for _, im := range impls {
		if im.ok {
			use(im)
			return
		}
	}
}

// The dispatchers are plain functions, not function values, so that the
// escape analysis sees the //go:noescape of the assembly and Lanes stays
// on the caller's stack.

func pieceAsm(l *Lanes, z, u []float64, t float64) {
	if level == levelAVX512 {
		pieceAVX512(l, z, u, t)
	} else {
		pieceAVX2(l, z, u, t)
	}
}

func piece0Asm(l *Lanes, z, u []float64) {
	if level == levelAVX512 {
		piece0AVX512(l, z, u)
	} else {
		piece0AVX2(l, z, u)
	}
}

func clipAsm(dst, z, u []float64, tau float64) {
	if level == levelAVX512 {
		clipAVX512(dst, z, u, tau)
	} else {
		clipAVX2(dst, z, u, tau)
	}
}

func tinySolveAsm(r *Tiny, dst, z, u []float64, c float64) {
	if level == levelAVX512 {
		tinySolveAVX512(r, dst, z, u, c)
	} else {
		tinySolveAVX2(r, dst, z, u, c)
	}
}
