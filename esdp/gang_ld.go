package esdp

import "math"

// Lagrangian decomposition bound of the gang search (issue 29): the
// assignment side (each component on one server at most, each job
// unserved or served with m_l components) and the server side (one
// integer knapsack per server) share the channels, x = z, priced by one
// multiplier lambda per channel:
//
//	LD(lambda) = max_x Σ (v - lambda) x  +  Σ_r max_{pattern p of r} Σ_{i in p} lambda_i,
//
// a valid bound for every lambda, at least the LP's at the best one. It
// is used only when every server has few feasible patterns (sets of
// channels that fit together): ldMaxPatterns in all.
const (
	ldMaxPatterns  = 1 << 12
	ldIterations   = 1 << 8
	ldMaxPerServer = 1 << 9
	// ldCapIterations caps GangExact's default subgradient iterations of
	// the capacity relaxation when the decomposition bound is used.
	ldCapIterations = 1 << 8
)

// ldState holds the patterns and the multipliers, in the oracle's
// scratch (grown on demand).
type ldState struct {
	on       bool
	cls      bool      // the server side in the class form (gang_ldc.go): the bound only
	lam      []float64 // per channel
	bestLam  []float64
	vals     []float64 // v - lambda per channel
	patStart []int     // per pattern: its first entry in patChan; len patterns+1
	patChan  []int     // channels of the patterns
	patDem   []float64 // per pattern, K demands
	srvStart []int     // per server: its first pattern; len servers+1
	x, z     []int8    // per channel: chosen by the assignment / server side
	pos      []int     // per component: position in the search order, -1 if fixed
	stack    []int
	dem      []float64
	// At the final lambda (ldPrepare): pv per pattern its value
	// Σ lambda_i, order per server its patterns of positive value by
	// decreasing pv (ordStart[r]..ordStart[r+1]), capS the capacities
	// with ldSlack; minPos per pattern the smallest search position of
	// its components in the current search (posReady once computed).
	pv       []float64
	order    []int
	ordStart []int
	capS     []float64
	minPos   []int
	posReady bool
	vl       []float64 // per-job scratch of the assignment side
}

// ldBuild enumerates the patterns of the servers over the active jobs'
// channels; it reports false (the bound unused) when there are too many.
func (s *gangSolve) ldBuild() bool {
	o, m := s.o, s.ch.model
	ld := &o.ld
	ld.on, ld.cls = false, false
	N, R, K := s.ch.Len(), m.NumServers(), s.K
	ld.lam, ld.bestLam, ld.vals = growF(ld.lam, N), growF(ld.bestLam, N), growF(ld.vals, N)
	if cap(ld.x) < N {
		ld.x, ld.z = make([]int8, N), make([]int8, N)
	}
	ld.x, ld.z = ld.x[:N], ld.z[:N]
	ld.pos = growI(ld.pos, m.NumComponents())
	ld.dem = growF(ld.dem, K)
	ld.srvStart = growI(ld.srvStart, R+1)
	ld.patStart, ld.patChan, ld.patDem = ld.patStart[:0], ld.patChan[:0], ld.patDem[:0]
	// channels per server, of the active jobs, fitting alone
	perSrv := o.idx[:0] // reused below as the channel list of one server
	for r := 0; r < R; r++ {
		ld.srvStart[r] = len(ld.patStart)
		perSrv = perSrv[:0]
		for _, l := range s.active {
			lo, hi := m.Components(l)
			for c := lo; c < hi; c++ {
				if i, ok := s.ch.Channel(c, r); ok && s.ch.fits[i] {
					perSrv = append(perSrv, i)
				}
			}
		}
		if !s.ldEnum(r, perSrv) {
			return false
		}
	}
	ld.srvStart[R] = len(ld.patStart)
	ld.patStart = append(ld.patStart, len(ld.patChan))
	ld.on = true
	return true
}

// ldEnum appends every feasible pattern of server r over its channels
// chans (the empty one included), or reports false past the limits.
func (s *gangSolve) ldEnum(r int, chans []int) bool {
	o, m := s.o, s.ch.model
	ld := &o.ld
	K := s.K
	cv := o.capv[r*K : (r+1)*K]
	first := len(ld.patStart)
	ld.stack = ld.stack[:0]
	clear(ld.dem)
	var rec func(j int) bool
	rec = func(j int) bool {
		if len(ld.patStart)-first >= ldMaxPerServer || len(ld.patStart) >= ldMaxPatterns {
			return false
		}
		ld.patStart = append(ld.patStart, len(ld.patChan))
		ld.patChan = append(ld.patChan, ld.stack...)
		ld.patDem = append(ld.patDem, ld.dem...)
		for ; j < len(chans); j++ {
			i := chans[j]
			c := s.ch.Component(i)
			a := m.Demand(c)
			ok := true
			for k, x := range a {
				if !(ld.dem[k]+x <= ldSlack(cv[k])) {
					ok = false
					break
				}
			}
			if !ok {
				continue
			}
			// channels of one server belong to distinct components
			save := ld.dem[:K:K]
			var old [16]float64
			copy(old[:K], save)
			for k, x := range a {
				ld.dem[k] += x
			}
			ld.stack = append(ld.stack, i)
			if !rec(j + 1) {
				return false
			}
			ld.stack = ld.stack[:len(ld.stack)-1]
			copy(ld.dem, old[:K])
		}
		return true
	}
	if K > 16 {
		return false
	}
	return rec(0)
}

// ldAssign evaluates the assignment side at vals over the active jobs,
// marking its channels in x, and returns its value.
func (s *gangSolve) ldAssign(vals []float64, x []int8) float64 {
	o, m := s.o, s.ch.model
	total := 0.0
	for _, l := range s.active {
		lo, hi := m.Components(l)
		pos, sumPos, finite := 0, 0.0, 0
		for c := lo; c < hi; c++ {
			best, bi := math.Inf(-1), -1
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				x[i] = 0
				if s.ch.fits[i] && vals[i] > best {
					best, bi = vals[i], i
				}
			}
			o.bw[c], o.bch[c] = best, bi
			if bi >= 0 {
				finite++
				if best > 0 {
					pos++
					sumPos += best
				}
			}
		}
		need := m.Min(l)
		switch {
		case finite < need:
		case pos >= need:
			total += sumPos
			for c := lo; c < hi; c++ {
				if o.bch[c] >= 0 && o.bw[c] > 0 {
					x[o.bch[c]] = 1
				}
			}
		default:
			idx := o.idx[:hi-lo]
			for j := range idx {
				idx[j] = lo + j
			}
			sortIdxDesc(idx, o.bw)
			sum := 0.0
			for _, c := range idx[:need] {
				sum += o.bw[c]
			}
			if sum > 0 {
				total += sum
				for _, c := range idx[:need] {
					x[o.bch[c]] = 1
				}
			}
		}
	}
	return total
}

// ldServers evaluates the server side at lam (every pattern), marking
// its channels in z, and returns its value.
func (s *gangSolve) ldServers(lam []float64, z []int8) float64 {
	ld := &s.o.ld
	if ld.cls {
		return s.ldServersCls(lam, z)
	}
	total := 0.0
	R := len(ld.srvStart) - 1
	for r := 0; r < R; r++ {
		best, bp := 0.0, -1
		for p := ld.srvStart[r]; p < ld.srvStart[r+1]; p++ {
			v := 0.0
			for _, i := range ld.patChan[ld.patStart[p]:ld.patStart[p+1]] {
				v += lam[i]
			}
			if v > best {
				best, bp = v, p
			}
		}
		if bp >= 0 {
			for _, i := range ld.patChan[ld.patStart[bp]:ld.patStart[bp+1]] {
				z[i] = 1
			}
		}
		total += best
	}
	return total
}

// ldRoot runs the subgradient on lambda from the capacity prices of the
// best multipliers and returns the best bound found.
func (s *gangSolve) ldRoot() float64 {
	o, m := s.o, s.ch.model
	ld := &o.ld
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				ld.lam[i] = s.p.Value[i] - o.w[i] // mu_r · a_c
			}
		}
	}
	copy(ld.bestLam, ld.lam)
	best := math.Inf(1)
	// The class form: smaller first steps and more patience (slot 431 at
	// 1 500 iterations: 169.48 against 169.64 at theta 2 and 20).
	iters, theta, patience := ldIterations, 2.0, 20
	if ld.cls {
		iters, theta, patience = ldcIterations, 0.5, 50
	}
	stall := 0
	for it := 0; it < iters && !s.late(); it++ {
		for _, l := range s.active {
			lo, hi := m.Components(l)
			clo, _ := s.ch.Range(lo)
			_, chi := s.ch.Range(hi - 1)
			for i := clo; i < chi; i++ {
				ld.vals[i] = s.p.Value[i] - ld.lam[i]
				ld.z[i] = 0
			}
		}
		L := s.ldAssign(ld.vals, ld.x) + s.ldServers(ld.lam, ld.z)
		if math.IsInf(L, 1) {
			break // the class form abandoned at the time limit
		}
		if L < best {
			best, stall = L, 0
			copy(ld.bestLam, ld.lam)
		} else if stall++; stall >= patience {
			theta, stall = theta/2, 0
		}
		if best-s.incVal <= s.tol {
			break
		}
		g2 := 0.0
		for _, l := range s.active {
			lo, hi := m.Components(l)
			clo, _ := s.ch.Range(lo)
			_, chi := s.ch.Range(hi - 1)
			for i := clo; i < chi; i++ {
				d := float64(ld.x[i] - ld.z[i])
				g2 += d * d
			}
		}
		if g2 == 0 {
			break
		}
		step := theta * (L - s.incVal) / g2
		for _, l := range s.active {
			lo, hi := m.Components(l)
			clo, _ := s.ch.Range(lo)
			_, chi := s.ch.Range(hi - 1)
			for i := clo; i < chi; i++ {
				ld.lam[i] += step * float64(ld.x[i]-ld.z[i])
			}
		}
	}
	copy(ld.lam, ld.bestLam)
	for i := range ld.vals {
		ld.vals[i] = s.p.Value[i] - ld.lam[i]
	}
	if !ld.cls {
		s.ldPrepare()
	}
	return best
}

// ldPrepare computes, at the final lambda, what the node bound reads:
// every pattern's value, each server's patterns of positive value by
// decreasing value (ties by index), and the relaxed capacities.
func (s *gangSolve) ldPrepare() {
	o := s.o
	ld := &o.ld
	P, R := len(ld.patStart)-1, len(ld.srvStart)-1
	ld.pv, ld.minPos = growF(ld.pv, P), growI(ld.minPos, P)
	ld.ordStart = growI(ld.ordStart, R+1)
	ld.order = ld.order[:0]
	for r := 0; r < R; r++ {
		ld.ordStart[r] = len(ld.order)
		for p := ld.srvStart[r]; p < ld.srvStart[r+1]; p++ {
			v := 0.0
			for _, i := range ld.patChan[ld.patStart[p]:ld.patStart[p+1]] {
				v += ld.lam[i]
			}
			ld.pv[p] = v
			if v > 0 && ld.patStart[p+1] > ld.patStart[p] {
				ld.order = append(ld.order, p)
			}
		}
		sortIdxDesc(ld.order[ld.ordStart[r]:], ld.pv)
	}
	ld.ordStart[R] = len(ld.order)
	ld.capS = growF(ld.capS, len(o.capv))
	for i, c := range o.capv {
		ld.capS[i] = ldSlack(c)
	}
	ld.vl = growF(ld.vl, len(o.tmp0))
}

// ldServerBound returns the server side of the decomposition bound at a
// search node at depth d (positions d.. of seq free, the rest placed or
// fixed, loads in o.load): per server, the best pattern of free
// components that fits its residual capacities, at the final lambda. The
// assignment side is residBound's third value. Patterns come by
// decreasing value, so the first that qualifies is the server's best.
// from is as residBound's: with the rows on, a server's scan starts at
// its parent's best pattern (the patterns before it did not qualify at
// the parent, so they do not at the child), and that pattern is kept
// when its components are still free and, on server from, it still
// fits.
func (s *gangSolve) ldServerBound(seq []int, d, from int) float64 {
	o := s.o
	ld := &o.ld
	K := s.K
	if !ld.posReady {
		for _, p := range ld.order {
			mp := math.MaxInt
			for _, i := range ld.patChan[ld.patStart[p]:ld.patStart[p+1]] {
				if q := ld.pos[s.ch.Component(i)]; q < mp {
					mp = q
				}
			}
			ld.minPos[p] = mp
		}
		ld.posReady = true
	}
	rw := &o.rows
	total := 0.0
	R := len(ld.ordStart) - 1
	for r := 0; r < R; r++ {
		ldr, cs := o.load[r*K:(r+1)*K], ld.capS[r*K:(r+1)*K]
		lo, hi := ld.ordStart[r], ld.ordStart[r+1]
		if rw.on && from != rowsFull {
			lo = int(rw.srv[(d-1)*R+r])
		}
		k0 := hi
	pat:
		for k := lo; k < hi; k++ {
			p := ld.order[k]
			if ld.minPos[p] < d {
				continue
			}
			for k, x := range ld.patDem[p*K : (p+1)*K] {
				if !(ldr[k]+x <= cs[k]) {
					continue pat
				}
			}
			total += ld.pv[p]
			k0 = k
			break
		}
		if rw.on {
			rw.srv[d*R+r] = int32(k0)
		}
	}
	return total
}

// ldSlack relaxes a capacity limit by a relative 1e-9, so that a set of
// demands that fits in one summation order is never refused for the
// rounding of another: the server side stays a relaxation.
func ldSlack(c float64) float64 { return c + 1e-9*math.Max(1, math.Abs(c)) }
