package baselines

import (
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
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
// must not be modified. The returned decision is owned by the policy and
// valid until its next method call; its Outcomes are empty (a job is
// served over its lifetime). Neither is safe for concurrent use.
//
// Like onsocmax.Policy they roll over a periodic mesh: with W =
// mesh.Slots, node i's capacity in slot t is mesh.Capacity[i*W + t%W],
// Decide needs t >= 0 and greater than the previous Decide's t
// (onsocmax.ErrSlot; a gap is slots without arrivals, in which the
// baselines allocate nothing), and a job names its units node*W + s%W for
// slots s in [Arrival, Arrival+W) (onsocmax.Job.ValidateWindow). Nodes
// come and go by ChangeCluster(mesh, onsocmax.Mapping), under the
// cluster-change contract of package bipartite, like onsocmax.Policy.
//
// Information advantage: deciding slot by slot, the baselines have seen
// every job that arrives up to slot t before they spend slot t's capacity,
// and never commit capacity of a future slot; OnSocMax commits each job's
// whole allocation (later slots included) when the job arrives. Results
// comparing them should say so.
//
// Decide is all or nothing: a slot out of order (onsocmax.ErrSlot), an
// invalid job or one arriving at another slot (onsocmax.ErrValue), a job
// ID that is already active or repeated in the batch
// (onsocmax.ErrDuplicate) return an error and a zero decision before any
// state changes. Their state (the active jobs and the slot clock) is saved
// by MarshalBinary and restored by UnmarshalBinary into a baseline built
// on the same (current) mesh; errors wrap onsocmax.ErrSnapshot.

var (
	_ onsocmax.OnlinePolicy = (*MaxFirst)(nil)
	_ onsocmax.OnlinePolicy = (*EqualShare)(nil)
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
	w       int
	model   string
	format  string
	started bool
	last    int
	active  []activeJob
	cand    [][]candidate // per node, candidates of the current slot
	out     []onsocmax.Allocation
	ids     map[int]struct{}
	log     *slog.Logger
}

// logged writes the "decide" record of slot t if a Logger is set.
func (b *slotBase) logged(policy string, t int) {
	if b.log != nil {
		logDecide(b.log, "onsocmax", policy, t, slog.Int("allocations", len(b.out)))
	}
}

// units is Units of both baselines: the window numbering node*W + slot%W.
func (b *slotBase) units(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	if arrival < 0 || deadline < arrival {
		return dst, fmt.Errorf("%w: baselines: arrival %d, deadline %d", onsocmax.ErrValue, arrival, deadline)
	}
	for k, i := range nodes {
		if i < 0 || i >= b.mesh.Nodes {
			return dst, fmt.Errorf("%w: baselines: nodes[%d] = %d, mesh has %d", onsocmax.ErrNode, k, i, b.mesh.Nodes)
		}
		if slices.Contains(nodes[:k], i) {
			return dst, fmt.Errorf("%w: baselines: node %d repeated at index %d", onsocmax.ErrNode, i, k)
		}
	}
	n := min(deadline-arrival, b.w-1) // slots after arrival; no overflow
	for _, i := range nodes {
		for k := 0; k <= n; k++ {
			dst = append(dst, i*b.w+(arrival%b.w+k)%b.w)
		}
	}
	return dst, nil
}

func newSlotBase(mesh *bipartite.Mesh, format string) (slotBase, error) {
	if err := onsocmax.ValidateMesh(mesh); err != nil {
		return slotBase{}, fmt.Errorf("baselines: %w", err)
	}
	m, err := bipartite.NewMesh(mesh.Nodes, mesh.Slots, mesh.Capacity) // a copy
	if err != nil {
		return slotBase{}, fmt.Errorf("baselines: %w: %w", onsocmax.ErrValue, err)
	}
	return slotBase{mesh: m, w: m.Slots, model: slotModel(format, m), format: format, cand: make([][]candidate, m.Nodes)}, nil
}

// slotModel is the snapshot fingerprint of a baseline on mesh m.
func slotModel(format string, m *bipartite.Mesh) string {
	return snapshot.NewHasher(format).Int(m.Nodes).Int(m.Slots).Floats(m.Capacity).Sum()
}

// changeCluster is ChangeCluster of both baselines.
func (b *slotBase) changeCluster(mesh *bipartite.Mesh, m onsocmax.Mapping) error {
	if b.mesh == nil {
		return fmt.Errorf("baselines: %w: not built by its constructor", onsocmax.ErrValue)
	}
	if err := m.Validate(b.mesh, mesh); err != nil {
		return fmt.Errorf("baselines: ChangeCluster: %w", err)
	}
	nm, err := bipartite.NewMesh(mesh.Nodes, mesh.Slots, mesh.Capacity) // a copy
	if err != nil {
		return fmt.Errorf("baselines: ChangeCluster: %w: %w", onsocmax.ErrValue, err)
	}
	w := b.w
	newIndex := make([]int, b.mesh.Nodes)
	for i := range newIndex {
		newIndex[i] = -1
	}
	for i, o := range m.Nodes {
		if o >= 0 {
			newIndex[o] = i
		}
	}
	active := make([]activeJob, 0, len(b.active))
	for _, a := range b.active {
		j := *a.job
		j.Units, j.XBar, j.Beta, j.Utility = nil, nil, nil, nil
		for pos, r := range a.job.Units {
			ni := newIndex[r/w]
			if ni < 0 {
				continue
			}
			j.Units = append(j.Units, ni*w+r%w)
			j.XBar = append(j.XBar, a.job.XBar[pos])
			j.Beta = append(j.Beta, a.job.Beta[pos])
			j.Utility = append(j.Utility, a.job.Utility[pos])
		}
		if len(j.Units) > 0 {
			active = append(active, activeJob{job: &j, rem: a.rem})
		}
	}
	clear(b.active)
	b.mesh, b.model, b.active = nm, slotModel(b.format, nm), active
	b.cand = make([][]candidate, nm.Nodes)
	return nil
}

// mustBeFeasible panics, in a debug build (-tags mscheddebug), if the
// allocations of slot t break (4), (6) or (7): each X finite, positive and
// at most its unit's xbar, on a unit of slot t (Unit = Node*W + t%W),
// each node's load within its capacity, each job's total within rho.
func (b *slotBase) mustBeFeasible(name string, t int) {
	jobs := make(map[int]*activeJob, len(b.active))
	for k := range b.active {
		jobs[b.active[k].job.ID] = &b.active[k]
	}
	load := make([]float64, b.mesh.Nodes)
	for _, x := range b.out {
		a, ok := jobs[x.Job]
		bad := !ok || !(x.X > 0) || math.IsInf(x.X, 1) || x.Slot != t || x.Node < 0 || x.Node >= b.mesh.Nodes || x.Unit != x.Node*b.w+t%b.w
		if !bad {
			pos := slices.Index(a.job.Units, x.Unit)
			bad = pos < 0 || x.X > a.job.XBar[pos]*(1+1e-9)
		}
		if bad {
			panic(fmt.Sprintf("baselines: %s: infeasible allocation at slot %d: %+v", name, t, x))
		}
		load[x.Node] += x.X
	}
	for i, l := range load {
		if c := b.mesh.Capacity[i*b.w+t%b.w]; l > c*(1+1e-9)+1e-12 {
			panic(fmt.Sprintf("baselines: %s: node %d load %v above capacity %v at slot %d", name, i, l, c, t))
		}
	}
	for _, a := range b.active {
		if !(a.rem >= 0 && a.rem <= a.job.Rho) {
			panic(fmt.Sprintf("baselines: %s: job %d remaining %v outside [0, rho = %v]", name, a.job.ID, a.rem, a.job.Rho))
		}
	}
}

// live reports whether a can still be served at slot t or later.
func (b *slotBase) live(a activeJob, t int) bool {
	j := a.job
	return a.rem > 0 && j.Deadline >= t && t-j.Arrival < b.w
}

// admit validates the arrivals and the slot before changing anything, then
// admits the arrivals, drops expired or finished jobs and collects, per
// node, the candidates of slot t.
func (b *slotBase) admit(t int, jobs []onsocmax.Job) error {
	b.out = b.out[:0]
	if b.mesh == nil {
		return fmt.Errorf("baselines: %w: not built by its constructor", onsocmax.ErrValue)
	}
	if t < 0 || (b.started && t <= b.last) || t > math.MaxInt-2*b.w {
		return fmt.Errorf("baselines: %w: Decide at slot %d after slot %d (started %v)", onsocmax.ErrSlot, t, b.last, b.started)
	}
	if b.ids == nil {
		b.ids = make(map[int]struct{})
	}
	clear(b.ids)
	for _, a := range b.active {
		if b.live(a, t) {
			b.ids[a.job.ID] = struct{}{}
		}
	}
	for n := range jobs {
		if jobs[n].Arrival != t {
			return fmt.Errorf("baselines: %w: job index %d (id %d) arrives at %d, decided at slot %d", onsocmax.ErrValue, n, jobs[n].ID, jobs[n].Arrival, t)
		}
		if err := jobs[n].ValidateWindow(b.mesh.Nodes, b.w); err != nil {
			return fmt.Errorf("baselines: job index %d: %w", n, err)
		}
		if _, dup := b.ids[jobs[n].ID]; dup {
			return fmt.Errorf("baselines: %w: job index %d has id %d, already active or earlier in the batch", onsocmax.ErrDuplicate, n, jobs[n].ID)
		}
		b.ids[jobs[n].ID] = struct{}{}
	}
	b.started, b.last = true, t
	keep := b.active[:0]
	for _, a := range b.active {
		if b.live(a, t) {
			keep = append(keep, a)
		}
	}
	clear(b.active[len(keep):]) // release the dropped jobs
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
			node, s := onsocmax.WindowSlot(r, a.job.Arrival, b.w)
			if s == t && a.job.XBar[pos] > 0 && b.mesh.Capacity[node*b.w+t%b.w] > 0 {
				b.cand[node] = append(b.cand[node], candidate{a: ai, pos: pos})
			}
		}
	}
	return nil
}

func (b *slotBase) give(c candidate, node, t int, x float64) {
	if x <= 0 {
		return
	}
	a := &b.active[c.a]
	a.rem = math.Max(0, a.rem-x)
	b.out = append(b.out, onsocmax.Allocation{Job: a.job.ID, Unit: a.job.Units[c.pos], Node: node, Slot: t, X: x})
}

// MaxFirst is MAX-FIRST of paper 001: "each node always serves the job with
// the highest myopic social welfare". Reading: in slot t each node, in index
// order, repeatedly picks among its candidate jobs the one whose allocation
// x = min(xbar_nr, remaining rho_n, remaining C_r) has the largest welfare
// f_nr(x) + beta_nr x / C_r (ties: earlier arrival), allocates x, and stops
// when its capacity or its candidates run out.
type MaxFirst struct{ slotBase }

// NewMaxFirst returns MAX-FIRST on mesh (copied) with settings s (at most one;
// the zero value is the paper's), or an error if mesh is nil or invalid
// (onsocmax.ValidateMesh). NewMaxFirst(mesh) without settings is
// deprecated.
func NewMaxFirst(mesh *bipartite.Mesh, s ...MaxFirstSettings) (*MaxFirst, error) {
	set, err := oneSettings(onsocmax.ErrSettings, "MAX-FIRST", s)
	if err != nil {
		return nil, err
	}
	b, err := newSlotBase(mesh, "msched/baselines.MaxFirst")
	if err != nil {
		return nil, err
	}
	b.log = set.Logger
	return &MaxFirst{b}, nil
}

// Units appends to dst the units of the given nodes for the slots
// [arrival, min(deadline, arrival+W-1)] (a job's window, W = mesh.Slots),
// ordered by node then slot, in the numbering node*W + slot%W that
// Decide expects in onsocmax.Job.Units, and returns the extended slice.
// It needs no onsocmax.Policy. Errors: onsocmax.ErrNode for a node out of
// range or repeated, onsocmax.ErrValue for a negative arrival or deadline
// < arrival.
func (p *MaxFirst) Units(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	return p.units(dst, nodes, arrival, deadline)
}

// ChangeCluster moves p, in place, onto mesh, with m mapping each node of
// mesh to the current node it continues (-1 = new), under the
// cluster-change contract of package bipartite (onsocmax.AddNode and
// onsocmax.RemoveNode build both from the current mesh). The active jobs
// keep their remaining workload; their units are renumbered (copies: the
// caller's jobs are not touched) and those of a node that leaves dropped,
// with a job left without units. A snapshot taken afterwards restores
// into NewMaxFirst(mesh). On error (an invalid mesh or one of another W, a bad
// mapping: onsocmax.ErrValue, ErrTooLarge, ErrDimension, ErrNode) p is
// unchanged.
func (p *MaxFirst) ChangeCluster(mesh *bipartite.Mesh, m onsocmax.Mapping) error {
	return p.changeCluster(mesh, m)
}

// Name returns "MAX-FIRST".
func (p *MaxFirst) Name() string { return "MAX-FIRST" }

// Decide admits the arrivals of slot t and allocates the units of slot t.
func (p *MaxFirst) Decide(t int, jobs []onsocmax.Job) (onsocmax.Decision, error) {
	if err := p.admit(t, jobs); err != nil {
		return onsocmax.Decision{}, err
	}
	for node, cs := range p.cand {
		r := node*p.w + t%p.w
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
			p.give(cs[best], node, t, bestX)
			left -= bestX
			cs = slices.Delete(cs, best, best+1)
		}
		p.cand[node] = cs[:0]
	}
	p.logged("MAX-FIRST", t)
	if debugChecks {
		p.mustBeFeasible("MAX-FIRST", t)
	}
	return onsocmax.Decision{Allocations: p.out}, nil
}

// EqualShare is EQUAL-SHARE of paper 001: "a node serves every newly
// arrived job with equal opportunity within its capacity limit". Reading:
// in slot t each node, in index order, splits its capacity C_r equally
// among its candidate jobs by progressive filling: each job gets
// min(demand, equal share of what is left), where demand =
// min(xbar_nr, remaining rho_n), and capacity a job cannot use is shared
// among the others.
type EqualShare struct{ slotBase }

// NewEqualShare returns EQUAL-SHARE on mesh (copied) with settings s (at most one;
// the zero value is the paper's), or an error if mesh is nil or invalid
// (onsocmax.ValidateMesh). NewEqualShare(mesh) without settings is
// deprecated.
func NewEqualShare(mesh *bipartite.Mesh, s ...EqualShareSettings) (*EqualShare, error) {
	set, err := oneSettings(onsocmax.ErrSettings, "EQUAL-SHARE", s)
	if err != nil {
		return nil, err
	}
	b, err := newSlotBase(mesh, "msched/baselines.EqualShare")
	if err != nil {
		return nil, err
	}
	b.log = set.Logger
	return &EqualShare{b}, nil
}

// Units appends to dst the units of the given nodes for the slots
// [arrival, min(deadline, arrival+W-1)] (a job's window, W = mesh.Slots),
// ordered by node then slot, in the numbering node*W + slot%W that
// Decide expects in onsocmax.Job.Units, and returns the extended slice.
// It needs no onsocmax.Policy. Errors: onsocmax.ErrNode for a node out of
// range or repeated, onsocmax.ErrValue for a negative arrival or deadline
// < arrival.
func (p *EqualShare) Units(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	return p.units(dst, nodes, arrival, deadline)
}

// ChangeCluster moves p, in place, onto mesh, with m mapping each node of
// mesh to the current node it continues (-1 = new), under the
// cluster-change contract of package bipartite (onsocmax.AddNode and
// onsocmax.RemoveNode build both from the current mesh). The active jobs
// keep their remaining workload; their units are renumbered (copies: the
// caller's jobs are not touched) and those of a node that leaves dropped,
// with a job left without units. A snapshot taken afterwards restores
// into NewEqualShare(mesh). On error (an invalid mesh or one of another W, a bad
// mapping: onsocmax.ErrValue, ErrTooLarge, ErrDimension, ErrNode) p is
// unchanged.
func (p *EqualShare) ChangeCluster(mesh *bipartite.Mesh, m onsocmax.Mapping) error {
	return p.changeCluster(mesh, m)
}

// Name returns "EQUAL-SHARE".
func (p *EqualShare) Name() string { return "EQUAL-SHARE" }

// Decide admits the arrivals of slot t and allocates the units of slot t.
func (p *EqualShare) Decide(t int, jobs []onsocmax.Job) (onsocmax.Decision, error) {
	if err := p.admit(t, jobs); err != nil {
		return onsocmax.Decision{}, err
	}
	for node, cs := range p.cand {
		r := node*p.w + t%p.w
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
			p.give(cd, node, t, x)
			left -= x
		}
	}
	p.logged("EQUAL-SHARE", t)
	if debugChecks {
		p.mustBeFeasible("EQUAL-SHARE", t)
	}
	return onsocmax.Decision{Allocations: p.out}, nil
}

// slotState is the saved state of a baseline.
type slotState struct {
	Started bool         `json:"started"`
	Last    int          `json:"last"`
	Active  []activeJSON `json:"active"`
}

type activeJSON struct {
	Job onsocmax.Job `json:"job"`
	Rem float64      `json:"rem"`
}

func (b *slotBase) marshal() ([]byte, error) {
	if b.mesh == nil {
		return nil, fmt.Errorf("baselines: %w: not built by its constructor", onsocmax.ErrSnapshot)
	}
	st := slotState{Started: b.started, Last: b.last, Active: make([]activeJSON, 0, len(b.active))}
	for _, a := range b.active {
		st.Active = append(st.Active, activeJSON{Job: *a.job, Rem: a.rem})
	}
	data, err := snapshot.Encode(b.format, 1, b.model, st)
	if err != nil {
		return nil, fmt.Errorf("baselines: %w: %w", onsocmax.ErrSnapshot, err)
	}
	return data, nil
}

func (b *slotBase) unmarshal(data []byte) error {
	if b.mesh == nil {
		return fmt.Errorf("baselines: %w: not built by its constructor", onsocmax.ErrSnapshot)
	}
	var st slotState
	if err := snapshot.Decode(data, b.format, 1, b.model, &st); err != nil {
		return fmt.Errorf("baselines: %w: %w", onsocmax.ErrSnapshot, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("baselines: %w: %w: %s", onsocmax.ErrSnapshot, snapshot.ErrCorrupt, fmt.Sprintf(format, args...))
	}
	if st.Last < 0 || st.Last > math.MaxInt-2*b.w || (!st.Started && (st.Last != 0 || len(st.Active) > 0)) {
		return bad("last = %d, started %v, %d active jobs", st.Last, st.Started, len(st.Active))
	}
	active := make([]activeJob, 0, len(st.Active))
	ids := make(map[int]struct{}, len(st.Active))
	for k := range st.Active {
		a := &st.Active[k]
		if err := a.Job.ValidateWindow(b.mesh.Nodes, b.w); err != nil {
			return fmt.Errorf("baselines: %w: %w: active job %d: %w", onsocmax.ErrSnapshot, snapshot.ErrCorrupt, k, err)
		}
		if a.Job.Arrival > st.Last || !(a.Rem >= 0 && a.Rem <= a.Job.Rho) || math.Signbit(a.Rem) {
			return bad("active job %d (id %d): arrival %d after slot %d or remaining %v outside [0, %v]", k, a.Job.ID, a.Job.Arrival, st.Last, a.Rem, a.Job.Rho)
		}
		// Decide keeps only the jobs live at its slot (deadline >= last and
		// last-arrival < W): one past its window no run holds.
		if a.Job.Deadline < st.Last || st.Last-a.Job.Arrival >= b.w {
			return bad("active job %d (id %d): arrival %d, deadline %d: past its window at slot %d (W = %d)", k, a.Job.ID, a.Job.Arrival, a.Job.Deadline, st.Last, b.w)
		}
		if _, dup := ids[a.Job.ID]; dup {
			return bad("active job %d repeats id %d", k, a.Job.ID)
		}
		ids[a.Job.ID] = struct{}{}
		active = append(active, activeJob{job: &a.Job, rem: a.Rem})
	}
	b.started, b.last, b.active = st.Started, st.Last, active
	return nil
}

// MarshalBinary saves the slot clock and the active jobs (with their
// remaining workload) in the envelope of internal/snapshot, format
// "msched/baselines.MaxFirst", version 1, fingerprinted on the mesh.
func (p *MaxFirst) MarshalBinary() ([]byte, error) { return p.marshal() }

// UnmarshalBinary restores a MarshalBinary snapshot into p, built by
// NewMaxFirst on the same mesh (the current one after ChangeCluster);
// every job is validated first, and on an error (wrapping
// onsocmax.ErrSnapshot) p is unchanged.
func (p *MaxFirst) UnmarshalBinary(data []byte) error { return p.unmarshal(data) }

// MarshalJSON returns the bytes of MarshalBinary.
func (p *MaxFirst) MarshalJSON() ([]byte, error) { return p.marshal() }

// UnmarshalJSON is UnmarshalBinary.
func (p *MaxFirst) UnmarshalJSON(data []byte) error { return p.unmarshal(data) }

// MarshalBinary saves the slot clock and the active jobs (with their
// remaining workload) in the envelope of internal/snapshot, format
// "msched/baselines.EqualShare", version 1, fingerprinted on the mesh.
func (p *EqualShare) MarshalBinary() ([]byte, error) { return p.marshal() }

// UnmarshalBinary restores a MarshalBinary snapshot into p, built by
// NewEqualShare on the same mesh (the current one after ChangeCluster);
// every job is validated first, and on an error (wrapping
// onsocmax.ErrSnapshot) p is unchanged.
func (p *EqualShare) UnmarshalBinary(data []byte) error { return p.unmarshal(data) }

// MarshalJSON returns the bytes of MarshalBinary.
func (p *EqualShare) MarshalJSON() ([]byte, error) { return p.marshal() }

// UnmarshalJSON is UnmarshalBinary.
func (p *EqualShare) UnmarshalJSON(data []byte) error { return p.unmarshal(data) }
