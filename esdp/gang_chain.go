package esdp

import "math"

// Ejection chains (issue 29, time limit only). On the DLRM slots where
// HiGHS was still ahead, both serve the same apps and differ by chains of
// component moves, each component taking the place of the next across
// servers (slot 95: nine components of six apps). chains searches such
// moves directly, as the customer multi-exchanges of Ahuja, Orlin,
// Pallottino, Scaparra and Scutellà ("A multi-exchange heuristic for the
// single-source capacitated facility location problem", Management
// Science 50(6), 2004), components for customers and servers for
// facilities. In the improvement graph a node is a component of a served
// job and an arc d -> e says that d moves to e's server, from which e is
// ejected, with the gain Value(d, server(e)) - Value(d, incumbent). A
// path c_1 -> ... -> c_k is an exchange when its last component ends
// it: c_k moves to a server whose loads fit it, or is dropped when its
// job keeps more than m_l components. c_1 is placed (it leaves its
// server) or an unplaced component of a served job (it is added). Moves
// keep every job's count of placed components, so served jobs stay
// served.
//
// Deviation: the paper's paths visit every facility at most once, so an
// arc's test is the server's loads without e and with d. Here a path
// may pass a server again (a server then takes two components and gives
// two up): every test is on the loads with the path's earlier moves
// (delta), each component at most once in a path. On the 739 DLRM slots
// at 1 s the revisits brought the sum of the gaps to HiGHS from 1.68 %
// to 1.05 %, the largest from 0.23 % to 0.19 % (12 components a path).
//
// The search is the paper's label-correcting heuristic: paths of length
// k+1 extend those of length k, and each component keeps the best path
// of each length that ends at it (so not every exchange is found); up
// to chainMaxLen components a path. The best exchange of a pass is
// applied when it gains; the loads are then summed anew and checked
// against the capacity rule (the tests along a path add and subtract
// demands, so a rounding could pass them), and passes repeat until none
// gains. A pass costs O(chainMaxLen · Σ_c channels(c) · components per
// server · K): under a millisecond on the DLRM busiest slot; the clock
// is read every 16 paths extended, so a time limit ends a pass.
const (
	// chainMaxLen bounds the components of a path: at 1 s on the 739
	// DLRM slots 12, 20 and 32 gave sums of the gaps to HiGHS of 1.05,
	// 0.89 and 0.95 % (at least HiGHS's on 709, 712 and 712).
	chainMaxLen = 20
	// chainMaxPasses bounds the passes of one call (each applies one
	// exchange).
	chainMaxPasses = 1 << 12
)

type chainState struct {
	load    []float64 // per (server, resource): the incumbent's, in component order
	soff    []int     // per server + 1: offsets of its components in scomp
	scomp   []int     // the incumbent's placed components, by server
	val     []float64 // per component: its incumbent channel's value, 0 unplaced
	cand    []bool    // per component: of a served job
	cnt     []int     // per job: placed components
	gain    []float64 // per (length-1, component): the best path's gain
	pred    []int32   // per (length-1, component): its previous component
	mark    []int     // per server: stamp of the path being extended
	cmark   []int     // per component: the same
	delta   []float64 // per (server, resource): the path's change of the loads
	touched []int     // the servers whose delta is set
	path    []int     // an exchange's components
	prev    []int     // the incumbent's servers before an exchange
	stamp   int
}

// chains improves the incumbent by ejection chains and reports whether
// it improved.
func (s *gangSolve) chains() bool {
	any := false
	for pass := 0; pass < chainMaxPasses && !s.late(); pass++ {
		if !s.chainPass() {
			break
		}
		any = true
	}
	return any
}

// chainPass applies the best exchange found, if it gains, and reports
// whether it did.
func (s *gangSolve) chainPass() bool {
	g, ok := s.chainSearch(-1)
	return ok && s.addGain(g)
}

// chainSearch finds the best exchange and applies it. With start < 0 the
// paths start at every component of a served job and an exchange must
// gain more than the tolerance; with start >= 0 (an unplaced component)
// they start at start only and the best exchange is applied whatever
// its gain (an insertion, swapJobs). It returns the exchange's gain and
// whether one was applied (the loads fit the capacity rule after it).
// The value of the incumbent (incVal) is the caller's to update.
func (s *gangSolve) chainSearch(start int) (float64, bool) {
	o, m := s.o, s.ch.model
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	cs := &o.chain
	cs.load = growF(cs.load, R*K)
	cs.soff = growI(cs.soff, R+1)
	cs.scomp = growI(cs.scomp, C)
	cs.val = growF(cs.val, C)
	cs.cnt = growI(cs.cnt, m.NumJobs())
	cs.gain = growF(cs.gain, chainMaxLen*C)
	cs.pred = grow(cs.pred, chainMaxLen*C)
	cs.mark = growI(cs.mark, R)
	cs.cmark = growI(cs.cmark, C)
	clear(cs.cmark)
	cs.delta = growF(cs.delta, R*K)
	clear(cs.delta)
	cs.cand = grow(cs.cand, C)
	inc := o.inc[:C]
	s.sumLoads(cs.load)
	clear(cs.soff)
	clear(cs.cand)
	for c, r := range inc {
		cs.val[c] = 0
		if r >= 0 {
			i, _ := s.ch.Channel(c, r)
			cs.val[c] = s.p.Value[i]
			cs.soff[r+1]++
		}
	}
	for r := 0; r < R; r++ {
		cs.soff[r+1] += cs.soff[r]
	}
	fill := cs.mark[:R] // scratch: the next free place of each server
	copy(fill, cs.soff[:R])
	for c, r := range inc {
		if r >= 0 {
			cs.scomp[fill[r]] = c
			fill[r]++
		}
	}
	clear(cs.mark[:R])
	cs.stamp = 0
	for _, l := range s.active {
		n := s.placedOf(inc, l)
		cs.cnt[l] = n
		if n > 0 {
			lo, hi := m.Components(l)
			for c := lo; c < hi; c++ {
				cs.cand[c] = true
			}
		}
	}
	ninf := math.Inf(-1)
	for i := range cs.gain {
		cs.gain[i] = ninf
	}
	best := s.tol
	if start >= 0 {
		cs.gain[start], cs.pred[start] = 0, -1
		best = ninf
	} else {
		for c := 0; c < C; c++ {
			if cs.cand[c] {
				cs.gain[c] = 0
				cs.pred[c] = -1
			}
		}
	}
	capv := o.capv
	bestLen, bestEnd, bestTo := -1, -1, -2
	labels := 0
	for k := 0; k < chainMaxLen; k++ {
		gk := cs.gain[k*C : (k+1)*C]
		for d := 0; d < C; d++ {
			g := gk[d]
			if g == ninf {
				continue
			}
			// The clock every 16 labels: a label's work grows with the
			// components sharing a server, unbounded on a hostile model.
			if labels++; labels&15 == 0 && s.late() {
				return 0, false // the pass abandoned
			}
			// The path: its servers marked, its components marked, the
			// loads it changes in delta (reset below).
			cs.stamp++
			st := cs.stamp
			x, next := d, -1
			cs.touched = cs.touched[:0]
			for j := k; j >= 0; j-- {
				cs.cmark[x] = st
				if r := inc[x]; r >= 0 {
					cs.addDelta(r, m.Demand(x), -1, st, K)
				}
				if next >= 0 {
					cs.addDelta(inc[next], m.Demand(x), 1, st, K)
				}
				next = x
				x = int(cs.pred[j*C+x])
			}
			a := m.Demand(d)
			vd := cs.val[d]
			// Ends: dropped, or moved to a server whose loads fit it.
			if inc[d] >= 0 && cs.cnt[m.Job(d)] > m.Min(m.Job(d)) && g-vd > best {
				best, bestLen, bestEnd, bestTo = g-vd, k, d, -1
			}
			lo, hi := s.ch.Range(d)
			for i := lo; i < hi; i++ {
				if !s.ch.fits[i] {
					continue
				}
				r := int(s.ch.server[i])
				if r == inc[d] {
					continue
				}
				ng := g + s.p.Value[i] - vd
				on := cs.mark[r] == st
				if ng > best && cs.fits(r, a, nil, on, capv, K) {
					best, bestLen, bestEnd, bestTo = ng, k, d, r
				}
				if k+1 == chainMaxLen {
					continue
				}
				gn := cs.gain[(k+1)*C : (k+2)*C]
				pn := cs.pred[(k+1)*C : (k+2)*C]
				for _, e := range cs.scomp[cs.soff[r]:cs.soff[r+1]] {
					if ng > gn[e] && cs.cmark[e] != st && cs.fits(r, a, m.Demand(e), on, capv, K) {
						gn[e], pn[e] = ng, int32(d)
					}
				}
			}
			for _, r := range cs.touched {
				clear(cs.delta[r*K : (r+1)*K])
			}
		}
	}
	if bestLen < 0 {
		return 0, false
	}
	// The exchange c_1 .. c_k: c_j moves to c_{j+1}'s server, c_k to bestTo.
	cs.path = growI(cs.path, bestLen+1)
	x := bestEnd
	for j := bestLen; j >= 0; j-- {
		cs.path[j] = x
		x = int(cs.pred[j*C+x])
	}
	cs.prev = growI(cs.prev, bestLen+1)
	for j, c := range cs.path {
		cs.prev[j] = inc[c]
	}
	for j, c := range cs.path {
		if j < bestLen {
			inc[c] = cs.prev[j+1]
		} else {
			inc[c] = bestTo
		}
	}
	s.sumLoads(cs.load)
	if !s.loadsFit(cs.load) {
		for j, c := range cs.path {
			inc[c] = cs.prev[j]
		}
		return 0, false
	}
	return best, true
}

// addDelta adds sign·a to server r's delta, marking r.
func (cs *chainState) addDelta(r int, a []float64, sign float64, st, K int) {
	if cs.mark[r] != st {
		cs.mark[r] = st
		cs.touched = append(cs.touched, r)
	}
	dl := cs.delta[r*K : (r+1)*K]
	for k, x := range a {
		dl[k] += sign * x
	}
}

// fits reports whether server r's loads, with the path's changes when on,
// with a in and out (nil) out, fit capv.
func (cs *chainState) fits(r int, a, out []float64, on bool, capv []float64, K int) bool {
	ld, cv, dl := cs.load[r*K:(r+1)*K], capv[r*K:(r+1)*K], cs.delta[r*K:(r+1)*K]
	for k, x := range a {
		y := ld[k] + x
		if on {
			y += dl[k]
		}
		if out != nil {
			y -= out[k]
		}
		if !(y <= cv[k]) {
			return false
		}
	}
	return true
}
