package ogasched

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// GangOnlinePolicy is the contract of the gang policies of this family
// (GangPolicy and the gang baselines of package baselines): the
// observation is the arrivals x_l(t) per gang job type (len NumJobs; a job
// of type l arrived when x_l > 0), the decision a GangDecision.
type GangOnlinePolicy = bipartite.OnlinePolicy[[]float64, GangDecision]

// GangLearner is implemented by the gang policies that learn from the
// arrivals revealed after their decision (GangPolicy).
type GangLearner = bipartite.Learner[[]float64]

// GangDecision is one slot's gang placement. Server[c] is the server flat
// component c (bipartite.GangModel numbering) is placed on, or -1. Y is
// the policy's fractional decision on the relaxation, in the flat layout
// y[e*K+k] of the relaxation problem (GangRelaxation), or nil for policies
// without one (the baselines). Both are owned by the policy until its next
// call.
type GangDecision struct {
	Server []int
	Y      []float64
}

// GangReading selects which jobs count in a slot.
type GangReading int

const (
	// GangMinComponents (the zero value) is msched's reading of §III-E: a
	// job counts only in a slot where at least m_l of its components are
	// placed whole; otherwise none of it is placed (all-or-nothing).
	GangMinComponents GangReading = iota
	// GangLiteralPositive is the paper's literal set: a job counts when
	// its allocation is positive, i.e. any placed component counts, and
	// the rounding does not enforce m_l. Its placements are not
	// all-or-nothing: bipartite.GangModel.Check counts them as violations.
	GangLiteralPositive
)

// String returns the reading's name.
func (r GangReading) String() string {
	switch r {
	case GangMinComponents:
		return "min-components"
	case GangLiteralPositive:
		return "literal-positive"
	}
	return fmt.Sprintf("GangReading(%d)", int(r))
}

// GangSettings configures a GangPolicy and the gang reward. The zero value
// is the paper's setup under msched's reading: linear utilities
// f_r^k(y) = y (a = 1), beta = 0, the step (53) of the relaxation, the
// GangMinComponents reading, seed 0.
type GangSettings struct {
	// Utility[r][k] is f_r^k of server r and resource k (len NumServers,
	// each len K). nil (the zero value) means linear with a = 1 everywhere.
	// The rules of NewProblem apply (f'(0) finite, at most MaxValue).
	Utility [][]utility.Utility
	// Beta[k] is beta_k in [0, 1] of the overhead (7) (len K); nil (the
	// zero value) means 0 for every k.
	Beta []float64
	// Step, Horizon, Workers, Init and Logger are those of the relaxation's
	// Policy (Settings); their zero values are Settings' zero values.
	Step    Step
	Horizon int
	Workers int
	Init    []float64
	Logger  *slog.Logger
	// Reading selects which jobs count; the zero value is
	// GangMinComponents.
	Reading GangReading
	// Seed breaks ties of the rounding's job order; the same seed gives the
	// same placements bit for bit.
	Seed uint64
}

// Validate reports every problem of s that does not depend on the model,
// joined with errors.Join, each wrapping ErrSettings.
func (s GangSettings) Validate() error {
	var errs []error
	if err := (Settings{Step: s.Step, Horizon: s.Horizon, Workers: s.Workers, Init: s.Init}).Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.Reading != GangMinComponents && s.Reading != GangLiteralPositive {
		errs = append(errs, fmt.Errorf("%w: Reading = %d, want GangMinComponents (0) or GangLiteralPositive (1)", ErrSettings, int(s.Reading)))
	}
	for k, b := range s.Beta {
		if math.IsNaN(b) || b < 0 || b > 1 {
			errs = append(errs, fmt.Errorf("%w: Beta[%d] = %v, want [0, 1]", ErrSettings, k, b))
		}
	}
	return errors.Join(errs...)
}

// GangRelaxation returns the convex relaxation of model under s: the
// OGASched Problem whose ports are the model's flat components c, joined
// to the servers of their job type, with demand a_c (the per-component box
// 0 <= y_{c,r}^k <= a_c^k), the model's per-server capacities, and the
// utilities and beta of s. Its reward of a 0/1 arrival vector expanded to
// components (GangArrivals) at an integral placement y_{c,r} = a_c [c on
// r] is the gang reward of that placement (GangReward under
// GangLiteralPositive), so its value at any point bounds nothing less than
// the value of every placement it contains. Errors wrap ErrDimension or
// ErrValue (a nil model, utilities or beta of the wrong shape, a demand or
// capacity above MaxValue, a dimension above MaxDim).
func GangRelaxation(m *bipartite.GangModel, s GangSettings) (*Problem, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: nil gang model", ErrDimension)
	}
	K, R, C := m.K(), m.NumServers(), m.NumComponents()
	if K > MaxK {
		return nil, fmt.Errorf("%w: K = %d resource types, limit %d", ErrDimension, K, MaxK)
	}
	g := m.Graph()
	nEdges := 0
	for c := 0; c < C; c++ {
		nEdges += g.LeftDegree(m.Job(c))
		if nEdges > MaxDim/K {
			return nil, fmt.Errorf("%w: relaxation dimension above the limit %d (component %d)", ErrDimension, MaxDim, c)
		}
	}
	edges := make([]bipartite.Edge, 0, nEdges)
	demand := make([][]float64, C)
	for c := 0; c < C; c++ {
		for _, r := range g.LeftNeighbors(m.Job(c)) {
			edges = append(edges, bipartite.Edge{Left: c, Right: r})
		}
		demand[c] = m.Demand(c)
	}
	rg, err := bipartite.NewGraph(C, R, edges)
	if err != nil {
		return nil, fmt.Errorf("%w: relaxation graph: %w", ErrDimension, err)
	}
	capacity := make([][]float64, R)
	for r := range capacity {
		capacity[r] = m.Capacity(r)
	}
	util := s.Utility
	if util == nil {
		lin := make([]utility.Utility, K)
		for k := range lin {
			lin[k] = utility.Utility{Kind: utility.Linear, A: 1}
		}
		util = make([][]utility.Utility, R)
		for r := range util {
			util[r] = lin
		}
	}
	beta := s.Beta
	if beta == nil {
		beta = make([]float64, K)
	}
	if len(beta) != K {
		return nil, fmt.Errorf("%w: len(Beta) = %d, want K = %d", ErrDimension, len(beta), K)
	}
	return NewProblem(rg, demand, capacity, util, beta)
}

// GangArrivals writes the component arrivals of the relaxation into dst
// (len NumComponents): dst[c] = x[job(c)]. It panics if len(x) is not
// NumJobs or len(dst) not NumComponents.
func GangArrivals(dst []float64, m *bipartite.GangModel, x []float64) []float64 {
	if len(x) != m.NumJobs() || len(dst) != m.NumComponents() {
		panic("ogasched: GangArrivals: mismatched lengths")
	}
	for c := range dst {
		dst[c] = x[m.Job(c)]
	}
	return dst
}

// GangPolicy is OGASched-gang: Algorithm 1 on the convex relaxation
// (GangRelaxation) plus a per-slot rounding of its fractional decision to
// an all-or-nothing placement (see the package doc, "# Gangs").
type GangPolicy struct {
	m     *bipartite.GangModel
	set   GangSettings
	relax *Problem
	inner *Policy

	// Scratch of the rounding, sized once.
	xc     []float64 // component arrivals
	server []int     // the placement returned
	load   []float64 // loads, r*K+k (bipartite's capacity arithmetic)
	save   []float64 // per component c: its server's loads before c was placed
	keys   []gangKey // arrived jobs in rounding order
	value  []float64 // v(c, r) per relaxation edge (c, r): the component's reward there
	model  string
}

type gangKey struct {
	score float64
	tie   uint64
	l     int
}

func cmpGangKey(a, b gangKey) int {
	if c := cmp.Compare(b.score, a.score); c != 0 {
		return c
	}
	if c := cmp.Compare(a.tie, b.tie); c != 0 {
		return c
	}
	return cmp.Compare(a.l, b.l)
}

var (
	_ GangOnlinePolicy = (*GangPolicy)(nil)
	_ GangLearner      = (*GangPolicy)(nil)
)

// NewGang returns OGASched-gang on model. It calls s.Validate first; a nil
// model, a relaxation that NewProblem rejects (utilities or beta of the
// wrong shape, values above MaxValue, a dimension above MaxDim) and an
// Init of the wrong length are errors wrapping ErrDimension or ErrValue.
func NewGang(model *bipartite.GangModel, s GangSettings) (*GangPolicy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	relax, err := GangRelaxation(model, s)
	if err != nil {
		return nil, err
	}
	inner, err := New(relax, Settings{Step: s.Step, Horizon: s.Horizon, Workers: s.Workers, Init: s.Init, Logger: s.Logger})
	if err != nil {
		return nil, err
	}
	return newGang(model, s, relax, inner), nil
}

func newGang(model *bipartite.GangModel, s GangSettings, relax *Problem, inner *Policy) *GangPolicy {
	s.Init = nil
	o := &GangPolicy{
		m: model, set: s, relax: relax, inner: inner,
		xc:     make([]float64, model.NumComponents()),
		server: make([]int, model.NumComponents()),
		load:   make([]float64, model.NumServers()*model.K()),
		save:   make([]float64, model.NumComponents()*model.K()),
		keys:   make([]gangKey, 0, model.NumJobs()),
		value:  make([]float64, relax.Graph.NumEdges()),
	}
	for e := range o.value {
		ed := relax.Graph.Edge(e)
		o.value[e] = componentValue(relax, model.Demand(ed.Left), ed.Right)
	}
	for i := range o.server {
		o.server[i] = -1
	}
	o.model = gangFingerprint(model, relax, inner.model, s)
	inner.logAs = o.Name()
	return o
}

// Name implements bipartite.OnlinePolicy.
func (o *GangPolicy) Name() string {
	if o.set.Reading == GangLiteralPositive {
		return "OGASched-gang(literal)"
	}
	return "OGASched-gang"
}

// Settings returns the settings the policy runs with: those given to
// NewGang, with Utility following the servers through every
// ChangeCluster (Init is not kept). A snapshot restores into
// NewGang(model, p.Settings()) on the policy's current model.
func (o *GangPolicy) Settings() GangSettings {
	s := o.set
	if s.Utility != nil {
		s.Utility = make([][]utility.Utility, len(o.set.Utility))
		for r, u := range o.set.Utility {
			s.Utility[r] = slices.Clone(u)
		}
	}
	s.Beta = slices.Clone(s.Beta)
	return s
}

// Model returns the gang model the policy was built on.
func (o *GangPolicy) Model() *bipartite.GangModel { return o.m }

// Relaxation returns the relaxation problem the policy learns on.
func (o *GangPolicy) Relaxation() *Problem { return o.relax }

// Y returns the current fractional decision y(t) on the relaxation.
func (o *GangPolicy) Y() []float64 { return o.inner.y }

// Close stops the projection workers. The policy must not be used afterwards.
func (o *GangPolicy) Close() { o.inner.Close() }

func (o *GangPolicy) checkX(x []float64) error {
	if len(x) != o.m.NumJobs() {
		return fmt.Errorf("%w: len(x) = %d, want %d gang job types", ErrDimension, len(x), o.m.NumJobs())
	}
	for l, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
			return fmt.Errorf("%w: x[%d] = %v, want finite in [0, %g]", ErrValue, l, v, MaxValue)
		}
	}
	return nil
}

// Decide returns the placement of slot t: the rounding of y(t), which was
// chosen before x(t), onto the jobs that arrived (x_l > 0). Only arrived
// jobs are placed (a job that did not arrive has nothing to run). t must be
// >= 0 and greater than the previous Decide's (ErrSlot). On error nothing
// changes. The decision's Y is y(t).
func (o *GangPolicy) Decide(t int, x []float64) (GangDecision, error) {
	if err := o.checkX(x); err != nil {
		return GangDecision{}, err
	}
	GangArrivals(o.xc, o.m, x)
	y, err := o.inner.Decide(t, o.xc)
	if err != nil {
		return GangDecision{}, err
	}
	o.round(t, x, y)
	return GangDecision{Server: o.server, Y: y}, nil
}

// Observe reveals x(t) of the slot of the latest Decide and takes the
// projected gradient step of Algorithm 1 on the relaxation. On error the
// policy is left as it was.
func (o *GangPolicy) Observe(t int, x []float64) error {
	if err := o.checkX(x); err != nil {
		return err
	}
	GangArrivals(o.xc, o.m, x)
	return o.inner.Observe(t, o.xc)
}

// splitmix64 is the tie-break hash of the rounding.
func splitmix64(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// fraction returns phi_{c,r}: the mean over the resources c demands of
// y_{c,r}^k / a_c^k (1 for a component that demands nothing).
func fraction(a, y []float64) float64 {
	s, n := 0.0, 0
	for k, ak := range a {
		if ak > 0 {
			s += min(y[k]/ak, 1)
			n++
		}
	}
	if n == 0 {
		return 1
	}
	return s / float64(n)
}

// round is the per-slot rounding (package doc, "# Gangs"). It writes
// o.server.
func (o *GangPolicy) round(t int, x, y []float64) {
	m, rg := o.m, o.relax.Graph
	K := m.K()
	for i := range o.server {
		o.server[i] = -1
	}
	clear(o.load)
	// Order the arrived jobs by how fully the relaxation places them: the
	// mean over components of max_r phi_{c,r}; ties by a seeded hash.
	o.keys = o.keys[:0]
	seed := splitmix64(o.set.Seed ^ splitmix64(uint64(t)))
	for l := range x {
		if !(x[l] > 0) {
			continue
		}
		lo, hi := m.Components(l)
		s := 0.0
		for c := lo; c < hi; c++ {
			a := m.Demand(c)
			best := 0.0
			for _, e := range rg.LeftEdges(c) {
				best = max(best, fraction(a, y[e*K:(e+1)*K]))
			}
			s += best
		}
		if hi > lo {
			s /= float64(hi - lo)
		}
		o.keys = append(o.keys, gangKey{score: s, tie: splitmix64(seed ^ uint64(l)), l: l})
	}
	slices.SortFunc(o.keys, cmpGangKey)
	for _, key := range o.keys {
		o.placeJob(key.l, y)
	}
}

// placeJob places the components of job l whole, each on the server of
// R_l with the largest score phi_{c,r} max(v(c, r), 0) among those its
// demand fits (ties: the larger phi, then the lower server index; v(c, r)
// is the component's reward on r),
// and keeps them only when at least m_l are placed (under
// GangLiteralPositive, any number).
func (o *GangPolicy) placeJob(l int, y []float64) {
	m, rg := o.m, o.relax.Graph
	K := m.K()
	lo, hi := m.Components(l)
	placed := 0
	for c := lo; c < hi; c++ {
		a := m.Demand(c)
		bestR, bestS, bestF := -1, -1.0, -1.0
		es, rs := rg.LeftEdges(c), rg.LeftNeighbors(c)
		for i, e := range es {
			r := rs[i]
			if !bipartite.FitsAdd(o.load[r*K:(r+1)*K], a, m.Capacity(r)) {
				continue
			}
			f := fraction(a, y[e*K:(e+1)*K])
			if s := f * max(o.value[e], 0); s > bestS || (s == bestS && f > bestF) {
				bestR, bestS, bestF = r, s, f
			}
		}
		if bestR < 0 {
			continue
		}
		o.server[c] = bestR
		ld := o.load[bestR*K : (bestR+1)*K]
		copy(o.save[c*K:(c+1)*K], ld)
		for k, ak := range a {
			ld[k] += ak
		}
		placed++
	}
	need := m.Min(l)
	if o.set.Reading == GangLiteralPositive {
		need = 1
	}
	if placed >= need {
		return
	}
	for c := hi - 1; c >= lo; c-- { // roll back, restoring the loads exactly: no capacity is held for it
		if r := o.server[c]; r >= 0 {
			copy(o.load[r*K:(r+1)*K], o.save[c*K:(c+1)*K])
			o.server[c] = -1
		}
	}
}
