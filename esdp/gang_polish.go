package esdp

import (
	"math"
	"slices"
)

// Class reassignment (issue 29). Components with the same demand vector
// are interchangeable for the capacities: exchanging them between servers
// leaves every server's load the same multiset of demands. polish takes
// the incumbent's placed components class by class and gives each class
// the best assignment of its components to the servers its members
// occupy (one slot per member), a linear assignment problem solved
// exactly (Hungarian algorithm, O(n^3) for a class of n, classes split
// in chunks of at most polishMaxClass). Every job keeps its components
// placed, so served jobs stay served, and the value never decreases.
const polishMaxClass = 128

type polishState struct {
	comps            []int     // placed components, grouped by class
	cost             []float64 // (n+1)·(n+1), 1-based
	u, v, minv       []float64
	p, way, srv, new []int
	used             []bool
}

// polish improves o.inc (value s.incVal) by class reassignment and
// reports whether it improved.
func (s *gangSolve) polish() bool {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	ps := &o.polish
	ps.comps = ps.comps[:0]
	for c := 0; c < C; c++ {
		if o.inc[c] >= 0 {
			ps.comps = append(ps.comps, c)
		}
	}
	// group by demand vector (lexicographic), ties by index
	K := s.K
	less := func(a, b int) int {
		da, db := m.Demand(a), m.Demand(b)
		for k := 0; k < K; k++ {
			if da[k] != db[k] {
				if da[k] < db[k] {
					return -1
				}
				return 1
			}
		}
		return a - b
	}
	slices.SortFunc(ps.comps, less)
	gain := 0.0
	for lo := 0; lo < len(ps.comps); {
		hi := lo + 1
		for hi < len(ps.comps) && hi-lo < polishMaxClass && sameDemand(m.Demand(ps.comps[lo]), m.Demand(ps.comps[hi])) {
			hi++
		}
		if hi-lo >= 2 {
			gain += s.polishClass(ps.comps[lo:hi])
		}
		lo = hi
	}
	return s.addGain(gain)
}

func sameDemand(a, b []float64) bool {
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// polishClass reassigns the components cs (one demand vector) to the
// servers they occupy, if that gains; it returns the gain.
func (s *gangSolve) polishClass(cs []int) float64 {
	o := s.o
	ps := &o.polish
	n := len(cs)
	ps.srv = growI(ps.srv, n)
	ps.new = growI(ps.new, n)
	big := 1.0
	for j, c := range cs {
		ps.srv[j] = o.inc[c]
	}
	val := func(c, r int) (float64, bool) {
		i, ok := s.ch.Channel(c, r)
		if !ok || !s.ch.fits[i] {
			return 0, false
		}
		return s.p.Value[i], true
	}
	for _, c := range cs {
		for j := 0; j < n; j++ {
			if v, ok := val(c, ps.srv[j]); ok {
				big = max(big, math.Abs(v))
			}
		}
	}
	big *= float64(2*n + 2)
	N := n + 1
	ps.cost = growF(ps.cost, N*N)
	for i, c := range cs {
		for j := 0; j < n; j++ {
			if v, ok := val(c, ps.srv[j]); ok {
				ps.cost[(i+1)*N+j+1] = -v
			} else {
				ps.cost[(i+1)*N+j+1] = big
			}
		}
	}
	hungarian(ps, n)
	// p[j] = row assigned to column j
	old, nv := 0.0, 0.0
	for j := 1; j <= n; j++ {
		i := ps.p[j] - 1
		c := cs[i]
		v, ok := val(c, ps.srv[j-1])
		if !ok {
			return 0
		}
		nv += v
		ps.new[i] = ps.srv[j-1]
	}
	for _, c := range cs {
		v, _ := val(c, o.inc[c])
		old += v
	}
	if nv <= old {
		return 0
	}
	for i, c := range cs {
		o.inc[c] = ps.new[i]
	}
	return nv - old
}

// hungarian solves the n×n assignment problem of ps.cost (1-based rows
// and columns, minimum cost), leaving in ps.p[j] the row of column j.
func hungarian(ps *polishState, n int) {
	N := n + 1
	ps.u, ps.v, ps.minv = growF(ps.u, N), growF(ps.v, N), growF(ps.minv, N)
	ps.p, ps.way = growI(ps.p, N), growI(ps.way, N)
	if cap(ps.used) < N {
		ps.used = make([]bool, N)
	}
	ps.used = ps.used[:N]
	clear(ps.u)
	clear(ps.v)
	clear(ps.p)
	clear(ps.way)
	for i := 1; i <= n; i++ {
		ps.p[0] = i
		j0 := 0
		for j := range ps.minv {
			ps.minv[j] = math.Inf(1)
		}
		clear(ps.used)
		for {
			ps.used[j0] = true
			i0, delta, j1 := ps.p[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if ps.used[j] {
					continue
				}
				cur := ps.cost[i0*N+j] - ps.u[i0] - ps.v[j]
				if cur < ps.minv[j] {
					ps.minv[j], ps.way[j] = cur, j0
				}
				if ps.minv[j] < delta {
					delta, j1 = ps.minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if ps.used[j] {
					ps.u[ps.p[j]] += delta
					ps.v[j] -= delta
				} else {
					ps.minv[j] -= delta
				}
			}
			j0 = j1
			if ps.p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := ps.way[j0]
			ps.p[j0] = ps.p[j1]
			j0 = j1
		}
	}
}

// polishWide (time limit only) widens the classes of polish to the
// components with the same demand in the tightest resource k* (the
// largest share of its total capacity placed; on the DLRM trace the CN
// CPU, whose 6, 8, 12 and 24 are shared by components that differ in
// memory or disk): each such group gets its best assignment to the
// servers its members occupy, kept only if every server's loads still
// fit (they are summed anew in component order) and it gains. It
// reports whether the value improved.
func (s *gangSolve) polishWide() bool {
	o, m := s.o, s.ch.model
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	ps := &o.polish
	// k*: the largest placed share of the total capacity
	o.pload = growF(o.pload, R*K)
	s.sumLoads(o.pload)
	ks, best := -1, 0.0
	for k := 0; k < K; k++ {
		ld, cp := 0.0, 0.0
		for r := 0; r < R; r++ {
			ld += o.pload[r*K+k]
			cp += o.capv[r*K+k]
		}
		if cp > 0 && ld/cp > best {
			ks, best = k, ld/cp
		}
	}
	if ks < 0 {
		return false
	}
	ps.comps = ps.comps[:0]
	for c := 0; c < C; c++ {
		if o.inc[c] >= 0 {
			ps.comps = append(ps.comps, c)
		}
	}
	slices.SortFunc(ps.comps, func(a, b int) int {
		da, db := m.Demand(a)[ks], m.Demand(b)[ks]
		if da != db {
			if da < db {
				return -1
			}
			return 1
		}
		return a - b
	})
	o.pprev = growI(o.pprev, C)
	gain := 0.0
	for lo := 0; lo < len(ps.comps); {
		hi := lo + 1
		for hi < len(ps.comps) && hi-lo < polishMaxClass && m.Demand(ps.comps[lo])[ks] == m.Demand(ps.comps[hi])[ks] {
			hi++
		}
		if hi-lo >= 2 {
			cs := ps.comps[lo:hi]
			for _, c := range cs {
				o.pprev[c] = o.inc[c]
			}
			if g := s.polishClass(cs); g > 0 {
				s.sumLoads(o.pload)
				if s.loadsFit(o.pload) {
					gain += g
				} else {
					for _, c := range cs {
						o.inc[c] = o.pprev[c]
					}
				}
			}
		}
		lo = hi
	}
	return s.addGain(gain)
}

// sumLoads sums the incumbent's demands per server in component order.
func (s *gangSolve) sumLoads(dst []float64) {
	s.sumLoadsOf(dst, s.o.inc[:s.ch.model.NumComponents()])
}

// sumLoadsOf sums placement x's demands per server in component order.
func (s *gangSolve) sumLoadsOf(dst []float64, x []int) {
	m := s.ch.model
	K := s.K
	clear(dst)
	for c, r := range x {
		if r >= 0 {
			for k, x := range m.Demand(c) {
				dst[r*K+k] += x
			}
		}
	}
}

// loadsFit reports whether the loads fit every capacity (the rule's
// FitLimit, capv).
func (s *gangSolve) loadsFit(ld []float64) bool {
	for i, x := range ld {
		if !(x <= s.o.capv[i]) {
			return false
		}
	}
	return true
}

// polishAll runs polish, polishWide and polishServers in turn until
// none gains (at most polishRounds rounds) and reports whether the value
// improved.
func (s *gangSolve) polishAll() bool {
	any := false
	for i := 0; i < polishRounds; i++ {
		a := s.polish()
		b := s.polishWide()
		c := s.polishServers()
		d := s.chains()
		if !a && !b && !c && !d {
			break
		}
		any = true
	}
	return any
}

const polishRounds = 4

// polishServers (time limit only) exchanges whole server contents:
// servers with the same capacities are grouped, and each group gets the
// best assignment of its servers' contents (the components each holds)
// to its servers, a linear assignment (value of a content on a server:
// the sum of its components' channel values there; a content with a
// component without a fitting channel there is excluded). The loads
// move with the contents, so every server still fits. It reports
// whether the value improved.
func (s *gangSolve) polishServers() bool {
	o, m := s.o, s.ch.model
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	ps := &o.polish
	// servers in groups of equal capacities (sorted by capacity vector)
	o.psrv = growI(o.psrv, R)
	for r := range o.psrv {
		o.psrv[r] = r
	}
	cmpCap := func(a, b int) int {
		for k := 0; k < K; k++ {
			if x, y := o.capv[a*K+k], o.capv[b*K+k]; x != y {
				if x < y {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(o.psrv, func(a, b int) int {
		if d := cmpCap(a, b); d != 0 {
			return d
		}
		return a - b
	})
	// components by server: ps.comps sorted by server
	ps.comps = ps.comps[:0]
	for c := 0; c < C; c++ {
		if o.inc[c] >= 0 {
			ps.comps = append(ps.comps, c)
		}
	}
	slices.SortFunc(ps.comps, func(a, b int) int {
		if d := o.inc[a] - o.inc[b]; d != 0 {
			return d
		}
		return a - b
	})
	o.pstart = growI(o.pstart, R+1)
	clear(o.pstart)
	for _, c := range ps.comps {
		o.pstart[o.inc[c]+1]++
	}
	for r := 0; r < R; r++ {
		o.pstart[r+1] += o.pstart[r]
	}
	content := func(r int) []int { return ps.comps[o.pstart[r]:o.pstart[r+1]] }
	gain := 0.0
	o.pprev = growI(o.pprev, R)
	for lo := 0; lo < R; {
		hi := lo + 1
		for hi < R && hi-lo < polishMaxClass && cmpCap(o.psrv[lo], o.psrv[hi]) == 0 {
			hi++
		}
		n := hi - lo
		if n < 2 {
			lo = hi
			continue
		}
		grp := o.psrv[lo:hi]
		N := n + 1
		ps.cost = growF(ps.cost, N*N)
		big := 1.0
		old := 0.0
		// row i: the content of server grp[i]; column j: server grp[j]
		for i, ri := range grp {
			for j, rj := range grp {
				v, ok := 0.0, true
				for _, c := range content(ri) {
					ch, okc := s.ch.Channel(c, rj)
					if !okc || !s.ch.fits[ch] {
						ok = false
						break
					}
					v += s.p.Value[ch]
				}
				if ok {
					ps.cost[(i+1)*N+j+1] = -v
					big = max(big, math.Abs(v))
				} else {
					ps.cost[(i+1)*N+j+1] = math.NaN() // set below
				}
				if i == j {
					old += v
				}
			}
		}
		big *= float64(2*n + 2)
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				if math.IsNaN(ps.cost[i*N+j]) {
					ps.cost[i*N+j] = big
				}
			}
		}
		hungarian(ps, n)
		nv := 0.0
		feasible := true
		for j := 1; j <= n; j++ {
			c := ps.cost[ps.p[j]*N+j]
			if c == big {
				feasible = false
				break
			}
			nv -= c
		}
		if feasible && nv > old+s.tol {
			// move the contents: server grp[i] -> grp[j] with p[j] = i+1
			for j := 1; j <= n; j++ {
				o.pprev[grp[ps.p[j]-1]] = grp[j-1]
			}
			for _, ri := range grp {
				for _, c := range content(ri) {
					o.inc[c] = o.pprev[ri]
				}
			}
			gain += nv - old
		}
		lo = hi
	}
	return s.addGain(gain)
}

// addGain adds a reassignment's gain to the incumbent's value and
// reports whether it counts (more than the tolerance).
func (s *gangSolve) addGain(gain float64) bool {
	if gain <= s.tol {
		return false
	}
	s.incVal += gain
	s.tol = 1e-12 * max(1, math.Abs(s.incVal))
	return true
}
