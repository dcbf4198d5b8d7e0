package onsocmax

import (
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
)

// Allocation is one decision x_nr > 0: Job's workload X on mesh Unit.
// OnSocMax reserves units of later slots (resource reservation); baselines
// allocate only units of the current slot.
type Allocation struct {
	Job  int     `json:"job"` // Job.ID
	Unit int     `json:"unit"`
	X    float64 `json:"x"`
}

// Solver selects the per-job P3 solver of Policy.
type Solver int

// Solvers.
const (
	// WaterFilling is the exact dual bisection (WaterFill), the default.
	WaterFilling Solver = iota
	// AugmentedLagrangian is Algorithm 2 (ALM.SolveP3).
	AugmentedLagrangian
)

// PolicySettings configures Policy; the zero value is the paper's
// partitionable OnSocMax with the exact solver.
type PolicySettings struct {
	Solver Solver
	// ALM configures the augmented Lagrangian when Solver is
	// AugmentedLagrangian.
	ALM ALMSettings
	// NonPartitionable is the variant of Section III-D: x_nr in
	// {0, xbar_nr}. Each unit's net value f_nr(xbar) + beta xbar/C -
	// Phi_r(xbar) is computed with the exact cost (12); units with positive
	// net value that fit (omega + xbar <= C) are taken greedily by net value
	// per workload while sum x <= rho_n. With xbar_nr = rho_n (the paper's
	// setting) this picks the single best unit, i.e. it is exact.
	NonPartitionable bool
}

// Policy is OnSocMax, Algorithm 1 over the resource mesh. Decide(t, jobs)
// processes the jobs arriving in slot t in order: it solves P3 for each at
// the current usage levels omega_r, reserves the result and updates
// omega_r by (11). A Policy is not safe for concurrent use.
type Policy struct {
	mesh     *bipartite.Mesh
	pricing  Pricing
	settings PolicySettings
	usage    []float64

	alm   ALM
	p3    P3
	pos   []int // positions in the job's Units of the units given to P3
	x     []float64
	work  []float64
	order []int
	out   []Allocation
	last  Result
	// journal holds (unit, usage before) of the current Decide, to undo
	// it exactly when a later job of the batch fails.
	journal []usageEntry
	ids     map[int]struct{}
}

// testFailJob, set only by tests, makes Decide fail after a job has been
// allocated, to exercise the rollback of a batch.
var testFailJob func(*Job) error

type usageEntry struct {
	r    int
	prev float64
}

var _ bipartite.OnlinePolicy[[]Job, []Allocation] = (*Policy)(nil)

// NewPolicy returns OnSocMax on mesh with the Theorem 2 pricing. settings
// may be nil.
func NewPolicy(mesh *bipartite.Mesh, pricing Pricing, settings *PolicySettings) (*Policy, error) {
	if err := checkMesh(mesh); err != nil {
		return nil, err
	}
	if err := pricing.Validate(); err != nil {
		return nil, err
	}
	p := &Policy{mesh: mesh, pricing: pricing, usage: make([]float64, mesh.NumUnits())}
	if settings != nil {
		p.settings = *settings
	}
	if p.settings.Solver != WaterFilling && p.settings.Solver != AugmentedLagrangian {
		return nil, fmt.Errorf("%w: solver %d", ErrSettings, p.settings.Solver)
	}
	if _, err := p.settings.ALM.withDefaults(); err != nil {
		return nil, err
	}
	p.alm.Settings = p.settings.ALM
	return p, nil
}

// Name returns "OnSocMax" (or "OnSocMax-NP" for the non-partitionable variant).
func (p *Policy) Name() string {
	if p != nil && p.settings.NonPartitionable {
		return "OnSocMax-NP"
	}
	return "OnSocMax"
}

// Usage returns the usage levels omega_r (read-only, updated in place).
func (p *Policy) Usage() []float64 { return p.usage }

// Last returns the solver result of the last job processed.
func (p *Policy) Last() Result { return p.last }

// Reset sets every usage level back to 0 (line 1 of Algorithm 1).
func (p *Policy) Reset() { clear(p.usage) }

// Decide runs Algorithm 1 lines 3-7 for each job arriving in slot t and
// returns the allocations x_nr > 0 of all of them. The returned slice is
// reused by the next call.
//
// Decide is all or nothing: it returns an error and a nil decision, and
// leaves the policy exactly as it was (usage levels bit for bit, Last), if
// t is outside the mesh horizon [0, Slots) (ErrHorizon), if a job does not
// validate against the mesh or arrives at a slot other than t (ErrValue),
// if two jobs of the batch share an ID (ErrDuplicate), or if a solver
// fails on any job of the batch. IDs are only checked within a batch: the
// policy keeps no state per job.
func (p *Policy) Decide(t int, jobs []Job) ([]Allocation, error) {
	if p == nil || p.mesh == nil {
		return nil, fmt.Errorf("%w: Policy not built by NewPolicy", ErrValue)
	}
	p.out = p.out[:0]
	if t < 0 || t >= p.mesh.Slots {
		return nil, fmt.Errorf("%w: Decide at slot %d, mesh has slots [0, %d)", ErrHorizon, t, p.mesh.Slots)
	}
	if len(jobs) > 1 {
		if p.ids == nil {
			p.ids = make(map[int]struct{})
		}
		clear(p.ids)
	}
	for n := range jobs {
		j := &jobs[n]
		if err := j.Validate(p.mesh); err != nil {
			return nil, fmt.Errorf("job index %d: %w", n, err)
		}
		if j.Arrival != t {
			return nil, fmt.Errorf("%w: job index %d (id %d) arrives at %d, decided at slot %d", ErrValue, n, j.ID, j.Arrival, t)
		}
		if len(jobs) > 1 {
			if _, dup := p.ids[j.ID]; dup {
				return nil, fmt.Errorf("%w: job index %d repeats id %d in one Decide batch", ErrDuplicate, n, j.ID)
			}
			p.ids[j.ID] = struct{}{}
		}
	}
	p.journal = p.journal[:0]
	last := p.last
	for n := range jobs {
		err := p.decideJob(&jobs[n])
		if err == nil && testFailJob != nil {
			err = testFailJob(&jobs[n])
		}
		if err != nil {
			for k := len(p.journal) - 1; k >= 0; k-- {
				p.usage[p.journal[k].r] = p.journal[k].prev
			}
			p.journal = p.journal[:0]
			p.last = last
			p.out = p.out[:0]
			return nil, err
		}
	}
	return p.out, nil
}

func (p *Policy) decideJob(j *Job) error {
	q := &p.p3
	q.Rho, q.Pricing = j.Rho, p.pricing
	q.XBar, q.Utility, q.Beta = q.XBar[:0], q.Utility[:0], q.Beta[:0]
	q.Capacity, q.Usage, p.pos = q.Capacity[:0], q.Usage[:0], p.pos[:0]
	for i, r := range j.Units {
		c := p.mesh.Capacity[r]
		if c <= 0 {
			continue
		}
		p.pos = append(p.pos, i)
		q.XBar = append(q.XBar, j.XBar[i])
		q.Utility = append(q.Utility, j.Utility[i])
		q.Beta = append(q.Beta, j.Beta[i])
		q.Capacity = append(q.Capacity, c)
		q.Usage = append(q.Usage, math.Min(p.usage[r], c))
	}
	k := len(p.pos)
	p.x = grow(p.x, k)
	p.work = grow(p.work, k)
	var err error
	switch {
	case p.settings.NonPartitionable:
		p.last, err = p.nonPartitionable()
	case p.settings.Solver == AugmentedLagrangian:
		p.last, err = p.alm.SolveP3(p.x, q)
	default:
		p.last, err = WaterFill(p.x, q, nil, p.work)
	}
	if err != nil {
		return fmt.Errorf("onsocmax: job %d: %w", j.ID, err)
	}
	for i, xi := range p.x {
		if xi <= 0 {
			continue
		}
		r := j.Units[p.pos[i]]
		p.journal = append(p.journal, usageEntry{r, p.usage[r]})
		p.usage[r] += xi // (11)
		p.out = append(p.out, Allocation{Job: j.ID, Unit: r, X: xi})
	}
	return nil
}

// nonPartitionable solves the 0/1 variant greedily (see PolicySettings).
func (p *Policy) nonPartitionable() (Result, error) {
	q := &p.p3
	if err := q.Validate(); err != nil {
		return Result{}, err
	}
	k := q.Len()
	p.order = p.order[:0]
	for r := range k {
		xb := q.XBar[r]
		p.x[r] = 0
		p.work[r] = math.Inf(-1)
		if xb <= 0 || xb > q.Capacity[r]-q.Usage[r] || xb > q.Rho {
			continue
		}
		net := q.Utility[r].Value(xb) + q.Beta[r]*xb/q.Capacity[r] - q.cost(r, xb)
		if net > 0 {
			p.work[r] = net / xb
			p.order = append(p.order, r)
		}
	}
	slices.SortStableFunc(p.order, func(a, b int) int {
		switch {
		case p.work[a] > p.work[b]:
			return -1
		case p.work[a] < p.work[b]:
			return 1
		}
		return 0
	})
	left := q.Rho
	for _, r := range p.order {
		if q.XBar[r] <= left {
			p.x[r] = q.XBar[r]
			left -= q.XBar[r]
		}
	}
	return Result{Objective: q.Objective(p.x), Status: Success}, nil
}
