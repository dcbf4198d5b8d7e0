package esdp

import (
	"cmp"
	"math"
	"slices"
)

// Job swaps by chain insertion (issue 29, time limit only). On DLRM slots
// where HiGHS was still ahead at 10 s after the ejection chains, its
// placement serves a different set of apps (slot 398: app 19 instead of
// app 47, 67 components placed differently): exchanging one served job for
// an unserved one needs room for the new job's components on several
// servers at once, which neither a job neighbourhood of five jobs nor an
// exchange that keeps the served set reaches. swapJobs tries, for an
// unserved active job u, the incumbent without a served job s (or with all
// of them), and inserts u's m_u largest components one at a time
// (insertComp): each by the best ejection chain that starts at it
// (chainSearch from the component, whatever its gain: other components
// make room along the path), or, when no chain ends, on a server cleared
// for it. Once u is served, the loads are summed anew and checked, the
// ejection chains improve the result, and it is kept if its value beats
// the incumbent's; the incumbent is restored otherwise. The pairs (u, s)
// come by decreasing phi0(u) - v(s), u's value at mu = 0 (an upper
// estimate of what it can bring) less s's value in the incumbent, only
// positive ones, "no s" first for each u, and only those that pass a
// necessary test on the capacities left free over all servers. Each pair
// is tried once per incumbent (swapDone).
const (
	// swapTrials bounds the pairs one call of swapJobs tries.
	swapTrials = 64
	// swapJobsTried bounds the unserved jobs of the pairs, swapRemovals
	// the served jobs paired with each.
	swapJobsTried = 32
	swapRemovals  = 128
)

type swapState struct {
	save  []int      // the incumbent before a trial
	pairs []swapPair // the trials of a call, best estimate first
	order []int      // u's components, largest first
	val   []float64  // per job: its value in the incumbent
	next  int        // the next pair to try at the incumbent of value at
	at    float64
	save2 []int // the incumbent before an ejection (insertComp)
	soff  []int // insertComp: per server + 1, offsets in scomp
	scomp []int // insertComp: the incumbent's components by server
	fill  []int
	ld    []float64
	uns   []int     // the unserved active jobs, by decreasing phi0
	srvd  []int     // the served active jobs, by increasing value
	free  []float64 // per resource: the capacity left over all servers
	dem   []float64 // per resource: roomFor's removed job's placed demand
	need  []float64 // per resource: the job tried's least demand
	tmp   []float64 // leastDemand's scratch
	ej    []int     // insertComp: the components ejected
	srv   []swapSrv // insertComp: the servers tried
}

type swapSrv struct {
	r, n int     // server, components to eject
	v    float64 // the channel's value
}

type swapPair struct {
	u, s int // s = -1: none removed
	est  float64
}

// swapJobs tries at most swapTrials pairs and reports whether the
// incumbent improved.
func (s *gangSolve) swapJobs() bool {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	ss := &o.swap
	ss.save = growI(ss.save, C)
	s.capMax()
	// Served jobs' values in the incumbent.
	ss.val = growF(ss.val, m.NumJobs())
	vals := ss.val
	for _, l := range s.active {
		n, v := s.incJob(l)
		o.served[l] = n > 0
		vals[l] = v
	}
	// Aggregate room: the capacities left free over all servers, each
	// served job's placed demand, and each unserved job's least demand
	// (per resource, the sum of its m_l smallest) rule out the pairs
	// whose u cannot fit even in the room s leaves (a necessary test).
	K := s.K
	ss.free = growF(ss.free, K)
	ss.need = growF(ss.need, K)
	ss.dem = growF(ss.dem, K)
	clear(ss.free)
	for i, cv := range o.capv[:m.NumServers()*K] {
		ss.free[i%K] += cv
	}
	for c, r := range o.inc[:C] {
		if r >= 0 {
			for k, x := range m.Demand(c) {
				ss.free[k] -= x
			}
		}
	}
	// The unserved jobs with the largest phi0 (at most swapJobsTried),
	// each with the served jobs of the smallest values (at most
	// swapRemovals): at most swapJobsTried·(swapRemovals+1) pairs, so a
	// model of many jobs costs O(J log J) a call, not O(J²) pairs.
	ss.uns, ss.srvd = ss.uns[:0], ss.srvd[:0]
	for _, l := range s.active {
		if o.served[l] {
			ss.srvd = append(ss.srvd, l)
		} else {
			ss.uns = append(ss.uns, l)
		}
	}
	slices.SortFunc(ss.uns, func(a, b int) int {
		if c := cmp.Compare(o.phi0[b], o.phi0[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	slices.SortFunc(ss.srvd, func(a, b int) int {
		if c := cmp.Compare(vals[a], vals[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	ss.pairs = ss.pairs[:0]
	for _, u := range ss.uns[:min(len(ss.uns), swapJobsTried)] {
		s.leastDemand(u, ss.need)
		if s.roomFor(-1) {
			ss.pairs = append(ss.pairs, swapPair{u, -1, o.phi0[u]})
		}
		n := 0
		for _, l := range ss.srvd {
			if !(o.phi0[u]-vals[l] > 0) || n == swapRemovals {
				break
			}
			if s.roomFor(l) {
				ss.pairs = append(ss.pairs, swapPair{u, l, o.phi0[u] - vals[l]})
				n++
			}
		}
	}
	sortPairs(ss.pairs)
	// A pair that failed fails again on the same incumbent: each is
	// tried once per incumbent (value), swapTrials a call.
	if s.incVal != ss.at {
		ss.at, ss.next = s.incVal, 0
	}
	for end := min(ss.next+swapTrials, len(ss.pairs)); ss.next < end && !s.late(); ss.next++ {
		pr := ss.pairs[ss.next]
		if s.swapTry(pr.u, pr.s) {
			ss.at, ss.next = s.incVal, 0
			return true
		}
	}
	return false
}

// sortPairs sorts by decreasing estimate, then by (u, s), so the order
// is deterministic.
func sortPairs(p []swapPair) {
	slices.SortFunc(p, func(a, b swapPair) int {
		if c := cmp.Compare(b.est, a.est); c != 0 {
			return c
		}
		if c := cmp.Compare(a.u, b.u); c != 0 {
			return c
		}
		return cmp.Compare(a.s, b.s)
	})
}

// swapTry removes job rm (-1: none), inserts job u by chains, improves by
// chains, and keeps the result if it beats the incumbent.
func (s *gangSolve) swapTry(u, rm int) bool {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	ss := &o.swap
	copy(ss.save, o.inc[:C])
	bestVal, bestTol := s.incVal, s.tol
	restore := func() bool {
		copy(o.inc[:C], ss.save)
		s.incVal, s.tol = bestVal, bestTol
		return false
	}
	if rm >= 0 {
		lo, hi := m.Components(rm)
		for c := lo; c < hi; c++ {
			o.inc[c] = -1
		}
	}
	// u's components, largest first (compSize: the largest share of a
	// capacity of its resources).
	lo, hi := m.Components(u)
	ss.order = ss.order[:0]
	for c := lo; c < hi; c++ {
		ss.order = append(ss.order, c)
	}
	slices.SortFunc(ss.order, func(a, b int) int {
		if c := cmp.Compare(s.compSize(b), s.compSize(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	need := m.Min(u)
	for _, c := range ss.order[:need] {
		if s.late() {
			return restore()
		}
		if !s.insertComp(c) {
			return restore()
		}
	}
	// The insertions test fits on loads updated along the way: the loads
	// summed anew must pass the capacity rule.
	o.chain.load = growF(o.chain.load, m.NumServers()*s.K)
	s.sumLoads(o.chain.load)
	if !s.loadsFit(o.chain.load) {
		return restore()
	}
	s.incVal = s.incValue()
	s.tol = 1e-12 * max(1, math.Abs(s.incVal))
	for pass := 0; pass < chainMaxPasses && !s.late(); pass++ {
		if !s.chainPass() {
			break
		}
	}
	if !(s.incVal > bestVal+bestTol) {
		return restore()
	}
	return true
}

// incValue sums the values of the incumbent's placed components of
// served jobs (those with at least m_l placed).
func (s *gangSolve) incValue() float64 {
	v := 0.0
	for _, l := range s.active {
		if n, w := s.incJob(l); n >= s.ch.model.Min(l) {
			v += w
		}
	}
	return v
}

// incJob returns job l's placed components in the incumbent and the sum
// of their channels' values.
func (s *gangSolve) incJob(l int) (n int, v float64) {
	lo, hi := s.ch.model.Components(l)
	for c := lo; c < hi; c++ {
		if r := s.o.inc[c]; r >= 0 {
			i, _ := s.ch.Channel(c, r)
			v += s.p.Value[i]
			n++
		}
	}
	return n, v
}

// swapServers bounds the servers insertComp clears room on,
// swapMaxEject the components it clears from one.
const (
	swapServers  = 8
	swapMaxEject = 8
)

// insertComp places unplaced component c: by the best ejection chain
// that starts at it, or, when none ends (c needs more room than one
// component leaves), on a server cleared of the components that take
// the room c needs (largest first), each of them then placed again by
// the best chain that starts at it, or left out when its job keeps more
// than m_l. The servers are tried by fewest components to eject, then by
// c's value there, at most swapServers of them. It reports whether c is
// placed; when not, the incumbent is as before.
func (s *gangSolve) insertComp(c int) bool {
	if _, ok := s.chainSearch(c); ok {
		return true
	}
	o, m := s.o, s.ch.model
	C, K := m.NumComponents(), s.K
	ss := &o.swap
	inc := o.inc[:C]
	ss.save2 = growI(ss.save2, C)
	copy(ss.save2, inc)
	a := m.Demand(c)
	ss.ld = growF(ss.ld, K)
	ld := ss.ld
	// the incumbent's components by server, in component order
	R := m.NumServers()
	ss.soff, ss.scomp = growI(ss.soff, R+1), growI(ss.scomp, C)
	clear(ss.soff)
	for _, r := range inc {
		if r >= 0 {
			ss.soff[r+1]++
		}
	}
	for r := 0; r < R; r++ {
		ss.soff[r+1] += ss.soff[r]
	}
	// fill: a counting sort by server
	ss.fill = growI(ss.fill, R)
	copy(ss.fill, ss.soff[:R])
	for x, r := range inc {
		if r >= 0 {
			ss.scomp[ss.fill[r]] = x
			ss.fill[r]++
		}
	}
	// The servers where c fits once some components leave.
	ss.srv = ss.srv[:0]
	lo, hi := s.ch.Range(c)
	for i := lo; i < hi; i++ {
		if !s.ch.fits[i] {
			continue
		}
		r := int(s.ch.server[i])
		if n := s.ejectPlan(c, r, a, ld); n > 0 {
			ss.srv = append(ss.srv, swapSrv{r, n, s.p.Value[i]})
		}
	}
	slices.SortFunc(ss.srv, func(x, y swapSrv) int {
		if x.n != y.n {
			return cmp.Compare(x.n, y.n)
		}
		if c := cmp.Compare(y.v, x.v); c != 0 {
			return c
		}
		return cmp.Compare(x.r, y.r)
	})
	for t, sv := range ss.srv {
		if t == swapServers || s.late() {
			break
		}
		s.ejectPlan(c, sv.r, a, ld)
		for _, e := range ss.ej {
			inc[e] = -1
		}
		inc[c] = sv.r
		ok := true
		for _, e := range ss.ej {
			if _, placed := s.chainSearch(e); placed {
				continue
			}
			// left out if its job keeps at least m_l
			if n, _ := s.incJob(m.Job(e)); n < m.Min(m.Job(e)) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
		copy(inc, ss.save2)
	}
	return false
}

// ejectPlan returns how many of server r's components must leave, the
// largest first (compSize), for c (demand a) to fit there (0 when it fits
// already, or when it cannot with at most swapMaxEject leaving), and
// lists them in o.swap.ej. It reads the incumbent's components by server
// that insertComp indexed (soff, scomp). ld is scratch of length K.
func (s *gangSolve) ejectPlan(c, r int, a, ld []float64) int {
	o, m := s.o, s.ch.model
	ss := &o.swap
	ej := &ss.ej
	*ej = (*ej)[:0]
	K := s.K
	cv := o.capv[r*K : (r+1)*K]
	on := ss.scomp[ss.soff[r]:ss.soff[r+1]]
	clear(ld)
	for _, x := range on {
		for k, y := range m.Demand(x) {
			ld[k] += y
		}
	}
	fit := func() bool {
		for k, y := range a {
			if !(ld[k]+y <= cv[k]) {
				return false
			}
		}
		return true
	}
	for !fit() {
		if len(*ej) == swapMaxEject {
			return 0
		}
		// the largest component still on r
		best, bz := -1, -1.0
		for _, x := range on {
			if x == c || containsInt(*ej, x) {
				continue
			}
			if z := s.compSize(x); z > bz {
				best, bz = x, z
			}
		}
		if best < 0 {
			return 0
		}
		for k, y := range m.Demand(best) {
			ld[k] -= y
		}
		*ej = append(*ej, best)
	}
	return len(*ej)
}

// leastDemand writes to dst, per resource, the sum of the m_l smallest
// demands of job l's components: what l uses at least once served.
func (s *gangSolve) leastDemand(l int, dst []float64) {
	m := s.ch.model
	lo, hi := m.Components(l)
	ss := &s.o.swap
	ss.tmp = growF(ss.tmp, hi-lo)
	for k := range dst {
		for c := lo; c < hi; c++ {
			ss.tmp[c-lo] = m.Demand(c)[k]
		}
		sortFloatDesc(ss.tmp)
		dst[k] = 0
		for _, x := range ss.tmp[hi-lo-m.Min(l):] {
			dst[k] += x
		}
	}
}

// roomFor reports whether the job whose least demand is in o.swap.need
// fits the aggregate room left with served job rm removed (-1: none).
func (s *gangSolve) roomFor(rm int) bool {
	m, ss := s.ch.model, &s.o.swap
	clear(ss.dem)
	if rm >= 0 {
		lo, hi := m.Components(rm)
		for c := lo; c < hi; c++ {
			if s.o.inc[c] >= 0 {
				for k, x := range m.Demand(c) {
					ss.dem[k] += x
				}
			}
		}
	}
	for k, x := range ss.need {
		if !(x <= ss.free[k]+ss.dem[k]) {
			return false
		}
	}
	return true
}

// swapDone reports whether swapJobs has tried every pair at the current
// incumbent (the next call would find nothing).
func (s *gangSolve) swapDone() bool {
	ss := &s.o.swap
	return ss.at == s.incVal && ss.next >= len(ss.pairs)
}
