package esdp

import "math"

// The job tree (issue 29): branching on the jobs' "served" decision
// before the components, at the root of a small problem's search, as a
// MILP solver branches on a fractional binary. On medium-41 of
// scripts/gangbench the LP bound is 25.5977, the Dantzig-Wolfe bound
// 25.2886 and the optimum 24.5059; with the jobs' served variables
// integral (the components' still fractional) the LP gives 24.7933, and
// an LP branch and bound on those variables alone takes 11 nodes to
// leaves whose gaps are 0.5-1.2 %. The search, branching on components
// with the root's multipliers at every node, took 41 669 nodes (32 231
// with the optimum known from its start): its bound never sees a job
// decided. With job 9 out and every other job forced served, the
// capacity relaxation re-minimised there gives 24.76, and the search of
// that leaf proves the optimum in 10 462 nodes.
//
// When it runs: GangExact on a problem of at most AutoSearchComponents
// components with the enumerated decomposition bound, after the probes,
// when the root has a job to branch on (treeBranches) and a first
// search of treeGate nodes does not finish (most instances end there,
// and the tree's cost is then saved), within treeBudget relaxation
// evaluations and search nodes (both count in Nodes), and only when its
// multipliers fit treeMaxFloats (servers × resources × 3 × levels).
//
// A node of the tree has the jobs forced served in o.forceIn (the
// relaxation serves them whatever their value, the search's "unplaced"
// branch and its bounds require them) and the excluded ones out of
// s.active. Its bound is the capacity relaxation minimised by at most
// treeIterations subgradient steps from its parent's best multipliers
// (probeBound, whose roundings also seek incumbents); a node whose bound
// is at most the incumbent's value is pruned. Otherwise, at the node's
// best multipliers mu, with L = L(mu) and phi_l the job's relaxed value,
// a free job l (neither forced nor excluded) is fixed by its reduced
// cost:
//
//   - served, when L - phi_l (a bound of the placements that do not
//     serve l) is at most the incumbent's value;
//   - excluded, when L - phi_l + in_l is, in_l being the job's relaxed
//     value forced served (its best m_l or more components at the
//     reduced values, -Inf when fewer fit).
//
// The branching job is the free job of the smallest score: phi_l when
// the relaxation serves it, -in_l when it does not (a job the relaxation
// is nearly indifferent about, as a fractional y_l in the LP). Both
// children's bounds are computed, and the child of the larger bound is
// visited first (depth first, the relaxation's side first took 33 641
// nodes on medium-41, most of them in a leaf whose bound was below the
// optimum, searched before the incumbent reached it; by the larger bound
// 3 027). When the score is above treeFrac times the node's gap (bound
// minus incumbent), or no free job is left, the node is a leaf: the
// search runs on it from the leaf's multipliers (tighten). A root that
// is a leaf has nothing to branch on, and the tree hands over to the
// usual search at once: on the DLRM slots, where the relaxation serves
// every app, the root's leaf search repeated the usual one, 0.07-0.3 s
// on 100-odd slots at 1 s.
//
// The tree proves the incumbent optimal when every node is pruned or
// searched to the end. It gives up, leaving the search to the usual
// path from the root's state, after treeMaxNodes nodes, when its
// evaluations and searches exceed its budget, or at the time limit: its
// incumbents are kept, its bounds are not.
//
// Each pruned node bounds the placements of its subproblem (its forced
// jobs served, its excluded ones not), a fixing prunes a child whose
// bound at the node's multipliers is at most the incumbent's value, and
// the leaves' searches enumerate their subproblems: the subproblems of
// a node's children partition its own, so a tree that ends proves the
// incumbent optimal. TestGangJobTreeBruteForce checks it against
// enumeration.
const (
	treeIterations = 32
	treeMaxNodes   = 64
	treeFrac       = 0.25
	treeGate       = 1 << 12
	treeBudget     = 1 << 14
	// treeMaxFloats bounds the tree's multipliers (three vectors of a
	// float64 per server and resource per level, a level per decided
	// job, at most treeMaxNodes levels): 32 MiB. A problem whose
	// servers need more is searched without the tree.
	treeMaxFloats = 1 << 22
)

// treeLevels is the depth bound of the tree (each level decides a job,
// each node is at most one level deeper than its parent).
func (s *gangSolve) treeLevels() int { return min(len(s.active), treeMaxNodes) + 1 }

// treeFits reports whether the tree's multipliers fit treeMaxFloats.
func (s *gangSolve) treeFits() bool {
	return len(s.o.bestMu) <= treeMaxFloats/(3*s.treeLevels())
}

type treeState struct {
	mu     []float64 // per depth: the node's best multipliers (RK each)
	act    []int     // the active lists saved per depth, concatenated
	forced []int     // the jobs fixed served per depth, concatenated
	nodes  int       // nodes visited
	leaves int       // leaves searched
	used   int64     // evaluations and search nodes so far
	max    int64     // their budget
	root   []float64 // the root's best multipliers
	// the last solve's tree (for tests): whether it ran and proved the
	// incumbent optimal
	ran, proved bool
}

// jobTree runs the job tree within budget evaluations and search nodes.
// It returns the nodes used and whether it proved the incumbent optimal.
// On return s.active, o.forceIn and the search's root state (bestMu and
// tighten's values) are the root's.
func (s *gangSolve) jobTree(capv []float64, budget int64) (int64, bool) {
	o := s.o
	t := &o.tree
	RK := len(o.bestMu)
	t.nodes, t.leaves, t.used, t.max = 0, 0, 0, budget
	t.root = growF(t.root, RK)
	// three multiplier vectors per depth (the node's, its children's)
	t.mu = growF(t.mu, 3*s.treeLevels()*RK)
	copy(t.root, o.bestMu)
	t.act, t.forced = t.act[:0], t.forced[:0]
	// the root's bound, minimised from the best multipliers
	B := s.treeBound(capv)
	copy(o.bestMu, o.probe.best)
	done := s.treeNode(capv, 0, B)
	t.ran, t.proved = true, done
	clear(o.forceIn)
	copy(o.bestMu, t.root)
	switch {
	case done:
	case t.leaves > 0:
		s.tighten(capv) // the search's values at the root's multipliers
	default:
		// no leaf searched: tighten's values are the root's, only the
		// relaxation's (bw, bch, phi) changed
		s.relax(o.bestMu, s.active, nil)
	}
	return t.used, done
}

// treeBranches reports whether the job tree would branch at its root:
// treeNode's choice at depth 0 (without its fixings), at the best
// multipliers as they are (the tree's root minimises the relaxation
// further). It leaves the relaxation's values (bw, bch, phi) at them.
func (s *gangSolve) treeBranches(capv []float64) bool {
	o := s.o
	L := dot(o.bestMu, capv) + s.relax(o.bestMu, s.active, nil)
	if L <= s.incVal+s.tol {
		return false // the search's bounds end it at once
	}
	for _, l := range s.active {
		if fix, sc := s.treeJob(l, L); fix == treeFree && sc <= treeFrac*(L-s.incVal) {
			return true
		}
	}
	return false
}

// What the reduced costs decide for a job at a node of the tree.
const (
	treeFree = iota // neither: a branching candidate
	treeIn          // served: not serving it cannot beat the incumbent
	treeOut         // excluded: serving it cannot
	treeNone        // both: nothing at the node beats the incumbent
)

// treeJob fixes job l by its reduced costs at the last relax, L being
// the relaxation's value there: not serving l is bounded by L - phi_l,
// serving it by L - phi_l + in_l (forcedValue). For a free job it also
// returns its branching score: phi_l when the relaxation serves it,
// -in_l when it does not (the smaller, the more indifferent the
// relaxation is about l).
func (s *gangSolve) treeJob(l int, L float64) (int, float64) {
	phi, in := s.o.phi[l], s.forcedValue(l)
	out, at := L-phi <= s.incVal+s.tol, L-phi+in <= s.incVal+s.tol
	switch {
	case out && at:
		return treeNone, 0
	case out:
		return treeIn, 0
	case at:
		return treeOut, 0
	case phi > 0:
		return treeFree, phi
	default:
		return treeFree, -in
	}
}

// treeBound minimises the relaxation at the current node (o.forceIn,
// s.active) from the multipliers in o.bestMu by at most treeIterations
// steps and returns the bound, its multipliers in o.probe.best.
func (s *gangSolve) treeBound(capv []float64) float64 {
	o := s.o
	t := &o.tree
	o.probe.evals, o.probe.max = 0, min(treeIterations, t.max-t.used)
	B := s.probeBound(capv, 0)
	t.used += o.probe.evals
	return B
}

// treeNode visits the node at depth d, its bound B and multipliers (in
// o.bestMu) computed by its parent, and reports whether its subtree was
// pruned or searched to the end. s.active and o.forceIn are restored on
// return.
func (s *gangSolve) treeNode(capv []float64, d int, B float64) bool {
	o := s.o
	t := &o.tree
	if B <= s.incVal+s.tol {
		return true
	}
	t.nodes++
	if t.nodes > treeMaxNodes || t.used >= t.max || s.late() {
		return false
	}
	RK := len(o.bestMu)
	mu := t.mu[3*d*RK : (3*d+1)*RK]
	copy(mu, o.bestMu)
	// save the active list; restored on return
	base := len(t.act)
	t.act = append(t.act, s.active...)
	n := len(s.active)
	fbase := len(t.forced) // this node's fixings in: t.forced[fbase:]
	defer func() {
		for _, l := range t.forced[fbase:] {
			o.forceIn[l] = false
		}
		t.forced = t.forced[:fbase]
		s.active = s.active[:n]
		copy(s.active, t.act[base:base+n])
		t.act = t.act[:base]
	}()
	L := dot(mu, capv) + s.relax(mu, s.active, nil)
	t.used++
	if L <= s.incVal+s.tol {
		return true
	}
	// reduced-cost fixing of the free jobs, then the branching job
	br, score := -1, math.Inf(1)
	for j := 0; j < len(s.active); j++ {
		l := s.active[j]
		if o.forceIn[l] {
			continue
		}
		switch fix, sc := s.treeJob(l, L); fix {
		case treeNone:
			return true // neither served nor not: nothing beats the incumbent
		case treeIn:
			o.forceIn[l] = true
			t.forced = append(t.forced, l)
		case treeOut:
			s.active = append(s.active[:j], s.active[j+1:]...)
			j--
		default:
			if sc < score {
				br, score = l, sc
			}
		}
	}
	if br < 0 || score > treeFrac*(B-s.incVal) {
		if d == 0 {
			return false // nothing to branch on: the usual search
		}
		// a leaf: the search from the leaf's multipliers
		t.leaves++
		copy(o.bestMu, mu)
		if s.tighten(capv) <= s.incVal+s.tol {
			return true
		}
		if s.late() {
			return false
		}
		jobs := append(o.idx[:0], s.active...)
		nodes, done := s.searchAll(capv, s.searchWork(jobs, t.max-t.used, MaxGangSearchWork))
		t.used += nodes
		return done
	}
	// the two children's bounds, then the children by decreasing bound
	var cb [2]float64
	for k := 0; k < 2; k++ {
		copy(o.bestMu, mu)
		j := s.treeBranch(br, k == 0)
		cb[k] = s.treeBound(capv)
		s.treeUnbranch(br, k == 0, j)
		copy(t.mu[(3*d+1+k)*RK:(3*d+2+k)*RK], o.probe.best)
		if s.late() || t.used >= t.max {
			return false
		}
	}
	first := 0
	if cb[1] > cb[0] {
		first = 1
	}
	for _, k := range [2]int{first, 1 - first} {
		copy(o.bestMu, t.mu[(3*d+1+k)*RK:(3*d+2+k)*RK])
		j := s.treeBranch(br, k == 0)
		ok := s.treeNode(capv, d+1, cb[k])
		s.treeUnbranch(br, k == 0, j)
		if !ok {
			return false
		}
	}
	return true
}

// treeBranch forces job l served (in) or takes it out of s.active, and
// returns its position there (for treeUnbranch).
func (s *gangSolve) treeBranch(l int, in bool) int {
	if in {
		s.o.forceIn[l] = true
		return -1
	}
	j := 0
	for s.active[j] != l {
		j++
	}
	s.active = append(s.active[:j], s.active[j+1:]...)
	return j
}

// treeUnbranch undoes treeBranch(l, in) that returned j.
func (s *gangSolve) treeUnbranch(l int, in bool, j int) {
	if in {
		s.o.forceIn[l] = false
		return
	}
	s.active = s.active[:len(s.active)+1]
	copy(s.active[j+1:], s.active[j:])
	s.active[j] = l
}

// forcedValue returns job l's relaxed value served (its best m_l or more
// components at the last relax's reduced values bw), -Inf when fewer
// than m_l components have a fitting channel.
func (s *gangSolve) forcedValue(l int) float64 {
	o, m := s.o, s.ch.model
	lo, hi := m.Components(l)
	v := o.tmp0[:0]
	for c := lo; c < hi; c++ {
		if o.bch[c] >= 0 {
			v = append(v, o.bw[c])
		}
	}
	if len(v) < m.Min(l) {
		return math.Inf(-1)
	}
	return jobPart(v, m.Min(l), false)
}
