package esdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Feedback is the semi-bandit feedback of a slot: the realised normalised
// rewards Z~_e(t) of the chosen edges only.
type Feedback struct {
	Chosen []bool    // x(t), len |E|
	Reward []float64 // Z~_e(t) in [0,1] where Chosen[e]; other entries are ignored
}

// Settings configures a Policy. The zero value is the paper's experimental
// setup (Section 4.1): m = 0.5 |E|, delta = DeltaLogLog, g = GDefault, the
// per-slot problem over the edges of ports with a job, exact oracles with
// 1 GiB of tables, no logging.
type Settings struct {
	// Alpha sets m = max_x ||x||_1 to ceil(Alpha |E|), the experiments'
	// simplification; in (0, 1]. Zero means 0.5.
	Alpha float64
	// M, if positive, sets m directly (e.g. the exact maximum cardinality);
	// at most MaxEdges. Zero means ceil(Alpha |E|).
	M int
	// Delta is delta(t) of P3(t), t = 1, 2, ...; nil means DeltaLogLog.
	Delta func(t int) float64
	// G is g(t) of (9)-(10); nil means Exploration's sequence.
	G func(t int, m float64) float64
	// Exploration names g(t) when G is nil: ExploreDefault (the zero
	// value, GDefault, the experiments'), ExploreLog (GLog, g(t) =
	// ln(t+1), the best sequence of the paper's Fig. 8) or ExploreLogLog.
	Exploration Exploration
	// SolveThenZero selects the paper's Algorithm 1 literally: solve over
	// all edges, then zero the edges of ports without a job (Steps 10-16).
	// False (the zero value) solves over the edges of arrived ports only,
	// which is never worse.
	SolveThenZero bool
	// Oracle configures the dynamic program (memory and work budget); its
	// zero value is ready.
	Oracle OracleSettings
	// Mode selects the oracle of P3(t): ModeAuto (the zero value) runs the
	// paper's exact dynamic program when it fits Oracle's budget (and its
	// budgets xi*m fit int32 cells: xi = ceil(m/delta(t)) grows with t) and
	// the scalable oracle (a Lagrangian knapsack with a certified gap,
	// SlotInfo.Gap) in the slots where it does not; ModeExact fails there
	// with ErrTooLarge; ModeScalable always runs the scalable oracle.
	Mode Mode
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family, policy, slot, then exploration, s*, index, DP cells), in
	// the log vocabulary of package bipartite. Nil (the zero value)
	// logs nothing and costs nothing.
	Logger *slog.Logger
}

// Validate returns every problem of s, joined with errors.Join, each
// wrapping ErrSettings and naming its field and value.
func (s Settings) Validate() error {
	var errs []error
	if !(s.Alpha >= 0 && s.Alpha <= 1) {
		errs = append(errs, fmt.Errorf("%w: Settings.Alpha = %v, want (0, 1] (or 0 for 0.5)", ErrSettings, s.Alpha))
	}
	if s.M < 0 || s.M > MaxEdges {
		errs = append(errs, fmt.Errorf("%w: Settings.M = %d, want 0..MaxEdges = %d", ErrSettings, s.M, MaxEdges))
	}
	if err := s.Oracle.Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.Exploration.G() == nil {
		errs = append(errs, fmt.Errorf("%w: Settings.Exploration = %d, want ExploreDefault, ExploreLog or ExploreLogLog", ErrSettings, int(s.Exploration)))
	}
	if s.Mode < ModeAuto || s.Mode > ModeScalable {
		errs = append(errs, fmt.Errorf("%w: Settings.Mode = %d, want ModeAuto, ModeExact or ModeScalable", ErrSettings, int(s.Mode)))
	}
	return errors.Join(errs...)
}

// SlotInfo describes the last decision of a Policy.
type SlotInfo struct {
	// Explore reports a slot spent on unplayed edges (sigma^2 = +Inf).
	Explore   bool
	Delta     float64 // delta(t)
	G         float64 // g(t)
	Xi        int     // xi(t) of (15)
	MaxBudget int     // max S(t) = xi(t) m
	Best      int     // s* of (17)
	Index     float64 // s* + sqrt(Sigma2 . x*(s*))
	Cells     int64   // DP cells evaluated
	Bytes     int64   // DP table memory
	// Scalable reports a slot solved by the scalable oracle (Settings.Mode)
	// instead of the dynamic program; Index is then xi(t) f(x), f the
	// objective of P3(t) without delta, in the units of the DP's index.
	Scalable bool
	// Gap is the certified bound of the scalable oracle: the optimum of
	// P3(t) is at most f(x) + Gap (unscaled units of P3(t)). 0 for the
	// dynamic program, exact for P4 as the paper's Algorithm 2.
	Gap float64
	// Nodes counts the branch-and-bound nodes of the scalable oracle.
	Nodes int64
}

// Policy is ESDP (Algorithm 1 with Algorithm 2 as its subroutine). It
// implements OnlinePolicy — the observation is 1_l(t) per port, the
// decision x(t) per edge — and Learner.
//
// Decide returns a slice owned by the policy, valid until the next call of
// any of its methods. After every edge has been played, Decide and Observe
// allocate nothing. A Policy is not safe for concurrent use.
type Policy struct {
	cl    *Cluster // a private copy, see New
	set   Settings
	m     int
	stats Stats
	model string // snapshot fingerprint

	enabled  []bool
	playable []bool // Cluster.Playable per edge
	ups      []int
	sig      []float64
	val      []float64
	mean     []float64 // v^ for the scalable oracle
	best     []bool    // the scalable oracle's best x
	x        []bool    // the decision of the last Decide, private: Observe and snapshots read it
	out      []bool    // the copy of x returned to the caller (the caller may overwrite it)
	oracle   *Oracle
	sorc     *Oracle // branch and bound only, for the scalable oracle
	bp       Budgeted
	kp       Knapsack
	last     SlotInfo
	decided  bool // a Decide awaits its Observe
	started  bool // a Decide has succeeded
	lastT    int  // slot of the last Decide
}

var (
	_ OnlinePolicy = (*Policy)(nil)
	_ Learner      = (*Policy)(nil)
)

// New returns ESDP for cl with settings s. It calls s.Validate first; a nil
// or invalid cl is an error.
//
// New keeps a copy of cl's capacities, demands and costs (the graph is
// immutable), so changing cl afterwards does not change the policy's
// decisions: to schedule on a changed cluster, build it with a Cluster edit
// method (RemoveServer, AddServer, RemovePort, AddPort) and call
// ChangeCluster with its Mapping, which carries the statistics of the
// edges that remain.
func New(cl *Cluster, s Settings) (*Policy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if err := cl.Validate(); err != nil {
		return nil, err
	}
	cl = cl.Clone()
	opt := s
	if opt.Alpha == 0 {
		opt.Alpha = 0.5
	}
	if opt.Delta == nil {
		opt.Delta = DeltaLogLog
	}
	if opt.G == nil {
		opt.G = opt.Exploration.G()
	}
	E := cl.NumEdges()
	m := opt.M
	if m == 0 {
		m = max(1, int(math.Ceil(opt.Alpha*float64(E)-1e-9)))
	}
	p := &Policy{cl: cl, set: opt, m: m, stats: NewStats(E),
		enabled: make([]bool, E), ups: make([]int, E), sig: make([]float64, E), val: make([]float64, E),
		x: make([]bool, E), out: make([]bool, E), oracle: NewOracle(opt.Oracle), playable: make([]bool, E),
		mean: make([]float64, E), best: make([]bool, E),
		sorc: NewOracle(OracleSettings{Knapsack: KnapsackBranchBound, MaxNodes: opt.Oracle.MaxNodes})}
	for e := range p.playable {
		p.playable[e] = cl.Playable(e)
	}
	p.bp = Budgeted{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Upsilon: p.ups, Sigma2: p.sig, Enabled: p.enabled}
	p.kp = Knapsack{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Value: p.val, Enabled: p.enabled}
	p.model = p.fingerprint()
	return p, nil
}

// Cluster returns a copy of the cluster the policy schedules on.
func (p *Policy) Cluster() *Cluster { return p.cl.Clone() }

// Count returns n_e of (7), the plays of edge e. It panics if e is not an
// edge id (a programmer error).
func (p *Policy) Count(e int) int { return p.stats.Count(e) }

// Mean returns the empirical mean v^_e of (8) (0 for an unplayed edge). It
// panics if e is not an edge id.
func (p *Policy) Mean(e int) float64 { return p.stats.Mean(e) }

// Stats returns a copy of the statistics (7)-(8).
func (p *Policy) Stats() Stats { return p.stats.Clone() }

// Warm adds observations that belong to no decision of this policy (a warm
// start from history): the rewards of the edges marked in fb.Chosen. It
// checks lengths and rewards like Stats.Observe and changes nothing on
// error.
func (p *Policy) Warm(fb Feedback) error { return p.stats.Observe(fb) }

// Name returns "ESDP".
func (p *Policy) Name() string { return "ESDP" }

// M returns m, the bound on ||x||_1 used by (10), (15) and S(t).
func (p *Policy) M() int { return p.m }

// Last returns information on the last decision.
func (p *Policy) Last() SlotInfo { return p.last }

// Variance returns sigma^2_e(t) = g(t)/(2 n_e) of (9) for slot index t
// (0-based, as in Decide); +Inf for an unplayed edge. It panics if e is
// not an edge id (a programmer error).
func (p *Policy) Variance(t, e int) float64 {
	if p.stats.Count(e) == 0 {
		return math.Inf(1)
	}
	return p.set.G(t+1, float64(p.m)) / (2 * float64(p.stats.Count(e)))
}

// Index returns the objective of P3(t), delta(t) + v^.x + sqrt(sigma^2.x),
// for slot index t (0-based) with the current statistics. It panics if x
// is longer than |E| (a programmer error).
func (p *Policy) Index(t int, x []bool) float64 {
	v, s2 := 0.0, 0.0
	for e, on := range x {
		if on {
			v += p.Mean(e)
			s2 += p.Variance(t, e)
		}
	}
	return p.set.Delta(t+1) + v + math.Sqrt(s2)
}

// Decide returns x(t) for slot t (the paper's slot t+1) given
// arrived[l] = 1_l(t). t must be >= 0 and greater than the previous
// Decide's t, or the error wraps ErrSlot. A gap (slots without a Decide)
// advances delta(t) and g(t) of (9)-(10) as if those slots had passed
// without feedback; the statistics are unchanged.
//
// While an edge that may be chosen has never been played its sigma^2 is
// +Inf and P3(t) degenerates; Decide then solves the limit of P3(t) as
// those sigma^2 grow without bound: maximise the number of unplayed edges,
// then v^.x, subject to (1) and (2) — one exact knapsack with value
// (n+1) [n_e = 0] + v^_e. Otherwise it computes (13)-(15), solves every
// P4(s,t), s in S(t), in one dynamic program and returns x*(s*, t).
func (p *Policy) Decide(t int, arrived []bool) ([]bool, error) {
	x, err := p.decide(t, arrived)
	if debugChecks && err == nil {
		if ferr := p.cl.Feasible(x, arrived); ferr != nil {
			panic("esdp: infeasible decision: " + ferr.Error())
		}
	}
	return x, err
}

// decide is Decide without the debug build's feasibility check.
func (p *Policy) decide(t int, arrived []bool) ([]bool, error) {
	cl := p.cl
	g := cl.Graph
	if len(arrived) != g.NumLeft() {
		return nil, fmt.Errorf("%w: len(arrived) = %d, want |L| = %d", ErrDimension, len(arrived), g.NumLeft())
	}
	if t < 0 || t == math.MaxInt {
		return nil, fmt.Errorf("%w: slot %d, want 0..%d", ErrSlot, t, math.MaxInt-1)
	}
	if p.started && t <= p.lastT {
		return nil, fmt.Errorf("%w: slot %d, want > %d (the previous Decide's)", ErrSlot, t, p.lastT)
	}
	tau := t + 1
	nEn, unplayed := 0, false
	for l := 0; l < g.NumLeft(); l++ {
		lo, hi := g.LeftRange(l)
		on := arrived[l] || p.set.SolveThenZero
		for e := lo; e < hi; e++ {
			p.enabled[e] = on
			if on {
				nEn++
			}
			// Only a playable edge of a port with a job can be explored in
			// this slot; an edge that does not fit alone would stay
			// unplayed, and the policy in the exploration branch, forever.
			if arrived[l] && p.playable[e] && p.stats.Count(e) == 0 {
				unplayed = true
			}
		}
	}
	var x []bool
	if unplayed {
		big := float64(nEn + 1)
		for e := range p.val {
			p.val[e] = p.Mean(e)
			if p.stats.Count(e) == 0 && p.playable[e] && arrived[g.Edge(e).Left] {
				p.val[e] += big
			}
		}
		r, err := p.oracle.SolveKnapsack(&p.kp)
		if err != nil {
			return nil, err
		}
		x = r.X
		p.last = SlotInfo{Explore: true, Cells: r.Cells, Bytes: r.Bytes}
	} else {
		delta := p.set.Delta(tau)
		m := float64(p.m)
		xiF := math.Ceil(m / delta)
		if !(delta > 0) || math.IsInf(xiF, 0) || xiF > maxXi {
			return nil, fmt.Errorf("%w: delta(%d) = %v gives xi = %v, limit %v", ErrSettings, tau, delta, xiF, float64(maxXi))
		}
		gt := p.set.G(tau, m)
		if !(gt > 0) || math.IsInf(gt, 0) {
			return nil, fmt.Errorf("%w: g(%d) = %v", ErrSettings, tau, gt)
		}
		xi := int(xiF)
		// The DP's budgets s = 0..xi*m must be int32 cells. delta(t)
		// decreases, so xi*m grows with t: on a large cluster (m in the
		// tens of thousands) it passes 2^31 after some slots, and from then
		// on only the scalable oracle can decide the slot.
		dpFits := xiF*m <= math.MaxInt32
		if p.set.Mode == ModeScalable || (!dpFits && p.set.Mode == ModeAuto) {
			return p.decideScalable(t, delta, gt, xi, arrived)
		}
		if !dpFits {
			return nil, fmt.Errorf("%w: ModeExact: the budgets xi*m = %v*%d of slot %d exceed the DP's int32 cells (ModeAuto and ModeScalable use the scalable oracle there)", ErrTooLarge, xiF, p.m, t)
		}
		for e := range p.ups {
			v := p.Mean(e)
			p.ups[e] = int(math.Ceil(xiF * v)) // (13)
			p.sig[e] = 0                       // unused when disabled
			if p.stats.Count(e) > 0 {
				p.sig[e] = xiF * xiF * gt / (2 * float64(p.stats.Count(e))) // (14) with (9)
			}
		}
		p.bp.MaxBudget = xi * p.m
		r, err := p.oracle.SolveBudgeted(&p.bp)
		if err != nil {
			if p.set.Mode == ModeAuto && errors.Is(err, ErrTooLarge) {
				return p.decideScalable(t, delta, gt, xi, arrived)
			}
			return nil, err
		}
		x = r.Solution(p.x, r.Best)
		p.last = SlotInfo{Delta: delta, G: gt, Xi: xi, MaxBudget: p.bp.MaxBudget, Best: r.Best,
			Index: r.BestIndex, Cells: r.Cells, Bytes: r.Bytes}
	}
	return p.finish(t, x, arrived)
}

// maxXi bounds the scale xi = ceil(m/delta(t)): above 2^52 it is no longer
// an exact integer in float64.
const maxXi = 1 << 52

// decideScalable finishes Decide with the scalable oracle.
func (p *Policy) decideScalable(t int, delta, gt float64, xi int, arrived []bool) ([]bool, error) {
	for e := range p.sig {
		p.mean[e] = p.Mean(e)
		p.sig[e] = 0 // an unplayed edge is not playable here
		if n := p.stats.Count(e); n > 0 {
			p.sig[e] = gt / (2 * float64(n)) // (9)
		}
	}
	f, ub, nodes, err := p.solveScalable()
	if err != nil {
		return nil, err
	}
	budget, ok := checked.Mul(xi, p.m)
	if !ok {
		budget = math.MaxInt
	}
	p.last = SlotInfo{Delta: delta, G: gt, Xi: xi, MaxBudget: budget, Best: -1,
		Index: float64(xi) * f, Scalable: true, Gap: ub - f, Nodes: nodes}
	return p.finish(t, p.best, arrived)
}

// finish installs the decision x of slot t.
func (p *Policy) finish(t int, x, arrived []bool) ([]bool, error) {
	g := p.cl.Graph
	copy(p.x, x)
	if p.set.SolveThenZero { // Steps 10-16
		for l := 0; l < g.NumLeft(); l++ {
			if !arrived[l] {
				lo, hi := g.LeftRange(l)
				clear(p.x[lo:hi])
			}
		}
	}
	p.decided, p.started, p.lastT = true, true, t
	if p.set.Logger != nil {
		p.logDecide(t)
	}
	copy(p.out, p.x)
	return p.out, nil
}

func (p *Policy) logDecide(t int) {
	l := p.last
	p.set.Logger.LogAttrs(context.Background(), slog.LevelDebug, "decide",
		slog.String("family", "esdp"), slog.String("policy", p.Name()), slog.Int("slot", t), slog.Bool("explore", l.Explore), slog.Int("best", l.Best),
		slog.Float64("index", l.Index), slog.Int64("cells", l.Cells), slog.Int64("bytes", l.Bytes),
		slog.Bool("scalable", l.Scalable), slog.Float64("gap", l.Gap))
}

// Observe updates n_e and v^_e of (7)-(8) with the realised rewards of the
// chosen edges (see Stats.Observe). The feedback must be that of the last
// Decide (same slot t, once; else the error wraps ErrSlot); an edge reported
// as chosen that the decision did not choose is an error wrapping ErrValue;
// on any error the policy is left unchanged. (To warm-start the
// statistics, call Warm.)
func (p *Policy) Observe(t int, fb Feedback) error {
	if err := CheckFeedback(p.x, p.decided, p.lastT, t, fb); err != nil {
		return err
	}
	if err := p.stats.Observe(fb); err != nil {
		return err
	}
	p.decided = false
	return nil
}

// CheckFeedback returns an error if fb reports an edge that the decision x
// of slot lastT did not choose (ErrValue), if t != lastT or decided is
// false (no decision awaits its feedback) (ErrSlot). Policies of this
// family call it at the start of Observe so that bad feedback leaves them
// unchanged.
func CheckFeedback(x []bool, decided bool, lastT, t int, fb Feedback) error {
	if !decided {
		return fmt.Errorf("%w: feedback for slot %d without a pending decision (Observe follows each Decide once)", ErrSlot, t)
	}
	if t != lastT {
		return fmt.Errorf("%w: feedback for slot %d, last decision at slot %d", ErrSlot, t, lastT)
	}
	if len(fb.Chosen) != len(x) {
		return fmt.Errorf("%w: len(Chosen) = %d, want |E| = %d", ErrDimension, len(fb.Chosen), len(x))
	}
	for e, on := range fb.Chosen {
		if on && !x[e] {
			return fmt.Errorf("%w: feedback for edge %d, which slot %d's decision did not choose", ErrValue, e, t)
		}
	}
	return nil
}
