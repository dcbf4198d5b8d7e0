package esdp

import (
	"cmp"
	"math"
	"slices"
)

// The decomposition bound by classes (issue 29, time limit only). The
// server side of the Lagrangian decomposition (gang_ld.go) is one
// knapsack per server over its channels; enumerating their patterns is
// out of reach on the DLRM slots (hundreds of components on a server of
// 32 CPU). But components with the same demand vector (a class) are
// interchangeable for the capacities: a pattern with n_g channels of
// class g loads the server as any other with those counts, so the best
// pattern of a server at lambda is, over the feasible count vectors
// (n_g) of its classes, Σ_g (the n_g largest lambda of class g on it).
// ldServersCls finds it by depth-first branch and bound over the
// classes, exactly (the same value as the enumeration's:
// TestGangLDClassesMatch); past ldcNodes nodes on one server it takes
// the search's upper bound instead (valid, looser). It serves the
// bound only, at the end of a time-limited GangExact solve with a
// BoundShare (the search's node bound needs the patterns).
const (
	ldcNodes = 1 << 14 // nodes of one server's search at one lambda
	// ldcIterations caps the subgradient iterations of the class form
	// (the time left ends it first at a limit of seconds).
	ldcIterations = 1 << 9
)

// ldcState is the class form of the server side.
type ldcState struct {
	cls      []int // per component: its class (active jobs' components)
	byDem    []int // components sorted by demand vector
	grpStart []int // per server: its first group; len servers+1
	gStart   []int // per group: its first channel in gchan; len groups+1
	gchan    []int // channels of the groups, by decreasing lambda once evaluated
	gdem     []int // per group: a component of its class (its demand)
	nmax     []int // per group: the most of its class that fit the server alone
	pref     []float64
	capS     []float64 // capacities with ldSlack
	soff     []int     // per server + 1: its channels' offsets in gchan
	fill     []int
	// ldServersCls's scratch
	order, cnt, bestCnt, npos []int
	top, suf, ld              []float64
	// ldcRec's search: the best value and nodes so far, the groups
	// searched, the server's first group and its capacities
	best  float64
	nodes int
	since int // nodes since the clock was last read
	// work counts the nodes of every server's search; past workMax (if
	// positive) an evaluation is abandoned, +Inf (ldFix's cap)
	work, workMax int64
	n, g0         int
	cv            []float64
}

// ldBuildClasses builds the class form of the server side over the
// active jobs' channels that fit (lambda, x and z are ldBuild's), and
// reports false (the bound unused) when K > 16.
func (s *gangSolve) ldBuildClasses() bool {
	o, m := s.o, s.ch.model
	ld := &o.ld
	cs := &o.ldc
	ld.on, ld.cls = false, false
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	if K > 16 {
		return false
	}
	// classes: the active components sorted by demand vector
	cs.cls = growI(cs.cls, C)
	cs.byDem = cs.byDem[:0]
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			cs.byDem = append(cs.byDem, c)
		}
	}
	slices.SortFunc(cs.byDem, func(a, b int) int {
		if c := slices.Compare(m.Demand(a), m.Demand(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	nc := 0
	for j, c := range cs.byDem {
		if j > 0 && !sameDemand(m.Demand(c), m.Demand(cs.byDem[j-1])) {
			nc++
		}
		cs.cls[c] = nc
	}
	// groups: per server, its fitting channels of active components by class
	cs.grpStart = growI(cs.grpStart, R+1)
	cs.gStart, cs.gdem, cs.nmax = cs.gStart[:0], cs.gdem[:0], cs.nmax[:0]
	cs.ld = growF(cs.ld, K)
	cs.capS = growF(cs.capS, len(o.capv))
	for i, c := range o.capv {
		cs.capS[i] = ldSlack(c)
	}
	// the fitting channels of the classed components, by server (a
	// counting sort, class order kept within a server): O(channels)
	cs.soff = growI(cs.soff, R+1)
	clear(cs.soff)
	n := 0
	for _, c := range cs.byDem {
		lo, hi := s.ch.Range(c)
		for i := lo; i < hi; i++ {
			if s.ch.fits[i] {
				cs.soff[int(s.ch.server[i])+1]++
				n++
			}
		}
	}
	for r := 0; r < R; r++ {
		cs.soff[r+1] += cs.soff[r]
	}
	cs.gchan = growI(cs.gchan, n)
	cs.fill = growI(cs.fill, R)
	copy(cs.fill, cs.soff[:R])
	for _, c := range cs.byDem {
		lo, hi := s.ch.Range(c)
		for i := lo; i < hi; i++ {
			if s.ch.fits[i] {
				r := int(s.ch.server[i])
				cs.gchan[cs.fill[r]] = i
				cs.fill[r]++
			}
		}
	}
	for r := 0; r < R; r++ {
		cs.grpStart[r] = len(cs.gdem)
		first, last := cs.soff[r], cs.soff[r+1]
		for j := first; j < last; j++ {
			c := s.ch.Component(cs.gchan[j])
			if j == first || cs.cls[c] != cs.cls[s.ch.Component(cs.gchan[j-1])] {
				cs.gStart = append(cs.gStart, j)
				cs.gdem = append(cs.gdem, c)
			}
		}
	}
	// the most of each class that fit its server alone (at most the
	// group's size: O(channels · K) in all)
	cs.grpStart[R] = len(cs.gdem)
	cs.gStart = append(cs.gStart, len(cs.gchan))
	for r := 0; r < R; r++ {
		cv := cs.capS[r*K : (r+1)*K]
		for g := cs.grpStart[r]; g < cs.grpStart[r+1]; g++ {
			a, size := m.Demand(cs.gdem[g]), cs.gStart[g+1]-cs.gStart[g]
			k := 0
			for k < size {
				ok := true
				for q, x := range a {
					if !(float64(k+1)*x <= cv[q]) {
						ok = false
						break
					}
				}
				if !ok {
					break
				}
				k++
			}
			cs.nmax = append(cs.nmax, k)
		}
	}
	cs.pref = growF(cs.pref, len(cs.gchan)+len(cs.gdem))
	ld.cls = true
	return true
}

// ldServersCls is ldServers in the class form: per server, the best
// count vector at lam, found by depth-first branch and bound over its
// groups (each group's count from the largest that fits down to 0,
// pruned by the sum of each remaining group's best prefix alone), its
// channels (the largest lambda of each class) marked in z.
func (s *gangSolve) ldServersCls(lam []float64, z []int8) float64 {
	cs := &s.o.ldc
	total := 0.0
	R := len(cs.grpStart) - 1
	for r := 0; r < R; r++ {
		g0, g1 := cs.grpStart[r], cs.grpStart[r+1]
		if g0 == g1 {
			continue
		}
		// the clock once ldcNodes nodes have been searched since it was
		// last read (a server's search is up to ldcNodes nodes, each
		// O(classes)): past the limit the evaluation is abandoned, +Inf
		// (no bound, and the caller stops)
		if cs.since >= ldcNodes {
			cs.since = 0
			if s.late() {
				return math.Inf(1)
			}
		}
		val := s.ldcServer(r, lam, z, nil)
		if math.IsInf(val, 1) {
			return val
		}
		total += val
	}
	return total
}

// ldcServer is ldServersCls's search on server r: the best pattern's
// value at lam (an upper bound of it when the search stopped at
// ldcNodes nodes), its channels marked in z when z is not nil; with pre
// (K loads) the patterns that fit beside pre (the capacities less pre).
// It returns +Inf when the work cap is passed.
func (s *gangSolve) ldcServer(r int, lam []float64, z []int8, pre []float64) float64 {
	o := s.o
	cs := &o.ldc
	K := s.K
	g0, g1 := cs.grpStart[r], cs.grpStart[r+1]
	if g0 == g1 {
		return 0
	}
	G := g1 - g0
	cv := cs.capS[r*K : (r+1)*K]
	// each group by decreasing lambda, its prefix sums and its best
	// prefix alone (up to nmax, the most that fit the server alone)
	cs.order = growI(cs.order, G)
	cs.top = growF(cs.top, G)
	cs.npos = growI(cs.npos, G)
	for g := g0; g < g1; g++ {
		ch := cs.gchan[cs.gStart[g]:cs.gStart[g+1]]
		slices.SortFunc(ch, func(a, b int) int {
			if c := cmp.Compare(lam[b], lam[a]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		p := cs.pref[cs.gStart[g]+g : cs.gStart[g+1]+g+1]
		p[0] = 0
		pos := 0
		for j, i := range ch {
			p[j+1] = p[j] + lam[i]
			if lam[i] > 0 && j < cs.nmax[g] {
				pos = j + 1
			}
		}
		// only the positive lambda count: more of the group lowers it
		cs.npos[g-g0] = pos
		cs.top[g-g0] = p[pos]
		cs.order[g-g0] = g
	}
	// groups of the largest best prefix first, those of none dropped
	slices.SortFunc(cs.order, func(a, b int) int {
		if c := cmp.Compare(cs.top[b-g0], cs.top[a-g0]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	n := 0
	for n < G && cs.top[cs.order[n]-g0] > 0 {
		n++
	}
	if n == 0 {
		return 0
	}
	cs.suf = growF(cs.suf, n+1)
	cs.suf[n] = 0
	for j := n - 1; j >= 0; j-- {
		cs.suf[j] = cs.suf[j+1] + cs.top[cs.order[j]-g0]
	}
	cs.cnt, cs.bestCnt = growI(cs.cnt, n), growI(cs.bestCnt, n)
	clear(cs.bestCnt)
	clear(cs.ld)
	if pre != nil {
		copy(cs.ld, pre)
	}
	cs.best, cs.nodes, cs.n, cs.g0, cs.cv = 0, 0, n, g0, cv
	s.ldcRec(0, 0)
	best, nodes := cs.best, cs.nodes
	cs.since += nodes
	if cs.work += int64(nodes); cs.workMax > 0 && cs.work > cs.workMax {
		return math.Inf(1)
	}
	val := best
	if nodes > ldcNodes {
		val = cs.suf[0] // the search stopped: its upper bound
	}
	if z != nil {
		for j, c := range cs.bestCnt[:n] {
			g := cs.order[j]
			for _, i := range cs.gchan[cs.gStart[g] : cs.gStart[g]+c] {
				z[i] = 1
			}
		}
	}
	return val
}

// mostFit returns how many, at most size, of a component of demand a fit
// the residual capacities cv - ld together.
func mostFit(a, cv, ld []float64, size int) int {
	most := size
	for k, x := range a {
		// compared as floats first: a tiny demand's quotient can exceed
		// the int range
		if q := (cv[k] - ld[k]) / x; x > 0 && q < float64(most) {
			most = int(max(0, q))
		}
	}
	return most
}

// ldcRec is the branch and bound of ldServersCls at depth j (groups
// cs.order[j:cs.n] left) with value val so far.
func (s *gangSolve) ldcRec(j int, val float64) {
	m := s.ch.model
	cs := &s.o.ldc
	n, g0, cv, K := cs.n, cs.g0, cs.cv, s.K
	cs.nodes++
	if val > cs.best {
		cs.best = val
		copy(cs.bestCnt[:j], cs.cnt[:j])
		clear(cs.bestCnt[j:n])
	}
	if j == n || val+cs.suf[j] <= cs.best || cs.nodes > ldcNodes {
		return
	}
	// each remaining group alone in the residual capacities: the best
	// prefix that fits (a bound on the rest)
	ub := val
	for _, g := range cs.order[j:n] {
		ub += cs.pref[cs.gStart[g]+g+mostFit(m.Demand(cs.gdem[g]), cv, cs.ld, cs.npos[g-g0])]
		if ub > cs.best {
			break // no prune from here; the loop only bounds
		}
	}
	if ub <= cs.best {
		return
	}
	g := cs.order[j]
	a := m.Demand(cs.gdem[g])
	most := mostFit(a, cv, cs.ld, cs.npos[g-g0])
	// counts, largest first; a count is tested exactly
	var old [16]float64
	copy(old[:K], cs.ld)
	for c := most; c >= 0; c-- {
		ok := true
		for k, x := range a {
			if !(old[k]+float64(c)*x <= cv[k]) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		for k, x := range a {
			cs.ld[k] = old[k] + float64(c)*x
		}
		cs.cnt[j] = c
		s.ldcRec(j+1, val+cs.pref[cs.gStart[g]+g+c])
	}
	copy(cs.ld, old[:K])
	cs.cnt[j] = 0
}
