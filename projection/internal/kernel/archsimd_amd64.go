//go:build goexperiment.simd && amd64 && !noasm && !purego && !gccgo

package kernel

import (
	"math"
	"math/bits"
	"simd/archsimd"
)

// The archsimd implementation: Piece, Piece0, Clip, TinyBrackets and
// TinySolve written with the experimental simd/archsimd package
// (Float64x8, so it needs AVX-512), a second vector implementation to
// compare with the assembly (see doc.go, "The archsimd implementation").
// It is in the impls table only in a GOEXPERIMENT=simd build and never the
// default: the AVX-512 assembly comes first.
//
// Same lanes and the same operations as the AVX-512 assembly and the Go
// loops. One difference in how they are written: archsimd's Max and Min
// are commutative for the compiler (its SSA ops are marked commutative and
// CSE may swap their operands), so which operand VMAXPD/VMINPD returns on
// ties (±0) and NaN is not under the source's control. Every max and min
// whose ties show in a result is therefore a comparison and a Merge, with
// the semantics of the Go loops and of VMAXPD/VMINPD with the old value as
// second source: acc = x > acc ? x : acc. (Max and Min remain only where
// equal values have equal bits or are turned into +0: the tiny bracket.)
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
	archsimd.ClearAVXUpperBits()
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
	archsimd.ClearAVXUpperBits()
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
	archsimd.ClearAVXUpperBits()
}

// clip8 is min(max(x, 0), u) lane by lane with the ties of Go's builtins
// (see clipArchsimd).
func clip8(x, uv, zero archsimd.Float64x8) archsimd.Float64x8 {
	x = x.Masked(x.Greater(zero))
	return x.Merge(uv, x.Less(uv))
}

// addTree returns ((x0+x4)+(x2+x6)) + ((x1+x5)+(x3+x7)), the order of
// Lanes.Reduce, in registers (a vector store read back as scalars stalls).
func addTree(x archsimd.Float64x8) float64 {
	a := x.GetLo().Add(x.GetHi())
	b := a.GetLo().Add(a.GetHi())
	return b.GetElem(0) + b.GetElem(1)
}

// maxLanes and minLanes return the largest and the smallest lane (for
// lanes without NaN; of equal ±0 lanes either).
func maxLanes(x archsimd.Float64x8) float64 {
	a := x.GetLo().Max(x.GetHi())
	b := a.GetLo().Max(a.GetHi())
	return max(b.GetElem(0), b.GetElem(1))
}

func minLanes(x archsimd.Float64x8) float64 {
	a := x.GetLo().Min(x.GetHi())
	b := a.GetLo().Min(a.GetHi())
	return min(b.GetElem(0), b.GetElem(1))
}

// tinyArchsimd is TinyBrackets (1 <= len(z) <= 8, len(u) == len(z)): the
// check, phi(0) and phi at the 2n keys in vectors (the lanes beyond len(z)
// read z = u = 0: a clipped value of 0 and keys 0, left out below), the
// lane sums in the order of Lanes.Reduce, and the bracket with masks (a
// scalar loop over the keys, as in tinyGo, mispredicts on random blocks).
func tinyArchsimd(r *Tiny, z, u []float64, c float64) {
	u = u[:len(z)]
	var zero archsimd.Float64x8
	zv := archsimd.LoadFloat64x8SlicePart(z)
	uv := archsimd.LoadFloat64x8SlicePart(u)
	chk := zv.Sub(zv).Add(uv.Sub(uv))
	if chk.IsNaN().Or(uv.Less(zero)).ToBits() != 0 {
		r.State = -1
		archsimd.ClearAVXUpperBits()
		return
	}
	r.Phi0 = addTree(clip8(zv, uv, zero))
	if !(r.Phi0 > c) {
		r.State = 0
		archsimd.ClearAVXUpperBits()
		return
	}
	kb := zv.Sub(uv)
	var pa, pb archsimd.Float64x8
	for j, zj := range z {
		zb := archsimd.BroadcastFloat64x8(zj)
		ub := archsimd.BroadcastFloat64x8(u[j])
		pa = pa.Add(clip8(zb.Sub(zv), ub, zero))
		pb = pb.Add(clip8(zb.Sub(kb), ub, zero))
	}
	// lo: the largest key with phi > c, at least +0; hi: the smallest key
	// > 0 with phi <= c (+Inf if none). The lanes beyond len(z) hold keys
	// 0, which change neither. Equal keys have equal bits except ±0, and
	// lo turns those into +0, so the Max of the two key vectors and the
	// order of the lane reductions do not matter.
	cv := archsimd.BroadcastFloat64x8(c)
	negInf := archsimd.BroadcastFloat64x8(math.Inf(-1))
	posInf := archsimd.BroadcastFloat64x8(math.Inf(1))
	lo := max(maxLanes(zv.Merge(negInf, pa.Greater(cv)).Max(kb.Merge(negInf, pb.Greater(cv)))), 0)
	hi := minLanes(posInf.Merge(zv.Merge(posInf, zv.Greater(zero)), pa.Greater(cv)).
		Min(posInf.Merge(kb.Merge(posInf, kb.Greater(zero)), pb.Greater(cv))))
	r.State, r.Lo, r.Hi = 1, lo, hi
	archsimd.ClearAVXUpperBits()
}

// tinySolveArchsimd is TinySolve: tinyArchsimd, TinyRoot in vectors, and
// the clip of the vectors loaded before dst is written (dst may be z or
// u), stored with a masked store.
func tinySolveArchsimd(r *Tiny, dst, z, u []float64, c float64) {
	u, dst = u[:len(z)], dst[:len(z)]
	tinyArchsimd(r, z, u, c)
	if r.State == -1 {
		return
	}
	// Loaded after the call (vectors live across it are spilled).
	var zero archsimd.Float64x8
	zv := archsimd.LoadFloat64x8SlicePart(z)
	uv := archsimd.LoadFloat64x8SlicePart(u)
	switch r.State {
	case 0:
		r.Tau = 0
	default:
		r.Tau = tinyRootArchsimd(zv, uv, zero, c, r.Lo, r.Hi)
	}
	clip8(zv.Sub(archsimd.BroadcastFloat64x8(r.Tau)), uv, zero).StoreSlicePart(dst)
	archsimd.ClearAVXUpperBits()
}

// tinyRootArchsimd is TinyRoot on z and u in vectors (the lanes beyond
// len(z) read 0: v = -mid < 0 classifies them zero, as TinyRoot's s[i] = 0).
func tinyRootArchsimd(zv, uv, zero archsimd.Float64x8, c, lo, hi float64) float64 {
	mid := lo + (hi-lo)/2
	v := zv.Sub(archsimd.BroadcastFloat64x8(mid))
	pos := v.Greater(zero)
	free := v.Merge(archsimd.BroadcastFloat64x8(math.Inf(1)), pos).Less(uv)
	m := bits.OnesCount8(free.ToBits())
	if m == 0 {
		return hi
	}
	sum := addTree(zv.Merge(uv.Masked(pos), free))
	return min(max((sum-c)/float64(m), lo), hi)
}
