package baselines

import (
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
)

// The OnSocMax-family baselines (paper 001, Section IV-A) work slot by
// slot: Decide(t, jobs) admits the jobs arriving at t and then allocates the
// units of slot t only (no reservation of later slots, unlike OnSocMax) to
// the active jobs, i.e. those that have arrived, whose deadline is >= t and
// whose workload rho_n is not yet exhausted. Nodes are served in index
// order, so a job's remaining workload shrinks as lower nodes serve it.
// Every allocation respects (4), (6) and (7), so the result is feasible for
// P1. The jobs' slices are retained (not copied) until their deadline and
// must not be modified. The returned slice is owned by the policy and valid
// until the next Decide. Neither is safe for concurrent use.
//
// Information advantage: deciding slot by slot, the baselines have seen
// every job that arrives up to slot t before they spend slot t's capacity,
// and never commit capacity of a future slot; OnSocMax commits each job's
// whole allocation (later slots included) when the job arrives. Results
// comparing them should say so.
//
// Decide is all or nothing: a slot outside the mesh horizon
// (onsocmax.ErrHorizon), an invalid job or one arriving at another slot
// (onsocmax.ErrValue), a job ID that is already active or repeated in the
// batch (onsocmax.ErrDuplicate) return an error and a nil decision before
// any state changes.

var (
	_ bipartite.OnlinePolicy[[]onsocmax.Job, []onsocmax.Allocation] = (*MaxFirst)(nil)
	_ bipartite.OnlinePolicy[[]onsocmax.Job, []onsocmax.Allocation] = (*EqualShare)(nil)
)

type activeJob struct {
	job *onsocmax.Job
	rem float64 // remaining workload
}

type candidate struct {
	a   int     // index into active
	pos int     // position of the unit in job.Units
	d   float64 // demand min(xbar, rem)
}

// slotBase holds what both baselines share.
type slotBase struct {
	mesh    *bipartite.Mesh
	meshErr error // why mesh is unusable (nil, overflowing), reported by Decide
	active  []activeJob
	cand    [][]candidate // per node, candidates of the current slot
	out     []onsocmax.Allocation
	ids     map[int]struct{}
}

func newSlotBase(mesh *bipartite.Mesh) slotBase {
	if err := onsocmax.ValidateMesh(mesh); err != nil {
		return slotBase{meshErr: fmt.Errorf("baselines: %w", err)}
	}
	return slotBase{mesh: mesh, cand: make([][]candidate, mesh.Nodes)}
}

// admit validates the arrivals and the slot before changing anything, then
// admits the arrivals, drops expired or finished jobs and collects, per
// node, the candidates of slot t.
func (b *slotBase) admit(t int, jobs []onsocmax.Job) error {
	b.out = b.out[:0]
	if b.meshErr != nil {
		return b.meshErr
	}
	if t < 0 || t >= b.mesh.Slots {
		return fmt.Errorf("baselines: %w: Decide at slot %d, mesh has slots [0, %d)", onsocmax.ErrHorizon, t, b.mesh.Slots)
	}
	if b.ids == nil {
		b.ids = make(map[int]struct{})
	}
	clear(b.ids)
	for _, a := range b.active {
		if a.job.Deadline >= t && a.rem > 0 {
			b.ids[a.job.ID] = struct{}{}
		}
	}
	for n := range jobs {
		if err := jobs[n].Validate(b.mesh); err != nil {
			return fmt.Errorf("baselines: job index %d: %w", n, err)
		}
		if jobs[n].Arrival != t {
			return fmt.Errorf("baselines: %w: job index %d (id %d) arrives at %d, decided at slot %d", onsocmax.ErrValue, n, jobs[n].ID, jobs[n].Arrival, t)
		}
		if _, dup := b.ids[jobs[n].ID]; dup {
			return fmt.Errorf("baselines: %w: job index %d has id %d, already active or earlier in the batch", onsocmax.ErrDuplicate, n, jobs[n].ID)
		}
		b.ids[jobs[n].ID] = struct{}{}
	}
	keep := b.active[:0]
	for _, a := range b.active {
		if a.job.Deadline >= t && a.rem > 0 {
			keep = append(keep, a)
		}
	}
	b.active = keep
	for n := range jobs {
		j := jobs[n]
		b.active = append(b.active, activeJob{job: &j, rem: j.Rho})
	}
	for i := range b.cand {
		b.cand[i] = b.cand[i][:0]
	}
	for ai, a := range b.active {
		for pos, r := range a.job.Units {
			node, s := b.mesh.NodeSlot(r)
			if s == t && a.job.XBar[pos] > 0 && b.mesh.Capacity[r] > 0 {
				b.cand[node] = append(b.cand[node], candidate{a: ai, pos: pos})
			}
		}
	}
	return nil
}

func (b *slotBase) give(c candidate, r int, x float64) {
	if x <= 0 {
		return
	}
	a := &b.active[c.a]
	a.rem = math.Max(0, a.rem-x)
	b.out = append(b.out, onsocmax.Allocation{Job: a.job.ID, Unit: r, X: x})
}

// MaxFirst is MAX-FIRST of paper 001: "each node always serves the job with
// the highest myopic social welfare". Reading: in slot t each node, in index
// order, repeatedly picks among its candidate jobs the one whose allocation
// x = min(xbar_nr, remaining rho_n, remaining C_r) has the largest welfare
// f_nr(x) + beta_nr x / C_r (ties: earlier arrival), allocates x, and stops
// when its capacity or its candidates run out.
type MaxFirst struct{ slotBase }

// NewMaxFirst returns MAX-FIRST on mesh. It never panics: if mesh is nil
// or invalid (see onsocmax.ValidateMesh), every Decide returns that error.
// NewMaxFirstChecked reports it at construction.
func NewMaxFirst(mesh *bipartite.Mesh) *MaxFirst { return &MaxFirst{newSlotBase(mesh)} }

// NewMaxFirstChecked returns MAX-FIRST on mesh, or an error if mesh is nil
// or invalid (onsocmax.ValidateMesh).
func NewMaxFirstChecked(mesh *bipartite.Mesh) (*MaxFirst, error) {
	p := NewMaxFirst(mesh)
	if p.meshErr != nil {
		return nil, p.meshErr
	}
	return p, nil
}

// Name returns "MAX-FIRST".
func (p *MaxFirst) Name() string { return "MAX-FIRST" }

// Decide admits the arrivals of slot t and allocates the units of slot t.
func (p *MaxFirst) Decide(t int, jobs []onsocmax.Job) ([]onsocmax.Allocation, error) {
	if err := p.admit(t, jobs); err != nil {
		return nil, err
	}
	for node, cs := range p.cand {
		r := p.mesh.Unit(node, t)
		c := p.mesh.Capacity[r]
		left := c
		for left > 0 && len(cs) > 0 {
			best, bestW, bestX := -1, math.Inf(-1), 0.0
			for k, cd := range cs {
				a := &p.active[cd.a]
				x := math.Min(a.job.XBar[cd.pos], math.Min(a.rem, left))
				if x <= 0 {
					continue
				}
				w := a.job.Utility[cd.pos].Value(x) + a.job.Beta[cd.pos]*x/c
				if w > bestW {
					best, bestW, bestX = k, w, x
				}
			}
			if best < 0 {
				break
			}
			p.give(cs[best], r, bestX)
			left -= bestX
			cs = slices.Delete(cs, best, best+1)
		}
		p.cand[node] = cs[:0]
	}
	return p.out, nil
}

// EqualShare is EQUAL-SHARE of paper 001: "a node serves every newly
// arrived job with equal opportunity within its capacity limit". Reading:
// in slot t each node, in index order, splits its capacity C_r equally
// among its candidate jobs by progressive filling: each job gets
// min(demand, equal share of what is left), where demand =
// min(xbar_nr, remaining rho_n), and capacity a job cannot use is shared
// among the others.
type EqualShare struct{ slotBase }

// NewEqualShare returns EQUAL-SHARE on mesh. It never panics: if mesh is
// nil or invalid (see onsocmax.ValidateMesh), every Decide returns that
// error. NewEqualShareChecked reports it at construction.
func NewEqualShare(mesh *bipartite.Mesh) *EqualShare { return &EqualShare{newSlotBase(mesh)} }

// NewEqualShareChecked returns EQUAL-SHARE on mesh, or an error if mesh is
// nil or invalid (onsocmax.ValidateMesh).
func NewEqualShareChecked(mesh *bipartite.Mesh) (*EqualShare, error) {
	p := NewEqualShare(mesh)
	if p.meshErr != nil {
		return nil, p.meshErr
	}
	return p, nil
}

// Name returns "EQUAL-SHARE".
func (p *EqualShare) Name() string { return "EQUAL-SHARE" }

// Decide admits the arrivals of slot t and allocates the units of slot t.
func (p *EqualShare) Decide(t int, jobs []onsocmax.Job) ([]onsocmax.Allocation, error) {
	if err := p.admit(t, jobs); err != nil {
		return nil, err
	}
	for node, cs := range p.cand {
		r := p.mesh.Unit(node, t)
		left := p.mesh.Capacity[r]
		for k := range cs {
			a := &p.active[cs[k].a]
			cs[k].d = math.Min(a.job.XBar[cs[k].pos], a.rem)
		}
		slices.SortStableFunc(cs, func(x, y candidate) int {
			switch {
			case x.d < y.d:
				return -1
			case x.d > y.d:
				return 1
			}
			return 0
		})
		for k, cd := range cs {
			x := math.Min(cd.d, left/float64(len(cs)-k))
			p.give(cd, r, x)
			left -= x
		}
	}
	return p.out, nil
}
