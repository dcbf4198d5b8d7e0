package ogasched

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/projection"
)

// OnlinePolicy is the contract every policy of this family satisfies: the
// observation is the arrivals x(t) (len NumPorts), the decision the flat
// allocation y[e*K+k] (len Dim).
type OnlinePolicy = bipartite.OnlinePolicy[[]float64, []float64]

// Learner is implemented by the policies of this family that learn from
// the arrivals revealed after their decision (OGASched).
type Learner = bipartite.Learner[[]float64]

// Settings configures a Policy. The zero value is the faithful default: a
// step tied to (53) for the instance (TheoryAnytime, or Theory when Horizon
// is set), one projection worker, the exact projection, y(0) = 0, no
// logging. The paper's literal experimental step is Step: PaperGeometric().
type Settings struct {
	// Step is the step-size schedule. nil (the zero value) means the theory
	// step (53) of the instance: Theory{Diam: p.Diameter(), T: Horizon}
	// when Horizon > 0, else TheoryAnytime{Diam: p.Diameter()}. Before
	// this default, nil meant the experiments' Geometric{25, 0.9999}, which
	// is now PaperGeometric() (see Step for why it is no longer the
	// default).
	Step Step
	// Horizon is the number of slots T the policy will run, used by the
	// default step; 0 (the zero value) means unknown. It must be >= 0.
	Horizon int
	// Workers is the number of projection workers, in [0, MaxWorkers]; 0
	// (the zero value) means 1. Decisions do not depend on it.
	Workers int
	// PaperProjection selects the paper's inexact Algorithm 1 inner
	// procedure (projection.CappedSimplexPaper) instead of the exact
	// projection per (r,k) block; false (the zero value) is the exact
	// projection. That procedure caps only the largest coordinate and
	// always fills the capacity, so its y can violate the demand bound (5)
	// (measured in package projection's documentation). The policy returns
	// such y as they are, so that the paper can be reproduced; it is not a
	// valid scheduler.
	PaperProjection bool
	// Init is y(0) in the flat layout; nil (the zero value) means zero. It
	// is projected onto Y; its values must be finite and its length Dim.
	Init []float64
	// Logger, if not nil, receives one Debug record "observe" per Observe
	// (family, policy, slot, then gradient norm, step eta_t) and one Info
	// record "rebuild" per Rebuild, in the log vocabulary of package
	// bipartite. nil (the
	// zero value) is off and costs one comparison per slot.
	Logger *slog.Logger
}

// Validate reports every problem of s that does not depend on the problem
// (Workers outside [0, MaxWorkers], a negative Horizon, a non-finite Init
// value), joined with errors.Join, each wrapping ErrSettings and naming the
// field and the value. New calls it first.
func (s Settings) Validate() error {
	var errs []error
	if s.Workers < 0 || s.Workers > MaxWorkers {
		errs = append(errs, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, s.Workers, MaxWorkers))
	}
	if s.Horizon < 0 {
		errs = append(errs, fmt.Errorf("%w: Horizon = %d, want >= 0", ErrSettings, s.Horizon))
	}
	for j, v := range s.Init {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			errs = append(errs, fmt.Errorf("%w: Init[%d] = %v, want finite", ErrSettings, j, v))
			break
		}
	}
	if err := validateStep(s.Step); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validateStep rejects a step schedule that cannot give a finite step:
// the fields of the package's schedules are checked by name, and any
// schedule (a caller's own too) must give a finite eta >= 0 at the first
// slots for a unit gradient.
func validateStep(st Step) error {
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0 }
	switch v := st.(type) {
	case nil:
		return nil
	case Geometric:
		if !fin(v.Eta0) || !(v.Lambda > 0 && v.Lambda <= 1) {
			return fmt.Errorf("%w: Step = Geometric{Eta0: %v, Lambda: %v}, want Eta0 finite >= 0 and Lambda in (0, 1]", ErrSettings, v.Eta0, v.Lambda)
		}
	case Theory:
		if !fin(v.Diam) || v.T < 1 {
			return fmt.Errorf("%w: Step = Theory{Diam: %v, T: %d}, want Diam finite >= 0 and T >= 1", ErrSettings, v.Diam, v.T)
		}
	case TheoryAnytime:
		if !fin(v.Diam) {
			return fmt.Errorf("%w: Step = TheoryAnytime{Diam: %v}, want Diam finite >= 0", ErrSettings, v.Diam)
		}
	case Constant:
		if !fin(float64(v)) {
			return fmt.Errorf("%w: Step = Constant(%v), want finite >= 0", ErrSettings, float64(v))
		}
	}
	for t := range 2 {
		if eta := st.Eta(t, 1); !fin(eta) {
			return fmt.Errorf("%w: Step %T gives eta_%d = %v for a unit gradient, want finite >= 0", ErrSettings, st, t, eta)
		}
	}
	return nil
}

// Policy is OGASched (Algorithm 1): online projected gradient ascent on
// q(x(t), .). It implements OnlinePolicy and Learner.
//
// Timing: y(t) is chosen BEFORE x(t) is seen. Decide(t, x) ignores the values
// of x (it only checks them) and returns y(t); the caller then reveals the
// arrivals through Observe(t, x), which takes the step
// y(t+1) = Pi_Y(y(t) + eta_t grad q(x(t), y(t))). Neither call allocates.
//
// Slots: Decide needs t >= 0 and t greater than the previous Decide's;
// Observe names the t of the latest Decide, at most once. A gap (Decide(5)
// after Decide(2)), or a Decide without its Observe, means slots without
// arrivals: with x = 0 the gradient (30) is zero, so y does not move;
// the step schedule sees the real t, so TheoryAnytime and Geometric keep
// decaying with elapsed time. Anything else wraps ErrSlot.
//
// The returned decision is owned by the policy and valid until the next
// call of any of its methods: copy what you keep. A call that returns an
// error leaves the policy exactly as it was. A Policy is not safe for
// concurrent use. Call Close to stop the projection workers.
type Policy struct {
	p    *Problem
	set  Settings // as given (Step nil stays nil: Rebuild re-derives it)
	step Step
	log  *slog.Logger
	// logAs is the policy attribute of log records when another policy
	// wraps this one (OGASched-gang); "" means Name().
	logAs string

	paper bool
	proj  *projection.Projector
	bs    projection.Blocks
	perm  []int // block index i -> flat index e*K+k
	loose int   // coordinates of the loose blocks, first in block order
	// groups are the interleaved runs of 8 tight blocks after the loose
	// ones (exact projection only); bsTight the other tight blocks
	// (offsets into the whole block order)
	groups  []group8
	bsTight projection.Blocks
	u       []float64 // a_l^k in block order
	tau     []float64
	yb      []float64 // y in block order
	zb      []float64
	y       []float64 // flat y(t)
	out     []float64 // what Decide and Y return: a copy of y, never read back
	grad    []float64 // flat gradient
	rt      *rewardTables
	sums    []float64 // per-type scratch of rt.gradient

	repairAbove float64 // eta*|grad| above which Observe checks (6) (setRepairAbove)
	scale       float64 // Problem.scale, the unit of FeasibilityTol

	decided  int  // t of the latest Decide, -1 before the first
	observed bool // Observe(decided) was called
	model    string
}

var (
	_ OnlinePolicy = (*Policy)(nil)
	_ Learner      = (*Policy)(nil)
)

// New returns OGASched for p. It calls s.Validate first; a nil or invalid
// problem and an Init of the wrong length are errors (ErrDimension,
// ErrValue).
func New(p *Problem, s Settings) (*Policy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if p == nil {
		return nil, fmt.Errorf("%w: nil problem", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	n := p.Dim()
	if s.Init != nil && len(s.Init) != n {
		return nil, fmt.Errorf("%w: len(Init) = %d, want Dim = %d", ErrDimension, len(s.Init), n)
	}
	pol := newPolicy(p, s)
	if s.Init != nil {
		for i, j := range pol.perm {
			pol.zb[i] = s.Init[j]
		}
		pol.project()
	}
	return pol, nil
}

// newPolicy builds the policy for a validated p and s, with y = 0.
func newPolicy(p *Problem, s Settings) *Policy {
	step := s.Step
	if step == nil {
		if s.Horizon > 0 {
			step = Theory{Diam: p.Diameter(), T: s.Horizon}
		} else {
			step = TheoryAnytime{Diam: p.Diameter()}
		}
	}
	workers := max(s.Workers, 1)
	g, K := p.Graph, p.K
	n := p.Dim()
	pol := &Policy{
		p: p, set: s, step: step, log: s.Logger, paper: s.PaperProjection,
		perm: make([]int, 0, n), u: make([]float64, 0, n),
		tau: make([]float64, g.NumRight()*K),
		yb:  make([]float64, n), zb: make([]float64, n),
		y: make([]float64, n), out: make([]float64, n), grad: make([]float64, n), decided: -1,
	}
	// Blocks (r, k) in two groups: first the loose ones, whose bounds sum
	// to at most c_r^k (with a margin of 4 n eps for the rounding of any
	// order of summation: phi(0) computed by CappedSimplex then never
	// exceeds c), in (r, k) order; the exact projection clips them in one
	// loop (projectExact). Then the others by size, ties in (r, k) order:
	// runs of equal sizes keep the projection's branches predictable. The
	// order changes no value (each block is projected alone).
	type block struct {
		r, k, n int
		loose   bool
	}
	blocks := make([]block, 0, g.NumRight()*K)
	for r := 0; r < g.NumRight(); r++ {
		es := g.RightEdges(r)
		for k := 0; k < K; k++ {
			sum := 0.0
			for _, e := range es {
				sum += p.Demand[g.Edge(e).Left][k]
			}
			loose := sum*(1+4*float64(len(es))*0x1p-52) <= p.Capacity[r][k]
			blocks = append(blocks, block{r, k, len(es), loose})
		}
	}
	slices.SortStableFunc(blocks, func(a, b block) int {
		switch {
		case a.loose != b.loose:
			if a.loose {
				return -1
			}
			return 1
		case a.loose:
			return 0
		}
		return cmp.Compare(a.n, b.n)
	})
	// With the exact projection, runs of 8 tight blocks of equal size 3
	// to 8 (after the loose ones) are interleaved, coordinate i of the
	// run's block b at 8i+b, for projection.CappedSimplex8. o.bs keeps
	// the blocks in order for the paper's projection, which does not
	// interleave.
	pol.bs.Offsets = make([]int, 0, len(blocks)+1)
	pol.bs.Caps = make([]float64, 0, len(blocks))
	appendBlock := func(bl block) {
		pol.bs.Offsets = append(pol.bs.Offsets, len(pol.perm))
		pol.bs.Caps = append(pol.bs.Caps, p.Capacity[bl.r][bl.k])
		for _, e := range g.RightEdges(bl.r) {
			pol.perm = append(pol.perm, e*K+bl.k)
			pol.u = append(pol.u, p.Demand[g.Edge(e).Left][bl.k])
		}
	}
	nLoose := 0
	for nLoose < len(blocks) && blocks[nLoose].loose {
		appendBlock(blocks[nLoose])
		nLoose++
	}
	pol.loose = len(pol.perm)
	rest := blocks[nLoose:]
	if !s.PaperProjection {
		var single []block
		for i := 0; i < len(rest); {
			j := i
			for j < len(rest) && rest[j].n == rest[i].n {
				j++
			}
			n := rest[i].n
			for ; n >= 3 && n <= 8 && j-i >= 8; i += 8 {
				run := rest[i : i+8]
				gr := group8{off: len(pol.perm), n: n}
				for b, bl := range run {
					gr.c[b] = p.Capacity[bl.r][bl.k]
				}
				for c := 0; c < n; c++ {
					for _, bl := range run {
						e := g.RightEdges(bl.r)[c]
						pol.perm = append(pol.perm, e*K+bl.k)
						pol.u = append(pol.u, p.Demand[g.Edge(e).Left][bl.k])
					}
				}
				pol.groups = append(pol.groups, gr)
			}
			single = append(single, rest[i:j]...)
			i = j
		}
		rest = single
	}
	nTight := len(pol.bs.Caps)
	for _, bl := range rest {
		appendBlock(bl)
	}
	pol.bs.Offsets = append(pol.bs.Offsets, len(pol.perm))
	pol.bsTight = projection.Blocks{Offsets: pol.bs.Offsets[nTight:], Caps: pol.bs.Caps[nTight:]}
	if !s.PaperProjection {
		pol.proj = projection.NewProjector(workers)
	}
	pol.rt, pol.sums = newRewardTables(p), make([]float64, K)
	pol.model = fingerprint(p, step, s.PaperProjection)
	pol.setRepairAbove()
	return pol
}

// Name implements bipartite.OnlinePolicy.
func (o *Policy) Name() string {
	if o.paper {
		return "OGASched(paper-proj)"
	}
	return "OGASched"
}

// Problem returns the problem the policy was built on.
func (o *Policy) Problem() *Problem { return o.p }

// logName is the policy attribute of o's log records.
func (o *Policy) logName() string {
	if o.logAs != "" {
		return o.logAs
	}
	return o.Name()
}

// Close stops the projection workers. The policy must not be used afterwards.
func (o *Policy) Close() {
	if o.proj != nil {
		o.proj.Close()
	}
}

func (o *Policy) checkX(x []float64) error {
	if len(x) != o.p.NumPorts() {
		return fmt.Errorf("%w: len(x) = %d, want %d ports", ErrDimension, len(x), o.p.NumPorts())
	}
	for l, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
			return fmt.Errorf("%w: x[%d] = %v, want finite in [0, %g]", ErrValue, l, v, MaxValue)
		}
	}
	return nil
}

// Decide returns y(t) (flat layout y[e*K+k]). The arrivals x are not used
// to decide: OGASched decides before x(t) is revealed. A nil x is
// accepted; a non-nil one is validated (length, finite, non-negative) like
// Observe's. t must be >= 0 and greater than the previous Decide's
// (ErrSlot). On error nothing changes. The returned slice follows the
// decision-lifetime rule of package bipartite: owned by the policy, valid
// until the next call of any of its methods, never read back (Observe
// steps from the policy's own copy of y(t)).
func (o *Policy) Decide(t int, x []float64) ([]float64, error) {
	if t < 0 {
		return nil, fmt.Errorf("%w: Decide: slot t = %d, want >= 0", ErrSlot, t)
	}
	if t <= o.decided {
		return nil, fmt.Errorf("%w: Decide: slot t = %d, want > %d (the previous Decide)", ErrSlot, t, o.decided)
	}
	if x != nil {
		if err := o.checkX(x); err != nil {
			return nil, err
		}
	}
	o.decided, o.observed = t, false
	copy(o.out, o.y)
	if debugChecks {
		o.mustBeFeasible("Decide")
	}
	return o.out, nil
}

// Observe reveals x(t) of the slot of the latest Decide and takes the
// projected gradient step (31)-(32) from y(t) to y(t+1). On error (a slot
// other than the latest Decide's or one already observed, bad arrivals, a
// step or a gradient step that is not finite) the policy is left as it was.
func (o *Policy) Observe(t int, x []float64) error {
	if err := o.checkObserve(t, x); err != nil {
		return err
	}
	o.rt.gradient(o.grad, o.sums, x, o.y) // = o.p.Gradient(o.grad, x, o.y), bit for bit
	return o.stepFrom(t)
}

// observeRun is Observe for Run: it also returns RewardParts(x, y(t)),
// computed with the gradient in one pass over the coordinates
// (rewardTables.partsGrad; both bit for bit as parts and gradient). sc
// is Run's scratch for this policy.
func (o *Policy) observeRun(t int, x []float64, sc *rewardScratch) (gain, penalty float64, err error) {
	if err := o.checkObserve(t, x); err != nil {
		return 0, 0, err
	}
	gain, penalty = o.rt.partsGrad(sc, o.grad, x, o.y)
	return gain, penalty, o.stepFrom(t)
}

// checkObserve validates Observe's slot and arrivals.
func (o *Policy) checkObserve(t int, x []float64) error {
	if o.decided < 0 || t != o.decided || o.observed {
		return fmt.Errorf("%w: Observe: slot t = %d, want the latest Decide's (%d), once (observed already: %t)", ErrSlot, t, o.decided, o.observed)
	}
	return o.checkX(x)
}

// stepFrom takes the projected gradient step of slot t from o.grad.
func (o *Policy) stepFrom(t int) error {
	norm := norm2(o.grad)
	eta := o.step.Eta(t, norm)
	if math.IsNaN(eta) || math.IsInf(eta, 0) || eta < 0 {
		return fmt.Errorf("%w: step eta_%d = %v (gradient norm %v)", ErrValue, t, eta, norm)
	}
	// z = y + eta grad in block order; one check for the whole step (a NaN
	// or infinite z makes chk NaN), the index found only on error.
	chk := 0.0
	zb, yb, grad := o.zb, o.yb[:len(o.zb)], o.grad
	for i, j := range o.perm {
		z := yb[i] + eta*grad[j]
		chk += z - z
		zb[i] = z
	}
	if chk != 0 {
		for i, j := range o.perm {
			if z := zb[i]; math.IsNaN(z) || math.IsInf(z, 0) {
				return fmt.Errorf("%w: slot %d: y + eta*grad at index %d = %v (eta %v, gradient %v): the step overflows", ErrValue, t, j, z, eta, grad[j])
			}
		}
	}
	o.project()
	if eta*norm > o.repairAbove {
		o.repair()
	}
	if debugChecks {
		o.mustBeFeasible("Observe")
	}
	o.observed = true
	if o.log != nil {
		o.log.Debug("observe", "family", "ogasched", "policy", o.logName(), "slot", t, "gradNorm", norm, "eta", eta)
	}
	return nil
}

// project sets yb = Pi_Y(zb) block by block and scatters it into y.
func (o *Policy) project() {
	if o.paper {
		off := o.bs.Offsets
		for b := 0; b+1 < len(off); b++ {
			lo, hi := off[b], off[b+1]
			o.tau[b] = projection.CappedSimplexPaper(o.yb[lo:hi], o.zb[lo:hi], o.u[lo:hi], o.bs.Caps[b])
		}
	} else {
		o.projectExact()
	}
	for i, j := range o.perm {
		o.y[j] = o.yb[i]
	}
}

// projectExact sets yb = Pi_Y(zb) with the exact projection. The loose
// blocks come first in block order (see newPolicy): their capacity cannot
// bind, so their projection is the clip min(max(z, 0), u), what
// projection.CappedSimplex returns for them (tau = 0), bit for bit; the
// other blocks go through the Projector.
func (o *Policy) projectExact() {
	n := o.loose
	zb, u, yb := o.zb[:n], o.u[:n], o.yb[:n]
	for i, z := range zb {
		yb[i] = min(max(z, 0), u[i])
	}
	var tau [8]float64
	for i := range o.groups {
		gr := &o.groups[i]
		lo, hi := gr.off, gr.off+8*gr.n
		projection.CappedSimplex8(o.yb[lo:hi], o.zb[lo:hi], o.u[lo:hi], &gr.c, &tau)
	}
	o.proj.Project(o.yb, o.zb, o.u, o.bsTight, o.tau)
}

// group8 is a run of 8 tight blocks of n coordinates each, interleaved in
// block order from off (coordinate i of block b at off+8i+b), with their
// capacities.
type group8 struct {
	off, n int
	c      [8]float64
}

// projectFlat sets dst = Pi_Y(z) with the exact projection, both in the flat
// layout, using the policy's buffers (its decision is overwritten).
func (o *Policy) projectFlat(dst, z []float64) {
	for i, j := range o.perm {
		o.zb[i] = z[j]
	}
	o.projectExact()
	for i, j := range o.perm {
		dst[j] = o.yb[i]
	}
}

// setY installs a flat y (already feasible or to be projected) by
// projecting it: yb = Pi_Y(y), y = scatter(yb).
func (o *Policy) setY(y []float64) {
	for i, j := range o.perm {
		o.zb[i] = y[j]
	}
	o.project()
	o.repair()
}

// FeasibilityTol is the tolerance of the capacity constraints (6) in
// every decision a Policy returns or keeps, relative to the problem's
// scale S (its largest demand or capacity, at least 1):
// sum_l y_lr^k <= c_r^k + FeasibilityTol S. The demand bounds (5) hold
// exactly with the exact projection (the paper's procedure may break them,
// see Settings.PaperProjection). A debug build (-tags mscheddebug) checks
// both in every Decide and Observe and panics on a violation.
const FeasibilityTol = 1e-9

// setRepairAbove sets o.repairAbove, the step size eta*|grad| above which
// the rounding of a projection may exceed half of FeasibilityTol S: each
// coordinate z - tau of a block of n carries an error of about eps max|z|,
// with max|z| <= max(u, c) + eta*|grad|, so below n * 4 eps max|z| stays
// under FeasibilityTol S / 2.
func (o *Policy) setRepairAbove() {
	p := o.p
	g := p.Graph
	nmax := 1
	for r := 0; r < g.NumRight(); r++ {
		nmax = max(nmax, len(g.RightEdges(r)))
	}
	o.scale = p.scale()
	o.repairAbove = FeasibilityTol*o.scale/(8*float64(nmax)*0x1p-52) - o.scale
}

// repair enforces (6) after a projection whose rounding may have broken
// it (a gradient step of 1e30 gave capacity 2, allocated 3): every block
// whose sum exceeds its capacity is scaled onto it, with a margin for the
// rounding of the scaled sum. The decision is then feasible, no longer the
// exact projection, which double precision cannot resolve at that step.
func (o *Policy) repair() {
	p := o.p
	g, K := p.Graph, p.K
	fixed := false
	for r := 0; r < g.NumRight(); r++ {
		es := g.RightEdges(r)
		for k := 0; k < K; k++ {
			c := p.Capacity[r][k]
			sum := 0.0
			for _, e := range es {
				sum += o.y[e*K+k]
			}
			if sum <= c+FeasibilityTol*o.scale/2 {
				continue
			}
			f := c / sum * (1 - float64(len(es)+2)*0x1p-52)
			for _, e := range es {
				o.y[e*K+k] = max(0, o.y[e*K+k]*f)
			}
			fixed = true
		}
	}
	if fixed {
		for i, j := range o.perm {
			o.yb[i] = o.y[j]
		}
	}
}

// feasible reports whether y satisfies (6) within FeasibilityTol and, with
// the exact projection, (5) exactly.
func (o *Policy) feasible(y []float64) error {
	p := o.p
	g, K := p.Graph, p.K
	if len(y) != p.Dim() {
		return fmt.Errorf("%w: len(y) = %d, want %d", ErrDimension, len(y), p.Dim())
	}
	if !o.paper {
		for e := 0; e < g.NumEdges(); e++ {
			l := g.Edge(e).Left
			for k := 0; k < K; k++ {
				if v := y[e*K+k]; !(v >= 0 && v <= p.Demand[l][k]) {
					return fmt.Errorf("%w: (5) violated: y[%d] = %v, want in [0, %v]", ErrValue, e*K+k, v, p.Demand[l][k])
				}
			}
		}
	}
	for r := 0; r < g.NumRight(); r++ {
		for k := 0; k < K; k++ {
			c := p.Capacity[r][k]
			sum := 0.0
			for _, e := range g.RightEdges(r) {
				sum += y[e*K+k]
			}
			if !(sum <= c+FeasibilityTol*o.scale) {
				return fmt.Errorf("%w: (6) violated at node %d type %d: sum %v > capacity %v + FeasibilityTol * %v", ErrValue, r, k, sum, c, o.scale)
			}
		}
	}
	return nil
}

// mustBeFeasible panics if the kept decision breaks (5)-(6): the debug
// build's invariant check (a bug, never a data error).
func (o *Policy) mustBeFeasible(where string) {
	if err := o.feasible(o.y); err != nil {
		panic("ogasched: " + where + ": infeasible decision: " + err.Error())
	}
}

// Y returns the current decision y(t) in the flat layout (owned by the
// policy, valid until the next call of any of its methods, never read
// back).
func (o *Policy) Y() []float64 {
	copy(o.out, o.y)
	return o.out
}

// norm2 returns the Euclidean norm of x: the square root of the sum of
// squares (four partial sums) when that sum is safely inside the normal
// range, else gonum's scaled floats.Norm (no overflow or underflow).
func norm2(x []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * x[i]
		s1 += x[i+1] * x[i+1]
		s2 += x[i+2] * x[i+2]
		s3 += x[i+3] * x[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * x[i]
	}
	s := (s0 + s1) + (s2 + s3)
	if s >= 0x1p-900 && s <= 0x1p900 {
		return math.Sqrt(s)
	}
	return floats.Norm(x, 2)
}
