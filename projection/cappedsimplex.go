package projection

import (
	"fmt"
	"math"
)

// CappedSimplex sets dst to the Euclidean projection of z onto the capped
// simplex {y : 0 <= y <= u, sum y <= c} and returns the multiplier tau >= 0
// of the sum constraint, so that dst[i] = min(max(z[i]-tau, 0), u[i]).
// When some coordinate ends strictly between its bounds tau is unique;
// otherwise it is one valid multiplier (tau = 0 whenever the clipped z
// already fits). The result is exact up to floating-point rounding and
// bit-for-bit deterministic.
//
// Preconditions: u[i] >= 0, c >= 0, z and u finite. A NaN or infinite
// value in z or u, a negative u[i], or a NaN or negative c makes
// CappedSimplex panic (the check is fused into its first pass); use
// ProjectCappedSimplex to get an error instead. c = +Inf is allowed and
// means no sum constraint.
//
// dst may be the same slice as z or as u (same first element); any other
// overlap gives undefined results. CappedSimplex panics if the lengths of
// dst, z and u differ. It allocates nothing; when dst is neither z nor u
// it is used as scratch space before the result is written.
//
// The method (see the package documentation) is a safeguarded Newton
// iteration on phi(tau) = sum_i min(max(z_i-tau, 0), u_i) with bracketing
// and elimination of coordinates whose breakpoints leave the bracket; it
// costs a few passes over the data, O(n) per pass.
func CappedSimplex(dst, z, u []float64, c float64) (tau float64) {
	n := len(z)
	if len(dst) != n || len(u) != n {
		panic(fmt.Sprintf("projection: CappedSimplex lengths dst %d, z %d, u %d differ", len(dst), n, len(u)))
	}
	if !(c >= 0) {
		panic(fmt.Sprintf("projection: CappedSimplex capacity c = %v", c))
	}
	if n == 0 {
		return 0
	}
	alias := &dst[0] == &z[0] || &dst[0] == &u[0]

	// Pass 0: clip at tau = 0, the sum s = phi(0), the largest z over
	// coordinates with u > 0 (phi vanishes there), the linear piece at
	// 0+ for the first Newton step, and the precondition check.
	var s, capS, freeZ, chk float64
	var freeM int
	zmax := 0.0
	bad := false
	for i := range z {
		zi, ui := z[i], u[i]
		chk += (zi - zi) + (ui - ui) // NaN iff some value is NaN or Inf
		bad = bad || ui < 0
		y := 0.0
		if zi > 0 {
			if zi >= ui {
				y = ui
				capS += ui
			} else {
				y = zi
				freeZ += zi
				freeM++
			}
			if ui > 0 && zi > zmax {
				zmax = zi
			}
		}
		s += y
		if !alias {
			dst[i] = y
		}
	}
	if chk != 0 || bad {
		panic(badInput(z, u))
	}
	if s <= c {
		if alias {
			clipTo(dst, z, u, 0)
		}
		return 0
	}

	// tau > 0 solves phi(tau) = c. Invariant: phi(lo) > c >= phi(hi);
	// rLo = phi(lo)-c > 0 and rHi = phi(hi)-c <= 0 (phi(zmax) = 0).
	lo, hi := 0.0, zmax
	rLo, rHi := s-c, -c
	num, m := capS+freeZ-c, freeM // Newton model: phi(t)-c = num - m t

	// Coordinates fixed over the whole bracket, once eliminated (from pass
	// 1 on): capped ones add fixU, free ones add fixZ - fixM t. With a
	// separate dst the remaining candidates' indices are kept in dst[:w];
	// with dst aliased, full passes skip the coordinates eliminated before,
	// so both do the same arithmetic and give identical bits.
	var fixU, fixZ float64
	var fixM int
	compact := false
	w := n
	pLo, pHi := lo, hi // bracket of the previous pass
	tau = math.NaN()
	for iter := 0; ; iter++ {
		t := math.NaN()
		if m > 0 && iter < 64 {
			t = num / float64(m)
		}
		if !(lo < t && t < hi) {
			// Secant on the bracket, then bisection.
			t = lo + rLo/(rLo-rHi)*(hi-lo)
			if !(lo < t && t < hi) || iter >= 64 {
				t = lo + (hi-lo)/2
			}
			if !(lo < t && t < hi) {
				tau = hi // no float strictly inside the bracket
				break
			}
		}
		var st passStats
		switch {
		case iter == 0:
			st = passFull(nil, z, u, lo, hi, t, false, false, 0, 0)
		case iter == 1:
			st = passFull(dst, z, u, lo, hi, t, !alias, false, 0, 0)
			compact = !alias
		case compact:
			st = passIdx(dst[:w], z, u, lo, hi, t)
		default:
			st = passFull(nil, z, u, lo, hi, t, false, true, pLo, pHi)
		}
		pLo, pHi = lo, hi
		if iter >= 1 {
			fixU += st.fixU
			fixZ += st.fixZ
			fixM += st.fixM
			st.fixU, st.fixZ, st.fixM = fixU, fixZ, fixM
		}
		w = st.w
		num = (st.fixU + st.capU) + (st.fixZ + st.freeZ) - c
		m = st.fixM + st.freeM
		if w == 0 {
			// phi is linear on [lo, hi]: solve it there.
			tau = hi
			if m > 0 {
				tau = min(max(num/float64(m), lo), hi)
			}
			break
		}
		r := num - float64(m)*t
		switch {
		case r > 0:
			lo, rLo = t, r
		case r < 0:
			hi, rHi = t, r
		default:
			tau = t
		}
		if tau == tau {
			break
		}
	}
	clipTo(dst, z, u, tau)
	return tau
}

// passStats accumulates phi and its slope at a trial point t.
type passStats struct {
	fixU, fixZ float64 // coordinates with no breakpoint in (lo, hi): capped u, free z
	fixM       int     // number of free ones among them
	capU       float64 // candidates capped at t
	freeZ      float64 // candidates free at t
	freeM      int
	w          int // number of candidates (a breakpoint in (lo, hi))
}

// passFull classifies every coordinate against the bracket (lo, hi) and the
// trial point t; if write, it stores the candidates' indices in dst; if
// skip, it ignores coordinates that were not candidates in (pLo, pHi).
func passFull(dst, z, u []float64, lo, hi, t float64, write, skip bool, pLo, pHi float64) passStats {
	var st passStats
	u = u[:len(z)]
	for i, zi := range z {
		if zi <= lo {
			continue // zero on the bracket
		}
		ui := u[i]
		bi := zi - ui
		if skip && (bi >= pHi || (bi <= pLo && zi >= pHi)) {
			continue // eliminated before
		}
		if bi >= hi {
			st.fixU += ui // capped on the bracket
			continue
		}
		if bi <= lo && zi >= hi {
			st.fixZ += zi // free on the bracket
			st.fixM++
			continue
		}
		if write {
			dst[st.w] = float64(i)
		}
		st.w++
		switch {
		case zi <= t:
		case bi >= t:
			st.capU += ui
		default:
			st.freeZ += zi
			st.freeM++
		}
	}
	return st
}

// passIdx is passFull over the candidates listed in idx, compacting idx in
// place to the candidates that remain.
func passIdx(idx, z, u []float64, lo, hi, t float64) passStats {
	var st passStats
	for _, f := range idx {
		i := int(f)
		zi := z[i]
		if zi <= lo {
			continue
		}
		ui := u[i]
		bi := zi - ui
		if bi >= hi {
			st.fixU += ui
			continue
		}
		if bi <= lo && zi >= hi {
			st.fixZ += zi
			st.fixM++
			continue
		}
		idx[st.w] = f
		st.w++
		switch {
		case zi <= t:
		case bi >= t:
			st.capU += ui
		default:
			st.freeZ += zi
			st.freeM++
		}
	}
	return st
}

// clipTo sets dst[i] = min(max(z[i]-tau, 0), u[i]).
func clipTo(dst, z, u []float64, tau float64) {
	u = u[:len(z)]
	dst = dst[:len(z)]
	for i, zi := range z {
		v := zi - tau
		if v <= 0 {
			v = 0
		} else if v > u[i] {
			v = u[i]
		}
		dst[i] = v
	}
}

// badInput describes the first precondition violation (slow path).
func badInput(z, u []float64) string {
	for i, v := range z {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Sprintf("projection: CappedSimplex z[%d] = %v", i, v)
		}
	}
	for i, v := range u {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Sprintf("projection: CappedSimplex u[%d] = %v", i, v)
		}
	}
	return "projection: CappedSimplex invalid input"
}
