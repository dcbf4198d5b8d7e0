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
	if gain <= s.tol {
		return false
	}
	s.incVal += gain
	s.tol = 1e-12 * max(1, math.Abs(s.incVal))
	return true
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
