package baselines

import (
	"cmp"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/internal/esdpx"
	"github.com/msched/msched/internal/snapshot"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// The ESDP-family baselines (papers 002/003, Section 4) observe which ports
// have a job (arrived[l] = 1_l(t)) and return x(t) per edge satisfying the
// capacity constraint (1) and constraint (2). They learn the empirical means
// v^_e of (8) from the semi-bandit feedback (esdp.Feedback) like ESDP, and
// use them as the papers say; an unplayed edge has v^_e = 0. The returned
// slice is owned by the policy and valid until its next method call.
// Slots follow esdp's rules (strictly increasing, errors wrap esdp.ErrSlot);
// New* copy the cluster, Rebuild moves a policy onto a changed one, and
// MarshalBinary/UnmarshalBinary save and restore the learned state. None is safe
// for concurrent use. HSWF, LCF and LWTF are greedy: they walk edges in
// their order and set x_e = 1 for every edge that still fits (first fit);
// the papers' "until (1) can not be satisfied" is read as skipping the
// edges that do not fit rather than stopping at the first one.

var (
	_ esdp.OnlinePolicy = (*HSWF)(nil)
	_ esdp.OnlinePolicy = (*LCF)(nil)
	_ esdp.OnlinePolicy = (*LWTF)(nil)
	_ esdp.OnlinePolicy = (*CUCB)(nil)
	_ esdp.OnlinePolicy = (*Thompson)(nil)
	_ esdp.Learner      = (*HSWF)(nil)
	_ esdp.Learner      = (*LCF)(nil)
	_ esdp.Learner      = (*LWTF)(nil)
	_ esdp.Learner      = (*CUCB)(nil)
	_ esdp.Learner      = (*Thompson)(nil)
)

// esdpBase holds what every ESDP-family baseline needs.
type esdpBase struct {
	cl      *esdp.Cluster // a private copy: see Rebuild
	format  string        // snapshot format, "msched/baselines.NAME"
	model   string        // snapshot fingerprint
	decided bool          // a Decide awaits its Observe
	started bool          // a Decide has succeeded
	lastT   int
	stats   esdp.Stats
	x       []bool    // the last decision, private: Observe and snapshots read it
	out     []bool    // the copy of x returned to the caller, who may overwrite it
	use     []int     // resources used so far in the slot, per type
	order   []int     // ports or edges being ranked
	key     []float64 // ranking key per port or edge
	policy  string    // Name(), for the log
	log     *slog.Logger
}

func newEsdpBase(cl *esdp.Cluster, name string, extra func(h *snapshot.Hasher)) (esdpBase, error) {
	if err := cl.Validate(); err != nil {
		return esdpBase{}, fmt.Errorf("baselines: %s: %w", name, err)
	}
	cl = cl.Clone()
	E := cl.NumEdges()
	format := "msched/baselines." + name
	h := esdpx.ClusterFingerprint(format, cl.Graph, cl.K, cl.Demand, cl.Capacity, cl.Cost)
	if extra != nil {
		extra(h)
	}
	return esdpBase{cl: cl, format: format, model: h.Sum(), stats: esdp.NewStats(E), x: make([]bool, E), out: make([]bool, E), use: make([]int, cl.K),
		order: make([]int, 0, max(E, cl.NumPorts())), key: make([]float64, max(E, cl.NumPorts()))}, nil
}

// check validates the slot and the observation of a Decide before anything
// changes.
func (b *esdpBase) check(t int, arrived []bool) error {
	if t < 0 || t == math.MaxInt {
		return fmt.Errorf("%w: baselines: slot %d, want 0..%d", esdp.ErrSlot, t, math.MaxInt-1)
	}
	if b.started && t <= b.lastT {
		return fmt.Errorf("%w: baselines: slot %d, want > %d (the previous Decide's)", esdp.ErrSlot, t, b.lastT)
	}
	if len(arrived) != b.cl.NumPorts() {
		return fmt.Errorf("%w: baselines: len(arrived) = %d, want |L| = %d", esdp.ErrDimension, len(arrived), b.cl.NumPorts())
	}
	return nil
}

// reset checks like check and clears the decision being built.
func (b *esdpBase) reset(t int, arrived []bool) error {
	if err := b.check(t, arrived); err != nil {
		return err
	}
	clear(b.x)
	clear(b.use)
	return nil
}

// tryAdd sets x_e = 1 if edge e still fits in the capacities (1).
func (b *esdpBase) tryAdd(e int) {
	K := b.cl.K
	a := b.cl.Demand[e*K : (e+1)*K]
	for k, v := range a {
		if v > b.cl.Capacity[k]-b.use[k] { // use <= capacity: no overflow
			return
		}
	}
	for k, v := range a {
		b.use[k] += v
	}
	b.x[e] = true
}

// sortByKey orders b.order by key descending (ascending if asc), ties by
// index; deterministic and allocation free.
func (b *esdpBase) sortByKey(asc bool) {
	slices.SortFunc(b.order, func(i, j int) int {
		c := cmp.Compare(b.key[j], b.key[i])
		if asc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return cmp.Compare(i, j)
	})
}

// addPortEdges adds the edges of port l in descending v^_e (ties by id).
func (b *esdpBase) addPortEdges(l int) {
	lo, hi := b.cl.Graph.LeftRange(l)
	// Ports have few edges: insertion order by v^ without touching b.order.
	for n := 0; n < hi-lo; n++ {
		best := -1
		for e := lo; e < hi; e++ {
			if b.x[e] || b.key[e] < 0 {
				continue
			}
			if best < 0 || b.stats.Mean(e) > b.stats.Mean(best) {
				best = e
			}
		}
		if best < 0 {
			return
		}
		b.key[best] = -1 // visited in this slot
		b.tryAdd(best)
	}
}

// Observe adds the realised rewards of the chosen edges to v^ (8). The
// feedback must be that of the last Decide (slot t, once, only edges it
// chose; see esdp.CheckFeedback); otherwise it returns an error and changes
// nothing.
func (b *esdpBase) Observe(t int, fb esdp.Feedback) error {
	if err := esdp.CheckFeedback(b.x, b.decided, b.lastT, t, fb); err != nil {
		return err
	}
	if err := b.stats.Observe(fb); err != nil {
		return err
	}
	b.decided = false
	return nil
}

// Count returns n_e, the plays of edge e.
func (b *esdpBase) Count(e int) int { return b.stats.Count(e) }

// Warm adds observations that belong to no decision of this policy (a
// warm start from history): the rewards of the edges marked in fb.Chosen.
// It checks lengths and rewards like esdp.Stats.Observe.
func (b *esdpBase) Warm(fb esdp.Feedback) error { return b.stats.Observe(fb) }

// decide records a successful decision of slot t and returns x.
func (b *esdpBase) decide(t int) ([]bool, error) {
	b.decided, b.started, b.lastT = true, true, t
	if debugChecks {
		if err := b.cl.Feasible(b.x, nil); err != nil {
			panic("baselines: infeasible esdp decision: " + err.Error())
		}
	}
	if b.log != nil {
		logDecide(b.log, "esdp", b.policy, t)
	}
	copy(b.out, b.x)
	return b.out, nil
}

// Mean returns the empirical mean v^_e.
func (b *esdpBase) Mean(e int) float64 { return b.stats.Mean(e) }

// portOrder ranks the ports with a job by b.key (already filled per port).
func (b *esdpBase) portOrder(arrived []bool, asc bool) {
	b.order = b.order[:0]
	for l, a := range arrived {
		if a {
			b.order = append(b.order, l)
		}
	}
	b.sortByKey(asc)
}

// HSWF is Highest Social Welfare First (paper 002; "HAUF" in paper 003):
// the ports with a job are ranked by their estimated welfare
// sum_{r in R_l} v^_(l,r) in descending order (ties by port index); each in
// turn gets its edges in descending v^_e, every edge that fits.
type HSWF struct{ esdpBase }

// NewHSWF returns HSWF for cl with settings s (at most one; the zero
// value is the papers'); a nil or invalid cl is an error. NewHSWF(cl)
// without settings is deprecated.
func NewHSWF(cl *esdp.Cluster, s ...HSWFSettings) (*HSWF, error) {
	set, err := oneSettings(esdp.ErrSettings, "HSWF", s)
	if err != nil {
		return nil, err
	}
	b, err := newEsdpBase(cl, "HSWF", nil)
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "HSWF", set.Logger
	return &HSWF{b}, nil
}

// Name returns "HSWF".
func (h *HSWF) Name() string { return "HSWF" }

// Decide returns x(t).
func (h *HSWF) Decide(t int, arrived []bool) ([]bool, error) {
	if err := h.reset(t, arrived); err != nil {
		return nil, err
	}
	g := h.cl.Graph
	for l := 0; l < g.NumLeft(); l++ {
		lo, hi := g.LeftRange(l)
		s := 0.0
		for e := lo; e < hi; e++ {
			s += h.stats.Mean(e)
		}
		h.key[l] = s
	}
	h.portOrder(arrived, false)
	clear(h.key)
	for _, l := range h.order {
		h.addPortEdges(l)
	}
	return h.decide(t)
}

// LCF is Lowest Cost First: the edges of ports with a job are ranked by
// their supply cost sum_k f_k(a_k^e) (esdp.Cluster.Cost) in ascending order,
// ties by descending v^_e and then edge id, and every edge that fits is set.
type LCF struct{ esdpBase }

// NewLCF returns LCF for cl with settings s (at most one; the zero
// value is the papers'); a nil or invalid cl is an error. NewLCF(cl)
// without settings is deprecated.
func NewLCF(cl *esdp.Cluster, s ...LCFSettings) (*LCF, error) {
	set, err := oneSettings(esdp.ErrSettings, "LCF", s)
	if err != nil {
		return nil, err
	}
	b, err := newEsdpBase(cl, "LCF", nil)
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "LCF", set.Logger
	return &LCF{b}, nil
}

// Name returns "LCF".
func (c *LCF) Name() string { return "LCF" }

// Decide returns x(t).
func (c *LCF) Decide(t int, arrived []bool) ([]bool, error) {
	if err := c.reset(t, arrived); err != nil {
		return nil, err
	}
	g := c.cl.Graph
	c.order = c.order[:0]
	for l, a := range arrived {
		if !a {
			continue
		}
		lo, hi := g.LeftRange(l)
		for e := lo; e < hi; e++ {
			c.order = append(c.order, e)
		}
	}
	slices.SortFunc(c.order, func(i, j int) int {
		if v := cmp.Compare(c.cl.Cost[i], c.cl.Cost[j]); v != 0 {
			return v
		}
		if v := cmp.Compare(c.stats.Mean(j), c.stats.Mean(i)); v != 0 {
			return v
		}
		return cmp.Compare(i, j)
	})
	for _, e := range c.order {
		c.tryAdd(e)
	}
	return c.decide(t)
}

// LWTF is Longest Waiting Time First: the ports with a job are ranked by
// the waiting time of their jobs in descending order (ties by port index);
// each in turn gets its edges in descending v^_e, every edge that fits. The
// papers do not define the waiting time in a model where a job lives one
// slot; msched counts, per port, the slots in which the port had a job and
// was not served since it was last served (reset to 0 when served).
type LWTF struct {
	esdpBase
	wait []int
}

// NewLWTF returns LWTF for cl with settings s (at most one; the zero
// value is the papers'); a nil or invalid cl is an error. NewLWTF(cl)
// without settings is deprecated.
func NewLWTF(cl *esdp.Cluster, s ...LWTFSettings) (*LWTF, error) {
	set, err := oneSettings(esdp.ErrSettings, "LWTF", s)
	if err != nil {
		return nil, err
	}
	b, err := newEsdpBase(cl, "LWTF", nil)
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "LWTF", set.Logger
	return &LWTF{esdpBase: b, wait: make([]int, cl.NumPorts())}, nil
}

// Name returns "LWTF".
func (w *LWTF) Name() string { return "LWTF" }

// Wait returns the current waiting time of port l.
func (w *LWTF) Wait(l int) int { return w.wait[l] }

// Decide returns x(t) and updates the waiting times.
func (w *LWTF) Decide(t int, arrived []bool) ([]bool, error) {
	if err := w.reset(t, arrived); err != nil {
		return nil, err
	}
	for l, v := range w.wait {
		w.key[l] = float64(v)
	}
	w.portOrder(arrived, false)
	clear(w.key)
	for _, l := range w.order {
		w.addPortEdges(l)
	}
	g := w.cl.Graph
	for l, a := range arrived {
		lo, hi := g.LeftRange(l)
		if slices.Contains(w.x[lo:hi], true) {
			w.wait[l] = 0
		} else if a {
			w.wait[l]++
		}
	}
	return w.decide(t)
}

// CUCB is combinatorial UCB (Chen, Wang and Yuan, ICML 2013) with the exact
// knapsack oracle (esdp.Oracle): each slot it maximises sum_e u_e x_e
// subject to (1)-(2), u_e = min(1, v^_e + sqrt(3 ln t / (2 n_e))), t the
// 1-based slot. An unplayed edge has u_e = +Inf, handled as in esdp.Policy:
// maximise the number of unplayed edges first, then v^.x.
type CUCB struct {
	esdpBase
	set      CUCBSettings
	oracle   *esdp.Oracle
	kp       esdp.Knapsack
	val      []float64
	en       []bool
	playable []bool
	explore  bool
}

// CUCBSettings configures CUCB. The zero value is ready.
type CUCBSettings struct {
	// Oracle configures the knapsack oracle; its zero value is ready.
	Oracle esdp.OracleSettings
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns every problem of s, joined, each wrapping
// esdp.ErrSettings.
func (s CUCBSettings) Validate() error { return s.Oracle.Validate() }

// NewCUCB returns CUCB for cl with settings s; invalid s or a nil or
// invalid cl is an error wrapping the esdp sentinel.
func NewCUCB(cl *esdp.Cluster, s CUCBSettings) (*CUCB, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("baselines: CUCB: %w", err)
	}
	b, err := newEsdpBase(cl, "CUCB", func(h *snapshot.Hasher) { oracleHash(h, s.Oracle) })
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "CUCB", s.Logger
	cl = b.cl
	E := cl.NumEdges()
	c := &CUCB{esdpBase: b, set: s, oracle: esdp.NewOracle(s.Oracle), val: make([]float64, E), en: make([]bool, E), playable: make([]bool, E)}
	for e := range c.playable {
		c.playable[e] = cl.Playable(e)
	}
	c.kp = esdp.Knapsack{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Value: c.val, Enabled: c.en}
	return c, nil
}

// Name returns "CUCB".
func (c *CUCB) Name() string { return "CUCB" }

// Decide returns x(t).
func (c *CUCB) Decide(t int, arrived []bool) ([]bool, error) {
	if err := c.reset(t, arrived); err != nil {
		return nil, err
	}
	nEn := enableArrived(c.cl.Graph, arrived, c.en)
	big := float64(nEn + 1)
	if t < 0 {
		return nil, fmt.Errorf("%w: baselines: CUCB slot %d", esdp.ErrValue, t)
	}
	lnT := math.Log(float64(t) + 1) // float: t+1 would overflow at math.MaxInt
	// Exploration ends when every playable edge of the arrived ports has
	// been played: an edge that does not fit alone (esdp.Cluster.Playable)
	// can never be played and must not keep CUCB exploring forever.
	unplayed := false
	for e := range c.val {
		if c.en[e] && c.stats.Count(e) == 0 && c.playable[e] {
			unplayed = true
		}
	}
	for e := range c.val {
		n := c.stats.Count(e)
		switch {
		case n == 0 && !c.playable[e]:
			c.val[e] = 0 // never fits: cannot be chosen
		case n == 0:
			// Unplayed: explore first. Disabled edges are never chosen, and
			// without this case a slot with no arrivals and no unplayed
			// enabled edge would give Mean(e) = 0/0.
			c.val[e] = big
		case unplayed:
			c.val[e] = c.stats.Mean(e)
		default:
			c.val[e] = math.Min(1, c.stats.Mean(e)+math.Sqrt(1.5*lnT/float64(n)))
		}
	}
	r, err := c.oracle.SolveKnapsack(&c.kp)
	if err != nil {
		return nil, err
	}
	c.explore = unplayed
	copy(c.x, r.X)
	return c.decide(t)
}

// Exploring reports whether the last Decide was spent on unplayed edges
// (u_e = +Inf).
func (c *CUCB) Exploring() bool { return c.explore }

// Thompson is Thompson sampling with independent Gaussian posteriors and
// the exact knapsack oracle: prior N(1/2, 1/4) per edge and Gaussian
// likelihood of variance 1/4 (the largest variance of a [0,1] reward), so
// the posterior of v_e is N((1/2 + sum Z~_e)/(1 + n_e), 1/(4 (1 + n_e))).
// Each slot it samples theta_e from the posteriors and maximises theta.x
// subject to (1)-(2).
type Thompson struct {
	esdpBase
	set    ThompsonSettings
	pcg    *rand.PCG
	rng    *rand.Rand
	oracle *esdp.Oracle
	kp     esdp.Knapsack
	val    []float64
	en     []bool
}

// ThompsonSettings configures Thompson. The zero value is ready: seed
// (0, 0).
type ThompsonSettings struct {
	// Seed and Stream seed the sampler's generator, rand.NewPCG(Seed,
	// Stream), whose state a snapshot saves, so a restored sampler draws
	// the same numbers as an uninterrupted one. (An injected *rand.Rand is
	// not accepted: its source could not be saved.)
	Seed, Stream uint64
	// Oracle configures the knapsack oracle; its zero value is ready.
	Oracle esdp.OracleSettings
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns every problem of s, joined, each wrapping
// esdp.ErrSettings.
func (s ThompsonSettings) Validate() error { return s.Oracle.Validate() }

// NewThompson returns Thompson sampling for cl with settings s; invalid s
// or a nil or invalid cl is an error wrapping the esdp sentinel.
func NewThompson(cl *esdp.Cluster, s ThompsonSettings) (*Thompson, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("baselines: Thompson: %w", err)
	}
	b, err := newEsdpBase(cl, "Thompson", func(h *snapshot.Hasher) {
		oracleHash(h, s.Oracle)
		h.Int(int(s.Seed)).Int(int(s.Stream))
	})
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "TS", s.Logger
	cl = b.cl
	E := cl.NumEdges()
	pcg := rand.NewPCG(s.Seed, s.Stream)
	th := &Thompson{esdpBase: b, set: s, pcg: pcg, rng: rand.New(pcg), oracle: esdp.NewOracle(s.Oracle), val: make([]float64, E), en: make([]bool, E)}
	th.kp = esdp.Knapsack{K: cl.K, Demand: cl.Demand, Capacity: cl.Capacity, Value: th.val, Enabled: th.en}
	return th, nil
}

// Name returns "TS".
func (th *Thompson) Name() string { return "TS" }

// Decide returns x(t).
func (th *Thompson) Decide(t int, arrived []bool) ([]bool, error) {
	if err := th.check(t, arrived); err != nil {
		return nil, err
	}
	// The sampler draws before the oracle can fail; keep its state so that
	// a failed Decide leaves the policy as it was.
	saved := *th.pcg
	enableArrived(th.cl.Graph, arrived, th.en)
	for e := range th.val {
		n := float64(th.stats.Count(e))
		mean := (0.5 + th.stats.Sum(e)) / (1 + n)
		sd := 0.5 / math.Sqrt(1+n)
		th.val[e] = mean + sd*th.rng.NormFloat64()
	}
	r, err := th.oracle.SolveKnapsack(&th.kp)
	if err != nil {
		*th.pcg = saved
		return nil, err
	}
	copy(th.x, r.X)
	return th.decide(t)
}

// enableArrived marks the edges of ports with a job and returns their count.
func enableArrived(g *bipartite.Graph, arrived []bool, en []bool) int {
	n := 0
	for l, a := range arrived {
		lo, hi := g.LeftRange(l)
		for e := lo; e < hi; e++ {
			en[e] = a
		}
		if a {
			n += hi - lo
		}
	}
	return n
}
