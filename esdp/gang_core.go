package esdp

// Core neighbourhoods (issue 29, time limit only). On the DLRM slots
// where HiGHS was still ahead, both serve the same apps: the difference
// is where 3 to 42 of their components sit, moved along chains of 4 to
// 27 servers (slot 95: nine components, each taking the place of the
// next), which neither a job neighbourhood of five jobs nor class
// reassignment reaches. Restricted to the channels whose LP reduced
// cost is at most a quarter of the root gap (LP bound minus optimum),
// 10-32 % of them, those slots keep their optimum (HiGHS on slots 38,
// 95, 317, 455 and 594). The core neighbourhoods are job neighbourhoods
// searched over such channels only: coreJobs jobs freed (every other
// target any active job), every channel whose reduced value at the best
// multipliers is more than coreFrac times the current gap (bound minus
// incumbent) below its component's best skipped, coreNodes nodes a
// step, until coreFails steps in a row fail. The restriction is a
// heuristic: the core searches prove nothing (improve ignores whether a
// search completed) and the bound is untouched. See the package doc.
const (
	coreFrac  = 0.25
	coreJobs  = 8
	coreNodes = 1 << 12
	coreFails = 20
	// coreFirst is the nodes of a time-limited search on a small problem
	// before the core neighbourhoods run (then it starts again): of the
	// 558 searches that proved a DLRM slot within 1 s, 14 took more than
	// 2^18 nodes, none more than 2^20.
	coreFirst = 1 << 18
)

// coreImprove runs the core neighbourhoods from the incumbent within
// budget nodes, bound being the certified bound, and returns the nodes
// used.
func (s *gangSolve) coreImprove(capv []float64, bound float64, budget int64) int64 {
	if bound-s.incVal <= s.tol {
		return 0
	}
	s.core = coreFrac * (bound - s.incVal)
	at := s.anyTarget
	s.anyTarget = true
	n := s.improve(capv, budget, coreJobs, coreNodes, coreFails)
	s.core, s.anyTarget = 0, at
	return n
}
