package kernel

import "math"

// Tiny is the result of the first part of a tiny-block solve (see
// TinyBrackets: AVX-512, AVX2 or Go, the same result bit for bit).
type Tiny struct {
	Phi0   float64 // phi(0), summed over the 8 lanes as in Lanes.Reduce
	Lo, Hi float64 // valid if State == 1: phi is linear on [Lo, Hi] and crosses c there
	State  int64   // -1: invalid input; 0: phi(0) <= c; 1: the capacity binds
	Tau    float64 // TinySolve only, if State >= 0: the multiplier (0 if State == 0)
}

// TinyBrackets brackets the root of phi(x) = sum_i clip(z_i - x, 0, u_i) = c
// for a block of 1 to 8 coordinates without sorting. It is
//
//	if some z[i] or u[i] is NaN or ±Inf, or some u[i] < 0 {
//		r.State = -1; return
//	}
//	var l [8]float64 // lane i: coordinate i, 0 beyond len(z)
//	for i := range z {
//		l[i] = min(max(z[i], 0), u[i])
//	}
//	r.Phi0 = ((l[0]+l[4])+(l[2]+l[6])) + ((l[1]+l[5])+(l[3]+l[7]))
//	if !(r.Phi0 > c) {
//		r.State = 0; return
//	}
//	r.State, r.Lo, r.Hi = 1, 0, +Inf
//	for each key x in z[i] and z[i]-u[i], i < len(z) {
//		p := 0.0
//		for j := range z {
//			p += min(max(z[j]-x, 0), u[j])
//		}
//		if p > c { r.Lo = max(r.Lo, x) } else if x > 0 { r.Hi = min(r.Hi, x) }
//	}
//
// The root lies in (0, max z] (phi(max z) = 0 <= c), so keys <= 0 are
// left out of Hi: phi at such a key, summed in another order than Phi0,
// can round to <= c when Phi0 > c. Each computed p is non-increasing in x
// (every rounding is monotone and the order of the sum is the same for
// every key), so no key lies strictly inside (Lo, Hi), Lo < Hi <= max z,
// and phi is linear there. It needs
// 1 <= len(z) <= 8 and len(u) >= len(z), and allocates nothing.
func TinyBrackets(r *Tiny, z, u []float64, c float64) {
	if len(z) < 1 || len(z) > 8 {
		panic("projection: kernel.TinyBrackets needs 1 to 8 coordinates")
	}
	u = u[:len(z)]
	if useAsm {
		// The assembly brackets as part of TinySolve (one kernel per
		// level, not two): solve into a scratch block.
		var scratch [8]float64
		tinySolveAsm(r, scratch[:len(z)], z, u, c)
		return
	}
	tinyGo(r, z, u, c)
}

func tinyGo(r *Tiny, z, u []float64, c float64) {
	u = u[:len(z)]
	var l [8]float64
	chk, bad := 0.0, false
	for i, zi := range z {
		ui := u[i]
		chk += (zi - zi) + (ui - ui)
		bad = bad || ui < 0
		l[i] = min(max(zi, 0), ui)
	}
	if chk != 0 || bad {
		r.State = -1
		return
	}
	r.Phi0 = ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
	if !(r.Phi0 > c) {
		r.State = 0
		return
	}
	lo, hi := 0.0, math.Inf(1)
	var pa, pb [8]float64
	for j, zj := range z {
		uj := u[j]
		for k, zk := range z {
			pa[k] += min(max(zj-zk, 0), uj)
			pb[k] += min(max(zj-(zk-u[k]), 0), uj)
		}
	}
	for k, zk := range z {
		if pa[k] > c {
			lo = max(lo, zk)
		} else if zk > 0 {
			hi = min(hi, zk)
		}
		if b := zk - u[k]; pb[k] > c {
			lo = max(lo, b)
		} else if b > 0 {
			hi = min(hi, b)
		}
	}
	r.State, r.Lo, r.Hi = 1, lo, hi
}

// TinySolve is TinyBrackets followed by the rest of the projection of a
// block of 1 to 8 coordinates, in one call (one assembly function with
// the assembly kernels): it is
//
//	TinyBrackets(r, z, u, c)
//	switch r.State {
//	case -1:
//		return // dst untouched
//	case 0:
//		r.Tau = 0
//	case 1:
//		r.Tau = TinyRoot(z, u, c, r.Lo, r.Hi)
//	}
//	for i := range z {
//		dst[i] = min(max(z[i]-r.Tau, 0), u[i])
//	}
//
// with the same result bit for bit on every implementation. dst may be z
// or u (every input is read before dst is written). It needs 1 <= len(z)
// <= 8 and len(dst), len(u) >= len(z), and allocates nothing.
func TinySolve(r *Tiny, dst, z, u []float64, c float64) {
	if len(z) < 1 || len(z) > 8 {
		panic("projection: kernel.TinySolve needs 1 to 8 coordinates")
	}
	u, dst = u[:len(z)], dst[:len(z)]
	if useAsm {
		tinySolveAsm(r, dst, z, u, c)
		return
	}
	tinySolveGo(r, dst, z, u, c)
}

func tinySolveGo(r *Tiny, dst, z, u []float64, c float64) {
	tinyGo(r, z, u, c)
	switch r.State {
	case -1:
		return
	case 0:
		r.Tau = 0
	default:
		r.Tau = TinyRoot(z, u, c, r.Lo, r.Hi)
	}
	clipGo(dst, z, u, r.Tau, 0)
}

// TinyRoot returns the root of phi(x) = c on [lo, hi], where phi is linear
// (a bracket of TinyBrackets; 1 <= len(z) <= 8): it classifies the
// coordinates at the midpoint mid = lo + (hi-lo)/2 (free: 0 < z_i - mid <
// u_i; capped: z_i - mid > 0 otherwise), sums u_i over the capped and z_i
// over the free ones in the order of Lanes.Reduce, and returns
// min(max((sum - c)/m, lo), hi), m the number of free coordinates, or hi
// if m = 0. The classification is branch-free (masks and bitwise
// selects): branches on random data mispredicted.
func TinyRoot(z, u []float64, c, lo, hi float64) float64 {
	mid := lo + (hi-lo)/2
	var s [8]float64
	var m uint64
	u = u[:len(z)]
	for i, zi := range z[:min(len(z), 8)] {
		v := zi - mid
		var pos, below uint64
		if v > 0 {
			pos = allOnes
		}
		if v < u[i] {
			below = allOnes
		}
		free := pos & below
		capped := pos &^ below
		s[i] = math.Float64frombits(math.Float64bits(u[i])&capped | math.Float64bits(zi)&free)
		m += free & 1
	}
	if m == 0 {
		return hi
	}
	sum := ((s[0] + s[4]) + (s[2] + s[6])) + ((s[1] + s[5]) + (s[3] + s[7]))
	return min(max((sum-c)/float64(m), lo), hi)
}
