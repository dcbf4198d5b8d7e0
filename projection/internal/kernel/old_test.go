package kernel

import "math"

// oldPiece and oldPieceAt are the scalar pass of projection before the
// kernels (two accumulators), kept to benchmark the Go kernel against.
type oldPiece struct {
	phi, sum    float64
	freeM       int
	left, right float64
}

func oldPieceAt(z, u []float64, t float64) oldPiece {
	var s0, s1 float64
	var m0, m1 uint64
	left, right := math.Inf(-1), math.Inf(1)
	u = u[:len(z)]
	i := 0
	for ; i+1 < len(z); i += 2 {
		z0, u0 := z[i], u[i]
		v0 := z0 - t
		var pos0, below0 uint64
		if v0 > 0 {
			pos0 = allOnes
		}
		if v0 < u0 {
			below0 = allOnes
		}
		free0 := pos0 & below0
		cap0 := pos0 &^ below0
		zb0, bb0 := math.Float64bits(z0), math.Float64bits(z0-u0)
		s0 += math.Float64frombits(math.Float64bits(u0)&cap0 | zb0&free0)
		m0 += free0 & 1
		if l := math.Float64frombits(zb0&^pos0 | bb0&free0 | negInf&cap0); l > left {
			left = l
		}
		if r := math.Float64frombits(bb0&cap0 | zb0&free0 | posInf&^pos0); r < right {
			right = r
		}
		z1, u1 := z[i+1], u[i+1]
		v1 := z1 - t
		var pos1, below1 uint64
		if v1 > 0 {
			pos1 = allOnes
		}
		if v1 < u1 {
			below1 = allOnes
		}
		free1 := pos1 & below1
		cap1 := pos1 &^ below1
		zb1, bb1 := math.Float64bits(z1), math.Float64bits(z1-u1)
		s1 += math.Float64frombits(math.Float64bits(u1)&cap1 | zb1&free1)
		m1 += free1 & 1
		if l := math.Float64frombits(zb1&^pos1 | bb1&free1 | negInf&cap1); l > left {
			left = l
		}
		if r := math.Float64frombits(bb1&cap1 | zb1&free1 | posInf&^pos1); r < right {
			right = r
		}
	}
	for ; i < len(z); i++ {
		z0, u0 := z[i], u[i]
		v0 := z0 - t
		var pos0, below0 uint64
		if v0 > 0 {
			pos0 = allOnes
		}
		if v0 < u0 {
			below0 = allOnes
		}
		free0 := pos0 & below0
		cap0 := pos0 &^ below0
		zb0, bb0 := math.Float64bits(z0), math.Float64bits(z0-u0)
		s0 += math.Float64frombits(math.Float64bits(u0)&cap0 | zb0&free0)
		m0 += free0 & 1
		if l := math.Float64frombits(zb0&^pos0 | bb0&free0 | negInf&cap0); l > left {
			left = l
		}
		if r := math.Float64frombits(bb0&cap0 | zb0&free0 | posInf&^pos0); r < right {
			right = r
		}
	}
	sum, m := s0+s1, int(m0+m1)
	return oldPiece{phi: sum - float64(m)*t, sum: sum, freeM: m, left: left, right: right}
}
