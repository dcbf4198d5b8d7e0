package kernel

import "math"

// Tiny is the result of the first part of a tiny-block solve (see
// TinyBrackets: AVX-512, AVX2 or Go, the same result bit for bit).
type Tiny struct {
	Phi0   float64 // phi(0), summed over the 8 lanes as in Lanes.Reduce
	Lo, Hi float64 // valid if State == 1: phi is linear on [Lo, Hi] and crosses c there
	State  int64   // -1: invalid input; 0: phi(0) <= c; 1: the capacity binds
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
		tinyAsm(r, z, u, c)
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
