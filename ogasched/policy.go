package ogasched

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/projection"
)

// Settings configures a Policy. The zero value is the faithful default: a
// step tied to (53) for the instance (TheoryAnytime, or Theory when Horizon
// is set), one projection worker, the exact projection, y(1) = 0. The
// paper's literal experimental step is Step: PaperGeometric().
type Settings struct {
	// Step is the step-size schedule. nil means the theory step (53) of the
	// instance: Theory{Diam: p.Diameter(), T: Horizon} when Horizon > 0,
	// else TheoryAnytime{Diam: p.Diameter()}. Before this default, nil meant
	// the experiments' Geometric{25, 0.9999}, which is now PaperGeometric()
	// (see Step for why it is no longer the default).
	Step Step
	// Horizon is the number of slots T the policy will run, used by the
	// default step; 0 means unknown.
	Horizon int
	// Workers is the number of projection workers; 0 means 1.
	Workers int
	// PaperProjection selects the paper's inexact Algorithm 1 inner
	// procedure (projection.CappedSimplexPaper) instead of the exact
	// projection per (r,k) block. That procedure caps only the largest
	// coordinate and always fills the capacity, so its y can violate the
	// demand bound (5) (measured in package projection's documentation).
	// The policy returns such y as they are, so that the paper can be
	// reproduced; it is not a valid scheduler.
	PaperProjection bool
	// Init is y(1) in the flat layout; nil means zero. It is projected onto Y.
	Init []float64
}

// Validate reports every problem of s that does not depend on the problem
// (Workers outside [0, MaxWorkers], a negative Horizon), joined with
// errors.Join, each wrapping ErrSettings and naming the field. New calls it.
func (s Settings) Validate() error {
	var errs []error
	if s.Workers < 0 || s.Workers > MaxWorkers {
		errs = append(errs, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, s.Workers, MaxWorkers))
	}
	if s.Horizon < 0 {
		errs = append(errs, fmt.Errorf("%w: Horizon = %d, want >= 0", ErrSettings, s.Horizon))
	}
	return errors.Join(errs...)
}

// Policy is OGASched (Algorithm 1): online projected gradient ascent on
// q(x(t), .). It implements bipartite.OnlinePolicy[[]float64, []float64] and
// bipartite.Learner[[]float64].
//
// Timing: y(t) is chosen BEFORE x(t) is seen. Decide(t, x) ignores the values
// of x (it only checks its length) and returns y(t); the caller then reveals
// the arrivals through Observe(t, x), which takes the step
// y(t+1) = Pi_Y(y(t) + eta_t grad q(x(t), y(t))). Calling Decide twice without
// Observe returns the same y. Neither call allocates.
//
// The returned decision is owned by the policy and valid until the next
// Observe. A Policy is not safe for concurrent use. Call Close to stop the
// projection workers.
type Policy struct {
	p    *Problem
	step Step

	paper bool
	proj  *projection.Projector
	bs    projection.Blocks
	perm  []int     // block index i -> flat index e*K+k
	u     []float64 // a_l^k in block order
	tau   []float64
	yb    []float64 // y in block order
	zb    []float64
	y     []float64 // flat y(t)
	grad  []float64 // flat gradient
	last  int       // last observed slot, -1 before the first Observe
}

var (
	_ bipartite.OnlinePolicy[[]float64, []float64] = (*Policy)(nil)
	_ bipartite.Learner[[]float64]                 = (*Policy)(nil)
)

// New returns OGASched for p.
func New(p *Problem, s Settings) (*Policy, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil problem", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if s.Step == nil {
		if s.Horizon > 0 {
			s.Step = Theory{Diam: p.Diameter(), T: s.Horizon}
		} else {
			s.Step = TheoryAnytime{Diam: p.Diameter()}
		}
	}
	if s.Workers == 0 {
		s.Workers = 1
	}
	g, K := p.Graph, p.K
	n := p.Dim()
	if s.Init != nil && len(s.Init) != n {
		return nil, fmt.Errorf("%w: len(Init) = %d, want %d", ErrDimension, len(s.Init), n)
	}
	pol := &Policy{
		p: p, step: s.Step, paper: s.PaperProjection,
		perm: make([]int, 0, n), u: make([]float64, 0, n),
		tau: make([]float64, g.NumRight()*K),
		yb:  make([]float64, n), zb: make([]float64, n),
		y: make([]float64, n), grad: make([]float64, n), last: -1,
	}
	pol.bs.Offsets = make([]int, 0, g.NumRight()*K+1)
	pol.bs.Caps = make([]float64, 0, g.NumRight()*K)
	for r := 0; r < g.NumRight(); r++ {
		for k := 0; k < K; k++ {
			pol.bs.Offsets = append(pol.bs.Offsets, len(pol.perm))
			pol.bs.Caps = append(pol.bs.Caps, p.Capacity[r][k])
			for _, e := range g.RightEdges(r) {
				pol.perm = append(pol.perm, e*K+k)
				pol.u = append(pol.u, p.Demand[g.Edge(e).Left][k])
			}
		}
	}
	pol.bs.Offsets = append(pol.bs.Offsets, len(pol.perm))
	if !s.PaperProjection {
		pol.proj = projection.NewProjector(s.Workers)
	}
	if s.Init != nil {
		for i, j := range pol.perm {
			v := s.Init[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%w: Init[%d] = %v", ErrValue, j, v)
			}
			pol.zb[i] = v
		}
		pol.project()
	}
	return pol, nil
}

// Name implements bipartite.OnlinePolicy.
func (o *Policy) Name() string {
	if o.paper {
		return "OGASched(paper-proj)"
	}
	return "OGASched"
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

// checkSlot rejects a negative slot and a slot at or before the last
// observed one (slots going backwards).
func (o *Policy) checkSlot(t int) error {
	if t < 0 {
		return fmt.Errorf("%w: slot t = %d, want >= 0", ErrValue, t)
	}
	if t <= o.last {
		return fmt.Errorf("%w: slot t = %d, but slot %d was already observed (slots must increase)", ErrValue, t, o.last)
	}
	return nil
}

// Decide returns y(t) (flat layout y[e*K+k]). The arrivals x are not used
// to decide: OGASched decides before x(t) is revealed. They are validated
// (length, finite, non-negative) like Observe's, and t must be >= 0 and
// after the last observed slot. On error nothing changes.
func (o *Policy) Decide(t int, x []float64) ([]float64, error) {
	if err := o.checkSlot(t); err != nil {
		return nil, err
	}
	if err := o.checkX(x); err != nil {
		return nil, err
	}
	return o.y, nil
}

// Observe reveals x(t) and takes the projected gradient step (31)-(32) from
// y(t) to y(t+1). Slots must increase from one Observe to the next. On
// error (bad slot, bad arrivals, a step or a gradient step that is not
// finite) the policy is left as it was: y(t) stays the decision.
func (o *Policy) Observe(t int, x []float64) error {
	if err := o.checkSlot(t); err != nil {
		return err
	}
	if err := o.checkX(x); err != nil {
		return err
	}
	o.p.Gradient(o.grad, x, o.y)
	norm := floats.Norm(o.grad, 2)
	eta := o.step.Eta(t, norm)
	if math.IsNaN(eta) || math.IsInf(eta, 0) || eta < 0 {
		return fmt.Errorf("%w: step eta_%d = %v (gradient norm %v)", ErrValue, t, eta, norm)
	}
	for i, j := range o.perm {
		z := o.yb[i] + eta*o.grad[j]
		if math.IsNaN(z) || math.IsInf(z, 0) {
			return fmt.Errorf("%w: slot %d: y + eta*grad at index %d = %v (eta %v, gradient %v): the step overflows", ErrValue, t, j, z, eta, o.grad[j])
		}
		o.zb[i] = z
	}
	o.project()
	o.last = t
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
		o.proj.Project(o.yb, o.zb, o.u, o.bs, o.tau)
	}
	for i, j := range o.perm {
		o.y[j] = o.yb[i]
	}
}

// projectFlat sets dst = Pi_Y(z) with the exact projection, both in the flat
// layout, using the policy's buffers (its decision is overwritten).
func (o *Policy) projectFlat(dst, z []float64) {
	for i, j := range o.perm {
		o.zb[i] = z[j]
	}
	o.proj.Project(o.yb, o.zb, o.u, o.bs, o.tau)
	for i, j := range o.perm {
		dst[j] = o.yb[i]
	}
}

// Y returns the current decision y(t) in the flat layout (owned by the policy).
func (o *Policy) Y() []float64 { return o.y }
