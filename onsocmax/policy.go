package onsocmax

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
)

// Policy is OnSocMax, Algorithm 1, over a rolling resource mesh.
// Decide(t, jobs) processes the jobs arriving in slot t in order: it
// solves P3 for each at the current usage levels omega_r, reserves the
// result and updates omega_r by (11).
//
// The mesh given to New has W = mesh.Slots slots; the policy keeps the
// window of slots [t, t+W) of the latest Decide(t). Node i's capacity in
// absolute slot s is mesh.Capacity[i*W + s%W]: the mesh is a periodic
// template (a day of W hours repeats), so the slots that enter the window
// as t advances get the capacity of the template's column s%W, with no
// usage. Nodes join and leave by ChangeCluster, under the cluster-change
// contract of package bipartite (the edit functions AddNode and RemoveNode
// build the changed mesh; Reservations lists what a leaving node
// cancels). A job names its units as Node*W + slot%W (Units builds them);
// with slots below W, that is the mesh index of an Instance.
//
// A Policy is not safe for concurrent use.
type Policy struct {
	w        int // window length W
	settings Settings
	pricing  Pricing
	model    string // snapshot fingerprint
	minUnit  float64

	nodes    int
	capacity []float64 // nodes*W template
	usage    []float64 // nodes*W omega of the window's slots
	ledger   [][]reservation
	spare    [][]reservation
	now      int // first slot of the window
	started  bool

	alm     ALM
	p3      P3
	pos     []int // positions in the job's Units of the units given to P3
	x       []float64
	work    []float64
	order   []int
	out     Decision
	last    SolveResult
	journal []usageEntry
	live    map[int]struct{} // IDs holding reservations (checkLive's scratch)
	undo    []float64        // usage of the columns recycled by the current Decide
	ids     map[int]struct{}
	seen    map[int]struct{} // units of a job, for Job.check
}

// reservation is one allocation kept until its slot leaves the window.
type reservation struct {
	job, node int
	x         float64
}

// testFailJob, set only by tests, makes Decide fail after a job has been
// allocated, to exercise the rollback of a batch.
var testFailJob func(*Job) error

type usageEntry struct {
	r      int
	prev   float64
	ledger int // length of the ledger column before the append
}

var _ OnlinePolicy = (*Policy)(nil)

// New returns OnSocMax on mesh with the Theorem 2 pricing of the bounds
// settings.Iota and settings.V (both zero: the paper's, see Settings). It
// returns an error wrapping ErrSettings or ErrBounds for invalid settings
// (Settings.Validate) and ErrValue, ErrTooLarge or bipartite's sentinels
// for a nil or invalid mesh. The mesh is copied.
func New(mesh *bipartite.Mesh, settings Settings) (*Policy, error) {
	if err := settings.Validate(); err != nil {
		return nil, err
	}
	if err := checkMesh(mesh); err != nil {
		return nil, err
	}
	minUnit := settings.MinUnit
	if minUnit == 0 {
		minUnit = DefaultMinUnit
	}
	settings, err := settings.withDefaults(minUnit)
	if err != nil {
		return nil, err
	}
	pricing, err := NewPricing(settings.Iota, settings.V)
	if err != nil {
		return nil, err
	}
	p := &Policy{
		w: mesh.Slots, settings: settings, pricing: pricing, minUnit: minUnit,
		nodes:    mesh.Nodes,
		capacity: slices.Clone(mesh.Capacity),
		usage:    make([]float64, mesh.NumUnits()),
		ledger:   make([][]reservation, mesh.Slots),
		spare:    make([][]reservation, mesh.Slots),
	}
	p.alm.Settings = settings.ALM
	p.model = fingerprint(mesh, settings)
	return p, nil
}

// Name returns "OnSocMax" (or "OnSocMax-NP" for the non-partitionable variant).
func (p *Policy) Name() string {
	if p != nil && p.settings.NonPartitionable {
		return "OnSocMax-NP"
	}
	return "OnSocMax"
}

// Pricing returns the Theorem 2 pricing built from Settings.Iota and V.
func (p *Policy) Pricing() Pricing { return p.pricing }

// Usage returns the usage levels omega_r of the window, indexed like
// Allocation.Unit (node*W + slot%W); read-only, updated in place.
func (p *Policy) Usage() []float64 { return p.usage }

// Last returns the solver result of the last job processed.
func (p *Policy) Last() SolveResult { return p.last }

// Window returns W, the number of slots the policy looks ahead, and the
// first slot of the current window (that of the latest Decide, 0 before
// the first).
func (p *Policy) Window() (w, first int) { return p.w, p.now }

// Decide runs Algorithm 1 lines 3-7 for each job arriving in slot t and
// returns the allocations x_nr > 0 of all of them and one Outcome per job.
// The decision is owned by the policy and valid until its next method
// call.
//
// t must be >= 0 and greater than the t of the previous Decide (ErrSlot).
// A gap (slots with no Decide) means no job arrived in those slots; the
// reservations made in them stand and the window rolls past them. Every
// job must arrive at t (ErrValue), name units of nodes of the current
// mesh whose slots lie in [t, Deadline] (Units builds them) and have an
// ID unique in the batch (ErrDuplicate).
// IDs are the caller's and opaque. An ID that still holds reservations
// in the window [t, t+W) is refused (ErrDuplicate): a job arrives once,
// and a second job under a live ID could take more than its rho. The
// check scans the reservations of the window, so its cost follows the
// live reservations and an ID is free again once its last reserved slot
// has left the window.
//
// Decide is all or nothing: on any error (including a solver failure on a
// later job of the batch) it returns a zero Decision and leaves the policy
// exactly as it was (usage levels bit for bit, window, Last).
func (p *Policy) Decide(t int, jobs []Job) (Decision, error) {
	if p == nil || p.w == 0 {
		return Decision{}, fmt.Errorf("%w: Policy not built by New", ErrValue)
	}
	if t < 0 || (p.started && t <= p.now) || t > math.MaxInt-2*p.w {
		return Decision{}, fmt.Errorf("%w: Decide at slot %d after slot %d (started %v)", ErrSlot, t, p.now, p.started)
	}
	if len(jobs) > 1 {
		if p.ids == nil {
			p.ids = make(map[int]struct{})
		}
		clear(p.ids)
	}
	nu := p.nodes * p.w
	for n := range jobs {
		j := &jobs[n]
		if j.Arrival != t {
			return Decision{}, fmt.Errorf("%w: job index %d (id %d) arrives at %d, decided at slot %d", ErrValue, n, j.ID, j.Arrival, t)
		}
		if len(j.Units) > 32 && p.seen == nil {
			p.seen = make(map[int]struct{})
		}
		if err := j.check(nu, func(r int) int { return p.slotOf(r, t) }, p.seen); err != nil {
			return Decision{}, fmt.Errorf("job index %d: %w", n, err)
		}
		if len(jobs) > 1 {
			if _, dup := p.ids[j.ID]; dup {
				return Decision{}, fmt.Errorf("%w: job index %d repeats id %d in one Decide batch", ErrDuplicate, n, j.ID)
			}
			p.ids[j.ID] = struct{}{}
		}
	}
	now, started, last := p.now, p.started, p.last
	k := p.advance(t)
	if err := p.checkLive(jobs); err != nil {
		p.retreat(now, k)
		p.now, p.started, p.last = now, started, last
		return Decision{}, err
	}
	p.out.Allocations, p.out.Outcomes = p.out.Allocations[:0], p.out.Outcomes[:0]
	p.journal = p.journal[:0]
	for n := range jobs {
		err := p.decideJob(&jobs[n])
		if err == nil && testFailJob != nil {
			err = testFailJob(&jobs[n])
		}
		if err != nil {
			for q := len(p.journal) - 1; q >= 0; q-- {
				e := p.journal[q]
				p.usage[e.r] = e.prev
				col := e.r % p.w
				p.ledger[col] = p.ledger[col][:e.ledger]
			}
			p.journal = p.journal[:0]
			p.retreat(now, k)
			p.now, p.started, p.last = now, started, last
			p.out.Allocations, p.out.Outcomes = p.out.Allocations[:0], p.out.Outcomes[:0]
			return Decision{}, err
		}
	}
	p.commitAdvance()
	if p.settings.Logger != nil {
		p.log(t, len(jobs))
	}
	if debugChecks {
		p.mustBeFeasible()
	}
	return p.out, nil
}

// mustBeFeasible panics if a usage level exceeds its capacity by more than
// a relative 1e-9 or is negative or not finite: the debug build's
// invariant check (-tags mscheddebug).
func (p *Policy) mustBeFeasible() {
	for r, u := range p.usage {
		c := p.capacity[r]
		if !(u >= 0 && u <= c+1e-9*math.Max(1, c)) {
			panic(fmt.Sprintf("onsocmax: infeasible usage: unit %d: omega = %v, capacity %v", r, u, c))
		}
	}
}

func (p *Policy) log(t, jobs int) {
	l := p.settings.Logger
	ctx := context.Background()
	if !l.Enabled(ctx, slog.LevelDebug) {
		return
	}
	l.LogAttrs(ctx, slog.LevelDebug, "decide", slog.String("family", "onsocmax"), slog.String("policy", p.Name()), slog.Int("slot", t), slog.Int("jobs", jobs), slog.Int("allocations", len(p.out.Allocations)))
	for _, o := range p.out.Outcomes {
		if o.Reason != Allocated {
			l.LogAttrs(ctx, slog.LevelDebug, "outcome", slog.String("family", "onsocmax"), slog.String("policy", p.Name()), slog.Int("slot", t), slog.Int("job", o.Job), slog.String("reason", o.Reason.String()))
		}
	}
}

// checkLive refuses a job whose ID holds a reservation in the window,
// which advance has already moved to the decided slot.
func (p *Policy) checkLive(jobs []Job) error {
	if len(jobs) == 0 {
		return nil
	}
	if p.live == nil {
		p.live = make(map[int]struct{})
	}
	clear(p.live)
	for _, col := range p.ledger {
		for _, rv := range col {
			p.live[rv.job] = struct{}{}
		}
	}
	if len(p.live) == 0 {
		return nil
	}
	for n := range jobs {
		if _, ok := p.live[jobs[n].ID]; ok {
			return fmt.Errorf("%w: job index %d: id %d still holds reservations in the window [%d, %d)", ErrDuplicate, n, jobs[n].ID, p.now, p.now+p.w)
		}
	}
	return nil
}

// slotOf returns the absolute slot of unit r for a job arriving at a in
// the window: the s in [a, a+W) with s%W == r%W.
func (p *Policy) slotOf(r, a int) int {
	_, s := WindowSlot(r, a, p.w)
	return s
}

// advance moves the window to [t, t+W): the columns of the slots that
// leave it are saved into undo and their usage and ledger cleared. It
// returns the number of recycled columns.
func (p *Policy) advance(t int) int {
	if !p.started {
		p.started, p.now = true, t
		return 0 // nothing is reserved before the first Decide
	}
	k := min(t-p.now, p.w)
	p.undo = p.undo[:0]
	for q := range k {
		col := (p.now + q) % p.w
		for i := range p.nodes {
			r := i*p.w + col
			p.undo = append(p.undo, p.usage[r])
			p.usage[r] = 0
		}
		p.ledger[col], p.spare[col] = p.spare[col][:0], p.ledger[col]
	}
	p.now = t
	return k
}

// retreat undoes advance from the window start now with k recycled columns.
func (p *Policy) retreat(now, k int) {
	u := 0
	for q := range k {
		col := (now + q) % p.w
		for i := range p.nodes {
			p.usage[i*p.w+col] = p.undo[u]
			u++
		}
		p.ledger[col], p.spare[col] = p.spare[col], p.ledger[col]
	}
}

// commitAdvance drops what advance saved for retreat; the recycled
// ledgers stay in spare, to be reused.
func (p *Policy) commitAdvance() { p.undo = p.undo[:0] }

func (p *Policy) decideJob(j *Job) error {
	q := &p.p3
	q.Rho, q.Pricing = j.Rho, p.pricing
	q.XBar, q.Utility, q.Beta = q.XBar[:0], q.Utility[:0], q.Beta[:0]
	q.Capacity, q.Usage, p.pos = q.Capacity[:0], q.Usage[:0], p.pos[:0]
	out := Outcome{Job: j.ID}
	for i, r := range j.Units {
		c := p.capacity[r]
		if c <= 0 {
			continue
		}
		if p.settings.OutOfBounds == RejectOutOfBounds && out.Reason == NotDecided {
			lo, hi := marginalWelfareRange(j.Utility[i], j.XBar[i], j.Beta[i], c, p.minUnit)
			switch {
			case hi > p.settings.V:
				out.Reason = AboveBounds
			case lo < p.settings.Iota:
				out.Reason = BelowBounds
			}
		}
		p.pos = append(p.pos, i)
		q.XBar = append(q.XBar, j.XBar[i])
		q.Utility = append(q.Utility, j.Utility[i])
		q.Beta = append(q.Beta, j.Beta[i])
		q.Capacity = append(q.Capacity, c)
		q.Usage = append(q.Usage, math.Min(p.usage[r], c))
	}
	if len(p.pos) == 0 {
		out.Reason = NoCapacity
	}
	if out.Reason != NotDecided {
		p.out.Outcomes = append(p.out.Outcomes, out)
		return nil
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
		col := r % p.w
		p.journal = append(p.journal, usageEntry{r, p.usage[r], len(p.ledger[col])})
		p.usage[r] += xi // (11)
		node := r / p.w
		p.ledger[col] = append(p.ledger[col], reservation{job: j.ID, node: node, x: xi})
		p.out.Allocations = append(p.out.Allocations, Allocation{Job: j.ID, Unit: r, Node: node, Slot: p.slotOf(r, j.Arrival), X: xi})
		out.Served += xi
	}
	out.Reason = Allocated
	if out.Served == 0 {
		out.Reason = PricedOut
	}
	p.out.Outcomes = append(p.out.Outcomes, out)
	return nil
}

// nonPartitionable solves the 0/1 variant greedily (see Settings).
func (p *Policy) nonPartitionable() (SolveResult, error) {
	q := &p.p3
	if err := q.Validate(); err != nil {
		return SolveResult{}, err
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
	return SolveResult{Objective: q.Objective(p.x), Status: Success}, nil
}

// Reset clears every usage level and reservation and the slot clock (line
// 1 of Algorithm 1): the next Decide may be at any t >= 0. The cluster
// (nodes added or removed) is kept.
func (p *Policy) Reset() {
	clear(p.usage)
	for col := range p.ledger {
		p.ledger[col] = p.ledger[col][:0]
	}
	p.now, p.started, p.last = 0, false, SolveResult{}
}
