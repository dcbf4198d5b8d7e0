package esdp

import (
	"math"

	"github.com/msched/msched/internal/simplex"
)

// Column generation (issue 29): the Dantzig-Wolfe master of the gang
// knapsack, whose columns are the servers' patterns (sets of channels of
// one server that fit it together),
//
//	max  Σ_p v_p λ_p
//	s.t. Σ_{p of r} λ_p <= 1                 each server one pattern      (π_r)
//	     Σ_{p ∋ c} λ_p - y_l <= 0             component c of job l once    (π_c)
//	     m_l y_l - Σ_p |p ∩ Q_l| λ_p <= 0     a served job's minimum       (π_l)
//	     λ >= 0, 0 <= y <= 1,
//
// solved by the simplex method of internal/simplex over the patterns
// generated so far (the restricted master), started from the
// incumbent's. Each round prices the channels at the master's duals,
// λ_i = v_i - π_c + π_l (c the channel's component, l its job), and
// finds every server's best pattern at those prices by the class form's
// exact knapsack search (ldServersCls, gang_ldc.go); a pattern of
// reduced value Σ_{i in p} λ_i - π_r > 0 enters the master. For every
// π >= 0 the Lagrangian
//
//	UB(π) = Σ_r max_p Σ_{i in p} λ_i + Σ_l max(0, Σ_{c in Q_l} π_c - m_l π_l)
//
// bounds every placement (the master's dual made feasible), and the
// rounds end when no pattern enters (UB then equals the master's value,
// the Dantzig-Wolfe bound) or when their pivots run out. The
// Dantzig-Wolfe bound is at least as strong as the Lagrangian
// decomposition's (gang_ld.go) at its best multipliers, which the
// subgradient only approaches: on DLRM slot 232, 107.4252 against the
// subgradient's 107.4385, the optimum 107.4222.
//
// The master starts from the incumbent's patterns (its value the
// incumbent's), its right-hand sides perturbed by at most 2e-7 (without
// it the simplex took thousands of degenerate pivots a round), and its
// duals are smoothed (Wentges: the patterns priced at 0.8 times the
// duals of the best bound so far plus 0.2 times the master's, the
// master's own when nothing enters, the first center the capacity
// relaxation's: each component's best reduced value at its best
// multipliers). The perturbed master's value is at least the true
// master's, so the bounds stay valid.
//
// An integral master optimum (every λ and y in {0, 1}) is a placement:
// its patterns, checked against the capacities under bipartite's rule
// (the pricing's knapsacks take ldSlack, a little above it). When the
// rounds ended with no entering pattern and its value meets the bound,
// it is optimal. A fractional optimum is rounded twice, each placement
// kept when better than the incumbent:
//
//   - the rounding (dwRound): each server's pattern of the largest λ,
//     the channels of the jobs whose y is at least 1/2, built into a
//     placement (fromPatternsBy) and improved as a restart within
//     dwRoundNodes nodes (on DLRM slot 317 at 1 s, HiGHS's optimum
//     168.3228 in 0.02 s, where the dive ran out of pivots and the
//     incumbent stayed 4.5 % lower);
//   - the dive (dwDive): the fractional y nearest to 0 or 1 rounded,
//     then the pattern of the largest fractional λ fixed at 1, the
//     master solved again (the dual simplex, warm) and priced (the
//     fixed servers and their components left out), until integral; a
//     fixing that makes the master infeasible is undone (at most
//     dwBacktracks times);
//   - price and branch (dwBranch): depth-first branch and bound, the
//     master's LP the node's bound, on the same variables (y first,
//     then λ at 1 first), within dwBranchNodes nodes; a node whose
//     branches fixed only y is priced to the end (branch and price on
//     the jobs: on DLRM slots 620 and 433 at 10 s this finds HiGHS's
//     optima, 138.2942 and 137.6986, where the Dantzig-Wolfe bound is
//     1.7 % above them and the dive stopped at 137.9223 and 137.6770),
//     the nodes below a fixed λ are not (their columns are those
//     generated so far).
//
// Then, unless the bound proves the incumbent, the duals of the best
// bound fix channels by their reduced cost and bound the search's nodes
// for the rest of the solve (dwFix).
//
// It runs in GangExact's solves whose servers have too many patterns
// for the enumerated decomposition bound (gang_ld.go; the DLRM slots),
// after the first improvement phase, on masters of at most dwRows rows,
// each of its phases (the rounds, the dive, price and branch) within
// dwPhasePivots simplex pivots: a deterministic budget, which a time
// limit only cuts (the solve's steps do not depend on the clock).
// Measured on the 739 DLRM slots with an arrival at 1 s (scripts/gangbench
// -sweep 1s against scripts/gang_highs.py --sweep --time-limit 1): 663
// proved optimal against 602 before, 731 placements at least HiGHS's
// against 713, the sum of the shortfalls 0.113 % against 0.759 % and the
// largest 0.052 % against 0.140 %, 93.1 s in all against 173.9 s (the
// slots both proved: 12.2 s against 36.8 s); slots 169, 416, 601 and 626
// proved in 0.07-0.17 s (HiGHS 0.13-0.70 s). Nine slots of 144-256
// components, where HiGHS has no placement at 1 s, came out 0.01-0.43 %
// lower (the improvement phases' time). TestGangColGenBruteForce checks
// the bounds, the proofs and the placements against enumeration.
const (
	// dwMaxRows bounds the master's rows (servers + components + jobs):
	// its basis inverse is dwMaxRows^2 float64 (4.5 MiB).
	dwMaxRows = 768
	// dwMaxColumns bounds the generated patterns.
	dwMaxColumns = 1 << 15
	// dwChunk is the simplex pivots between two readings of the clock.
	dwChunk = 256
	// dwAddTol is the reduced value a pattern needs to enter.
	dwAddTol = 1e-7
	// dwPerturb is the scale of the right-hand sides' perturbation.
	dwPerturb = 1e-7
	// dwBranchNodes bounds price and branch's nodes.
	dwBranchNodes = 1 << 12
	// dwBacktracks bounds the dive's undone fixings.
	dwBacktracks = 4
	// dwAlpha is the smoothing of the duals priced (Wentges).
	dwAlpha = 0.8
	// dwRounds bounds the column generation's pricing rounds, and
	// dwPriceWork the class-form searches' nodes of all the rounds; the
	// rounds, the dive and price and branch each get dwPivots simplex
	// pivots (dwPivots per second of a time limit, within
	// [dwPivotsMin, dwPivotsMax]): the deterministic budget, which the
	// clock only cuts.
	dwRounds    = 1 << 9
	dwPriceWork = 1 << 23
	dwPivots    = 1 << 13
	dwPivotsMin = 1 << 10
	dwPivotsMax = 1 << 16
)

// dwState is the column generation's scratch, in the oracle.
type dwState struct {
	lp       simplex.LP
	compRow  []int // per component: its row, -1 if not in the master
	jobRow   []int // per job: its row, -1
	srvRow   []int // per server: its row, -1
	b        []float64
	rows     []int
	vals     []float64
	lam      []float64 // per channel
	z        []int8    // per channel
	x, pi    []float64
	sep      []float64 // the duals priced
	fixedSrv []bool    // the dive: servers whose pattern is fixed
	covered  []bool    // the dive: components of the fixed patterns
	tried    []bool    // the dive: per column, fixed at 1 in vain at this step
	left     int       // the phase's simplex pivots left
	bestPl   []int     // price and branch: the best placement found
	target   float64   // price and branch: its value (the incumbent's at the start)
	found    bool      // price and branch: a placement above the incumbent
	nodes    int       // price and branch: nodes so far
	lamFixed int       // price and branch: patterns fixed on the path (0: the node is priced)
	center   []float64 // the duals of the best bound
	// dwFix's bound: per server B_r, per channel λ_i + B_r(a_c), per
	// job t_l, per component π_c; the search's per server term and per
	// job π of its components decided unplaced
	srvB, chanB, jobT, compPi, srvS, jobU []float64
	saveS, saveTS, saveTJ, saveU          []float64 // per search depth
	bestLam                               []float64 // dwRound: per server, the largest λ
	bestCol                               []int     // dwRound: per server, its column of the largest λ
	colSrv                                []int     // per column: its server (-1 for a job's y)
	colStart                              []int     // per column: its first channel in colChan
	colChan                               []int
	yCol                                  []int // per active job (in s.active order): its y column
	heurNodes                             int64 // the search nodes of dwRound's improvement
	fixRan                                bool  // dwFix set its bounds (for tests)
	rounded                               bool  // dwRound improved the incumbent (for tests)
	// the last solve's column generation (for tests): whether it ran,
	// its rounds, whether the dive and price and branch found a
	// placement, whether it proved the incumbent optimal, its bound
	ran             bool
	rounds          int
	dived, branched bool
	proved          bool
	bound           float64
}

// colGen runs the column generation, then the dive and price and branch
// when the master's optimum is fractional, each within its pivots
// (dwPhasePivots) or the time limit. It returns the best bound found
// (+Inf when it did not run) and whether the incumbent, improved by the
// placements found when they are better, is proved optimal (at the
// bound).
func (s *gangSolve) colGen() (float64, bool) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	ld := &o.ld
	dw.ran, dw.rounds, dw.proved, dw.bound, dw.heurNodes, dw.fixRan, dw.rounded = false, 0, false, math.Inf(1), 0, false, false
	R, C := m.NumServers(), m.NumComponents()
	// rows
	nc := s.activeComponents()
	if len(s.active) == 0 || R+nc+len(s.active) > s.dwRows() {
		return math.Inf(1), false
	}
	for _, f := range o.forceIn {
		if f {
			return math.Inf(1), false
		}
	}
	on, cls := ld.on, ld.cls
	defer func() { ld.on, ld.cls = on, cls }()
	if !s.ldBuildClasses() {
		return math.Inf(1), false
	}
	cs := &o.ldc
	cs.work, cs.workMax = 0, dwPriceWork
	defer func() { cs.workMax = 0 }()
	dw.left = s.dwPhasePivots()
	dw.srvRow, dw.compRow, dw.jobRow = growI(dw.srvRow, R), growI(dw.compRow, C), growI(dw.jobRow, m.NumJobs())
	for i := range dw.compRow {
		dw.compRow[i] = -1
	}
	for i := range dw.jobRow {
		dw.jobRow[i] = -1
	}
	dw.b = dw.b[:0]
	for r := 0; r < R; r++ {
		dw.srvRow[r] = -1
		if cs.soff[r+1] > cs.soff[r] {
			dw.srvRow[r] = len(dw.b)
			dw.b = append(dw.b, 1)
		}
	}
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			dw.compRow[c] = len(dw.b)
			dw.b = append(dw.b, 0)
		}
	}
	for _, l := range s.active {
		dw.jobRow[l] = len(dw.b)
		dw.b = append(dw.b, 0)
	}
	// the right-hand sides perturbed by up to 2 dwPerturb (a fixed
	// sequence, deterministic): the master is highly degenerate (every
	// component row 0 at the incumbent's patterns) and without it the
	// simplex takes thousands of degenerate pivots per round
	for i := range dw.b {
		dw.b[i] += dwPerturb * (1 + float64((uint32(i)*2654435761)%1024)/1024)
	}
	lp := &dw.lp
	lp.Reset(dw.b)
	dw.sep, dw.center = growF(dw.sep, len(dw.b)), growF(dw.center, len(dw.b))
	dw.colSrv, dw.colStart, dw.colChan = dw.colSrv[:0], dw.colStart[:0], dw.colChan[:0]
	dw.yCol = dw.yCol[:0]
	for _, l := range s.active {
		lo, hi := m.Components(l)
		dw.rows, dw.vals = dw.rows[:0], dw.vals[:0]
		for c := lo; c < hi; c++ {
			dw.rows = append(dw.rows, dw.compRow[c])
			dw.vals = append(dw.vals, -1)
		}
		dw.rows = append(dw.rows, dw.jobRow[l])
		dw.vals = append(dw.vals, float64(m.Min(l)))
		dw.yCol = append(dw.yCol, lp.AddColumn(0, 0, 1, dw.rows, dw.vals))
		dw.colSrv = append(dw.colSrv, -1)
		dw.colStart = append(dw.colStart, len(dw.colChan))
	}
	// the incumbent's patterns
	N := s.ch.Len()
	dw.lam, dw.z = growF(dw.lam, N), grow(dw.z, N)
	clear(dw.z)
	for c := 0; c < C; c++ {
		if r := o.inc[c]; r >= 0 && dw.compRow[c] >= 0 {
			if i, ok := s.ch.Channel(c, r); ok {
				dw.z[i] = 1
			}
		}
	}
	for r := 0; r < R; r++ {
		if dw.srvRow[r] >= 0 {
			s.dwAddPattern(r)
		}
	}
	dw.ran = true
	best := math.Inf(1)
	converged := false
	// the first center: the capacity relaxation's duals at its best
	// multipliers, each component's best reduced value (the dual of its
	// row in the compact LP), the jobs' and servers' 0
	s.relax(o.bestMu, s.active, nil)
	clear(dw.center)
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			if o.bch[c] >= 0 {
				dw.center[dw.compRow[c]] = max(0, o.bw[c])
			}
		}
	}
	centered := false
	if ub, ok := s.dwPrice(dw.center); ok {
		best, centered = ub, true
	}
	for len(dw.colSrv) < dwMaxColumns && dw.rounds < dwRounds {
		if !s.dwSolve() {
			break
		}
		dw.rounds++
		dw.pi = lp.Duals(dw.pi)
		z := lp.Objective()
		if best-z <= s.tol+dwAddTol {
			converged = true
			break
		}
		// Wentges smoothing: price at sep = alpha center + (1-alpha) pi,
		// center the duals of the best bound so far; a round whose
		// patterns at sep do not enter (mispricing) prices at pi itself
		added, exact := 0, false
		for _, alpha := range [2]float64{dwAlpha, 0} {
			if !centered || alpha == 0 {
				copy(dw.sep, dw.pi)
			} else {
				for i, v := range dw.pi {
					dw.sep[i] = alpha*dw.center[i] + (1-alpha)*v
				}
			}
			ub, ok := s.dwPrice(dw.sep)
			if !ok {
				break
			}
			if ub < best || !centered {
				best = min(best, ub)
				copy(dw.center, dw.sep)
				centered = true
			}
			added = s.dwAddEntering()
			exact = alpha == 0 || !centered
			if added > 0 || exact {
				break
			}
		}
		if added == 0 {
			// priced exactly at the master's duals and nothing enters:
			// UB there is the Dantzig-Wolfe bound (the master's value is
			// not taken itself: the perturbation and the tolerances
			// make it a value of a nearby LP)
			converged = exact
			break
		}
		if s.dwOut() {
			break
		}
	}
	dw.bound = best
	if !converged || lp.NumCols() == 0 {
		return best, false
	}
	// the master's optimum: integral, or rounded by the dive, then by
	// price and branch over the patterns (the master's bounds restored)
	if val, ok := s.dwPlacement(); ok {
		s.dwKeep(val)
	} else if !s.late() {
		before := s.incVal
		dw.heurNodes += s.dwRound()
		dw.rounded = s.incVal > before
		dw.left = s.dwPhasePivots()
		val, ok := s.dwDive()
		dw.dived = ok
		if ok {
			s.dwKeep(val)
		}
		s.dwRestore()
		dw.left = s.dwPhasePivots()
		if s.dwSolve() {
			val, ok := s.dwBranch()
			dw.branched = ok
			if ok {
				s.dwKeep(val)
			}
		}
	}
	dw.proved = best-s.incVal <= s.tol
	if !dw.proved && !s.late() {
		s.dwFix(dw.center)
	}
	return best, dw.proved
}

// dwDive rounds the master's fractional optimum: the unfixed pattern of
// the largest fractional λ is fixed at 1 (its server's other patterns
// and every other pattern of its components then 0), the master solved
// again with pricing (the fixed servers and the components they hold
// left out of it), until the optimum is integral; a fixing that makes
// the master infeasible is undone and the pattern excluded instead, at
// most dwBacktracks times. It returns the placement's value (in
// o.chosen) and whether it found one.
func (s *gangSolve) dwDive() (float64, bool) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	lp := &dw.lp
	dw.fixedSrv = grow(dw.fixedSrv, m.NumServers())
	dw.covered = grow(dw.covered, m.NumComponents())
	clear(dw.fixedSrv)
	clear(dw.covered)
	back := 0
	dw.tried = grow(dw.tried, dwMaxColumns)
	clear(dw.tried)
	for !s.dwOut() {
		if val, ok := s.dwPlacement(); ok {
			return val, true
		}
		// dw.x is the master's optimum (dwPlacement read it); the jobs
		// first: the fractional y nearest to 0 or 1 rounded (the other
		// value when that makes the master infeasible)
		t, yt := -1, 0.0
		for k, j := range dw.yCol {
			if y := dw.x[j]; y > 1e-5 && y < 1-1e-5 && max(y, 1-y) > yt {
				t, yt = k, max(y, 1-y)
			}
		}
		if t >= 0 {
			j := dw.yCol[t]
			v := math.Round(dw.x[j])
			lp.SetBounds(j, v, v)
			if !s.dwReprice() {
				if back++; back > dwBacktracks || s.dwOut() {
					return 0, false
				}
				v = 1 - v
				lp.SetBounds(j, v, v)
				if !s.dwReprice() {
					return 0, false
				}
			}
			if v == 0 {
				lo, hi := m.Components(s.active[t])
				for c := lo; c < hi; c++ {
					dw.covered[c] = true
				}
			}
			continue
		}
		j, xj := -1, 0.0
		for k, r := range dw.colSrv {
			if r >= 0 && !dw.fixedSrv[r] && !dw.tried[k] && dw.x[k] > 1e-5 && dw.x[k] > xj {
				j, xj = k, dw.x[k]
			}
		}
		if j < 0 {
			return 0, false
		}
		lp.SetBounds(j, 1, 1)
		if !s.dwReprice() {
			// undone: the master as it was, the next candidate
			if back++; back > dwBacktracks || s.dwOut() {
				return 0, false
			}
			dw.tried[j] = true
			lp.SetBounds(j, 0, math.Inf(1))
			if !s.dwReprice() {
				return 0, false
			}
			continue
		}
		clear(dw.tried)
		s.dwFixed(j)
	}
	return 0, false
}

// dwFixed marks column j's server fixed and its components covered.
func (s *gangSolve) dwFixed(j int) {
	dw := &s.o.dw
	dw.fixedSrv[dw.colSrv[j]] = true
	for _, i := range dw.colChan[dw.colStart[j]:dw.colEnd(j)] {
		dw.covered[s.ch.Component(i)] = true
	}
}

// dwBranch is price and branch: a depth-first branch and bound over the
// master's generated patterns (no pricing below the root), the master's
// LP at each node its bound (warm: the dual simplex after a bound
// change), a node pruned when its LP is at most the best placement's
// value (the incumbent's at the start); it branches on the fractional
// y nearest to 0 or 1 (that side first), else on the pattern of the
// largest fractional λ (1 first, so the first path is a dive), within
// dwBranchNodes nodes and the deadline. It returns the best placement
// found above the incumbent (in o.chosen) and whether there is one; the
// master's bounds are restored.
func (s *gangSolve) dwBranch() (float64, bool) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	C := m.NumComponents()
	dw.bestPl = grow(dw.bestPl, C)
	dw.target, dw.found, dw.nodes, dw.lamFixed = s.incVal, false, 0, 0
	s.dwNode()
	if !dw.found {
		return 0, false
	}
	copy(o.chosen[:C], dw.bestPl)
	return dw.target, true
}

// dwNode is one node of dwBranch, the master's bounds as its branches
// set them; it reports false when the nodes or the time ran out.
func (s *gangSolve) dwNode() bool {
	o := s.o
	dw := &o.dw
	lp := &dw.lp
	if dw.nodes++; dw.nodes > dwBranchNodes || s.dwOut() {
		return false
	}
	if !s.dwSolve() {
		// infeasible: pruned; out of time: stop
		return lp.Status() != simplex.IterationLimit
	}
	// a node whose branches fixed only jobs' y is priced to the end: its
	// master is then the Dantzig-Wolfe master of its jobs' decisions
	// (branch and price on the jobs), its value their bound
	for dw.lamFixed == 0 && len(dw.colSrv) < dwMaxColumns {
		dw.pi = lp.Duals(dw.pi)
		if _, ok := s.dwPrice(dw.pi); !ok || s.dwAddEntering() == 0 {
			break
		}
		if !s.dwSolve() {
			return lp.Status() != simplex.IterationLimit
		}
	}
	// the perturbed master's value is at least the true one: a prune
	// here is one of the true master too
	if lp.Objective() <= dw.target+s.tol {
		return true
	}
	if val, ok := s.dwPlacement(); ok {
		if val > dw.target {
			dw.target, dw.found = val, true
			copy(dw.bestPl, o.chosen[:s.ch.model.NumComponents()])
		}
		return true
	}
	// dw.x is the node's LP optimum (dwPlacement read it)
	j, side, best := -1, 0.0, 0.0
	for _, k := range dw.yCol {
		if y := dw.x[k]; y > 1e-5 && y < 1-1e-5 && max(y, 1-y) > best {
			j, side, best = k, math.Round(y), max(y, 1-y)
		}
	}
	if j < 0 {
		for k, r := range dw.colSrv {
			if r >= 0 && dw.x[k] > 1e-5 && dw.x[k] < 1-1e-5 && dw.x[k] > best {
				j, side, best = k, 1, dw.x[k]
			}
		}
	}
	if j < 0 {
		return true // integral, but not a placement under the capacity rule
	}
	lo, up := lp.Bounds(j)
	lam := 0
	if dw.colSrv[j] >= 0 {
		lam = 1
	}
	for _, v := range [2]float64{side, 1 - side} {
		if lam == 1 && v == 1 {
			lp.SetBounds(j, 1, up)
		} else {
			lp.SetBounds(j, v, v)
		}
		dw.lamFixed += lam
		ok := s.dwNode()
		dw.lamFixed -= lam
		// the node's master again (one bound changed back: the basis is
		// primal or dual feasible, and stays warm for the next change)
		lp.SetBounds(j, lo, up)
		if !ok || !s.dwSolve() {
			return false
		}
	}
	return true
}

// dwKeep keeps the placement in o.chosen, of value val, as the
// incumbent when it is better.
func (s *gangSolve) dwKeep(val float64) {
	o := s.o
	if val > s.incVal {
		C := s.ch.model.NumComponents()
		copy(o.inc[:C], o.chosen[:C])
		s.incVal = val
		s.tol = 1e-12 * max(1, math.Abs(val))
	}
}

// dwRestore gives every column of the master its bounds back ([0, 1] a
// y, [0, +Inf) a pattern).
func (s *gangSolve) dwRestore() {
	dw := &s.o.dw
	lp := &dw.lp
	for j, r := range dw.colSrv {
		up := math.Inf(1)
		if r < 0 {
			up = 1
		}
		if lo, u := lp.Bounds(j); lo != 0 || u != up {
			lp.SetBounds(j, 0, up)
		}
	}
}

// colEnd returns the end of column j's channels in colChan.
func (dw *dwState) colEnd(j int) int {
	if j+1 < len(dw.colStart) {
		return dw.colStart[j+1]
	}
	return len(dw.colChan)
}

// dwReprice solves the master and prices it until no pattern enters,
// leaving out the fixed servers and covered components; it reports
// false when the master is infeasible or time is up.
func (s *gangSolve) dwReprice() bool {
	o := s.o
	dw := &o.dw
	for len(dw.colSrv) < dwMaxColumns && dw.rounds < dwRounds {
		if !s.dwSolve() {
			return false
		}
		dw.pi = dw.lp.Duals(dw.pi)
		if _, ok := s.dwPriceExcl(dw.pi, true); !ok {
			return false
		}
		if s.dwAddEntering() == 0 {
			return true
		}
	}
	return s.dwSolve()
}

// dwPrice prices the channels at the duals pi (lam and z: every
// server's best pattern) and returns the Lagrangian bound UB(pi), false
// when the class form's search ran out of time.
func (s *gangSolve) dwPrice(pi []float64) (float64, bool) { return s.dwPriceExcl(pi, false) }

// dwPriceExcl is dwPrice, with excl the dive's fixed servers and
// covered components left out (priced -1; the bound is then not one).
func (s *gangSolve) dwPriceExcl(pi []float64, excl bool) (float64, bool) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	for _, l := range s.active {
		pl := nonneg(pi[dw.jobRow[l]])
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			pc := nonneg(pi[dw.compRow[c]])
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				dw.lam[i] = s.p.Value[i] - pc + pl
				if excl && (dw.covered[c] || dw.fixedSrv[s.ch.Server(i)]) {
					dw.lam[i] = -1
				}
			}
		}
	}
	clear(dw.z)
	o.ldc.since = 0
	ub := s.ldServersCls(dw.lam, dw.z)
	if math.IsInf(ub, 1) {
		return ub, false
	}
	for _, l := range s.active {
		lo, hi := m.Components(l)
		t := -float64(m.Min(l)) * nonneg(pi[dw.jobRow[l]])
		for c := lo; c < hi; c++ {
			t += nonneg(pi[dw.compRow[c]])
		}
		ub += max(0, t)
	}
	return ub, true
}

// nonneg is v clamped at 0 (NaN too): the Lagrangian is a bound for
// duals >= 0 only, and a simplex's optimal duals can be a rounding
// below 0.
func nonneg(v float64) float64 {
	if v > 0 {
		return v
	}
	return 0
}

// dwAddEntering adds every server's pattern marked in z whose reduced
// value at the master's duals dw.pi exceeds dwAddTol, and returns how
// many.
func (s *gangSolve) dwAddEntering() int {
	o, m := s.o, s.ch.model
	dw := &o.dw
	cs := &o.ldc
	added := 0
	for r := 0; r < m.NumServers(); r++ {
		if dw.srvRow[r] < 0 || len(dw.colSrv) >= dwMaxColumns {
			continue
		}
		v, any := -dw.pi[dw.srvRow[r]], false
		for _, i := range cs.gchan[cs.soff[r]:cs.soff[r+1]] {
			if dw.z[i] == 1 {
				c := s.ch.Component(i)
				v += s.p.Value[i] - dw.pi[dw.compRow[c]] + dw.pi[dw.jobRow[m.Job(c)]]
				any = true
			}
		}
		if any && v > dwAddTol {
			s.dwAddPattern(r)
			added++
		}
	}
	return added
}

// dwRows is the most rows of a master the column generation takes on:
// 250 without a time limit or at 1 s, 50 more per tenfold limit (on the
// DLRM slots at 1 s, masters of up to 250 rows converge within 0.25 s;
// those of 270 to 400 rows did not within half a second and cost the
// improvement phases that time; at 10 s, 291 rows converge in 1.1 s, 345
// to 400 not in 5 s). It depends on the settings only, not the clock.
func (s *gangSolve) dwRows() int {
	if !s.timed {
		return 250
	}
	r := 250 + 50*math.Log10(max(s.limit.Seconds(), 1e-3))
	return int(math.Max(0, math.Min(dwMaxRows, r)))
}

// dwPhasePivots is the simplex pivots of one phase (the rounds, the
// dive, price and branch): dwPivots, per second of the time limit when
// there is one, within [dwPivotsMin, dwPivotsMax]. On the DLRM slots at
// 1 s (masters of 170-250 rows, 15-40 µs a pivot) the three phases then
// take up to about half the limit; with 2^14 each they took all of it
// on slots 317 and 482 (the placement 4.5 % and 0.2 % lower).
func (s *gangSolve) dwPhasePivots() int {
	if !s.timed {
		return dwPivots
	}
	p := float64(dwPivots) * s.limit.Seconds()
	return int(math.Max(dwPivotsMin, math.Min(dwPivotsMax, p)))
}

// dwSolve solves the restricted master, dwChunk pivots between two
// readings of the clock, within the phase's pivots (dw.left); it reports
// whether it is optimal.
func (s *gangSolve) dwSolve() bool {
	dw := &s.o.dw
	lp := &dw.lp
	for {
		if s.dwOut() {
			return false
		}
		st := lp.Solve(min(dwChunk, dw.left))
		dw.left -= lp.Iterations()
		switch st {
		case simplex.Optimal:
			return true
		case simplex.IterationLimit:
		default:
			return false
		}
	}
}

// dwOut reports whether the phase's pivots or the time limit ran out.
func (s *gangSolve) dwOut() bool { return s.o.dw.left <= 0 || s.late() }

// dwAddPattern adds server r's pattern of the channels marked in dw.z
// to the master (nothing for an empty one).
func (s *gangSolve) dwAddPattern(r int) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	cs := &o.ldc
	start := len(dw.colChan)
	v := 0.0
	dw.rows, dw.vals = dw.rows[:0], dw.vals[:0]
	dw.rows = append(dw.rows, dw.srvRow[r])
	dw.vals = append(dw.vals, 1)
	for _, i := range cs.gchan[cs.soff[r]:cs.soff[r+1]] {
		if dw.z[i] != 1 {
			continue
		}
		c := s.ch.Component(i)
		dw.colChan = append(dw.colChan, i)
		v += s.p.Value[i]
		dw.rows = append(dw.rows, dw.compRow[c])
		dw.vals = append(dw.vals, 1)
	}
	if len(dw.colChan) == start {
		return
	}
	// the jobs' rows: -|p ∩ Q_l|
	for _, i := range dw.colChan[start:] {
		row := dw.jobRow[m.Job(s.ch.Component(i))]
		found := false
		for t := len(dw.rows) - 1; t >= 0 && dw.vals[t] < 0; t-- {
			if dw.rows[t] == row {
				dw.vals[t]--
				found = true
				break
			}
		}
		if !found {
			dw.rows = append(dw.rows, row)
			dw.vals = append(dw.vals, -1)
		}
	}
	dw.lp.AddColumn(v, 0, math.Inf(1), dw.rows, dw.vals)
	dw.colSrv = append(dw.colSrv, r)
	dw.colStart = append(dw.colStart, start)
}

// dwPlacement reads an integral master optimum as a placement in
// o.chosen, placed server by server and checked under the capacity rule;
// it returns its value and false when the optimum is fractional or the
// placement does not fit.
func (s *gangSolve) dwPlacement() (float64, bool) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	dw.x = dw.lp.X(dw.x)
	const tol = 1e-5 // the perturbation's scale, and more
	for _, v := range dw.x {
		if v > tol && v < 1-tol {
			return 0, false
		}
	}
	C := m.NumComponents()
	cur := o.chosen[:C]
	for c := range cur {
		cur[c] = -1
	}
	clear(o.load)
	val := 0.0
	for j, r := range dw.colSrv {
		if r < 0 || dw.x[j] < 0.5 {
			continue
		}
		end := len(dw.colChan)
		if j+1 < len(dw.colStart) {
			end = dw.colStart[j+1]
		}
		for _, i := range dw.colChan[dw.colStart[j]:end] {
			c := s.ch.Component(i)
			if cur[c] >= 0 || !s.fitsAt(m.Demand(c), r) {
				return 0, false
			}
			s.place(c, r)
			cur[c] = r
			val += s.p.Value[i]
		}
	}
	// every job none or at least its minimum
	for _, l := range s.active {
		if n := s.placedOf(cur, l); n > 0 && n < m.Min(l) {
			return 0, false
		}
	}
	return val, true
}

// dwFixMargin is the relative margin added to dwFix's bounds (sums of a
// few hundred terms round; a channel is fixed out, a node pruned, only
// when its bound is below the incumbent by more than that).
const dwFixMargin = 1e-9

// dwFix is reduced-cost fixing and the search's node bound by the column
// generation's Lagrangian at duals pi >= 0 (the master's rows relaxed,
// each server's knapsack kept). For a placement x serving the jobs y,
//
//	value(x) = Σ_i λ_i x_i + Σ_l y_l t_l - Σ_c π_c (y_l - x_c) - Σ_l π_l (Σ_{Q_l} x - m_l y_l)
//	        <= Σ_r Λ_r(x) + Σ_l y_l t_l - Σ_{c unplaced, l served} π_c,
//
// t_l = Σ_{c in Q_l} π_c - m_l π_l, Λ_r(x) the λ of x's channels on
// server r. Λ_r(x) is at most B_r, server r's best pattern at λ, and
// at most λ_i + B_r(a_c) for each channel i (component c) of x on r,
// B_r(a_c) the best pattern of r beside c's demand (one knapsack per
// server and class of equal demands; those patterns may hold i again,
// so it is an upper bound). So a channel i of job l bounds every
// placement that uses it by
//
//	ub_i = UB(pi) - B_r + λ_i + B_r(a_c) + min(0, t_l),
//
// UB(pi) = Σ_r B_r + Σ_l max(0, t_l) (o.ldub, the smaller where ldFix
// set one), and a search node whose placed channels on r are P_r, whose
// jobs with a placed component are served and whose components decided
// unplaced are U_l by
//
//	Σ_r min(B_r, min_{i in P_r} λ_i + B_r(a_c)) + Σ_l J_l,
//	J_l = t_l - π(U_l) when l has a placed component, else max(0, t_l - π(U_l))
//
// (a job outside the search: t_l - π(its unplaced) when served, else 0).
// dwFix sets those (dwbOn) and reports false, leaving them, when the
// pricing's work or the time ran out.
func (s *gangSolve) dwFix(pi []float64) bool {
	o, m := s.o, s.ch.model
	dw := &o.dw
	cs := &o.ldc
	ub, ok := s.dwPrice(pi)
	if !ok {
		return false
	}
	R, C, N := m.NumServers(), m.NumComponents(), s.ch.Len()
	dw.jobT, dw.compPi = growF(dw.jobT, m.NumJobs()), growF(dw.compPi, C)
	for _, l := range s.active {
		t := -float64(m.Min(l)) * nonneg(pi[dw.jobRow[l]])
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			dw.compPi[c] = nonneg(pi[dw.compRow[c]])
			t += dw.compPi[c]
		}
		dw.jobT[l] = t
	}
	dw.srvB, dw.chanB = growF(dw.srvB, R), growF(dw.chanB, N)
	for i := range dw.chanB[:N] {
		dw.chanB[i] = math.Inf(1)
	}
	margin := dwFixMargin * max(1, math.Abs(ub))
	for r := 0; r < R; r++ {
		dw.srvB[r] = 0
		g0, g1 := cs.grpStart[r], cs.grpStart[r+1]
		if g0 == g1 {
			continue
		}
		if s.late() {
			return false
		}
		br := s.ldcServer(r, dw.lam, nil, nil)
		if math.IsInf(br, 1) {
			return false
		}
		dw.srvB[r] = br + margin
		for g := g0; g < g1; g++ {
			if cs.nmax[g] == 0 {
				continue
			}
			rest := s.ldcServer(r, dw.lam, nil, m.Demand(cs.gdem[g]))
			if math.IsInf(rest, 1) {
				return false
			}
			for _, i := range cs.gchan[cs.gStart[g]:cs.gStart[g+1]] {
				dw.chanB[i] = dw.lam[i] + rest + margin
			}
		}
	}
	fresh := !s.fixOn
	if fresh {
		o.ldub = growF(o.ldub, N)
	}
	n := 0
	for i := range o.ldub[:N] {
		v := math.Inf(1)
		if s.ch.fits[i] && !math.IsInf(dw.chanB[i], 1) {
			r, l := s.ch.Server(i), m.Job(s.ch.Component(i))
			v = ub + margin - dw.srvB[r] + min(dw.srvB[r], dw.chanB[i]) + min(0, dw.jobT[l])
		}
		if fresh {
			o.ldub[i] = v
		} else {
			o.ldub[i] = min(o.ldub[i], v)
		}
		if s.ch.fits[i] && o.ldub[i] <= s.incVal+s.tol {
			n++
		}
	}
	o.fixed = n
	s.fixOn, s.dwbOn, dw.fixRan = true, true, true
	return true
}

// dwbStart sets the search's node bound state (dwFix) for a search over
// jobs from the placement cur (the other jobs fixed), and returns its
// two sums: the servers' and the jobs'.
func (s *gangSolve) dwbStart(cur []int, jobs []int) (ts, tj float64) {
	o, m := s.o, s.ch.model
	dw := &o.dw
	R := m.NumServers()
	dw.srvS = growF(dw.srvS, R)
	copy(dw.srvS, dw.srvB[:R])
	for c, r := range cur {
		if r >= 0 {
			if i, ok := s.ch.Channel(c, r); ok {
				dw.srvS[r] = min(dw.srvS[r], dw.chanB[i])
			}
		}
	}
	for _, v := range dw.srvS {
		ts += v
	}
	dw.jobU = growF(dw.jobU, m.NumJobs())
	for _, l := range s.active {
		dw.jobU[l] = 0
		o.inSearch[l] = false
	}
	for _, l := range jobs {
		o.inSearch[l] = true
	}
	for _, l := range s.active {
		if o.inSearch[l] {
			tj += max(0, dw.jobT[l])
			continue
		}
		lo, hi := m.Components(l)
		placed, u := false, 0.0
		for c := lo; c < hi; c++ {
			if cur[c] >= 0 {
				placed = true
			} else {
				u += dw.compPi[c]
			}
		}
		if placed {
			tj += dw.jobT[l] - u
		}
	}
	return ts, tj
}

// dwbJob is job l's term of the node bound with placed of its
// components placed.
func (dw *dwState) dwbJob(l, placed int) float64 {
	if placed > 0 {
		return dw.jobT[l] - dw.jobU[l]
	}
	return max(0, dw.jobT[l]-dw.jobU[l])
}

// dwRoundNodes is the node budget of the improvement that follows
// dwRound's construction.
const dwRoundNodes = 1 << 16

// dwRound is the master's rounding: a placement built from its
// fractional optimum (dw.x, as dwPlacement read it), each server's
// pattern of the largest λ (its channels, of the jobs whose y is at
// least 1/2, taken by decreasing λ, then the jobs completed and those
// short of their minimum left out: fromPatternsBy), improved as a
// restart within dwRoundNodes nodes and kept if better than the
// incumbent. It returns the nodes used.
func (s *gangSolve) dwRound() int64 {
	o, m := s.o, s.ch.model
	dw := &o.dw
	clear(dw.z)
	R := m.NumServers()
	dw.bestLam, dw.bestCol = growF(dw.bestLam, R), growI(dw.bestCol, R)
	for r := range R {
		dw.bestLam[r], dw.bestCol[r] = 1e-6, -1
	}
	for j, r := range dw.colSrv {
		if r >= 0 && dw.x[j] > dw.bestLam[r] {
			dw.bestLam[r], dw.bestCol[r] = dw.x[j], j
		}
	}
	for k, l := range s.active {
		o.jkey[l] = dw.x[dw.yCol[k]]
	}
	for r, j := range dw.bestCol[:R] {
		if j < 0 {
			continue
		}
		for _, i := range dw.colChan[dw.colStart[j]:dw.colEnd(j)] {
			if o.jkey[m.Job(s.ch.Component(i))] >= 0.5 {
				dw.z[i] = 1
				dw.lam[i] = dw.bestLam[r]
			}
		}
	}
	val := s.fromPatternsBy(dw.z, dw.lam)
	return s.restartP(val, o.capv, dwRoundNodes, lnsFails*len(s.active))
}
