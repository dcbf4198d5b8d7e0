package esdp

import "math"

// Job probes (issue 29): strong branching on the jobs' "served" decision
// at the root of a small problem's branch and bound, as a MILP solver's
// probing fixes a binary. For an active job l that the incumbent does not
// serve, the capacity relaxation with l forced to be served (its m_l best
// components or more, whatever their reduced values) is minimised by a
// short subgradient from the best multipliers. When that bound falls to
// the incumbent's value, no placement that serves l beats the incumbent
// and l leaves the search. Exclusions strengthen the next probes (the
// excluded job's channels no longer compete), so the probes repeat until a
// round excludes nothing. Then the relaxation without the excluded jobs
// is minimised the same way; when it falls to the incumbent's value, the
// incumbent is proved optimal with no search, and when it is below the
// root's bound its multipliers become the search's best multipliers.
//
// The bound: each excluded job's probe ran without the jobs excluded
// before it, so it bounds every placement whose first served excluded job
// (in the order of exclusion) is that job; a placement serving none is
// bounded by the relaxation without them. The largest of these bounds the
// whole problem (the probes' part is at most the incumbent's value). Each
// probe also rounds its relaxation every probeRoundEvery steps, the
// forced job first: a primal heuristic at new multipliers. The probes'
// relaxation evaluations count against the node budget.
//
// Measured on medium-13 of scripts/gangbench (LP and Dantzig-Wolfe bound
// 20.6552, optimum 19.6262): with job 6 forced served the LP is 18.8989,
// and without job 6 it is the optimum; the search went from 46 341 nodes
// to 2 299. The esdp doc has the other measurements and what was tried
// and not kept.
const (
	// probeIterations bounds the subgradient iterations of one probe.
	probeIterations = 32
	// probeRounds bounds the rounds of probes.
	probeRounds = 4
	// probeRoundEvery is the period of a probe's roundings.
	probeRoundEvery = 16
	// A job's probe gives up after probeCheck iterations when its bound
	// has come less than probeProgress of the way to the incumbent's
	// value. On the 60 medium instances of scripts/gangbench, 41 of 117
	// probes excluded their job, every one more than 0.69 of the way
	// there after 8 iterations; half of the others had not moved.
	probeCheck    = 8
	probeProgress = 0.5
)

type probeState struct {
	evals, max    int64     // the probes' relaxation evaluations so far, and their budget
	mu, use, best []float64 // per (server, resource): a probe's multipliers, resource use, best multipliers
	// the last solve's probes: the jobs excluded, and whether the
	// relaxation without them proved the incumbent optimal (for tests)
	excluded int
	proved   bool
}

// probeBound minimises the capacity relaxation over the active jobs, job
// force-1 served if force > 0, by at most probeIterations projected
// subgradient steps (Polyak, towards the incumbent's value) from the best
// multipliers, rounding every probeRoundEvery steps, and stops as soon as
// the bound reaches the incumbent's value. It returns the least bound
// seen, a valid upper bound of every placement of the active jobs
// (serving job force-1, if set), with its multipliers in o.probe.best. It
// overwrites bw, bch, phi, load and chosen.
func (s *gangSolve) probeBound(capv []float64, force int) float64 {
	o := s.o
	mu, use := o.probe.mu, o.probe.use
	copy(mu, o.bestMu)
	s.force = force
	defer func() { s.force = 0 }()
	best, theta, stall, first := math.Inf(1), 1.0, 0, 0.0
	for it := 0; it < probeIterations && o.probe.evals < o.probe.max && !s.late(); it++ {
		o.probe.evals++
		clear(use)
		L := dot(mu, capv) + s.relax(mu, s.active, use)
		if it == 0 {
			first = L
		} else if it == probeCheck && force > 0 && first-min(best, L) < probeProgress*(first-s.incVal) {
			break // too slow to reach the incumbent: give up
		}
		if L < best {
			best, stall = L, 0
			copy(o.probe.best, mu)
		} else if stall++; stall >= 4 {
			theta /= 2
			stall = 0
		}
		if it%probeRoundEvery == 0 {
			// the rounding at these multipliers, the forced job first
			if force > 0 {
				o.phi[force-1] = math.Inf(1)
			}
			if v := s.roundBy(roundPhi, -1, mu); v > s.incVal {
				s.incVal = v
				s.tol = 1e-12 * max(1, math.Abs(v))
				copy(o.inc, o.chosen[:s.ch.model.NumComponents()])
			}
		}
		if best <= s.incVal+s.tol {
			break
		}
		g2 := 0.0
		for i, u := range use {
			if d := capv[i] - u; d < 0 || mu[i] > 0 {
				g2 += d * d
			}
		}
		if g2 == 0 {
			break
		}
		step := theta * (L - s.incVal) / g2
		for i, u := range use {
			mu[i] = max(0, mu[i]-step*(capv[i]-u))
		}
	}
	return best
}

// probeJobs runs the job probes, removes the excluded jobs from s.active
// and returns a bound of the whole problem, at most root (the bound so
// far), and the relaxation evaluations it made, at most budget (each
// costs about what a search node does: a scan of the channels). bw, bch and phi are left at the best multipliers; when jobs are
// excluded and the bound without them is below root, the best
// multipliers become that bound's and the search's reduced values and
// per-job bounds (tighten) are set anew at them.
func (s *gangSolve) probeJobs(capv []float64, root float64, budget int64) (float64, int64) {
	o := s.o
	out := math.Inf(-1) // the largest bound of an excluded job's probe
	n := len(s.active)
	o.probe.evals, o.probe.max = 0, budget
	defer func() { o.probe.excluded = n - len(s.active) }()
	for round := 0; round < probeRounds; round++ {
		excluded := false
		for j := 0; j < len(s.active) && !s.late(); j++ {
			l := s.active[j]
			if s.incServes(l) {
				continue
			}
			if b := s.probeBound(capv, l+1); b <= s.incVal+s.tol {
				out = max(out, b)
				s.active = append(s.active[:j], s.active[j+1:]...)
				j--
				excluded = true
			}
		}
		if !excluded {
			break
		}
	}
	if out == math.Inf(-1) || s.late() {
		s.relax(o.bestMu, s.active, nil)
		return root, o.probe.evals
	}
	rest := s.probeBound(capv, 0)
	o.probe.proved = rest <= s.incVal+s.tol
	if rest > s.incVal+s.tol && rest < root && !s.late() {
		copy(o.bestMu, o.probe.best)
		rest = min(rest, s.tighten(capv))
	} else {
		s.relax(o.bestMu, s.active, nil)
	}
	return min(root, max(out, rest)), o.probe.evals
}
