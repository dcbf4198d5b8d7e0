package esdp

import (
	"math"
	"slices"
)

// Repacking (issue 29, time limit only). The job neighbourhoods of
// improve free a few jobs and keep every other component where it is,
// so they cannot serve a job that needs room only a different packing of
// every served job leaves: on the DLRM trace a slot where the optimum
// serves one app more than the incumbent fills the CN servers' CPU to
// 99.6 % with components of 6, 8, 12 and 24 of 32, while the incumbent's
// placement, built job by job, leaves the free CPU in pieces too small
// for the extra app. repack tries, for each unserved active job u in
// turn (by decreasing relaxed value), to pack the served jobs' placed
// components and every component of u anew (packSet): per pool (a
// connected component of the components and servers by fitting
// channels: on the DLRM trace the CN and the HN servers), by bin
// completion (packBins) within repackNodes nodes. A packing found is a
// second start (restart): its value is recovered by class reassignment
// (polishAll) and the improvement phase's steps, and it is kept only if
// it then beats the incumbent. After a kept insertion the remaining
// unserved jobs are tried again from the new incumbent. reselect (below)
// packs whole new sets of jobs the same way.

// repackNodes bounds the nodes of one packing search (the DLRM slots'
// packings took 15 000-800 000: slot 394's 784 315, about 0.1 µs each;
// at 2^18 that slot found none). packMaxScratch bounds the entries
// of the packing's per-server candidate sets (servers × packKeep ×
// classes) and of reselect's aggregate demands (jobs × dims): a larger
// problem is not repacked. packMaxMemo bounds each memo (failed states,
// projections); a full memo is cleared.
// packMaxBins and packMaxClasses bound a pool's servers and classes
// (the depths of the packing's recursions): a larger pool is not
// repacked.
const (
	repackNodes    = 1 << 21
	packMaxScratch = 1 << 24
	packMaxMemo    = 1 << 16
	packMaxBins    = 1 << 12
	packMaxClasses = 1 << 10
)

// packClass is a run of identical items (same demand, same servers).
type packClass struct{ first, n int }

type packState struct {
	items  []int     // components to pack, by pool then decreasing size
	pool   []int     // per server and per component (offset R): pool, union-find
	same   []bool    // per item: identical to the previous item (demand and servers)
	slack  []float64 // per resource: capacity left over in the pool searched
	waste  []float64 // per resource: the completed servers' residuals
	at     []int     // per item: server chosen
	cls    []packClass
	rem    []int // per class: items left
	cnt    []int // per class: packEnum's counts on the server
	keep   []int // per (server, kept set, class): counts
	kscore []float64
	nkeep  []int // per server: sets kept
	leaves int
	// partial: a server's sets were cut (packEnumLeaves, packKeep), so
	// a failure is not a proof that the set cannot be packed
	partial bool
	zob     []uint64 // per class: hash key
	bins    []int    // the pool's servers
	srv     []int    // servers by pool
	root    []int    // per server: its pool
	failed  map[uint64]struct{}
	want    []bool    // per job: in the set packed
	had     []bool    // per job: served in the incumbent
	jval    []float64 // per job: value packed

	// One-resource projections (packProjected): per projected resource,
	// the capacity (every server of the pool equal in it) and the
	// distinct sizes; per (class, projection) the size index (-1: none).
	pk     []int
	pcap   []float64
	psizes [][]float64
	pidx   []int
	pcnt   []int // per size: counts of the projection searched
	pmemo  map[uint64]bool
	pnodes int
	nodes  int64
	stop   bool
}

// repack runs the repacking insertions within budget nodes and returns
// the nodes used.
func (s *gangSolve) repack(capv []float64, budget int64) int64 {
	o, m := s.o, s.ch.model
	o.rcand = growI(o.rcand, m.NumJobs())
	s.packPrepare()
	var used int64
	for again := true; again && used < budget && !s.late(); {
		again = false
		// The unserved active jobs by decreasing relaxed value (at mu = 0).
		cand := o.rcand[:0]
		for _, l := range s.active {
			if !s.incServes(l) {
				cand = append(cand, l)
			}
		}
		sortIdxDesc(cand, o.phi0)
		for ci := 0; ci < len(cand) && used < budget && !s.late(); ci++ {
			u := cand[ci]
			val, n, ok := s.packWith(u)
			used += n
			if !ok || used >= budget {
				continue
			}
			before := s.incVal
			used += s.restart(val, capv, budget-used)
			if s.incVal > before {
				again = true
				break
			}
		}
	}
	return used
}

// packPrepare sets every component's size for packSet's order: its
// largest demand relative to the largest capacity of the resource.
func (s *gangSolve) packPrepare() {
	o := s.o
	C := s.ch.model.NumComponents()
	o.csize = growF(o.csize, C)
	s.capMax()
	for c := 0; c < C; c++ {
		o.csize[c] = s.compSize(c)
	}
}

// remember records a failed state of packBins (h: its hash).
func (ps *packState) remember(h uint64) {
	if len(ps.failed) >= packMaxMemo {
		clear(ps.failed)
	}
	ps.failed[h] = struct{}{}
}

func (ps *packState) find(x int) int {
	for ps.pool[x] != x {
		ps.pool[x] = ps.pool[ps.pool[x]]
		x = ps.pool[x]
	}
	return x
}

// packWith packs the incumbent's placed components and every component
// of job u (packSet) and returns the placement's value, the nodes used
// and whether it packed them all with a positive value for u.
func (s *gangSolve) packWith(u int) (float64, int64, bool) {
	o, m := s.o, s.ch.model
	ps := &o.pack
	s.packWantNone()
	for c, r := range o.inc[:m.NumComponents()] {
		if r >= 0 {
			ps.want[m.Job(c)] = true
		}
	}
	ps.want[u] = true
	return s.packSet()
}

// packSet packs the jobs of ps.want anew into o.chosen: the components
// a served job has placed in the incumbent, every component of the
// others, by bin completion per pool (packBins). It returns the
// placement's value, the nodes used and whether it packed them all with
// a positive value for every job.
func (s *gangSolve) packSet() (float64, int64, bool) {
	o, m := s.o, s.ch.model
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	ps := &o.pack
	// jobs of the set served in the incumbent
	if cap(ps.had) < m.NumJobs() {
		ps.had = make([]bool, m.NumJobs())
	}
	ps.had = ps.had[:m.NumJobs()]
	clear(ps.had)
	for c, r := range o.inc[:C] {
		if r >= 0 {
			ps.had[m.Job(c)] = true
		}
	}
	// Pools: union-find over servers (0..R-1) and components (R + c).
	ps.pool = growI(ps.pool, R+C)
	for x := range ps.pool {
		ps.pool[x] = x
	}
	items := ps.items[:0]
	for c := 0; c < C; c++ {
		l := m.Job(c)
		if !ps.want[l] || ps.had[l] && o.inc[c] < 0 {
			continue
		}
		items = append(items, c)
		clo, chi := s.ch.Range(c)
		for i := clo; i < chi; i++ {
			if s.ch.fits[i] {
				a, b := ps.find(R+c), ps.find(s.ch.Server(i))
				ps.pool[a] = b
			}
		}
	}
	ps.items = items
	demandCmp := func(a, b int) int {
		da, db := m.Demand(a), m.Demand(b)
		for k := range da {
			if da[k] != db[k] {
				if da[k] > db[k] {
					return -1
				}
				return 1
			}
		}
		return 0
	}
	slices.SortFunc(items, func(a, b int) int {
		if pa, pb := ps.find(R+a), ps.find(R+b); pa != pb {
			return pa - pb
		}
		if o.csize[a] != o.csize[b] {
			if o.csize[a] > o.csize[b] {
				return -1
			}
			return 1
		}
		if d := demandCmp(a, b); d != 0 {
			return d
		}
		return a - b
	})
	n := len(items)
	if cap(ps.same) < n {
		ps.same = make([]bool, n)
	}
	ps.same = ps.same[:n]
	for j := range items {
		ps.same[j] = j > 0 && ps.find(R+items[j]) == ps.find(R+items[j-1]) &&
			demandCmp(items[j], items[j-1]) == 0 && s.sameServers(items[j], items[j-1])
	}
	ps.slack, ps.waste = growF(ps.slack, K), growF(ps.waste, K)
	ps.at = growI(ps.at, n)
	ps.nodes, ps.stop, ps.partial = 0, false, false
	clear(o.load)
	cur := o.chosen[:C]
	for c := range cur {
		cur[c] = -1
	}
	// servers by pool (root), then index
	ps.srv = growI(ps.srv, R)
	ps.root = growI(ps.root, R)
	for r := 0; r < R; r++ {
		ps.srv[r], ps.root[r] = r, ps.find(r)
	}
	slices.SortFunc(ps.srv, func(a, b int) int {
		if d := ps.root[a] - ps.root[b]; d != 0 {
			return d
		}
		return a - b
	})
	for lo := 0; lo < n; {
		p := ps.find(R + items[lo])
		// the pool's servers
		b0, _ := slices.BinarySearchFunc(ps.srv, p, func(r, p int) int { return ps.root[r] - p })
		b1 := b0
		for b1 < R && ps.root[ps.srv[b1]] == p {
			b1++
		}
		ps.bins = append(ps.bins[:0], ps.srv[b0:b1]...)
		nb := len(ps.bins)
		if nb == 0 {
			return 0, ps.nodes, false // a component without a fitting channel
		}
		hi := lo + 1
		for hi < n && ps.find(R+items[hi]) == p {
			hi++
		}
		// the pool's slack: its capacity less the items' demands
		clear(ps.slack)
		for j := lo; j < hi; j++ {
			for k, x := range m.Demand(items[j]) {
				ps.slack[k] -= x
			}
		}
		for _, r := range ps.bins {
			for k := 0; k < K; k++ {
				ps.slack[k] += o.capv[r*K+k]
			}
		}
		// classes of identical items, and the pool's servers
		ps.cls = ps.cls[:0]
		for j := lo; j < hi; j++ {
			if j > lo && ps.same[j] {
				ps.cls[len(ps.cls)-1].n++
			} else {
				ps.cls = append(ps.cls, packClass{first: j, n: 1})
			}
		}
		T := len(ps.cls)
		ps.rem, ps.cnt = growI(ps.rem, T), growI(ps.cnt, T)
		clear(ps.cnt)
		if nb > packMaxBins || T > packMaxClasses || nb*packKeep*T > packMaxScratch {
			return 0, ps.nodes, false
		}
		ps.keep = growI(ps.keep, nb*packKeep*T)
		ps.kscore = growF(ps.kscore, nb*packKeep)
		ps.nkeep = growI(ps.nkeep, nb)
		ps.zob = growU(ps.zob, len(ps.cls))
		for t, cl := range ps.cls {
			ps.rem[t] = cl.n
			z := splitMix(uint64(t)*0x2545f4914f6cdd1d + 7)
			ps.zob[t] = z.next()
		}
		s.packProjectInit()
		clear(ps.waste)
		if ps.failed == nil {
			ps.failed = map[uint64]struct{}{}
		}
		clear(ps.failed)
		if !s.packBins(0) {
			return 0, ps.nodes, false
		}
		lo = hi
	}
	val := 0.0
	ps.jval = growF(ps.jval, m.NumJobs())
	for _, c := range items {
		ps.jval[m.Job(c)] = 0
	}
	for j, c := range items {
		r := ps.at[j]
		cur[c] = r
		i, _ := s.ch.Channel(c, r)
		val += s.p.Value[i]
		ps.jval[m.Job(c)] += s.p.Value[i]
	}
	for _, c := range items {
		if ps.jval[m.Job(c)] <= 0 {
			return 0, ps.nodes, false
		}
	}
	return val, ps.nodes, true
}

// sameServers reports whether components a and b have fitting channels
// to the same servers (in the same order).
func (s *gangSolve) sameServers(a, b int) bool {
	alo, ahi := s.ch.Range(a)
	blo, bhi := s.ch.Range(b)
	i, j := alo, blo
	for {
		for i < ahi && !s.ch.fits[i] {
			i++
		}
		for j < bhi && !s.ch.fits[j] {
			j++
		}
		if i == ahi || j == bhi {
			return i == ahi && j == bhi
		}
		if s.ch.Server(i) != s.ch.Server(j) {
			return false
		}
		i++
		j++
	}
}

// packBins packs the items of one pool by bin completion: the pool's
// servers are filled one at a time (ps.bins, in index order), each with
// a maximal set of the remaining items (no remaining item fits on top of
// it: a set that is not maximal is dominated), a set being counts per
// class of identical items (ps.cls). A completed server's residual is
// lost, so a set is admissible only while the residuals stay within
// the pool's slack in every resource; packEnum lists the admissible
// maximal sets of a server (at most packEnumLeaves of them) and keeps
// the packKeep that use the least of the slack (the largest fraction of
// a resource's slack left used, smallest first: the minimum bin slack
// rule), which are tried in that order. A state (server, counts left)
// that failed once is not searched again. It leaves each item's server
// in ps.at and reports whether it packed them all; the loads are
// restored on failure.
func (s *gangSolve) packBins(b int) bool {
	o := s.o
	ps := &o.pack
	K, T := s.K, len(ps.cls)
	left := false
	for _, n := range ps.rem {
		if n > 0 {
			left = true
			break
		}
	}
	if !left {
		return true
	}
	if b == len(ps.bins) || ps.stop {
		return false
	}
	h := uint64(b+1) * 0x9e3779b97f4a7c15
	for t, n := range ps.rem {
		h += uint64(n) * ps.zob[t]
	}
	if _, bad := ps.failed[h]; bad {
		return false
	}
	if !s.packProjected(len(ps.bins) - b) {
		ps.remember(h)
		return false
	}
	// this server's candidate sets: ps.keep[b*packKeep*T ...], scores
	ps.nkeep[b], ps.leaves = 0, 0
	s.packEnum(b, 0)
	if ps.stop {
		return false
	}
	r := ps.bins[b]
	base := b * packKeep
	for x := 0; x < ps.nkeep[b]; x++ {
		cnt := ps.keep[(base+x)*T : (base+x+1)*T]
		// place the set
		for t, n := range cnt {
			cl := ps.cls[t]
			for q := 0; q < n; q++ {
				j := cl.first + cl.n - ps.rem[t]
				s.place(ps.items[j], r)
				ps.at[j] = r
				ps.rem[t]--
			}
		}
		for k := 0; k < K; k++ {
			ps.waste[k] += o.capv[r*K+k] - o.load[r*K+k]
		}
		ok := s.packBins(b + 1)
		if ok {
			return true
		}
		for k := 0; k < K; k++ {
			ps.waste[k] -= o.capv[r*K+k] - o.load[r*K+k]
		}
		for t := T - 1; t >= 0; t-- { // undo in reverse order
			cl := ps.cls[t]
			for q := 0; q < cnt[t]; q++ {
				ps.rem[t]++
				j := cl.first + cl.n - ps.rem[t]
				s.unplace(ps.items[j], r)
			}
		}
		if ps.stop {
			return false
		}
	}
	if !ps.stop {
		ps.remember(h)
	}
	return false
}

// Bin completion's limits per server: the maximal sets listed, and the
// best of them kept and tried.
const (
	packEnumLeaves = 1 << 8
	packKeep       = 16
)

// packEnum lists the counts of classes t.. on server ps.bins[b] (the
// items of the classes before t already placed on it, on o.load, their
// counts in ps.cnt): every admissible maximal set, the best packKeep kept
// in ps.keep (sorted by score).
func (s *gangSolve) packEnum(b, t int) {
	o, m := s.o, s.ch.model
	ps := &o.pack
	K, T := s.K, len(ps.cls)
	r := ps.bins[b]
	if ps.stop {
		return
	}
	if ps.leaves >= packEnumLeaves {
		ps.partial = true
		return
	}
	if ps.nodes++; ps.nodes > repackNodes || ps.nodes&255 == 0 && s.late() {
		ps.stop = true
		return
	}
	// What classes t.. can still add in each resource is at most, per
	// class, as many of its items as the residual holds alone; if the
	// residual left then exceeds the slack, no completion is admissible.
	for k := 0; k < K; k++ {
		res := o.capv[r*K+k] - o.load[r*K+k]
		add := 0.0
		for u := t; u < T && add < res; u++ {
			d := m.Demand(ps.items[ps.cls[u].first])[k]
			av := ps.rem[u]
			if av == 0 || d <= 0 {
				continue
			}
			if !s.packEligible(u, r) {
				continue
			}
			add += min(float64(av), math.Floor(res/d)) * d
		}
		if ps.waste[k]+res-min(add, res) > ps.slack[k]+1e-9*max(1, math.Abs(ps.slack[k])) {
			return
		}
	}
	if t == T {
		// maximal: no remaining class fits on top
		for u, cl := range ps.cls {
			if ps.rem[u]-ps.cnt[u] > 0 && s.packEligible(u, r) && s.fitsAt(m.Demand(ps.items[cl.first]), r) {
				return
			}
		}
		// admissible, and its score: the largest fraction of a
		// resource's slack used so far
		score := 0.0
		for k := 0; k < K; k++ {
			w := ps.waste[k] + o.capv[r*K+k] - o.load[r*K+k]
			sl := ps.slack[k] + 1e-9*max(1, math.Abs(ps.slack[k]))
			if w > sl {
				return
			}
			if sl > 0 {
				score = max(score, w/sl)
			}
		}
		ps.leaves++
		// insert into the kept sets (sorted, stable)
		base := b * packKeep
		n := ps.nkeep[b]
		pos := n
		for pos > 0 && ps.kscore[base+pos-1] > score {
			pos--
		}
		if pos >= packKeep {
			ps.partial = true
			return
		}
		if n < packKeep {
			n++
		} else {
			ps.partial = true // the last kept set is dropped
		}
		for x := n - 1; x > pos; x-- {
			ps.kscore[base+x] = ps.kscore[base+x-1]
			copy(ps.keep[(base+x)*T:(base+x+1)*T], ps.keep[(base+x-1)*T:(base+x)*T])
		}
		ps.kscore[base+pos] = score
		copy(ps.keep[(base+pos)*T:(base+pos+1)*T], ps.cnt[:T])
		ps.nkeep[b] = n
		return
	}
	cl := ps.cls[t]
	avail := ps.rem[t]
	n := 0
	if avail > 0 && s.packEligible(t, r) {
		// place as many as fit, then try the counts from the largest down
		for n < avail {
			j := cl.first + cl.n - avail + n
			c := ps.items[j]
			if !s.fitsAt(m.Demand(c), r) {
				break
			}
			s.place(c, r)
			n++
		}
	}
	for {
		ps.cnt[t] = n
		s.packEnum(b, t+1)
		if n == 0 {
			break
		}
		n--
		s.unplace(ps.items[cl.first+cl.n-avail+n], r)
	}
	ps.cnt[t] = 0
}

// packEligible reports whether the items of class t have a fitting
// channel to server r.
func (s *gangSolve) packEligible(t, r int) bool {
	ps := &s.o.pack
	i, ok := s.ch.Channel(ps.items[ps.cls[t].first], r)
	return ok && s.ch.fits[i]
}

// restart takes the placement in o.chosen (value val) as a second start:
// polishes it by class reassignment, improves it within budget nodes
// (the improvement phase's steps and patience) and keeps it if it then
// beats the incumbent, else restores the incumbent. It returns the nodes
// used.
func (s *gangSolve) restart(val float64, capv []float64, budget int64) int64 {
	return s.restartP(val, capv, budget, lnsFails*len(s.active))
}

func (s *gangSolve) restartP(val float64, capv []float64, budget int64, fails int) int64 {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	o.kbest = growI(o.kbest, C)
	copy(o.kbest, o.inc[:C])
	bestVal, bestTol := s.incVal, s.tol
	s.incVal = val
	copy(o.inc[:C], o.chosen[:C])
	s.tol = 1e-12 * max(1, math.Abs(s.incVal))
	s.polishAll()
	n := s.improve(capv, budget, lnsJobs, lnsNodes, fails)
	s.polishAll()
	if !(s.incVal > bestVal+bestTol) {
		copy(o.inc[:C], o.kbest)
		s.incVal, s.tol = bestVal, bestTol
	}
	return n
}

func growU(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n)
	}
	return b[:n]
}

// Projections (packProjected): a resource in which every server of the
// pool has the same capacity and the items take at most packMaxSizes
// distinct values is a one-dimensional bin packing of its own, a
// relaxation of the packing; with few sizes it is solved exactly by
// bin completion over the counts per size (each bin with the largest
// item left, a valid dominance for identical bins), memoised, within
// packProjNodes nodes per check (past them the check passes: no prune).
const (
	packMaxSizes  = 8
	packProjNodes = 1 << 12
)

// packProjectInit finds the pool's projected resources (ps.bins, ps.cls).
func (s *gangSolve) packProjectInit() {
	o, m := s.o, s.ch.model
	ps := &o.pack
	K, T := s.K, len(ps.cls)
	ps.pk, ps.pcap = ps.pk[:0], ps.pcap[:0]
	ps.psizes = ps.psizes[:0]
	ps.pidx = ps.pidx[:0]
	for k := 0; k < K; k++ {
		c0 := o.capv[ps.bins[0]*K+k]
		ok := c0 > 0
		for _, r := range ps.bins {
			if o.capv[r*K+k] != c0 {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		var sz []float64
		if n := len(ps.pk); n < cap(ps.psizes) {
			sz = ps.psizes[:n+1][n][:0]
		}
		for t := 0; t < T && ok; t++ {
			d := m.Demand(ps.items[ps.cls[t].first])[k]
			if d <= 0 || slices.Contains(sz, d) {
				continue
			}
			if len(sz) == packMaxSizes {
				ok = false
			}
			sz = append(sz, d)
		}
		if !ok || len(sz) < 2 {
			continue // too many sizes, or a trivial projection
		}
		slices.SortFunc(sz, func(a, b float64) int {
			if a > b {
				return -1
			}
			if a < b {
				return 1
			}
			return 0
		})
		ps.pk = append(ps.pk, k)
		ps.pcap = append(ps.pcap, c0)
		ps.psizes = append(ps.psizes, sz)
		for t := 0; t < T; t++ {
			d := m.Demand(ps.items[ps.cls[t].first])[k]
			ps.pidx = append(ps.pidx, slices.Index(sz, d))
		}
	}
	if ps.pmemo == nil {
		ps.pmemo = map[uint64]bool{}
	}
	clear(ps.pmemo)
	ps.pcnt = growI(ps.pcnt, packMaxSizes)
}

// packProjected reports whether every projection of the items left
// (ps.rem) fits nb empty servers (true when unknown).
func (s *gangSolve) packProjected(nb int) bool {
	ps := &s.o.pack
	T := len(ps.cls)
	for q := range ps.pk {
		sz := ps.psizes[q]
		cnt := ps.pcnt[:len(sz)]
		clear(cnt)
		for t := 0; t < T; t++ {
			if x := ps.pidx[q*T+t]; x >= 0 {
				cnt[x] += ps.rem[t]
			}
		}
		ps.pnodes = 0
		if !s.proj(q, cnt, nb) {
			return false
		}
	}
	return true
}

// proj reports whether the items counted in cnt (sizes ps.psizes[q])
// fit nb bins of capacity ps.pcap[q] (true when the node budget ends).
func (s *gangSolve) proj(q int, cnt []int, nb int) bool {
	ps := &s.o.pack
	sz, C := ps.psizes[q], ps.pcap[q]
	tot := 0.0
	i0 := -1
	for x, n := range cnt {
		tot += float64(n) * sz[x]
		if n > 0 && i0 < 0 {
			i0 = x
		}
	}
	if i0 < 0 {
		return true
	}
	tol := 1e-9 * C
	if nb == 0 || tot > float64(nb)*C+float64(nb)*tol {
		return false
	}
	h := uint64(q+1)*0x9e3779b97f4a7c15 + uint64(nb)*0xbf58476d1ce4e5b9
	for x, n := range cnt {
		h = (h ^ uint64(n)<<uint(8*x%56)) * 0x100000001b3
	}
	if v, ok := ps.pmemo[h]; ok {
		return v
	}
	if ps.pnodes++; ps.pnodes > packProjNodes {
		return true
	}
	slack := float64(nb)*C - tot
	// the bin holds one item of the largest size, then counts of the
	// sizes from the largest down, maximal, its waste within the slack
	cnt[i0]--
	ok := s.projFill(q, cnt, nb, i0, sz[i0], slack, tol)
	cnt[i0]++
	if ps.pnodes <= packProjNodes {
		if len(ps.pmemo) >= packMaxMemo {
			clear(ps.pmemo)
		}
		ps.pmemo[h] = ok
	}
	return ok
}

func (s *gangSolve) projFill(q int, cnt []int, nb, x int, fill, slack, tol float64) bool {
	ps := &s.o.pack
	sz, C := ps.psizes[q], ps.pcap[q]
	if x == len(sz) {
		for y, n := range cnt { // maximal
			if n > 0 && fill+sz[y] <= C+tol {
				return false
			}
		}
		if C-fill > slack+tol*float64(nb) {
			return false
		}
		return s.proj(q, cnt, nb-1)
	}
	n := 0
	for n < cnt[x] && fill+float64(n+1)*sz[x] <= C+tol {
		n++
	}
	for ; n >= 0; n-- {
		cnt[x] -= n
		ok := s.projFill(q, cnt, nb, x+1, fill+float64(n)*sz[x], slack, tol)
		cnt[x] += n
		if ok {
			return true
		}
		if ps.pnodes > packProjNodes {
			return true
		}
	}
	return false
}

// Reselection (issue 29, time limit only). With every DLRM app arrived
// the optimum serves a different set of apps than the incumbent (35
// against 34: six apps in, five out), and the HN servers' GPUs are the
// binding capacity of the set, the CN CPU of its packing: no exchange of
// one or two apps reaches it. reselect chooses sets of jobs on the
// aggregate model, each pool's capacities summed per resource, the
// jobs' demands in it summed likewise (a relaxation of the packing: a
// set that does not fit it cannot be packed), by a multi-dimensional
// knapsack local search from the incumbent's set: each step drops one
// to three served jobs at random and adds unserved ones greedily (by
// relaxed value over their demand relative to the aggregate capacity,
// randomly perturbed) while they fit, and moves to the new set if its
// relaxed value (phi0, the jobs' values at mu = 0) is at least the
// current one's. The reselectKeep best sets better than the incumbent's
// are packed (packSet) and each packing is a second start (restart).
const (
	reselectFails = 8
	reselectSteps = 1 << 14
	reselectKeep  = 8
)

type reselectState struct {
	dims   []int     // aggregate dims in use: pool root·K + k
	capd   []float64 // per dim: aggregate capacity
	dem    []float64 // per (active job, dim): aggregate demand
	cur    []bool    // per active job: in the current set
	trial  []bool
	load   []float64 // per dim
	order  []int     // active job positions
	key    []float64
	sets   []bool // reselectKeep × active
	setVal []float64
	nsets  int
}

// reselect runs the reselection within budget nodes and returns the
// nodes used.
func (s *gangSolve) reselect(capv []float64, budget int64) int64 {
	o, m := s.o, s.ch.model
	C, R, K := m.NumComponents(), m.NumServers(), s.K
	A := len(s.active)
	rs := &o.resel
	ps := &o.pack
	// pools over the active jobs' components and every server
	ps.pool = growI(ps.pool, R+C)
	for x := range ps.pool {
		ps.pool[x] = x
	}
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				if s.ch.fits[i] {
					a, b := ps.find(R+c), ps.find(s.ch.Server(i))
					ps.pool[a] = b
				}
			}
		}
	}
	// aggregate capacities per (pool root, resource); a component's pool
	// is its root's
	full := growF(o.pload, R*K) // per (root server, k)
	o.pload = full
	clear(full)
	for r := 0; r < R; r++ {
		p := ps.find(r)
		if p >= R {
			continue // cannot happen: a server's root is a server or a component
		}
		for k := 0; k < K; k++ {
			full[p*K+k] += capv[r*K+k]
		}
	}
	// dims: those the active jobs' demands exceed
	rs.dims = rs.dims[:0]
	need := growF(rs.load, R*K)
	rs.load = need
	clear(need)
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			p := ps.find(R + c)
			if p >= R {
				continue // no fitting channel
			}
			for k, x := range m.Demand(c) {
				need[p*K+k] += x
			}
		}
	}
	for d := 0; d < R*K; d++ {
		if need[d] > full[d] {
			rs.dims = append(rs.dims, d)
		}
	}
	D := len(rs.dims)
	if D == 0 || A < 2 {
		return 0
	}
	rs.capd = growF(rs.capd, D)
	for x, d := range rs.dims {
		rs.capd[x] = full[d]
	}
	if A*D > packMaxScratch {
		return 0
	}
	rs.dem = growF(rs.dem, A*D)
	clear(rs.dem)
	for a, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			p := ps.find(R + c)
			if p >= R {
				continue
			}
			for x, d := range rs.dims {
				if d/K == p {
					rs.dem[a*D+x] += m.Demand(c)[d%K]
				}
			}
		}
	}
	if cap(rs.cur) < A {
		rs.cur, rs.trial = make([]bool, A), make([]bool, A)
	}
	rs.cur, rs.trial = rs.cur[:A], rs.trial[:A]
	rs.load = growF(rs.load, D)
	rs.order = growI(rs.order, A)
	rs.key = growF(rs.key, A)
	if cap(rs.sets) < reselectKeep*A {
		rs.sets = make([]bool, reselectKeep*A)
	}
	rs.sets = rs.sets[:reselectKeep*A]
	rs.setVal = growF(rs.setVal, reselectKeep)
	rs.nsets = 0
	// the incumbent's set
	curVal := 0.0
	for a, l := range s.active {
		rs.cur[a] = s.incServes(l)
		if rs.cur[a] {
			curVal += o.phi0[l]
		}
	}
	incVal := curVal
	tolv := 1e-9 * max(1, math.Abs(incVal))
	rng := splitMix(uint64(A)*0x9e3779b97f4a7c15 + 29)
	for step := 0; step < reselectSteps; step++ {
		if step&255 == 0 && s.late() {
			return 0
		}
		copy(rs.trial, rs.cur)
		// drop 1-3 served jobs
		nserved := 0
		for _, in := range rs.trial {
			if in {
				nserved++
			}
		}
		for q := 1 + int(rng.next()%3); q > 0 && nserved > 0; q-- {
			k := int(rng.next() % uint64(nserved))
			for a, in := range rs.trial {
				if in {
					if k == 0 {
						rs.trial[a] = false
						nserved--
						break
					}
					k--
				}
			}
		}
		clear(rs.load[:D])
		val := 0.0
		for a, in := range rs.trial {
			if in {
				val += o.phi0[s.active[a]]
				for x := 0; x < D; x++ {
					rs.load[x] += rs.dem[a*D+x]
				}
			}
		}
		// add greedily by perturbed value density
		ord := rs.order[:0]
		for a, in := range rs.trial {
			if in {
				continue
			}
			w := 1e-12
			for x := 0; x < D; x++ {
				w += rs.dem[a*D+x] / rs.capd[x]
			}
			noise := 0.75 + 0.5*float64(rng.next()>>11)/(1<<53)
			rs.key[a] = o.phi0[s.active[a]] / w * noise
			ord = append(ord, a)
		}
		sortIdxDesc(ord, rs.key)
		for _, a := range ord {
			fits := true
			for x := 0; x < D; x++ {
				if rs.load[x]+rs.dem[a*D+x] > rs.capd[x] {
					fits = false
					break
				}
			}
			if !fits {
				continue
			}
			rs.trial[a] = true
			val += o.phi0[s.active[a]]
			for x := 0; x < D; x++ {
				rs.load[x] += rs.dem[a*D+x]
			}
		}
		if val >= curVal-tolv {
			copy(rs.cur, rs.trial)
			curVal = val
		}
		if val > incVal+tolv {
			s.reselectKeepSet(val)
		}
	}
	// pack the kept sets, best first
	s.packPrepare()
	var used int64
	for x := 0; x < rs.nsets && used < budget && !s.late(); x++ {
		set := rs.sets[x*A : (x+1)*A]
		s.packWantNone()
		for a, in := range set {
			ps.want[s.active[a]] = in
		}
		val, n, ok := s.packSet()
		used += n
		if !ok || used >= budget {
			continue
		}
		used += s.restartP(val, capv, budget-used, reselectFails*len(s.active))
	}
	return used
}

// reselectKeepSet keeps rs.trial (relaxed value val) among the best
// distinct sets.
func (s *gangSolve) reselectKeepSet(val float64) {
	rs := &s.o.resel
	A := len(s.active)
	for x := 0; x < rs.nsets; x++ {
		if slices.Equal(rs.sets[x*A:(x+1)*A], rs.trial) {
			return
		}
	}
	pos := rs.nsets
	for pos > 0 && rs.setVal[pos-1] < val {
		pos--
	}
	if pos >= reselectKeep {
		return
	}
	n := min(rs.nsets+1, reselectKeep)
	for x := n - 1; x > pos; x-- {
		rs.setVal[x] = rs.setVal[x-1]
		copy(rs.sets[x*A:(x+1)*A], rs.sets[(x-1)*A:x*A])
	}
	rs.setVal[pos] = val
	copy(rs.sets[pos*A:(pos+1)*A], rs.trial)
	rs.nsets = n
}

// incServes reports whether the incumbent places a component of job l.
func (s *gangSolve) incServes(l int) bool {
	lo, hi := s.ch.model.Components(l)
	for c := lo; c < hi; c++ {
		if s.o.inc[c] >= 0 {
			return true
		}
	}
	return false
}

// packWantNone empties ps.want, the set of jobs packSet packs.
func (s *gangSolve) packWantNone() {
	ps := &s.o.pack
	J := s.ch.model.NumJobs()
	if cap(ps.want) < J {
		ps.want = make([]bool, J)
	}
	ps.want = ps.want[:J]
	clear(ps.want)
}
