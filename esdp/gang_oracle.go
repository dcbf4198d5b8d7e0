package esdp

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/msched/msched/bipartite"
)

// GangMethod selects how a GangOracle solves the gang knapsack.
type GangMethod int

const (
	// GangAuto, the zero value, computes the Lagrangian bound and its
	// rounding; when their gap is not closed it improves the placement by
	// a large-neighbourhood search and, when the arrived jobs have at most
	// AutoSearchComponents components, runs branch and bound from that
	// incumbent, all within GangOracleSettings.MaxNodes (default 2^12),
	// and returns the best placement found with a certified bound (Status
	// Optimal when the search completed or the gap closed, NodeLimit
	// otherwise). It always returns a feasible placement.
	GangAuto GangMethod = iota
	// GangExact is the same with a larger default budget (2^20 nodes,
	// DefaultGangExactIterations subgradient iterations) and the search
	// whatever the size: exact unless the result's Status is NodeLimit.
	GangExact
	// GangScalable computes only the Lagrangian bound and its rounding:
	// O(Iterations · channels · K) work, a feasible placement and its
	// certified gap, never a search.
	GangScalable
)

var gangMethodNames = [...]string{GangAuto: "auto", GangExact: "exact", GangScalable: "scalable"}

func (m GangMethod) String() string {
	if m >= 0 && int(m) < len(gangMethodNames) {
		return gangMethodNames[m]
	}
	return fmt.Sprintf("GangMethod(%d)", int(m))
}

// Gang oracle defaults and limits.
const (
	// DefaultGangNodes is GangExact's branch-and-bound budget when
	// GangOracleSettings.MaxNodes is 0.
	DefaultGangNodes int64 = 1 << 20
	// DefaultGangAutoNodes is GangAuto's budget when MaxNodes is 0.
	DefaultGangAutoNodes int64 = 1 << 12
	// MaxGangNodes bounds GangOracleSettings.MaxNodes.
	MaxGangNodes int64 = 1 << 40
	// DefaultGangIterations is the number of subgradient iterations of the
	// Lagrangian bound when GangOracleSettings.Iterations is 0 (GangAuto,
	// GangScalable).
	DefaultGangIterations = 48
	// DefaultGangExactIterations is GangExact's number of subgradient
	// iterations when GangOracleSettings.Iterations is 0: enough for the
	// bound to reach the LP relaxation's on the instances of
	// scripts/gangbench, which the search then prunes with; 256
	// (ldCapIterations) when the Lagrangian decomposition bound is used
	// (see the package doc).
	DefaultGangExactIterations = 1024
	// MaxGangIterations bounds GangOracleSettings.Iterations.
	MaxGangIterations = 1 << 16
	// MaxGangTimeLimit bounds GangOracleSettings.TimeLimit.
	MaxGangTimeLimit = 24 * time.Hour
	// MaxGangValue bounds |Value| of a channel of a GangKnapsack, so that
	// every sum over MaxGangChannels channels stays finite and exact to
	// about 2^-2 of a unit at worst.
	MaxGangValue = 1 << 40
)

// GangOracleSettings configures a GangOracle. The zero value is ready:
// GangAuto with DefaultGangAutoNodes nodes and DefaultGangIterations
// subgradient iterations.
type GangOracleSettings struct {
	// Method selects the algorithm; the zero value is GangAuto.
	Method GangMethod
	// MaxNodes bounds the branch-and-bound nodes of one Solve, 0..2^40;
	// 0 means DefaultGangNodes for GangExact and DefaultGangAutoNodes for
	// GangAuto. Each node costs O(K + the component's channels).
	MaxNodes int64
	// Iterations bounds the subgradient iterations of the Lagrangian
	// bound, 0..MaxGangIterations; 0 means DefaultGangIterations. Each
	// costs O(channels · K + servers · K).
	Iterations int
	// TimeLimit, if positive (at most MaxGangTimeLimit), is an opt-in
	// wall-clock cut-off of one Solve; 0 means none. With a time limit
	// the node budget is MaxNodes, or MaxGangNodes when MaxNodes is 0
	// (the time ends the solve), and GangAuto and GangExact keep
	// improving the placement until one of them ends: the improvement
	// phase and the search run at the budget they have without a time
	// limit and MaxNodes = 0 (on a problem of at most
	// AutoSearchComponents components the search gets every node left,
	// after the core neighbourhoods if it has not ended within 2^18
	// nodes), then the large-neighbourhood search goes on, every other
	// step reworking the served jobs, with second starts, repacking of
	// the served jobs with an unserved one, reselection of the served
	// set, class reassignments, ejection chains, core neighbourhoods
	// and job swaps (see the package doc). MaxNodes stays the
	// deterministic knob: the solve's steps do not depend on the clock,
	// which only decides where the sequence stops, so a result is
	// reproducible when the node budget, not the time, ends it
	// (GangKnapsackResult.TimeLimited false), and a longer limit never
	// returns a smaller value. The clock
	// is read every 64 nodes and every subgradient iteration, so a
	// Solve overruns its limit by at most about one such step (or one
	// job's exact bound, at most 2^12 nodes, in the tightening; past the
	// limit the tightening skips them).
	TimeLimit time.Duration
	// BoundShare, in 0..MaxGangBoundShare, is the share of TimeLimit that
	// GangExact keeps for its bound: the placement work stops
	// BoundShare·TimeLimit before the limit, and the time left goes to
	// the Lagrangian decomposition bound in class form (see the package
	// doc), when its servers have too many patterns for the search's
	// decomposition bound and the gap is open. 0, the default, keeps the
	// whole limit for the placement. It is used only with a time limit
	// and only by GangExact. On the 103 DLRM slots of more than 128
	// components at 10 s, 0.15 lowers the median certified gap from
	// 1.01 % to 0.62 % and costs three slots 0.003-0.048 % of their
	// placement's value.
	BoundShare float64
}

// MaxGangBoundShare bounds GangOracleSettings.BoundShare.
const MaxGangBoundShare = 0.5

// Validate returns every problem of s, joined, each wrapping ErrSettings.
func (s GangOracleSettings) Validate() error {
	var errs []error
	if s.Method < GangAuto || s.Method > GangScalable {
		errs = append(errs, fmt.Errorf("%w: GangOracleSettings.Method = %d, want GangAuto, GangExact or GangScalable", ErrSettings, int(s.Method)))
	}
	if s.MaxNodes < 0 || s.MaxNodes > MaxGangNodes {
		errs = append(errs, fmt.Errorf("%w: GangOracleSettings.MaxNodes = %d, want 0..%d", ErrSettings, s.MaxNodes, MaxGangNodes))
	}
	if s.Iterations < 0 || s.Iterations > MaxGangIterations {
		errs = append(errs, fmt.Errorf("%w: GangOracleSettings.Iterations = %d, want 0..%d", ErrSettings, s.Iterations, MaxGangIterations))
	}
	if s.TimeLimit < 0 || s.TimeLimit > MaxGangTimeLimit {
		errs = append(errs, fmt.Errorf("%w: GangOracleSettings.TimeLimit = %v, want 0..%v", ErrSettings, s.TimeLimit, MaxGangTimeLimit))
	}
	if !(s.BoundShare >= 0 && s.BoundShare <= MaxGangBoundShare) {
		errs = append(errs, fmt.Errorf("%w: GangOracleSettings.BoundShare = %v, want 0..MaxGangBoundShare = %v", ErrSettings, s.BoundShare, MaxGangBoundShare))
	}
	return errors.Join(errs...)
}

func (s GangOracleSettings) nodes() int64 {
	switch {
	case s.MaxNodes > 0:
		return s.MaxNodes
	case s.Method == GangExact:
		return DefaultGangNodes
	}
	return DefaultGangAutoNodes
}

func (s GangOracleSettings) iterations() int {
	if s.Iterations > 0 {
		return s.Iterations
	}
	if s.Method == GangExact {
		return DefaultGangExactIterations
	}
	return DefaultGangIterations
}

// GangKnapsack is the gang knapsack of one slot (the oracle of ESDP-gang
// and of the omniscient gang oracle): with x_{c,r} in {0,1} over the
// channels of the arrived jobs,
//
//	max  Σ_{c,r} Value_{c,r} x_{c,r}
//	s.t. Σ_r x_{c,r} <= 1                        each component on one server at most
//	     Σ_{c in Q_l, r} x_{c,r} ∈ {0} ∪ [m_l, |Q_l|]  each arrived job unserved or served
//	     Σ_{c,r} a_c^k x_{c,r} <= c_{(k,r)}        per-server capacities
//
// and x = 0 on the channels of jobs that did not arrive. Channels whose
// component does not fit the server alone (GangChannels.Fits) are never
// used.
type GangKnapsack struct {
	// Channels numbers the channels of the model; required.
	Channels *GangChannels
	// Arrived[l] says whether job type l has a job in the slot; nil means
	// every job type.
	Arrived []bool
	// Value holds the value of every channel (len Channels.Len()), finite
	// and at most MaxGangValue in absolute value.
	Value []float64
}

// GangKnapsackResult is the outcome of GangOracle.Solve.
type GangKnapsackResult struct {
	// Status is Optimal when Value is proven optimal (up to a relative
	// 1e-12) under bipartite's capacity rule (bipartite.Fits), NodeLimit when the search stopped at its budget (the
	// placement is feasible and Bound certified), NotTerminated for the
	// zero value. GangScalable reports Optimal only when its gap closed.
	Status Status
	// Value is the objective of the returned placement.
	Value float64
	// Bound is a certified upper bound of the optimum under the same rule
	// (capacities relaxed to bipartite.FitLimit): the smallest Lagrangian
	// bound found, or Value when Status is Optimal.
	Bound float64
	// Gap is Bound - Value >= 0.
	Gap float64
	// Served counts the arrived jobs served, Placed their placed
	// components.
	Served, Placed int
	// Nodes counts branch-and-bound nodes (and the job probes'
	// relaxation evaluations, which share their budget), Iterations
	// subgradient iterations.
	Nodes      int64
	Iterations int
	// TimeLimited reports that GangOracleSettings.TimeLimit ended the
	// solve: the result then depends on the machine's speed.
	TimeLimited bool
}

// GangOracle solves gang knapsacks. The zero value is ready (GangAuto);
// it keeps its buffers between calls, so that solving problems of the same
// size allocates nothing. A GangOracle is not safe for concurrent use.
type GangOracle struct {
	Settings GangOracleSettings

	// scratch, grown on demand
	mu, bestMu, use, load, capv []float64 // per (server, resource); capv = bipartite.FitLimit(c)
	save                        []float64 // per (component, resource): the loads before it was placed
	w                           []float64 // reduced value per channel (bestMu)
	wj                          []float64 // placeJobExact's reduced values
	perm                        []int     // channel order of the search
	bw0, bwM                    []float64 // best value per component at mu = 0, bestMu
	bch, bch0                   []int     // argmax channel per component (current mu, mu = 0)
	phi0                        []float64 // per job at mu = 0
	jkey                        []float64 // per job: the search's job order
	bw                          []float64 // best reduced value per component (current mu)
	inc                         []int     // incumbent server per component
	jobs                        []int     // active jobs
	phi                         []float64 // per job
	idx                         []int     // sort scratch
	seq, remIncl                []int     // search order of components
	suf0, sufM                  []float64 // search bounds per position
	tmp0, tmpM                  []float64 // per-job scratch of residBound
	cap0, capM                  []float64 // per job: exact job optimum at full capacities (mu = 0, bestMu)
	opt, chosen                 []int     // search state per position
	placed                      []int     // per job
	lns                         []int     // jobs of an improvement step
	served                      []bool    // per job, in the incumbent
	adj                         []bool    // per server, false between improvement steps
	inSearch                    []bool    // per job: in the search (dwbStart's scratch)
	kbest                       []int     // restartFrom: the incumbent saved
	kcap                        []float64 // bigKeys: the largest capacity per resource
	csize                       []float64 // repack: per component, its largest demand relative to kcap
	rcand                       []int     // repack: the unserved jobs tried
	polish                      polishState
	pack                        packState // repack's packing search
	resel                       reselectState
	pload                       []float64 // polishWide: loads summed anew
	pprev                       []int     // polishWide: a group's servers before
	psrv, pstart                []int     // polishServers: servers by capacity, contents' offsets
	ld                          ldState   // the Lagrangian decomposition bound
	rows                        gangRows  // the search's node bounds, per depth
	chain                       chainState
	swap                        swapState
	ldc                         ldcState
	probe                       probeState
	tree                        treeState
	dw                          dwState   // the column generation (gang_dw.go)
	forceIn                     []bool    // per job: served whatever its value in the relaxation, the search and its bounds (the job tree, gang_jobtree.go)
	ldub                        []float64 // per channel: a bound of the placements that use it (gang_ldfix.go)
	// testNoImprove skips the improvement phase before the search, so
	// that tests see the probes start from a weak incumbent;
	// testClassLD leaves the enumerated decomposition bound out, so that
	// small instances take the class form's fixing (gang_ldfix.go), and
	// without a time limit runs it before the search.
	testNoImprove, testClassLD bool
	// testTree runs the job tree (gang_jobtree.go) right after the
	// probes, without its first search
	testTree bool
	// testDW runs the column generation (gang_dw.go) with the
	// enumerated decomposition bound too (the small instances)
	testDW bool
	// fixed counts the channels the last solve's reduced-cost fixing
	// fixed out at its start (for tests)
	fixed int
}

// Solve writes into dst (len NumComponents) the server of every component
// of an optimal (or, see Status, best found) placement of p, -1 for an
// unplaced one, and returns its value and a certified bound.
//
// Algorithm. The Lagrangian relaxation of the capacities with multipliers
// mu >= 0 per (server, resource) decomposes by job: each component takes
// its best channel at reduced values Value - mu_r·a_c, a job takes its
// positive components (at least m_l of them, or none), so
// L(mu) = mu·c' + Σ_l max(0, best job value) bounds the optimum, with c'
// = bipartite.FitLimit(c) (the capacity rule). Projected subgradient steps
// (Polyak, towards the best feasible value) lower L; after each a greedy
// rounding (jobs by decreasing relaxed value, each component on its best
// fitting channel at reduced values, a job kept only with >= m_l
// components and a positive value) gives a feasible placement. GangAuto
// and GangExact then improve it by a large-neighbourhood search (a few
// jobs freed and searched exactly, the rest fixed), on small problems
// probe the unserved jobs (each forced served in the relaxation; one
// whose bound falls to the incumbent's value is excluded) and search depth first
// (GangExact, when a first search of 2^12 nodes does not end: first a
// tree over the jobs' "served" decisions, the relaxation minimised anew
// at each of its nodes, with a search at each of its leaves; see
// gang_jobtree.go) over the components of the arrived jobs (the most contended jobs
// first, channels by reduced value at the best multipliers, then
// "unplaced"), pruning with the smaller of the
// capacity-free bound and the Lagrangian bound at the best multipliers,
// both evaluated on the residual capacities. Loads are float64 sums of
// the placed demands, restored exactly on backtracking, and a component
// fits when bipartite.Fits accepts its server's load with it.
//
// Errors wrap ErrDimension (nil p or Channels, a length that does not
// match), ErrValue (a NaN, infinite or too large value) or ErrSettings; dst
// and the oracle are then unchanged apart from scratch space.
func (o *GangOracle) Solve(dst []int, p *GangKnapsack) (GangKnapsackResult, error) {
	var res GangKnapsackResult
	if err := o.Settings.Validate(); err != nil {
		return res, err
	}
	if p == nil || p.Channels == nil {
		return res, fmt.Errorf("%w: nil gang knapsack or channels", ErrDimension)
	}
	ch := p.Channels
	m := ch.model
	if p.Arrived != nil && len(p.Arrived) != m.NumJobs() {
		return res, fmt.Errorf("%w: len(Arrived) = %d, want %d job types", ErrDimension, len(p.Arrived), m.NumJobs())
	}
	if len(p.Value) != ch.Len() {
		return res, fmt.Errorf("%w: len(Value) = %d, want %d channels", ErrDimension, len(p.Value), ch.Len())
	}
	if len(dst) != m.NumComponents() {
		return res, fmt.Errorf("%w: len(dst) = %d, want %d components", ErrDimension, len(dst), m.NumComponents())
	}
	for i, v := range p.Value {
		if !(math.Abs(v) <= MaxGangValue) {
			return res, fmt.Errorf("%w: Value[%d] = %v, want finite, |v| <= %v", ErrValue, i, v, float64(MaxGangValue))
		}
	}
	o.grow(ch)
	s := gangSolve{o: o, ch: ch, p: p, K: m.K()}
	if tl := o.Settings.TimeLimit; tl > 0 {
		s.timed, s.deadline, s.limit = true, time.Now().Add(tl), tl
		s.final = s.deadline
	}
	res = s.run()
	copy(dst, o.inc[:m.NumComponents()])
	return res, nil
}

func growF(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	return b[:n]
}

func growI(b []int, n int) []int {
	if cap(b) < n {
		return make([]int, n)
	}
	return b[:n]
}

func (o *GangOracle) grow(ch *GangChannels) {
	m := ch.model
	RK := m.NumServers() * m.K()
	C, J, N := m.NumComponents(), m.NumJobs(), ch.Len()
	o.mu, o.bestMu, o.use, o.load, o.capv = growF(o.mu, RK), growF(o.bestMu, RK), growF(o.use, RK), growF(o.load, RK), growF(o.capv, RK)
	o.probe.mu, o.probe.use, o.probe.best = growF(o.probe.mu, RK), growF(o.probe.use, RK), growF(o.probe.best, RK)
	o.save = growF(o.save, C*m.K())
	o.w, o.perm, o.wj = growF(o.w, N), growI(o.perm, N), growF(o.wj, N)
	o.bw0, o.bwM, o.bw, o.bch, o.bch0, o.inc = growF(o.bw0, C), growF(o.bwM, C), growF(o.bw, C), growI(o.bch, C), growI(o.bch0, C), growI(o.inc, C)
	o.seq, o.remIncl, o.opt, o.chosen = growI(o.seq, C), growI(o.remIncl, C), growI(o.opt, C), growI(o.chosen, C)
	o.suf0, o.sufM = growF(o.suf0, C+1), growF(o.sufM, C+1)
	o.tmp0, o.tmpM = growF(o.tmp0, C), growF(o.tmpM, C)
	o.cap0, o.capM = growF(o.cap0, J), growF(o.capM, J)
	o.idx = growI(o.idx, max(C, J))
	o.jobs, o.phi, o.phi0, o.placed = growI(o.jobs, J), growF(o.phi, J), growF(o.phi0, J), growI(o.placed, J)
	o.lns = growI(o.lns, J)
	o.jkey = growF(o.jkey, J)
	if R := m.NumServers(); cap(o.adj) < R {
		o.adj = make([]bool, R)
	} else {
		o.adj = o.adj[:R]
	}
	if cap(o.served) < J {
		o.served = make([]bool, J)
	}
	o.served = o.served[:J]
	if cap(o.forceIn) < J {
		o.forceIn = make([]bool, J)
	}
	o.forceIn = o.forceIn[:J]
	clear(o.forceIn)
	o.inSearch = grow(o.inSearch, J)
}

// roundEvery is the period, in subgradient iterations, of the rounding
// (also run after the last iteration) on problems with more than
// AutoSearchComponents components; smaller ones round every iteration.
const roundEvery = 4

// AutoSearchComponents bounds the components of the arrived jobs for
// which GangAuto runs its branch and bound: beyond it a node costs
// O(their channels) and a budgeted search rarely improves on the rounding,
// so GangAuto spends its budget on the improvement phase (whose nodes
// scan only the freed jobs' channels) and returns its certified gap.
const AutoSearchComponents = 128

// MaxGangSearchWork bounds the channel scans of one branch and bound
// (nodes × the arrived jobs' channels, 2^32): the node budget is cut to
// fit it.
const MaxGangSearchWork = 1 << 32

func (s *gangSolve) activeComponents() int {
	n := 0
	for _, l := range s.active {
		lo, hi := s.ch.model.Components(l)
		n += hi - lo
	}
	return n
}

// gangSolve is one Solve's working state.
type gangSolve struct {
	o      *GangOracle
	ch     *GangChannels
	p      *GangKnapsack
	K      int
	active []int // arrived jobs that can be served with a positive value
	incVal float64
	tol    float64

	// Time limit (GangOracleSettings.TimeLimit): the clock is read only
	// when timed, and late stays true once the deadline has passed.
	timed, expired bool
	deadline       time.Time
	final          time.Time     // the time limit's deadline (deadline is earlier while the class form waits)
	limit          time.Duration // the time limit
	step           int           // improvement steps so far (their generator's seed)
	anyTarget      bool          // improvement: every other target any active job
	// core > 0 restricts search to the core channels (coreImprove):
	// those whose reduced value at the best multipliers is within core
	// of their component's best.
	core float64
	// force is 1 + the job that relax serves whatever its value (a job
	// probe, gang_probe.go), 0 for none.
	force int
	// With the class-form decomposition at the search (gang_ldfix.go):
	// ldcOn, its nodes are bounded by it at its final lambda, whose
	// server side is ldcS, and the channels whose bound o.ldub is at
	// most elimAt (the incumbent's value at the search's start) are
	// skipped.
	ldcOn  bool
	ldcS   float64
	elimAt float64
	// fixOn: o.ldub holds valid bounds (set by ldFix or dwFix), and
	// the search skips the channels whose bound is at most elimAt.
	fixOn bool
	// dwbOn: the search's nodes are bounded by the column generation's
	// Lagrangian (dwFix, gang_dw.go)
	dwbOn bool
}

// ldVals reports whether the search's residual bounds take the
// decomposition's assignment side (values v - lambda in o.ld.vals).
func (s *gangSolve) ldVals() bool { return s.o.ld.on || s.ldcOn }

// late reports whether the time limit has passed.
func (s *gangSolve) late() bool {
	if !s.timed || s.expired {
		return s.expired
	}
	s.expired = !time.Now().Before(s.deadline)
	return s.expired
}

func (s *gangSolve) arrived(l int) bool { return s.p.Arrived == nil || s.p.Arrived[l] }

// reduced returns Value_i - mu_r · a_c for channel i of component c.
func (s *gangSolve) reduced(mu []float64, i, c int) float64 {
	v := s.p.Value[i]
	r := s.ch.Server(i)
	a := s.ch.model.Demand(c)
	mr := mu[r*s.K : (r+1)*s.K]
	for k, x := range a {
		v -= mr[k] * x
	}
	return v
}

// relax evaluates the Lagrangian relaxation at mu over the jobs in jobs:
// it sets bw, bch per component and phi per job, accumulates the
// relaxation's resource use in use (if not nil) and returns Σ phi. The
// job s.force - 1, if any, is served (its best m_l or more components)
// whatever its value, -Inf when it cannot be (a job probe,
// gang_probe.go).
func (s *gangSolve) relax(mu []float64, jobs []int, use []float64) float64 {
	o, m := s.o, s.ch.model
	total := 0.0
	for _, l := range jobs {
		lo, hi := m.Components(l)
		pos, sumPos, finite := 0, 0.0, 0
		for c := lo; c < hi; c++ {
			best, bi := math.Inf(-1), -1
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				if !s.ch.fits[i] {
					continue
				}
				if w := s.reduced(mu, i, c); w > best {
					best, bi = w, i
				}
			}
			o.bw[c], o.bch[c] = best, bi
			if bi >= 0 {
				finite++
				if best > 0 {
					pos++
					sumPos += best
				}
			}
		}
		need := m.Min(l)
		phi := 0.0
		take := 0 // components taken, in decreasing bw, when sorted
		sorted := false
		forced := s.force == l+1 || o.forceIn[l]
		switch {
		case finite < need:
			if forced {
				phi = math.Inf(-1) // the job cannot be served
			}
		case pos >= need:
			phi = sumPos
		default:
			idx := o.idx[:hi-lo]
			for j := range idx {
				idx[j] = lo + j
			}
			sortIdxDesc(idx, o.bw)
			sorted = true
			sum := 0.0
			for j := 0; j < need; j++ {
				sum += o.bw[idx[j]]
			}
			if sum > 0 || forced {
				phi, take = sum, need
			}
		}
		o.phi[l] = phi
		total += phi
		if use == nil || phi <= 0 && !forced || math.IsInf(phi, -1) {
			continue
		}
		add := func(c int) {
			r := s.ch.Server(o.bch[c])
			for k, a := range m.Demand(c) {
				use[r*s.K+k] += a
			}
		}
		if sorted {
			for _, c := range o.idx[:take] {
				add(c)
			}
		} else {
			for c := lo; c < hi; c++ {
				if o.bch[c] >= 0 && o.bw[c] > 0 {
					add(c)
				}
			}
		}
	}
	return total
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

func (s *gangSolve) run() GangKnapsackResult {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	capv := o.capv
	// The capacity rule (bipartite.Fits): a load fits c when it is at most
	// FitLimit(c). Fits are tested as load+a <= capv and every bound
	// relaxes the capacities to capv, so bounds hold under the rule.
	for r := 0; r < m.NumServers(); r++ {
		for k, c := range m.Capacity(r) {
			capv[r*s.K+k] = bipartite.FitLimit(c)
		}
	}
	for c := range o.inc[:C] {
		o.inc[c] = -1
	}
	// Active jobs: arrived, and some placement has a positive value.
	clear(o.mu)
	o.probe.excluded, o.probe.proved, o.fixed = 0, false, 0
	o.tree.ran, o.tree.proved, o.tree.nodes, o.tree.leaves = false, false, 0, 0
	o.dw.ran, o.dw.proved, o.dw.rounds, o.dw.bound = false, false, 0, math.Inf(1)
	o.dw.dived, o.dw.branched, o.dw.fixRan, o.dw.rounded = false, false, false, false
	jobs := o.jobs[:0]
	for l := 0; l < m.NumJobs(); l++ {
		if s.arrived(l) {
			jobs = append(jobs, l)
		}
	}
	s.relax(o.mu, jobs, nil)
	s.active = jobs[:0]
	for _, l := range jobs {
		if o.phi[l] > 0 {
			s.active = append(s.active, l)
		}
	}
	copy(o.bw0, o.bw)
	copy(o.bch0, o.bch)
	for _, l := range s.active {
		o.phi0[l] = o.phi[l]
	}
	res := GangKnapsackResult{}
	if len(s.active) == 0 {
		res.Status = Optimal
		return res
	}
	// Subgradient on L(mu), with a rounding after every step.
	s.incVal = math.Inf(-1)
	o.swap.at = math.NaN() // swapJobs: no pair tried at this solve's incumbents
	best := math.Inf(1)
	theta, stall := 2.0, 0
	iters := o.Settings.iterations()
	// The decomposition bound, when every server has few patterns: it
	// starts from the capacity prices, so GangExact's default needs
	// fewer iterations of the capacity relaxation (ldCapIterations).
	meth := s.o.Settings.Method
	// GangExact only: on GangAuto's small problems its root cost doubled
	// ESDP-gang's time per slot (TestGangRunDefault 0.56-0.76 s ->
	// 1.15-1.48 s) for the same decisions.
	ld := meth == GangExact && s.ldBuild() && !o.testClassLD
	if ld && o.Settings.Iterations == 0 {
		iters = min(iters, ldCapIterations)
	}
	// theta halves after stallMax iterations without a better bound: 4 at
	// the default 48 iterations, more patience with more iterations (at
	// 4 a long run stalls far above the LP bound, with theta vanishing).
	stallMax := max(4, iters/40)
	// Small problems: a rounding per iteration seeds GangAuto's search.
	// GangExact, whose search finds the optimum from a weaker seed,
	// rounds every roundEvery: with the decomposition bound, on 50
	// held-out medium instances (medium-10..59 of scripts/gangbench),
	// 0.19 s -> 0.17 s in all (1, 2 and 4 tried, with 64-256 capacity and
	// 128-256 decomposition iterations); without it, on DLRM slots of
	// 6-20 apps, 35-45 % less time to the same proofs (the median slot
	// 0.043 -> 0.028 s), the rounding having been half the time.
	every := 1
	if meth == GangExact || s.activeComponents() > AutoSearchComponents {
		every = roundEvery
	}
	for it := 0; it < iters; it++ {
		res.Iterations++
		clear(o.use)
		L := dot(o.mu, capv) + s.relax(o.mu, s.active, o.use)
		if it%every == 0 || it == iters-1 {
			s.round()
		}
		if L < best {
			best = L
			copy(o.bestMu, o.mu)
			stall = 0
		} else if stall++; stall >= stallMax {
			theta /= 2
			stall = 0
		}
		s.tol = 1e-12 * max(1, math.Abs(s.incVal))
		if best-s.incVal <= s.tol {
			break
		}
		g2 := 0.0
		for i, u := range o.use {
			d := capv[i] - u
			if d < 0 || o.mu[i] > 0 {
				g2 += d * d
			}
		}
		if g2 == 0 || s.late() {
			break
		}
		step := theta * (L - s.incVal) / g2
		for i, u := range o.use {
			o.mu[i] = max(0, o.mu[i]-step*(capv[i]-u))
		}
	}
	best = min(best, s.tighten(capv))
	if ld && best-s.incVal > s.tol && !s.late() {
		best = min(best, s.ldRoot())
	} else {
		o.ld.on = false
	}
	// GangExact with a BoundShare and servers of too many patterns: the
	// last BoundShare of the limit goes to the decomposition bound in
	// class form (gang_ldc.go), the placement work stops before.
	ldc := meth == GangExact && s.timed && !o.ld.on && o.Settings.BoundShare > 0
	if ldc {
		s.deadline = s.final.Add(-time.Duration(o.Settings.BoundShare * float64(s.limit)))
	}
	res.Bound = math.Max(best, s.incVal)
	search := meth == GangExact || meth == GangAuto && s.activeComponents() <= AutoSearchComponents
	if meth != GangScalable && res.Bound-s.incVal > s.tol && !s.late() {
		// budget: the nodes of the improvement phase and the search;
		// total: with a time limit, those of every phase (MaxNodes, or
		// MaxGangNodes), the first two at the budget they have without
		// a time limit and MaxNodes = 0 (capped by total).
		budget := s.o.Settings.nodes()
		total := budget
		if s.timed {
			total = MaxGangNodes
			if s.o.Settings.MaxNodes > 0 {
				total = s.o.Settings.MaxNodes
			}
			budget = min(total, GangOracleSettings{Method: meth}.nodes())
		}
		large := s.activeComponents() > AutoSearchComponents
		lns, work := budget/4, int64(MaxGangSearchWork)
		switch {
		case !search:
			lns = budget // GangAuto on a large problem: improvement only
		case large:
			// GangExact on a large problem: a full search rarely
			// completes, and each node scans every channel, so the
			// improvement phase gets most of the budget and the search
			// a quarter of the work cap.
			lns, work = budget-budget/4, MaxGangSearchWork/4
		}
		if !o.testNoImprove {
			res.Nodes = s.improve(capv, lns, lnsJobs, lnsNodes, lnsFails*len(s.active))
		}
		done := false
		if meth == GangExact && (!o.ld.on || o.testDW) && res.Bound-s.incVal > s.tol && !s.late() {
			// the column generation (gang_dw.go): the servers have too
			// many patterns for the enumerated decomposition bound
			b, proved := s.colGen()
			res.Nodes += o.dw.heurNodes
			res.Bound = math.Max(s.incVal, math.Min(res.Bound, b))
			done = proved || res.Bound-s.incVal <= s.tol
		}
		coreBound := res.Bound
		if search && res.Bound-s.incVal > s.tol && !s.late() {
			// A small problem searched with a time limit: the search gets
			// every node left (the time, or the work cap, ends it).
			left := budget - res.Nodes
			if s.timed && !large {
				left = total - res.Nodes
			}
			if !large && left > 0 {
				// the job probes (gang_probe.go): they may prove the
				// incumbent optimal, or take jobs out of the search
				b, n := s.probeJobs(capv, res.Bound, left)
				res.Bound = math.Max(s.incVal, b)
				res.Nodes += n
				left -= n
				done = res.Bound-s.incVal <= s.tol
			}
			if !large && !done && left > 0 && !s.late() && meth == GangExact && (o.ld.on || o.testTree) && s.treeFits() {
				// the job tree (gang_jobtree.go), with the enumerated
				// decomposition (not on the DLRM slots, where it cost
				// ESDP-gang 6 % of its time for 6 proofs in 900 slots),
				// when a first search of treeGate nodes does not finish
				gate := int64(treeGate)
				if o.testTree {
					gate = 0
				}
				tree := s.treeBranches(capv)
				var n int64
				if tree && gate > 0 {
					n, done = s.searchAll(capv, s.searchWork(append(o.idx[:0], s.active...), min(left, gate), work))
					res.Nodes += n
					left -= n
				}
				if tree && !done && left > 0 && !s.late() {
					n, done = s.jobTree(capv, min(left, treeBudget))
					res.Nodes += n
					left -= n
				}
				if done {
					res.Bound = s.incVal
				}
			}
			// the core neighbourhoods' width is the capacity relaxation's gap
			coreBound = res.Bound
			// servers of too many patterns for the decomposition bound:
			// a search not done within its first nodes gets the
			// decomposition in class form, its bound and reduced-cost
			// fixing (gang_ldfix.go), then starts again
			ldfix := !large && meth == GangExact && !o.ld.on
			jobs := append(o.idx[:0], s.active...)
			var n int64
			if !s.timed && ldfix && !done && left > 0 && !o.testClassLD {
				n, done = s.searchAll(capv, s.searchWork(jobs, min(left, ldFixAfter), work))
				res.Nodes += n
				left -= n
			}
			if s.timed && !large && !done && !s.late() {
				// With a time limit, a search not done within coreFirst
				// nodes gives way to the core neighbourhoods, then starts
				// again from their incumbent with the nodes left.
				n, done = s.searchAll(capv, s.searchWork(jobs, min(left, coreFirst), work))
				res.Nodes += n
				left -= n
				if !done && left > 0 && !s.late() {
					n = s.coreImprove(capv, coreBound, left)
					res.Nodes += n
					left -= n
				}
			}
			if ldfix && !done && left > 0 && !s.late() {
				res.Bound = math.Max(s.incVal, math.Min(res.Bound, s.ldFix()))
				done = res.Bound-s.incVal <= s.tol
				if !done && s.ldcOn && !s.late() {
					// the Lagrangian heuristic: a placement from the
					// server side's patterns, improved, kept if better
					n = s.restartP(s.fromPatterns(o.ld.z), capv, min(left, ldHeurNodes), lnsFails*len(s.active))
					res.Nodes += n
					left -= n
					done = res.Bound-s.incVal <= s.tol
				}
			}
			if !done && left > 0 && !s.late() {
				// again: coreImprove's steps reuse o.idx, which jobs shares
				jobs = append(o.idx[:0], s.active...)
				dl := s.deadline
				if s.timed && s.ldcOn {
					// half the time left: with the decomposition's
					// bounds the search's nodes cost more, and the
					// improvement phases get the rest
					s.deadline = time.Now().Add(time.Until(dl) / 2)
				}
				n, done = s.searchAll(capv, s.searchWork(jobs, left, work))
				res.Nodes += n
				if s.deadline != dl {
					s.deadline = dl
					s.expired = !time.Now().Before(dl)
				}
			}
			if done {
				res.Bound = s.incVal
			}
		}
		// With a time limit, improve until it (or the nodes) end, every
		// other step's target any active job in turn (served ones too).
		if s.timed && !done && res.Bound-s.incVal > s.tol && res.Nodes < total {
			if large && meth == GangExact && !o.ld.on && !s.late() {
				// the class-form decomposition's bound, its fixing and
				// the Lagrangian heuristic, within a tenth of the limit
				// (gang_ldfix.go)
				dl := s.deadline
				s.deadline = time.Now().Add(min(time.Until(dl), s.limit/10))
				res.Bound = math.Max(s.incVal, math.Min(res.Bound, s.ldFix()))
				s.deadline = dl
				s.expired = !time.Now().Before(dl)
				if s.ldcOn && !s.late() {
					res.Nodes += s.restartP(s.fromPatterns(o.ld.z), capv, min(total-res.Nodes, ldHeurNodes), lnsFails*len(s.active))
				}
			}
			s.anyTarget = true
			res.Nodes += s.improve(capv, total-res.Nodes, lnsJobs, lnsNodes, lnsStall*len(s.active))
			if res.Nodes < total && !s.late() {
				res.Nodes += s.diversify(capv, total-res.Nodes)
			}
			if res.Nodes < total && !s.late() {
				res.Nodes += s.repack(capv, total-res.Nodes)
			}
			if res.Nodes < total && !s.late() {
				res.Nodes += s.reselect(capv, total-res.Nodes)
			}
			// then improvement steps until the time or the nodes end,
			// with a class reassignment and the core neighbourhoods
			// whenever they stall
			for res.Nodes < total && !s.late() {
				n := s.improve(capv, total-res.Nodes, lnsJobs, lnsNodes, lnsStall*len(s.active))
				res.Nodes += n
				if n == 0 {
					break
				}
				s.polishAll()
				if res.Nodes < total && !s.late() {
					res.Nodes += s.coreImprove(capv, coreBound, total-res.Nodes)
					s.polishAll()
				}
				if res.Nodes < total && !s.late() && s.swapJobs() {
					s.polishAll()
				}
			}
			s.polishAll()
		}
	}
	if ldc && res.Bound-s.incVal > s.tol {
		// the placement work is over: the time left to the bound
		cut := s.expired
		s.deadline, s.expired = s.final, false
		if !s.late() && s.ldBuildClasses() {
			res.Bound = math.Max(s.incVal, math.Min(res.Bound, s.ldRoot()))
		}
		o.ld.on, o.ld.cls = false, false
		s.expired = s.expired || cut
	}
	res.TimeLimited = s.expired
	res.Value = s.incVal
	res.Gap = math.Max(0, res.Bound-res.Value)
	if res.Gap <= s.tol {
		res.Status, res.Bound, res.Gap = Optimal, res.Value, 0
	} else {
		res.Status = NodeLimit
	}
	for _, l := range s.active {
		lo, hi := m.Components(l)
		n := 0
		for c := lo; c < hi; c++ {
			if o.inc[c] >= 0 {
				n++
			}
		}
		if n > 0 {
			res.Served++
			res.Placed += n
		}
	}
	return res
}

// round builds a feasible placement greedily at the multipliers of the
// last relax (bw, bch, phi) and keeps it in inc if it beats incVal.
func (s *gangSolve) round() {
	o := s.o
	if val := s.roundBy(roundPhi, -1, o.mu); val > s.incVal || math.IsInf(s.incVal, -1) {
		s.incVal = val
		copy(o.inc, o.chosen[:s.ch.model.NumComponents()])
	}
}

// Rounding orders: jobs by relaxed value (the subgradient's rounding),
// or big jobs first (the time-limited phase's second starts: by their
// largest component's demand relative to the largest capacity of its
// resource, ties by relaxed value), components within a job by their
// best reduced value, each on its best channel by reduced value at mu or,
// with roundFit, on the fitting server it leaves the least normalised
// capacity on (best fit).
const (
	roundPhi = iota
	roundBig
	roundSmall
	roundFit = 1 << 8
)

// roundBy rounds in the given order, without job skip (-1: none), at the
// multipliers mu, leaves the placement in o.chosen and returns its value.
func (s *gangSolve) roundBy(order, skip int, mu []float64) float64 {
	o, m := s.o, s.ch.model
	clear(o.load)
	jobs := o.idx[:0]
	for _, l := range s.active {
		if l != skip {
			jobs = append(jobs, l)
		}
	}
	fit := order&roundFit != 0
	// o.idx doubles as the job order; component orders use o.seq.
	switch order &^ roundFit {
	case roundBig:
		s.bigKeys(false)
		sortIdxDesc(jobs, o.jkey)
	case roundSmall:
		s.bigKeys(true)
		sortIdxDesc(jobs, o.jkey)
	default:
		sortIdxDesc(jobs, o.phi)
	}
	val := 0.0
	cur := o.chosen[:m.NumComponents()]
	for c := range cur {
		cur[c] = -1
	}
	for _, l := range jobs {
		lo, hi := m.Components(l)
		comps := o.seq[:hi-lo]
		for j := range comps {
			comps[j] = lo + j
		}
		sortIdxDesc(comps, o.bw)
		n, jv := 0, 0.0
		for _, c := range comps {
			a := m.Demand(c)
			bi, bw := -1, math.Inf(-1)
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				if !s.ch.fits[i] || !s.fitsAt(a, s.ch.Server(i)) {
					continue
				}
				w := s.reduced(mu, i, c)
				if fit {
					// best fit, ties by reduced value
					r, K := s.ch.Server(i), s.K
					left := 0.0
					for k, x := range a {
						if cv := o.capv[r*K+k]; cv > 0 {
							left += (cv - o.load[r*K+k] - x) / cv
						}
					}
					w = -left + 1e-3*w
				}
				if w > bw {
					bi, bw = i, w
				}
			}
			if bi < 0 || (n >= m.Min(l) && s.p.Value[bi] <= 0) {
				continue
			}
			r := s.ch.Server(bi)
			s.place(c, r)
			cur[c] = r
			n++
			jv += s.p.Value[bi]
		}
		if n >= m.Min(l) && jv > 0 {
			val += jv
			continue
		}
		for j := len(comps) - 1; j >= 0; j-- { // undo, in reverse order of placement
			c := comps[j]
			if r := cur[c]; r >= 0 {
				s.unplace(c, r)
				cur[c] = -1
			}
		}
		if n < m.Min(l) { // the greedy order failed: search the job alone
			val += s.placeJobExact(l, cur, mu)
		}
	}
	return val
}

// placeJobExact places job l on the residual capacities by exhaustive
// search (reduced values at mu, in the scratch o.wj; small jobs only, within a budget) if
// that gives at least m_l components with a positive value, and returns
// the value placed (0 if none).
func (s *gangSolve) placeJobExact(l int, cur []int, mu []float64) float64 {
	o, m := s.o, s.ch.model
	lo, hi := m.Components(l)
	for c := lo; c < hi; c++ {
		clo, chi := s.ch.Range(c)
		for i := clo; i < chi; i++ {
			o.wj[i] = s.reduced(mu, i, c)
		}
	}
	js := jobSearch{s: s, val: o.wj, limit: placeJobNodes}
	if js.solve(l, math.Inf(-1)); !js.found {
		return 0
	}
	v := 0.0
	for c := lo; c < hi; c++ {
		if i := js.best_[c-lo]; i >= 0 {
			v += s.p.Value[i]
		}
	}
	if v <= 0 {
		return 0
	}
	for c := lo; c < hi; c++ {
		i := js.best_[c-lo]
		if i < 0 {
			continue
		}
		r := s.ch.Server(i)
		s.place(c, r)
		cur[c] = r
	}
	return v
}

// fitsAt reports whether demand a fits server r on top of its loads
// o.load under the capacity rule: load+a <= bipartite.FitLimit(c) for
// every resource, which is bipartite.Fits(load+a, c).
func (s *gangSolve) fitsAt(a []float64, r int) bool {
	K := s.K
	ld, cv := s.o.load[r*K:(r+1)*K], s.o.capv[r*K:(r+1)*K]
	for k, x := range a {
		if !(ld[k]+x <= cv[k]) {
			return false
		}
	}
	return true
}

// place adds component c's demand to server r's loads, saving the loads
// it had before in o.save; unplace restores them exactly. Components are
// unplaced in the reverse order of their placement, so a load is always
// the float64 sum of the demands placed on it in placement order, never
// a sum minus a difference (the capacity rule of bipartite).
func (s *gangSolve) place(c, r int) {
	K := s.K
	ld := s.o.load[r*K : (r+1)*K]
	copy(s.o.save[c*K:(c+1)*K], ld)
	for k, x := range s.ch.model.Demand(c) {
		ld[k] += x
	}
}

func (s *gangSolve) unplace(c, r int) {
	K := s.K
	copy(s.o.load[r*K:(r+1)*K], s.o.save[c*K:(c+1)*K])
}

// tighten evaluates the relaxation at the best multipliers (bw, bwM, phi,
// and the reduced values w of the active jobs' channels), computes every
// active job's exact optimum on its own at the full capacities (cap0 at
// the values, capM at the reduced values) and returns the tightened
// Lagrangian bound
//
//	min(Σ_l cap0_l, mu·c + Σ_l min(phi_l, capM_l)),
//
// valid because every feasible placement places each job within the
// capacities on its own.
func (s *gangSolve) tighten(capv []float64) float64 {
	o, m := s.o, s.ch.model
	s.relax(o.bestMu, s.active, nil)
	copy(o.bwM, o.bw)
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			clo, chi := s.ch.Range(c)
			for i := clo; i < chi; i++ {
				o.w[i] = s.reduced(o.bestMu, i, c)
			}
		}
	}
	clear(o.load)
	b0, bm := 0.0, dot(o.bestMu, capv)
	for _, l := range s.active {
		// A job whose components' best channels fit the capacities
		// together reaches its relaxed value on its own: no search.
		// Past the time limit the per-job searches are skipped (+Inf:
		// no cap, a weaker but valid bound).
		switch {
		case s.bestFit(l, o.bch0):
			o.cap0[l] = o.phi0[l]
		case s.late():
			o.cap0[l] = math.Inf(1)
		default:
			o.cap0[l] = s.jobExact(l, false)
		}
		switch {
		case s.bestFit(l, o.bch):
			o.capM[l] = o.phi[l]
		case s.late():
			o.capM[l] = math.Inf(1)
		default:
			o.capM[l] = s.jobExact(l, true)
		}
		b0 += o.cap0[l]
		bm += min(o.phi[l], o.capM[l])
	}
	return min(b0, bm)
}

// bestFit reports whether every component of job l with a channel in bch
// fits, together, on those channels' servers on top of the loads o.load
// (restored before returning).
func (s *gangSolve) bestFit(l int, bch []int) bool {
	m := s.ch.model
	lo, hi := m.Components(l)
	ok := true
	c := lo
	for ; c < hi && ok; c++ {
		if bch[c] < 0 {
			continue
		}
		r := s.ch.Server(bch[c])
		ok = s.fitsAt(m.Demand(c), r)
		s.place(c, r)
	}
	for c--; c >= lo; c-- {
		if bch[c] < 0 {
			continue
		}
		s.unplace(c, s.ch.Server(bch[c]))
	}
	return ok
}

// searchAll runs the branch and bound over every active job from the
// incumbent, within the node budget left after the improvement phase. It
// returns the nodes visited and whether the search completed (the
// incumbent is then optimal).
func (s *gangSolve) searchAll(capv []float64, budget int64) (int64, bool) {
	o, m := s.o, s.ch.model
	clear(o.load)
	cur := o.chosen[:m.NumComponents()]
	for c := range cur {
		cur[c] = -1
	}
	jobs := append(o.idx[:0], s.active...)
	return s.search(capv, jobs, 0, budget)
}

// Improvement (large neighbourhood search) parameters: a step frees the
// components of lnsJobs jobs (an unserved job and served ones) and
// searches them exactly within lnsNodes nodes, the rest fixed; the phase
// stops after lnsFails steps in a row without improvement per active job,
// or at its node budget.
const (
	lnsJobs  = 5
	lnsNodes = 1 << 9
	lnsFails = 2
	// lnsStall is the time-limited phase's steps in a row without
	// improvement, per active job, after which it diversifies.
	lnsStall = 4
)

// improve runs the improvement phase from the incumbent within budget
// nodes and returns the nodes used. Each step picks a target job (the
// unserved active jobs in turn by decreasing relaxed value, then any
// active job; with anyTarget every other step any active job in turn),
// adds up to size-1 other jobs drawn from a generator
// seeded by the step (deterministic; steps are counted across calls),
// fixes every other component at its incumbent server and runs search on
// the freed jobs within perStep nodes. It stops after maxFails steps in a
// row without improvement, at its budget or at the time limit.
func (s *gangSolve) improve(capv []float64, budget int64, size int, perStep int64, maxFails int) int64 {
	o, m := s.o, s.ch.model
	A := len(s.active)
	if A < 2 || budget <= 0 {
		return 0
	}
	var used int64
	fails := 0
	cur := o.chosen[:m.NumComponents()]
	for used < budget && fails < maxFails && !s.late() {
		s.step++
		step := s.step
		// The incumbent's served jobs.
		nserved := 0
		for _, l := range s.active {
			if o.served[l] = s.incServes(l); o.served[l] {
				nserved++
			}
		}
		// Target: the unserved active jobs in turn, then any (with
		// anyTarget, every other step any).
		target := -1
		if nu := A - nserved; nu > 0 && !(s.anyTarget && step%2 == 0) {
			k := (step - 1) % nu
			for _, l := range s.active {
				if !o.served[l] {
					if k == 0 {
						target = l
						break
					}
					k--
				}
			}
		} else {
			target = s.active[(step-1)%A]
		}
		sub := append(o.lns[:0], target)
		rng := splitMix(uint64(step)*0x9e3779b97f4a7c15 + uint64(A))
		// First the jobs holding a server the target may use.
		for _, r := range m.Graph().LeftNeighbors(target) {
			o.adj[r] = true
		}
		cand := o.idx[:0]
		for _, l := range s.active {
			if l == target || !o.served[l] {
				continue
			}
			lo, hi := m.Components(l)
			for c := lo; c < hi; c++ {
				if r := o.inc[c]; r >= 0 && o.adj[r] {
					cand = append(cand, l)
					break
				}
			}
		}
		for _, r := range m.Graph().LeftNeighbors(target) {
			o.adj[r] = false
		}
		for len(cand) > 0 && len(sub) < min(size, A) {
			j := int(rng.next() % uint64(len(cand)))
			sub = append(sub, cand[j])
			cand[j] = cand[len(cand)-1]
			cand = cand[:len(cand)-1]
		}
		for tries := 0; len(sub) < min(size, A) && tries < 4*size; tries++ {
			l := s.active[int(rng.next()%uint64(A))]
			if !containsInt(sub, l) {
				sub = append(sub, l)
			}
		}
		// Fix the others at the incumbent.
		copy(cur, o.inc[:m.NumComponents()])
		val0 := s.incVal
		for _, l := range sub {
			lo, hi := m.Components(l)
			for c := lo; c < hi; c++ {
				if r := cur[c]; r >= 0 {
					i, _ := s.ch.Channel(c, r)
					val0 -= s.p.Value[i]
					cur[c] = -1
				}
			}
		}
		clear(o.load)
		for c, r := range cur {
			if r >= 0 {
				s.place(c, r)
			}
		}
		before := s.incVal
		n, _ := s.search(capv, sub, val0, min(perStep, budget-used))
		used += n
		if s.incVal > before {
			fails = 0
		} else {
			fails++
		}
	}
	return used
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// splitMix is SplitMix64, the improvement phase's deterministic source of
// choices (a Solve allocates nothing).
type splitMix uint64

func (p *splitMix) next() uint64 {
	*p += 0x9e3779b97f4a7c15
	z := uint64(*p)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// searchWork caps a search's node budget so that its total channel scans
// (each node's bound scans the channels of the jobs searched) stay within
// work (at most MaxGangSearchWork).
func (s *gangSolve) searchWork(jobs []int, budget, work int64) int64 {
	n := 0
	for _, l := range jobs {
		lo, hi := s.ch.model.Components(l)
		a, _ := s.ch.Range(lo)
		_, b := s.ch.Range(hi - 1)
		n += b - a
	}
	if n > 0 {
		budget = min(budget, max(1, work/int64(n)))
	}
	return budget
}

// search runs depth-first branch and bound over the components of jobs
// (reordered in place), the other components fixed: o.chosen holds their
// servers (-1 for the components of jobs), o.load their loads and val0
// their value. An improvement of s.incVal is copied, whole, into o.inc.
// It returns the nodes visited and whether the search completed.
//
// Order: jobs by decreasing (phi0 - phi) / components, the relaxed value
// per component that the best multipliers take from the job (its share of
// the congestion; see the esdp doc for the orders tried), components by
// their best reduced value, channels by reduced value (the congestion the
// multipliers price), then "unplaced". Bounds: the capacity-free bound
// and the Lagrangian bound at the best multipliers on the capacities the
// fixed components leave (mu·(capv - load0) + reduced values), then the
// same two on the residual capacities (residBound).
func (s *gangSolve) search(capv []float64, jobs []int, val0 float64, budget int64) (int64, bool) {
	o, m := s.o, s.ch.model
	muC := val0
	for i, mu := range o.bestMu {
		muC += mu * (capv[i] - o.load[i])
	}
	for _, l := range jobs {
		o.placed[l] = 0
	}
	// Jobs by the value the multipliers take from them per component
	// (phi0 - phi, the job's share of the congestion, over its
	// components): the contended jobs are decided first.
	for _, l := range jobs {
		lo, hi := m.Components(l)
		o.jkey[l] = (o.phi0[l] - o.phi[l]) / float64(max(1, hi-lo))
	}
	sortIdxDesc(jobs, o.jkey)
	n := 0
	for _, l := range jobs {
		lo, hi := m.Components(l)
		seq := o.seq[n : n+hi-lo]
		for j := range seq {
			seq[j] = lo + j
		}
		sortIdxDesc(seq, o.bwM)
		for j, c := range seq {
			o.remIncl[n+j] = hi - lo - j
			clo, chi := s.ch.Range(c)
			perm := o.perm[clo:chi]
			for i := range perm {
				perm[i] = clo + i
			}
			sortIdxDesc(perm, o.w)
		}
		n += hi - lo
	}
	seq := o.seq[:n]
	if o.ld.on {
		for c := range o.ld.pos {
			o.ld.pos[c] = -1
		}
		for j, c := range seq {
			o.ld.pos[c] = j
		}
		o.ld.posReady = false
	}
	o.rows.reset(n, len(o.ld.ordStart)-1, o.ld.on)
	// Suffix bounds: within a job Σ max(0, best component), after it the
	// job's relaxed value; at mu = 0 and at bestMu.
	o.suf0[n], o.sufM[n] = 0, 0
	jobEnd0, jobEndM := 0.0, 0.0
	in0, inM := 0.0, 0.0
	for d := n - 1; d >= 0; d-- {
		c := seq[d]
		if o.remIncl[d] == 1 { // last component of its job
			jobEnd0, jobEndM = o.suf0[d+1], o.sufM[d+1]
			in0, inM = 0, 0
		}
		in0 += max(0, o.bw0[c])
		inM += max(0, o.bwM[c])
		o.suf0[d], o.sufM[d] = jobEnd0+in0, jobEndM+inM
	}
	cur := o.chosen[:m.NumComponents()]
	var nodes int64
	val, red := val0, 0.0
	// with the class-form decomposition: lambda over the placed
	// channels, the fixed ones first (gang_ldfix.go)
	redL := 0.0
	if s.ldcOn {
		for c, r := range cur {
			if r >= 0 {
				i, _ := s.ch.Channel(c, r)
				redL += o.ld.lam[i]
			}
		}
	}
	// the column generation's node bound (dwFix, gang_dw.go): its
	// servers' and jobs' sums, restored from the depth's saved values
	// when a choice is undone
	dwb := s.dwbOn
	dw := &o.dw
	var ts, tj float64
	if dwb {
		ts, tj = s.dwbStart(cur, jobs)
		dw.saveS, dw.saveTS = growF(dw.saveS, n), growF(dw.saveTS, n)
		dw.saveTJ, dw.saveU = growF(dw.saveTJ, n), growF(dw.saveU, n)
	}
	// channels fixed out by their reduced cost: those that cannot take
	// part in a placement above the incumbent at the search's start
	s.elimAt = s.incVal + s.tol
	d, enter := 0, true
	for d >= 0 {
		if enter {
			nodes++
			if nodes > budget {
				return nodes - 1, false
			}
			if nodes&63 == 0 && s.late() {
				return nodes, false
			}
			if d == n {
				if val > s.incVal+s.tol {
					s.incVal = val
					s.tol = 1e-12 * max(1, math.Abs(val))
					copy(o.inc, cur)
				}
				d, enter = d-1, false
				continue
			}
			if b := min(val+o.suf0[d], muC+red+o.sufM[d]); b <= s.incVal+s.tol {
				d, enter = d-1, false
				continue
			}
			// the server whose loads the parent's decision changed
			// (-1: none, the component unplaced); rowsFull at the root
			from := rowsFull
			if d > 0 {
				from = cur[seq[d-1]]
			}
			b0, bm, bl := s.residBound(seq, d, from)
			if min(val+b0, muC+red+bm) <= s.incVal+s.tol {
				if debugChecks {
					s.checkNodeBounds(seq, d, b0, bm, bl, math.NaN())
				}
				d, enter = d-1, false
				continue
			}
			srv := 0.0
			if o.ld.on {
				srv = s.ldServerBound(seq, d, from)
			}
			if debugChecks {
				s.checkNodeBounds(seq, d, b0, bm, bl, srv)
			}
			if o.ld.on && val+bl+srv <= s.incVal+s.tol {
				d, enter = d-1, false
				continue
			}
			if s.ldcOn && val-redL+bl+s.ldcS <= s.incVal+s.tol {
				d, enter = d-1, false
				continue
			}
			if dwb && ts+tj <= s.incVal+s.tol {
				d, enter = d-1, false
				continue
			}
			o.opt[d] = 0
		}
		c := seq[d]
		l := m.Job(c)
		if r := cur[c]; r >= 0 { // undo the previous choice at depth d
			i := o.opt[d] - 1
			i = o.perm[s.ch.off[c]+i]
			s.unplace(c, r)
			val -= s.p.Value[i]
			red -= o.w[i]
			if s.ldcOn {
				redL -= o.ld.lam[i]
			}
			o.placed[l]--
			cur[c] = -1
			if dwb {
				dw.srvS[r] = dw.saveS[d]
				ts, tj = dw.saveTS[d], dw.saveTJ[d]
			}
		} else if dwb && !enter { // the skip undone
			dw.jobU[l] = dw.saveU[d]
			ts, tj = dw.saveTS[d], dw.saveTJ[d]
		}
		clo, chi := s.ch.Range(c)
		nc := chi - clo
		pl, rem := o.placed[l], o.remIncl[d]
		canPlace := pl+rem >= m.Min(l)
		canSkip := pl == 0 && !o.forceIn[l] || pl+rem-1 >= m.Min(l)
		next := false
		for o.opt[d] <= nc {
			j := o.opt[d]
			o.opt[d]++
			if j == nc {
				if canSkip {
					next = true
					if dwb {
						dw.saveU[d], dw.saveTS[d], dw.saveTJ[d] = dw.jobU[l], ts, tj
						tj -= dw.dwbJob(l, pl)
						dw.jobU[l] += dw.compPi[c]
						tj += dw.dwbJob(l, pl)
					}
				}
				break
			}
			if !canPlace {
				o.opt[d] = nc
				continue
			}
			i := o.perm[clo+j]
			if s.core > 0 && o.w[i] < o.bwM[c]-s.core {
				// outside the core: so is every later channel
				o.opt[d] = nc
				continue
			}
			// The child's first bounds, checked before entering it
			// (reduced-cost fixing at the node): channels come by
			// decreasing reduced value, so once the Lagrangian bound
			// with channel i cannot beat the incumbent no later one
			// can; the capacity-free bound prunes channel i alone.
			if muC+red+o.w[i]+o.sufM[d+1] <= s.incVal+s.tol {
				o.opt[d] = nc
				continue
			}
			if val+s.p.Value[i]+o.suf0[d+1] <= s.incVal+s.tol {
				continue
			}
			r := s.ch.Server(i)
			a := m.Demand(c)
			if !s.ch.fits[i] || s.fixedOut(i) || !s.fitsAt(a, r) {
				continue
			}
			if dwb {
				ns := min(dw.srvS[r], dw.chanB[i])
				nt := ts - dw.srvS[r] + ns
				nj := tj
				if pl == 0 {
					nj += dw.dwbJob(l, 1) - dw.dwbJob(l, 0)
				}
				if nt+nj <= s.incVal+s.tol {
					continue
				}
				dw.saveS[d], dw.saveTS[d], dw.saveTJ[d] = dw.srvS[r], ts, tj
				dw.srvS[r], ts, tj = ns, nt, nj
			}
			s.place(c, r)
			val += s.p.Value[i]
			red += o.w[i]
			if s.ldcOn {
				redL += o.ld.lam[i]
			}
			o.placed[l]++
			cur[c] = r
			next = true
			break
		}
		if next {
			d, enter = d+1, true
		} else {
			d, enter = d-1, false
		}
	}
	return nodes, true
}

// residBound bounds the completions of a search node at depth d: for the
// components at positions d.. it takes, at mu = 0 (b0) and at the best
// multipliers (bm, reduced values), each component's best channel among
// those that fit the residual capacities, and per job the best values
// with at least m_l components (minus those placed) or, for a job with
// nothing placed, none. A started job that can no longer reach m_l gives
// -Inf (the node is infeasible). Both are upper bounds of the completion
// (bm after adding mu·residual, accounted for by the caller through red).
// With the decomposition bound on, bl is the same at the values v -
// lambda: the assignment side of that bound (0 otherwise); one scan of
// the channels serves the three.
//
// from is the server whose loads changed since the parent node (depth
// d-1), -1 for none, rowsFull at the search's root. With the rows on
// (gangRows), a component's best channels are the parent's unless one of
// them is on server from and no longer fits there: loads only grow down
// the tree, so a channel that does not fit the parent does not fit the
// child, and the maxima are the same as a full scan's.
func (s *gangSolve) residBound(seq []int, d, from int) (b0, bm, bl float64) {
	o, m := s.o, s.ch.model
	rw := &o.rows
	n := len(seq)
	cur, par := 0, 0
	if rw.on {
		cur = rw.off(d)
		if from != rowsFull {
			par = rw.off(d-1) + 1
		}
	}
	for d < n {
		l := m.Job(seq[d])
		end := d + o.remIncl[d]
		pl := o.placed[l]
		v0, vm, vl := o.tmp0[:0], o.tmpM[:0], o.ld.vl[:0]
		for _, c := range seq[d:end] {
			var e rowEntry
			switch {
			case !rw.on || from == rowsFull:
				e = s.scanComp(c)
			default:
				e = rw.e[par]
				par++
				if from >= 0 && (s.onServer(e.a0, from) || s.onServer(e.aM, from) || s.onServer(e.aL, from)) && !s.fitsAt(m.Demand(c), from) {
					e = s.scanComp(c)
				}
			}
			if rw.on {
				rw.e[cur] = e
				cur++
			}
			if e.aM >= 0 {
				v0, vm = append(v0, e.b0), append(vm, e.bM)
				if s.ldVals() {
					vl = append(vl, e.bL)
				}
			}
		}
		need := max(0, m.Min(l)-pl)
		canZero := pl == 0 && !o.forceIn[l]
		if len(v0) < need {
			if !canZero {
				return math.Inf(-1), math.Inf(-1), math.Inf(-1)
			}
		} else {
			p0, pm := jobPart(v0, need, canZero), jobPart(vm, need, canZero)
			if pl == 0 {
				p0, pm = min(p0, o.cap0[l]), min(pm, o.capM[l])
			}
			b0 += p0
			bm += pm
			if s.ldVals() {
				bl += jobPart(vl, need, canZero)
			}
		}
		d = end
	}
	return b0, bm, bl
}

// onServer reports whether channel i (-1 for none) is on server r.
func (s *gangSolve) onServer(i int32, r int) bool {
	return i >= 0 && int(s.ch.server[i]) == r
}

// scanComp returns component c's best channels among those that fit the
// residual capacities (o.load): by value, by reduced value and (with the
// decomposition bound) by v - lambda; channel -1 and value -Inf when
// none fits.
func (s *gangSolve) scanComp(c int) rowEntry {
	o := s.o
	ldOn, lv := s.ldVals(), o.ld.vals
	a := s.ch.model.Demand(c)
	e := rowEntry{b0: math.Inf(-1), bM: math.Inf(-1), bL: math.Inf(-1), a0: -1, aM: -1, aL: -1}
	clo, chi := s.ch.Range(c)
	for i := clo; i < chi; i++ {
		v, w := s.p.Value[i], o.w[i]
		if !s.ch.fits[i] || s.fixedOut(i) || (v <= e.b0 && w <= e.bM && (!ldOn || lv[i] <= e.bL)) || !s.fitsAt(a, s.ch.Server(i)) {
			continue
		}
		if v > e.b0 {
			e.b0, e.a0 = v, int32(i)
		}
		if w > e.bM {
			e.bM, e.aM = w, int32(i)
		}
		if ldOn && lv[i] > e.bL {
			e.bL, e.aL = lv[i], int32(i)
		}
	}
	return e
}

// jobExactComps and jobExactNodes bound the exhaustive search of
// jobExact: jobs with more components, or searches with more nodes, get
// no job bound (+Inf).
const (
	jobExactComps = 16
	jobExactNodes = 1 << 12
	placeJobNodes = 1 << 8 // the rounding's fallback search of one job
)

// jobExact returns the best value of job l on its own at the full
// capacities (o.load must be zero; it is restored): at least m_l
// components placed, each on one fitting channel, with the servers'
// capacities shared by the job's components, or nothing (0). Values are
// reduced at bestMu if reduced, else the channel values. It returns +Inf
// when the job is too large or the search exceeds its budget (no bound).
func (s *gangSolve) jobExact(l int, reduced bool) float64 {
	val := s.p.Value
	if reduced {
		val = s.o.w
	}
	js := jobSearch{s: s, val: val, limit: jobExactNodes}
	if !js.solve(l, 0) {
		return math.Inf(1)
	}
	return js.best
}

// jobSearch is the state of the exhaustive search of one job on the
// loads o.load (restored after the search): the best value
// of at least m_l components, each on a fitting channel, or floor.
type jobSearch struct {
	s            *gangSolve
	val          []float64
	suf          [jobExactComps + 1]float64
	pick, best_  [jobExactComps]int // current and best channel per component (-1)
	lo, hi, need int
	nodes, limit int
	best         float64
	found        bool
}

// solve searches job l from the value floor (0: the job may stay
// unserved; -Inf: find the best placement whatever its value). It returns
// false if the job is too large or the search exceeds its budget.
func (js *jobSearch) solve(l int, floor float64) bool {
	s := js.s
	m := s.ch.model
	js.lo, js.hi = m.Components(l)
	js.need, js.best, js.found = m.Min(l), floor, false
	if js.hi-js.lo > jobExactComps {
		return false
	}
	// suffix bound: Σ max(0, best channel) of components c.. of the job
	js.suf[js.hi-js.lo] = 0
	for c := js.hi - 1; c >= js.lo; c-- {
		b := 0.0
		clo, chi := s.ch.Range(c)
		for i := clo; i < chi; i++ {
			if s.ch.fits[i] {
				b = max(b, js.val[i])
			}
		}
		js.suf[c-js.lo] = js.suf[c-js.lo+1] + b
	}
	return js.rec(js.lo, 0, 0)
}

func (js *jobSearch) rec(c, n int, v float64) bool {
	if js.nodes++; js.nodes > js.limit {
		return false
	}
	if c == js.hi {
		if n >= js.need && v > js.best {
			js.best, js.found = v, true
			js.best_ = js.pick
		}
		return true
	}
	if v+js.suf[c-js.lo] <= js.best || n+js.hi-c < js.need {
		return true
	}
	s := js.s
	a := s.ch.model.Demand(c)
	clo, chi := s.ch.Range(c)
	for i := clo; i < chi; i++ {
		r := s.ch.Server(i)
		if !s.ch.fits[i] || !s.fitsAt(a, r) {
			continue
		}
		s.place(c, r)
		js.pick[c-js.lo] = i
		ok := js.rec(c+1, n+1, v+js.val[i])
		s.unplace(c, r)
		if !ok {
			return false
		}
	}
	js.pick[c-js.lo] = -1
	return js.rec(c+1, n, v)
}

// jobPart returns the best sum of at least need of the values v (all of
// them if need > len(v) is excluded by the caller): every positive value,
// completed by the largest others up to need; with canZero, at least 0.
// It reorders v.
func jobPart(v []float64, need int, canZero bool) float64 {
	pos, sum := 0, 0.0
	for _, x := range v {
		if x > 0 {
			pos++
			sum += x
		}
	}
	if pos < need {
		sortFloatDesc(v)
		sum = 0
		for _, x := range v[:need] {
			sum += x
		}
	}
	if canZero {
		return max(0, sum)
	}
	return sum
}

// sortFloatDesc sorts v in decreasing order without allocating.
func sortFloatDesc(v []float64) {
	n := len(v)
	if n <= 12 {
		for i := 1; i < n; i++ {
			for j := i; j > 0 && v[j] > v[j-1]; j-- {
				v[j], v[j-1] = v[j-1], v[j]
			}
		}
		return
	}
	down := func(i, n int) { // min-heap: the root is the smallest
		for {
			j := 2*i + 1
			if j >= n {
				return
			}
			if j+1 < n && v[j+1] < v[j] {
				j++
			}
			if !(v[j] < v[i]) {
				return
			}
			v[i], v[j] = v[j], v[i]
			i = j
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for i := n - 1; i > 0; i-- {
		v[0], v[i] = v[i], v[0]
		down(0, i)
	}
}

// sortIdxDesc sorts idx by key[idx] descending, ties by idx ascending
// (a total order: deterministic), in place without allocating (heapsort;
// insertion sort for short slices).
func sortIdxDesc(idx []int, key []float64) {
	less := func(a, b int) bool { // a before b
		ka, kb := key[a], key[b]
		if ka != kb {
			return ka > kb
		}
		return a < b
	}
	n := len(idx)
	if n <= 12 {
		for i := 1; i < n; i++ {
			for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
				idx[j], idx[j-1] = idx[j-1], idx[j]
			}
		}
		return
	}
	// Heapsort with the "last" element at the root: a max-heap on the
	// reversed order gives ascending "less" order.
	down := func(i, n int) {
		for {
			j := 2*i + 1
			if j >= n {
				return
			}
			if j+1 < n && less(idx[j], idx[j+1]) {
				j++
			}
			if !less(idx[i], idx[j]) {
				return
			}
			idx[i], idx[j] = idx[j], idx[i]
			i = j
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for i := n - 1; i > 0; i-- {
		idx[0], idx[i] = idx[i], idx[0]
		down(0, i)
	}
}

// bigKeys sets o.jkey of the active jobs for the big-first order: the
// largest demand of a component relative to the largest capacity of its
// resource, ties by relaxed value.
func (s *gangSolve) bigKeys(small bool) {
	o, m := s.o, s.ch.model
	s.capMax()
	top := 0.0
	for _, l := range s.active {
		top = max(top, math.Abs(o.phi[l]))
	}
	for _, l := range s.active {
		lo, hi := m.Components(l)
		z, tot := 0.0, 0.0
		for c := lo; c < hi; c++ {
			zc := s.compSize(c)
			z, tot = max(z, zc), tot+zc
		}
		if small {
			// the least total (normalised) demand first
			z = -tot
		}
		o.jkey[l] = z + 1e-6*o.phi[l]/max(top, math.SmallestNonzeroFloat64)
	}
}

// capMax sets o.kcap, the largest capacity of each resource.
func (s *gangSolve) capMax() {
	o, K := s.o, s.K
	o.kcap = growF(o.kcap, K)
	clear(o.kcap)
	for r := 0; r < s.ch.model.NumServers(); r++ {
		for k := 0; k < K; k++ {
			o.kcap[k] = max(o.kcap[k], o.capv[r*K+k])
		}
	}
}

// compSize is component c's largest demand relative to the largest
// capacity of its resource (o.kcap, set by capMax).
func (s *gangSolve) compSize(c int) float64 {
	z := 0.0
	for k, x := range s.ch.model.Demand(c) {
		if s.o.kcap[k] > 0 {
			z = max(z, x/s.o.kcap[k])
		}
	}
	return z
}

// diversify runs once in the time-limited phase (issue 29), when the
// improvement steps have stalled (lnsStall steps in a row per active job
// without improvement): second starts for the slots where the
// subgradient's rounding and the job neighbourhoods serve one job less
// than the optimum because their placements leave no room for a job of
// big components (on the DLRM trace, 5-7 components of 24 of a CN
// server's 32 CPU), or that pack the CPU less tightly than a choice of
// smaller jobs would. After the incumbent's class reassignment (polish)
// it restarts (restartFrom) from the two roundings that serve the most
// jobs, then of the largest value, among: big jobs first and small jobs
// first (by total normalised demand), each channel by reduced value or
// by best fit, at the last and at the best multipliers, and big first
// without each active job in turn. It returns the nodes used, at most
// budget.
func (s *gangSolve) diversify(capv []float64, budget int64) int64 {
	o, m := s.o, s.ch.model
	C := m.NumComponents()
	s.polishAll()
	// Candidate starts: big first and small first, each by reduced value
	// and by best fit, at the last and at the best multipliers, and big
	// first without each active job in turn; the two serving the most
	// jobs (then of the largest value) are restarted from.
	type start struct {
		order, skip int
		mu          []float64
		served      int
		val         float64
	}
	var top [2]start
	top[0].served, top[1].served = -1, -1
	try := func(order, skip int, mu []float64) {
		v := s.roundBy(order, skip, mu)
		st := start{order, skip, mu, s.servedIn(o.chosen[:C]), v}
		better := func(a, b start) bool { return a.served > b.served || a.served == b.served && a.val > b.val }
		switch {
		case better(st, top[0]):
			top[1], top[0] = top[0], st
		case better(st, top[1]):
			top[1] = st
		}
	}
	for _, mv := range [2][]float64{o.mu, o.bestMu} {
		for _, order := range [4]int{roundBig, roundBig | roundFit, roundSmall, roundSmall | roundFit} {
			try(order, -1, mv)
		}
		for _, l := range s.active {
			if s.late() {
				break
			}
			try(roundBig, l, mv)
		}
	}
	var n int64
	for _, st := range top {
		if st.served < 0 || s.late() {
			break
		}
		n += s.restartFrom(st.order, st.skip, st.mu, capv, budget-n)
	}
	return n
}

// servedIn counts the active jobs with a component placed in x.
func (s *gangSolve) servedIn(x []int) int {
	m := s.ch.model
	n := 0
	for _, l := range s.active {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			if x[c] >= 0 {
				n++
				break
			}
		}
	}
	return n
}

// restartFrom builds the rounding of the given order, without job skip
// (-1: none), at the multipliers mu as a second start, reassigns it (polish), improves it
// within budget nodes (the improvement phase's steps and patience) and
// keeps it if it then beats the incumbent, else restores the incumbent.
func (s *gangSolve) restartFrom(order, skip int, mu, capv []float64, budget int64) int64 {
	return s.restart(s.roundBy(order, skip, mu), capv, budget)
}
