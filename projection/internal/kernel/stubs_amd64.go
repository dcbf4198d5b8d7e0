//go:build amd64 && !noasm && !purego && !gccgo

package kernel

import (
	"slices"

	"golang.org/x/sys/cpu"
)

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

// The implementations, by level. levelArchsimd (the kernels in Go with
// simd/archsimd, archsimd_amd64.go) exists only in a
// GOEXPERIMENT=simd build.
const (
	levelGo = iota
	levelAVX2
	levelAVX512
	levelArchsimd
)

// impls lists the implementations, fastest first (archsimd, a comparison
// implementation present only in a GOEXPERIMENT=simd build, after the
// assembly: never the default); ok says whether this CPU runs it.
var impls = slices.Concat(
	[]impl{
		{"avx512", cpu.X86.HasAVX512F, levelAVX512, 8, 8},
		{"avx2", cpu.X86.HasAVX2, levelAVX2, 8, 8},
	},
	archsimdImpls,
	[]impl{{"go", true, levelGo, 24, 0}},
)

// asmAll says whether the vector kernels in use process the tail too
// (AVX-512 and archsimd).
func asmAll() bool { return level >= levelAVX512 }

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
	switch level {
	case levelAVX512:
		pieceAVX512(l, z, u, t)
	case levelAVX2:
		pieceAVX2(l, z, u, t)
	default:
		pieceArchsimd(l, z, u, t)
	}
}

func piece0Asm(l *Lanes, z, u []float64) {
	switch level {
	case levelAVX512:
		piece0AVX512(l, z, u)
	case levelAVX2:
		piece0AVX2(l, z, u)
	default:
		piece0Archsimd(l, z, u)
	}
}

func clipAsm(dst, z, u []float64, tau float64) {
	switch level {
	case levelAVX512:
		clipAVX512(dst, z, u, tau)
	case levelAVX2:
		clipAVX2(dst, z, u, tau)
	default:
		clipArchsimd(dst, z, u, tau)
	}
}

func tinySolveAsm(r *Tiny, dst, z, u []float64, c float64) {
	switch level {
	case levelAVX512:
		tinySolveAVX512(r, dst, z, u, c)
	case levelAVX2:
		tinySolveAVX2(r, dst, z, u, c)
	default:
		tinySolveArchsimd(r, dst, z, u, c)
	}
}
