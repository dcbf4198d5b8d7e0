package kernel

import "math"

// pieceGo8 is the Go pass over the whole chunks of 8 coordinates, the lanes
// in eight local sums (the same order of additions as pieceGo and the
// assembly); it continues the lanes in l and returns the number of
// coordinates done. The step is written out once per lane on purpose: a
// loop over the lanes keeps the sums in memory (measured 1.1-1.3x slower),
// and as a function it is over the inliner's budget.
func pieceGo8(l *Lanes, z, u []float64, t float64) int {
	u = u[:len(z)]
	s0, s1, s2, s3, s4, s5, s6, s7 := l.Sum[0], l.Sum[1], l.Sum[2], l.Sum[3], l.Sum[4], l.Sum[5], l.Sum[6], l.Sum[7]
	var m uint64
	left, right := l.Left[0], l.Right[0]
	i := 0
	for ; i+8 <= len(z); i += 8 {
		zz := (*[8]float64)(z[i:])
		uu := (*[8]float64)(u[i:])
		{
			z0, u0 := zz[0], uu[0]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s0 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[1], uu[1]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s1 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[2], uu[2]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s2 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[3], uu[3]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s3 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[4], uu[4]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s4 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[5], uu[5]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s5 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[6], uu[6]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s6 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		{
			z0, u0 := zz[7], uu[7]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s7 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
	}
	l.Sum = [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
	l.Free[0] += int64(m)
	l.Left[0], l.Right[0] = left, right
	return i
}

// piece0Go8 is pieceGo8 at t = 0 fused with the check and max z of Piece0
// (kept in lane 0: they do not depend on the order).
func piece0Go8(l *Lanes, z, u []float64) int {
	u = u[:len(z)]
	const t = 0.0
	chk := l.Chk[0]
	umin, zmax := l.UMin[0], l.ZMax[0]
	s0, s1, s2, s3, s4, s5, s6, s7 := l.Sum[0], l.Sum[1], l.Sum[2], l.Sum[3], l.Sum[4], l.Sum[5], l.Sum[6], l.Sum[7]
	var m uint64
	left, right := l.Left[0], l.Right[0]
	i := 0
	for ; i+8 <= len(z); i += 8 {
		zz := (*[8]float64)(z[i:])
		uu := (*[8]float64)(u[i:])
		chk += (zz[0] - zz[0]) + (uu[0] - uu[0])
		if uu[0] < umin {
			umin = uu[0]
		}
		if zz[0] > zmax {
			zmax = zz[0]
		}
		{
			z0, u0 := zz[0], uu[0]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s0 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[1] - zz[1]) + (uu[1] - uu[1])
		if uu[1] < umin {
			umin = uu[1]
		}
		if zz[1] > zmax {
			zmax = zz[1]
		}
		{
			z0, u0 := zz[1], uu[1]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s1 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[2] - zz[2]) + (uu[2] - uu[2])
		if uu[2] < umin {
			umin = uu[2]
		}
		if zz[2] > zmax {
			zmax = zz[2]
		}
		{
			z0, u0 := zz[2], uu[2]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s2 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[3] - zz[3]) + (uu[3] - uu[3])
		if uu[3] < umin {
			umin = uu[3]
		}
		if zz[3] > zmax {
			zmax = zz[3]
		}
		{
			z0, u0 := zz[3], uu[3]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s3 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[4] - zz[4]) + (uu[4] - uu[4])
		if uu[4] < umin {
			umin = uu[4]
		}
		if zz[4] > zmax {
			zmax = zz[4]
		}
		{
			z0, u0 := zz[4], uu[4]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s4 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[5] - zz[5]) + (uu[5] - uu[5])
		if uu[5] < umin {
			umin = uu[5]
		}
		if zz[5] > zmax {
			zmax = zz[5]
		}
		{
			z0, u0 := zz[5], uu[5]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s5 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[6] - zz[6]) + (uu[6] - uu[6])
		if uu[6] < umin {
			umin = uu[6]
		}
		if zz[6] > zmax {
			zmax = zz[6]
		}
		{
			z0, u0 := zz[6], uu[6]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s6 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
		chk += (zz[7] - zz[7]) + (uu[7] - uu[7])
		if uu[7] < umin {
			umin = uu[7]
		}
		if zz[7] > zmax {
			zmax = zz[7]
		}
		{
			z0, u0 := zz[7], uu[7]
			v0 := z0 - t
			var pos, below uint64
			if v0 > 0 {
				pos = allOnes
			}
			if v0 < u0 {
				below = allOnes
			}
			free := pos & below
			capped := pos &^ below
			zb, bb := math.Float64bits(z0), math.Float64bits(z0-u0)
			s7 += math.Float64frombits(math.Float64bits(u0)&capped | zb&free)
			m += free & 1
			if x := math.Float64frombits(zb&^pos | bb&free | negInf&capped); x > left {
				left = x
			}
			if x := math.Float64frombits(bb&capped | zb&free | posInf&^pos); x < right {
				right = x
			}
		}
	}
	l.Sum = [8]float64{s0, s1, s2, s3, s4, s5, s6, s7}
	l.Free[0] += int64(m)
	l.Left[0], l.Right[0] = left, right
	l.Chk[0] = chk
	l.UMin[0] = min(l.UMin[0], umin)
	if zmax > l.ZMax[0] {
		l.ZMax[0] = zmax
	}
	return i
}
