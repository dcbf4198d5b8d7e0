package esdp

import (
	"cmp"
	"math"
	"slices"
)

// Reduced-cost fixing by the class-form decomposition (issue 29;
// GangExact whose servers have too many patterns for the enumerated
// decomposition bound of gang_ld.go, as on the DLRM slots). On problems
// of at most AutoSearchComponents components it runs when a first search
// does not finish (ldFixAfter nodes; with a time limit, the coreFirst
// nodes and the core neighbourhoods); on larger ones, with a time limit
// only, once before the time-limited improvement phases, within a tenth
// of the limit, for its bound and its heuristic (below; their searches
// are neighbourhoods). The Lagrangian decomposition's subgradient
// runs with its server side in class form (gang_ldc.go), from the
// capacity prices of the best multipliers; its best bound B becomes the
// oracle's bound when lower, and the search starts again with what
// follows. At the best lambda,
// with LD = A + S (assignment side A, server side S), a placement that
// puts component c of job l on channel i has value at most
//
//	ub_i = LD - (phi_l - phi_l(i)),
//
// phi_l the job's assignment value and phi_l(i) its best served value
// with c on i (the server side is unchanged: it does not see x). A
// channel with ub_i at most the incumbent's value takes part in no
// better placement, and the search skips it (fixedOut); the threshold is
// the incumbent's value when each search starts. The search's nodes are
// also bounded by the decomposition at that lambda: a node with placed
// value val (fixed components included), lambda summed over the placed
// channels redL and assignment side of the free components bl (on the
// residual capacities, from the rows) is bounded by
//
//	val - redL + bl + S,
//
// because a completion's channels on server r, with the placed ones, are
// a pattern of r (whose lambda sum is at most S_r). Then the Lagrangian
// heuristic: a placement built from the server side's patterns at the
// best lambda (fromPatterns), improved as a restart (ldHeurNodes nodes),
// kept if better than the incumbent. With a time limit,
// the last search gets half the time left and the improvement phases the
// rest: with these bounds its nodes cost more, and on the DLRM slots it
// otherwise ran to the limit where the phases used to find the optimum
// (slot 168).
const (
	// ldFixWork caps the class-form searches' nodes of the fixing's
	// subgradient (all servers, all iterations): past it the subgradient
	// stops with the bound it has.
	ldFixWork = 1 << 23
	// ldHeurNodes is the node budget of the improvement that follows the
	// Lagrangian heuristic's construction (fromPatterns).
	ldHeurNodes = 1 << 16
	// ldFixAfter is the nodes of the first search without a time limit
	// (with one, the first search is the coreFirst nodes before the core
	// neighbourhoods): what it proves pays nothing for the fixing.
	ldFixAfter = 1 << 17
)

// fixedOut reports whether the search skips channel i: fixed out by its
// reduced cost.
func (s *gangSolve) fixedOut(i int) bool {
	return s.fixOn && s.o.ldub[i] <= s.elimAt
}

// ldFix runs the class-form decomposition's subgradient, sets the
// channels' bounds o.ldub and the search's decomposition bound (ldcOn,
// ldcS), and returns the best bound found (+Inf when the class form is
// not available).
func (s *gangSolve) ldFix() float64 {
	o, m := s.o, s.ch.model
	ld := &o.ld
	cs := &o.ldc
	if len(ld.lam) < s.ch.Len() || !s.ldBuildClasses() {
		return math.Inf(1)
	}
	defer func() { ld.on, ld.cls = false, false }()
	cs.work, cs.workMax = 0, ldFixWork
	B := s.ldRoot() // ld.lam is the best lambda, ld.vals v - lambda at it
	cs.workMax = 0
	if s.late() {
		return B
	}
	// the decomposition at the best lambda, its assignment side per job
	for _, l := range s.active {
		lo, hi := m.Components(l)
		clo, _ := s.ch.Range(lo)
		_, chi := s.ch.Range(hi - 1)
		clear(ld.z[clo:chi])
	}
	S := s.ldServers(ld.lam, ld.z)
	if math.IsInf(S, 1) {
		return B
	}
	LD := s.ldAssign(ld.vals, ld.x) + S // bw and bch at the best lambda
	if !s.fixOn {
		o.ldub = growF(o.ldub, s.ch.Len())
		for i := range o.ldub {
			o.ldub[i] = math.Inf(1)
		}
	}
	o.fixed = 0
	for _, l := range s.active {
		lo, hi := m.Components(l)
		need := m.Min(l)
		v := o.tmp0[:0]
		for c := lo; c < hi; c++ {
			if o.bch[c] >= 0 {
				v = append(v, o.bw[c])
			}
		}
		phi := 0.0
		if len(v) >= need {
			phi = jobPart(v, need, true)
		}
		for c := lo; c < hi; c++ {
			// the others' best, at least need-1 of them
			v = v[:0]
			for c2 := lo; c2 < hi; c2++ {
				if c2 != c && o.bch[c2] >= 0 {
					v = append(v, o.bw[c2])
				}
			}
			rest := math.Inf(-1)
			if len(v) >= need-1 {
				rest = jobPart(v, max(0, need-1), false)
			}
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				// the smaller of the two bounds when dwFix set one
				o.ldub[i] = min(o.ldub[i], LD-(phi-(ld.vals[i]+rest)))
				if s.ch.fits[i] && o.ldub[i] <= s.incVal+s.tol {
					o.fixed++
				}
			}
		}
	}
	s.ldcOn, s.ldcS, s.fixOn = true, S, true
	return B
}

// fromPatterns is the Lagrangian heuristic's construction: a feasible
// placement in o.chosen, with its value returned, from the server side's
// patterns z (each server's best pattern at the final lambda). The
// patterns' channels by decreasing lambda, each component on the first
// server whose pattern holds it and where it still fits; then, for the
// jobs with a component placed, their other components on the fitting
// channel of the largest value (up to m_l whatever the value, beyond it
// only positive ones), a job short of m_l left out; then the same for
// the jobs with none. Loads are summed anew after a job is left out
// (unplace restores only in the reverse order of placing).
func (s *gangSolve) fromPatterns(z []int8) float64 {
	return s.fromPatternsBy(z, s.o.ld.lam)
}

// fromPatternsBy is fromPatterns with the marked channels taken by
// decreasing key (fromPatterns: lambda).
func (s *gangSolve) fromPatternsBy(z []int8, key []float64) float64 {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	cur := o.chosen[:C]
	for c := range cur {
		cur[c] = -1
	}
	clear(o.load)
	chans := o.perm[:0]
	for _, l := range s.active {
		lo, hi := m.Components(l)
		clo, _ := s.ch.Range(lo)
		_, chi := s.ch.Range(hi - 1)
		for i := clo; i < chi; i++ {
			if z[i] == 1 {
				chans = append(chans, i)
			}
		}
	}
	slices.SortFunc(chans, func(a, b int) int {
		if c := cmp.Compare(key[b], key[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	for _, i := range chans {
		c := s.ch.Component(i)
		r := s.ch.Server(i)
		if cur[c] >= 0 || !s.fitsAt(m.Demand(c), r) {
			continue
		}
		s.place(c, r)
		cur[c] = r
	}
	bestFit := func(c int) int {
		bi, bv := -1, math.Inf(-1)
		clo, chi := s.ch.Range(c)
		for i := clo; i < chi; i++ {
			if s.ch.fits[i] && s.p.Value[i] > bv && s.fitsAt(m.Demand(c), s.ch.Server(i)) {
				bi, bv = i, s.p.Value[i]
			}
		}
		return bi
	}
	for pass := 0; pass < 2; pass++ {
		for _, l := range s.active {
			lo, hi := m.Components(l)
			n := s.placedOf(cur, l)
			if pass == 0 && n == 0 || pass == 1 && n > 0 {
				continue
			}
			for c := lo; c < hi; c++ {
				if cur[c] >= 0 {
					continue
				}
				if i := bestFit(c); i >= 0 && (n < m.Min(l) || s.p.Value[i] > 0) {
					r := s.ch.Server(i)
					s.place(c, r)
					cur[c] = r
					n++
				}
			}
			if n > 0 && n < m.Min(l) {
				for c := lo; c < hi; c++ {
					cur[c] = -1
				}
				s.sumLoadsOf(o.load, cur)
			}
		}
	}
	val := 0.0
	for c, r := range cur {
		if r >= 0 {
			i, _ := s.ch.Channel(c, r)
			val += s.p.Value[i]
		}
	}
	return val
}

// placedOf counts job l's placed components in placement x.
func (s *gangSolve) placedOf(x []int, l int) int {
	lo, hi := s.ch.model.Components(l)
	n := 0
	for c := lo; c < hi; c++ {
		if x[c] >= 0 {
			n++
		}
	}
	return n
}
