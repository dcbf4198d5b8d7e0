package esdp

import (
	"fmt"
	"math"

	"github.com/msched/msched/bipartite"
)

// Feedback is the semi-bandit feedback of a slot: the realised normalised
// rewards Z~_e(t) of the chosen edges only.
type Feedback struct {
	Chosen []bool    // x(t), len |E|
	Reward []float64 // Z~_e(t) in [0,1] where Chosen[e]; other entries are ignored
}

// Options configures a Policy. The zero value is the paper's experimental
// setup (Section 4.1): m = 0.5 |E|, delta = DeltaLogLog, g = GDefault, the
// per-slot problem over the edges of ports with a job.
type Options struct {
	// Alpha sets m = max_x ||x||_1 to ceil(Alpha |E|), the experiments'
	// simplification. If Alpha is 0 it is defaulted to 0.5.
	Alpha float64
	// M, if positive, sets m directly (e.g. the exact maximum cardinality).
	M int
	// Delta is delta(t) of P3(t), t = 1, 2, ...; nil means DeltaLogLog.
	Delta func(t int) float64
	// G is g(t) of (9)-(10); nil means GDefault.
	G func(t int, m float64) float64
	// SolveThenZero selects the paper's Algorithm 1 literally: solve over
	// all edges, then zero the edges of ports without a job (Steps 10-16).
	// The default solves over the edges of arrived ports only, which is
	// never worse.
	SolveThenZero bool
	// Oracle configures the dynamic program (memory limit).
	Oracle Settings
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
}

// Policy is ESDP (Algorithm 1 with Algorithm 2 as its subroutine). It
// implements bipartite.OnlinePolicy[[]bool, []bool] — the observation is
// 1_l(t) per port, the decision x(t) per edge — and
// bipartite.Learner[Feedback].
//
// Decide returns a slice owned by the policy, valid until the next Decide.
// After every edge has been played, Decide and Observe allocate nothing.
// A Policy is not safe for concurrent use.
type Policy struct {
	cl  *Cluster
	opt Options
	m   int
	Stats

	enabled  []bool
	playable []bool // Cluster.Playable per edge
	ups      []int
	sig      []float64
	val      []float64
	x        []bool
	oracle   *Oracle
	bp       Budgeted
	kp       Knapsack
	last     SlotInfo
	decided  bool // a Decide awaits its Observe
	lastT    int  // slot of the last Decide
}

var (
	_ bipartite.OnlinePolicy[[]bool, []bool] = (*Policy)(nil)
	_ bipartite.Learner[Feedback]            = (*Policy)(nil)
)

// New returns ESDP for cl. cl must stay unchanged while the policy is used.
// A nil or invalid cl is an error.
func New(cl *Cluster, opt Options) (*Policy, error) {
	if err := cl.Validate(); err != nil {
		return nil, err
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.5
	}
	if !(opt.Alpha > 0 && opt.Alpha <= 1) || opt.M < 0 {
		return nil, fmt.Errorf("%w: Alpha = %v, M = %d", ErrSettings, opt.Alpha, opt.M)
	}
	if opt.M > MaxEdges {
		return nil, fmt.Errorf("%w: M = %d, limit MaxEdges = %d", ErrSettings, opt.M, MaxEdges)
	}
	if opt.Delta == nil {
		opt.Delta = DeltaLogLog
	}
	if opt.G == nil {
		opt.G = GDefault
	}
	E := cl.NumEdges()
	m := opt.M
	if m == 0 {
		m = max(1, int(math.Ceil(opt.Alpha*float64(E)-1e-9)))
	}
	p := &Policy{cl: cl, opt: opt, m: m,
		Stats:   Stats{Count: make([]int, E), Sum: make([]float64, E)},
		enabled: make([]bool, E), ups: make([]int, E), sig: make([]float64, E), val: make([]float64, E),
		x: make([]bool, E), oracle: NewOracle(opt.Oracle), playable: make([]bool, E)}
	for e := range p.playable {
		p.playable[e] = cl.Playable(e)
	}
	p.bp = Budgeted{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Upsilon: p.ups, Sigma2: p.sig, Enabled: p.enabled}
	p.kp = Knapsack{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Value: p.val, Enabled: p.enabled}
	return p, nil
}

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
	if p.Count[e] == 0 {
		return math.Inf(1)
	}
	return p.opt.G(t+1, float64(p.m)) / (2 * float64(p.Count[e]))
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
	return p.opt.Delta(t+1) + v + math.Sqrt(s2)
}

// Decide returns x(t) for slot t = 0, 1, ... (the paper's slot t+1) given
// arrived[l] = 1_l(t).
//
// While an edge that may be chosen has never been played its sigma^2 is
// +Inf and P3(t) degenerates; Decide then solves the limit of P3(t) as
// those sigma^2 grow without bound: maximise the number of unplayed edges,
// then v^.x, subject to (1) and (2) — one exact knapsack with value
// (n+1) [n_e = 0] + v^_e. Otherwise it computes (13)-(15), solves every
// P4(s,t), s in S(t), in one dynamic program and returns x*(s*, t).
func (p *Policy) Decide(t int, arrived []bool) ([]bool, error) {
	cl := p.cl
	g := cl.Graph
	if len(arrived) != g.NumLeft() {
		return nil, fmt.Errorf("%w: len(arrived) = %d, want |L| = %d", ErrDimension, len(arrived), g.NumLeft())
	}
	if t < 0 || t == math.MaxInt {
		return nil, fmt.Errorf("%w: slot %d, want 0..%d", ErrValue, t, math.MaxInt-1)
	}
	tau := t + 1
	nEn, unplayed := 0, false
	for l := 0; l < g.NumLeft(); l++ {
		lo, hi := g.LeftRange(l)
		on := arrived[l] || p.opt.SolveThenZero
		for e := lo; e < hi; e++ {
			p.enabled[e] = on
			if on {
				nEn++
			}
			// Only a playable edge of a port with a job can be explored in
			// this slot; an edge that does not fit alone would stay
			// unplayed, and the policy in the exploration branch, forever.
			if arrived[l] && p.playable[e] && p.Count[e] == 0 {
				unplayed = true
			}
		}
	}
	var x []bool
	if unplayed {
		big := float64(nEn + 1)
		for e := range p.val {
			p.val[e] = p.Mean(e)
			if p.Count[e] == 0 && p.playable[e] && arrived[g.Edge(e).Left] {
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
		delta := p.opt.Delta(tau)
		m := float64(p.m)
		xiF := math.Ceil(m / delta)
		if !(delta > 0) || math.IsInf(xiF, 0) || xiF*m > math.MaxInt32 {
			return nil, fmt.Errorf("%w: delta(%d) = %v gives xi = %v", ErrSettings, tau, delta, xiF)
		}
		gt := p.opt.G(tau, m)
		if !(gt > 0) || math.IsInf(gt, 0) {
			return nil, fmt.Errorf("%w: g(%d) = %v", ErrSettings, tau, gt)
		}
		xi := int(xiF)
		for e := range p.ups {
			v := p.Mean(e)
			p.ups[e] = int(math.Ceil(xiF * v)) // (13)
			p.sig[e] = 0                       // unused when disabled
			if p.Count[e] > 0 {
				p.sig[e] = xiF * xiF * gt / (2 * float64(p.Count[e])) // (14) with (9)
			}
		}
		p.bp.MaxBudget = xi * p.m
		r, err := p.oracle.SolveBudgeted(&p.bp)
		if err != nil {
			return nil, err
		}
		x = r.Solution(p.x, r.Best)
		p.last = SlotInfo{Delta: delta, G: gt, Xi: xi, MaxBudget: p.bp.MaxBudget, Best: r.Best,
			Index: r.BestIndex, Cells: r.Cells, Bytes: r.Bytes}
	}
	copy(p.x, x)
	if p.opt.SolveThenZero { // Steps 10-16
		for l := 0; l < g.NumLeft(); l++ {
			if !arrived[l] {
				lo, hi := g.LeftRange(l)
				clear(p.x[lo:hi])
			}
		}
	}
	p.decided, p.lastT = true, t
	return p.x, nil
}

// Observe updates n_e and v^_e of (7)-(8) with the realised rewards of the
// chosen edges (see Stats.Observe). The feedback must be that of the last
// Decide (same slot t, once): an edge reported as chosen that the decision
// did not choose, a slot other than the last decision's, or a second
// Observe for one decision is an error, and the policy is left unchanged.
// (To warm-start the statistics, call Stats.Observe.)
func (p *Policy) Observe(t int, fb Feedback) error {
	if err := CheckFeedback(p.x, p.decided, p.lastT, t, fb); err != nil {
		return err
	}
	if err := p.Stats.Observe(fb); err != nil {
		return err
	}
	p.decided = false
	return nil
}

// CheckFeedback returns an error if fb reports an edge that the decision x
// of slot lastT did not choose, if t != lastT, or if decided is false (no
// decision awaits its feedback). Policies of this family call it at the
// start of Observe so that bad feedback leaves them unchanged.
func CheckFeedback(x []bool, decided bool, lastT, t int, fb Feedback) error {
	if !decided {
		return fmt.Errorf("%w: feedback for slot %d without a pending decision (Observe follows each Decide once)", ErrValue, t)
	}
	if t != lastT {
		return fmt.Errorf("%w: feedback for slot %d, last decision at slot %d", ErrValue, t, lastT)
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

// Stats holds the statistics (7)-(8) of the semi-bandit feedback: the
// number of plays n_e and the sum of the observed rewards of every edge.
// Policies of this family (and the baselines) embed it.
type Stats struct {
	Count []int     // n_e, eq. (7)
	Sum   []float64 // sum of Z~_e over the plays of e
}

// NewStats returns zero statistics for E edges.
func NewStats(E int) Stats { return Stats{Count: make([]int, E), Sum: make([]float64, E)} }

// Mean returns the empirical mean v^_e of (8) (0 for an unplayed edge).
func (st *Stats) Mean(e int) float64 {
	if st.Count[e] == 0 {
		return 0
	}
	return st.Sum[e] / float64(st.Count[e])
}

// Observe adds the rewards of the chosen edges. It returns an error, and
// changes nothing, if a length is wrong or a chosen edge's reward is not in
// [0,1].
func (st *Stats) Observe(fb Feedback) error {
	count, sum := st.Count, st.Sum
	E := len(count)
	if len(fb.Chosen) != E || len(fb.Reward) != E {
		return fmt.Errorf("%w: feedback lengths %d, %d, want |E| = %d", ErrDimension, len(fb.Chosen), len(fb.Reward), E)
	}
	for e, on := range fb.Chosen {
		if on && !(fb.Reward[e] >= 0 && fb.Reward[e] <= 1) {
			return fmt.Errorf("%w: reward of edge %d = %v, want [0,1]", ErrValue, e, fb.Reward[e])
		}
	}
	for e, on := range fb.Chosen {
		if on {
			count[e]++
			sum[e] += fb.Reward[e]
		}
	}
	return nil
}
