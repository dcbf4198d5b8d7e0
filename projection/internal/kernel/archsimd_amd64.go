//go:build goexperiment.simd && amd64 && !noasm && !purego && !gccgo

package kernel

import (
	"math"
	"simd/archsimd"
)

// The archsimd implementation: Piece, Piece0 and Clip written with the
// experimental simd/archsimd package (Float64x8, so it needs AVX-512), a
// second vector implementation to compare with the assembly (see doc.go,
// "The archsimd implementation"). It is in the impls table only in a
// GOEXPERIMENT=simd build and never the default: the AVX-512 assembly comes
// first. TinyBrackets and TinySolve run the AVX-512 assembly.
//
// Same lanes and the same operations as pieceAVX512 and the Go loops. One
// difference in how they are written: archsimd's Max and Min are
// commutative for the compiler (its SSA ops are marked commutative and CSE
// may swap their operands), so which operand VMAXPD/VMINPD returns on ties
// (±0) and NaN is not under the source's control. Every max and min is
// therefore a comparison and a Merge, with the semantics of the Go loops
// and of VMAXPD/VMINPD with the old value as second source:
// acc = x > acc ? x : acc.
var archsimdImpls = []impl{{"archsimd", archsimd.X86.AVX512(), levelArchsimd, 8, 8}}

// tailMask returns the mask of the lanes below k (0 < k < 8).
func tailMask(k int) archsimd.Mask64x8 {
	return archsimd.Mask64x8FromBits(uint8(0xff >> (8 - k)))
}

// pieceArchsimd is pieceAVX512: all of z, the last len(z) % 8 coordinates
// with masked loads (the other lanes read z = -Inf, u = 0, a zero
// coordinate that changes no accumulator).
func pieceArchsimd(l *Lanes, z, u []float64, t float64) {
	u = u[:len(z)]
	var (
		zero   archsimd.Float64x8
		negInf = archsimd.BroadcastFloat64x8(math.Inf(-1))
		posInf = archsimd.BroadcastFloat64x8(math.Inf(1))
		tt     = archsimd.BroadcastFloat64x8(t)
		sum    archsimd.Float64x8
		free   archsimd.Int64x8
		left   = negInf
		right  = posInf
	)
	i := 0
	for ; i+8 <= len(z); i += 8 {
		zv := archsimd.LoadFloat64x8((*[8]float64)(z[i : i+8]))
		uv := archsimd.LoadFloat64x8((*[8]float64)(u[i : i+8]))
		sum, free, left, right = pieceStep(zv, uv, zv.Sub(tt), zero, negInf, posInf, sum, free, left, right)
	}
	if k := len(z) - i; k > 0 {
		m := tailMask(k)
		zv := archsimd.LoadFloat64x8SlicePart(z[i:]).Merge(negInf, m)
		uv := archsimd.LoadFloat64x8SlicePart(u[i:])
		sum, free, left, right = pieceStep(zv, uv, zv.Sub(tt), zero, negInf, posInf, sum, free, left, right)
	}
	sum.Store(&l.Sum)
	free.Store(&l.Free)
	left.Store(&l.Left)
	right.Store(&l.Right)
}

// pieceStep is one chunk of 8 coordinates (z, u, v = z - t) of a Piece
// pass, as PIECE512 in piece_amd64.s: pos = v > 0, free = pos and v < u
// (one comparison of u with v where pos and +Inf elsewhere: a mask And
// compiles to three instructions), capped = pos and not free (nested
// Merges, so that no mask complement is needed: NaN lanes classify as in
// the Go loop); the
// contribution to sum is u on capped, z on free, +0 elsewhere; the left
// candidate z on !pos, z - u on free, -Inf on capped; the right candidate
// z - u on capped, z on free, +Inf on !pos.
func pieceStep(zv, uv, v, zero, negInf, posInf, sum archsimd.Float64x8, free archsimd.Int64x8, left, right archsimd.Float64x8) (archsimd.Float64x8, archsimd.Int64x8, archsimd.Float64x8, archsimd.Float64x8) {
	pos := v.Greater(zero)
	fr := v.Merge(posInf, pos).Less(uv) // pos and v < u: +Inf < u is false for every u
	b := zv.Sub(uv)
	sum = sum.Add(zv.Merge(uv.Masked(pos), fr))
	free = free.Sub(fr.ToInt64x8())
	lc := b.Merge(negInf.Merge(zv, pos), fr)
	left = lc.Merge(left, lc.Greater(left))
	rc := zv.Merge(b.Merge(posInf, pos), fr)
	right = rc.Merge(right, rc.Less(right))
	return sum, free, left, right
}

// piece0Archsimd is piece0AVX512: pieceArchsimd at t = 0 with the check
// (Chk from 0, UMin from 0) and ZMax (from -Inf) in the same lanes; in the
// masked tail the check sees z = u = 0 in the other lanes, ZMax and the
// pass z = -Inf.
func piece0Archsimd(l *Lanes, z, u []float64) {
	u = u[:len(z)]
	var (
		zero   archsimd.Float64x8
		negInf = archsimd.BroadcastFloat64x8(math.Inf(-1))
		posInf = archsimd.BroadcastFloat64x8(math.Inf(1))
		sum    archsimd.Float64x8
		free   archsimd.Int64x8
		left   = negInf
		right  = posInf
		zmax   = negInf
		chk    archsimd.Float64x8
		umin   archsimd.Float64x8
	)
	i := 0
	for ; i+8 <= len(z); i += 8 {
		zv := archsimd.LoadFloat64x8((*[8]float64)(z[i : i+8]))
		uv := archsimd.LoadFloat64x8((*[8]float64)(u[i : i+8]))
		chk = chk.Add(zv.Sub(zv).Add(uv.Sub(uv)))
		umin = uv.Merge(umin, uv.Less(umin))
		zmax = zv.Merge(zmax, zv.Greater(zmax))
		sum, free, left, right = pieceStep(zv, uv, zv, zero, negInf, posInf, sum, free, left, right)
	}
	if k := len(z) - i; k > 0 {
		m := tailMask(k)
		zv := archsimd.LoadFloat64x8SlicePart(z[i:])
		uv := archsimd.LoadFloat64x8SlicePart(u[i:])
		chk = chk.Add(zv.Sub(zv).Add(uv.Sub(uv)))
		umin = uv.Merge(umin, uv.Less(umin))
		zv = zv.Merge(negInf, m)
		zmax = zv.Merge(zmax, zv.Greater(zmax))
		sum, free, left, right = pieceStep(zv, uv, zv, zero, negInf, posInf, sum, free, left, right)
	}
	sum.Store(&l.Sum)
	free.Store(&l.Free)
	left.Store(&l.Left)
	right.Store(&l.Right)
	zmax.Store(&l.ZMax)
	chk.Store(&l.Chk)
	umin.Store(&l.UMin)
}

// clipArchsimd is clipAVX512: dst = min(max(z - tau, 0), u) with max(x, 0)
// = x > 0 ? x : +0 and min(x, u) = x < u ? x : u (Go's builtins on these
// operands, signed zeros included); the tail with masked loads and a
// masked store.
func clipArchsimd(dst, z, u []float64, tau float64) {
	u = u[:len(z)]
	dst = dst[:len(z)]
	var zero archsimd.Float64x8
	tv := archsimd.BroadcastFloat64x8(tau)
	i := 0
	for ; i+8 <= len(z); i += 8 {
		x := archsimd.LoadFloat64x8((*[8]float64)(z[i : i+8])).Sub(tv)
		uv := archsimd.LoadFloat64x8((*[8]float64)(u[i : i+8]))
		x = x.Masked(x.Greater(zero))
		x.Merge(uv, x.Less(uv)).Store((*[8]float64)(dst[i : i+8]))
	}
	if len(z) > i {
		x := archsimd.LoadFloat64x8SlicePart(z[i:]).Sub(tv)
		uv := archsimd.LoadFloat64x8SlicePart(u[i:])
		x = x.Masked(x.Greater(zero))
		x.Merge(uv, x.Less(uv)).StoreSlicePart(dst[i:])
	}
}
