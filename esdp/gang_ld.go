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
}

// ldBuild enumerates the patterns of the servers over the active jobs'
// channels; it reports false (the bound unused) when there are too many.
func (s *gangSolve) ldBuild() bool {
	o, m := s.o, s.ch.model
	ld := &o.ld
	ld.on = false
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
	theta, stall := 2.0, 0
	for it := 0; it < ldIterations && !s.late(); it++ {
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
		if L < best {
			best, stall = L, 0
			copy(ld.bestLam, ld.lam)
		} else if stall++; stall >= 20 {
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
	return best
}

// ldNode bounds the completion of a search node at depth d (positions d..
// of seq free, the rest placed or fixed, loads in o.load): the assignment
// side on the free components (residual fits, the jobs' minimums with
// what is placed) plus, per server, the best pattern of free components
// that fits its residual capacities, at the best lambda.
func (s *gangSolve) ldNode(seq []int, d int) float64 {
	o, m := s.o, s.ch.model
	ld := &o.ld
	K := s.K
	total := 0.0
	n := len(seq)
	for d2 := d; d2 < n; {
		l := m.Job(seq[d2])
		end := d2 + o.remIncl[d2]
		pl := o.placed[l]
		v := o.tmp0[:0]
		for _, c := range seq[d2:end] {
			a := m.Demand(c)
			best := math.Inf(-1)
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				if !s.ch.fits[i] || ld.vals[i] <= best || !s.fitsAt(a, s.ch.Server(i)) {
					continue
				}
				best = ld.vals[i]
			}
			if best > math.Inf(-1) {
				v = append(v, best)
			}
		}
		need := max(0, m.Min(l)-pl)
		if len(v) < need {
			if pl > 0 {
				return math.Inf(-1)
			}
		} else {
			total += jobPart(v, need, pl == 0)
		}
		d2 = end
	}
	R := len(ld.srvStart) - 1
	for r := 0; r < R; r++ {
		ldr, cv := o.load[r*K:(r+1)*K], o.capv[r*K:(r+1)*K]
		best := 0.0
	pat:
		for p := ld.srvStart[r]; p < ld.srvStart[r+1]; p++ {
			chans := ld.patChan[ld.patStart[p]:ld.patStart[p+1]]
			if len(chans) == 0 {
				continue
			}
			v := 0.0
			for _, i := range chans {
				if ld.pos[s.ch.Component(i)] < d {
					continue pat
				}
				v += ld.lam[i]
			}
			if v <= best {
				continue
			}
			for k, x := range ld.patDem[p*K : (p+1)*K] {
				if !(ldr[k]+x <= ldSlack(cv[k])) {
					continue pat
				}
			}
			best = v
		}
		total += best
	}
	return total
}

// ldSlack relaxes a capacity limit by a relative 1e-9, so that a set of
// demands that fits in one summation order is never refused for the
// rounding of another: the server side stays a relaxation.
func ldSlack(c float64) float64 { return c + 1e-9*math.Max(1, math.Abs(c)) }
