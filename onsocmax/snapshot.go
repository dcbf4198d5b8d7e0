package onsocmax

import (
	"fmt"
	"math"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/internal/snapshot"
)

const (
	snapshotFormat  = "msched/onsocmax.Policy"
	snapshotVersion = 1
)

// fingerprint hashes everything decisions depend on besides the state:
// the mesh given to New (sizes and capacity bits) and the settings that
// shape decisions (not Logger).
func fingerprint(m *bipartite.Mesh, s Settings) string {
	h := snapshot.NewHasher(snapshotFormat).Int(m.Nodes).Int(m.Slots).Floats(m.Capacity)
	h.Float(s.Iota).Float(s.V).Int(int(s.OutOfBounds)).Float(s.MinUnit).Int(int(s.Solver))
	a := s.ALM
	h.Float(a.Sigma0).Float(a.P).Float(a.Theta1).Float(a.Theta2).Float(a.GradTol).Float(a.ViolationTol).
		Float(a.LearningRate).Float(a.Decay).Float(a.MinShrink).Int(a.MaxOuter).Int(a.MaxInner)
	b := func(v bool) int {
		if v {
			return 1
		}
		return 0
	}
	h.Int(b(a.PaperViolation)).Int(b(a.PaperSchedule)).Int(b(s.NonPartitionable))
	return h.Sum()
}

// policyState is the saved state of a Policy: the window position, the
// cluster (nodes, templates) and every reservation in the window, from
// which the usage levels are recomputed in the same order, bit for bit.
type policyState struct {
	Started      bool                `json:"started"`
	Now          int                 `json:"now"`
	Nodes        int                 `json:"nodes"`
	Alive        []bool              `json:"alive"`
	Capacity     []float64           `json:"capacity"`
	Reservations []reservationRecord `json:"reservations"`
}

// reservationRecord is one reservation: job, node, absolute slot, x.
type reservationRecord struct {
	Job  int     `json:"job"`
	Node int     `json:"node"`
	Slot int     `json:"slot"`
	X    float64 `json:"x"`
}

// MarshalBinary saves the learned state: the usage levels omega_r of the
// window (as the reservations they sum), the window position and the
// cluster's nodes, in the envelope of internal/snapshot with format
// "msched/onsocmax.Policy", version 1 and a fingerprint of the current
// mesh (New's, or Mesh() after ChangeCluster) and the settings. Every
// node is written alive (a field kept so that v0.1.0 snapshots, which
// marked removed nodes, still decode). Last and the Logger are not saved.
func (p *Policy) MarshalBinary() ([]byte, error) {
	if p == nil || p.w == 0 {
		return nil, fmt.Errorf("%w: Policy not built by New", ErrSnapshot)
	}
	alive := make([]bool, p.nodes)
	for i := range alive {
		alive[i] = true
	}
	st := policyState{Started: p.started, Now: p.now, Nodes: p.nodes, Alive: alive, Capacity: p.capacity,
		Reservations: []reservationRecord{}}
	for q := range p.w {
		s := p.now + q
		for _, e := range p.ledger[s%p.w] {
			st.Reservations = append(st.Reservations, reservationRecord{e.job, e.node, s, e.x})
		}
	}
	b, err := snapshot.Encode(snapshotFormat, snapshotVersion, p.model, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	return b, nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (p *Policy) MarshalJSON() ([]byte, error) { return p.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (p *Policy) UnmarshalJSON(b []byte) error { return p.UnmarshalBinary(b) }

// UnmarshalBinary restores state saved by MarshalBinary into p, which
// must have been built by New on the saving policy's current mesh
// (Policy.Mesh) and the same settings. Every
// length, index, slot and value is checked and the usage levels are
// recomputed from the reservations before anything is installed: the
// window position 0 <= now <= math.MaxInt-2W (0 and no reservation before
// the first Decide), the nodes and capacities those of p's mesh (0 on a
// node a v0.1.0 snapshot marks removed),
// reservations in slot order within the window, 0 < x <= MaxValue, one
// per job and unit, and each live unit's usage within its capacity. On
// any error, which wraps ErrSnapshot and the internal/snapshot cause, p is
// unchanged.
func (p *Policy) UnmarshalBinary(b []byte) error {
	if p == nil || p.w == 0 {
		return fmt.Errorf("%w: Policy not built by New", ErrSnapshot)
	}
	var st policyState
	if err := snapshot.Decode(b, snapshotFormat, snapshotVersion, p.model, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %w: %s", ErrSnapshot, snapshot.ErrCorrupt, fmt.Sprintf(format, args...))
	}
	w := p.w
	if st.Now < 0 || st.Now > math.MaxInt-2*w || (!st.Started && st.Now != 0) {
		return bad("now = %d, started %v", st.Now, st.Started)
	}
	if st.Nodes < 1 || !checked.Within(MaxUnits, st.Nodes, w) {
		return bad("nodes = %d (window %d, MaxUnits %d)", st.Nodes, w, MaxUnits)
	}
	if len(st.Alive) != st.Nodes || len(st.Capacity) != st.Nodes*w {
		return bad("len(alive) = %d, len(capacity) = %d for %d nodes x %d slots", len(st.Alive), len(st.Capacity), st.Nodes, w)
	}
	if st.Nodes != p.nodes {
		return bad("nodes = %d, the policy's mesh has %d", st.Nodes, p.nodes)
	}
	for r, c := range st.Capacity {
		if !finiteNonNeg(c) || (!st.Alive[r/w] && c != 0) || math.Float64bits(c) != math.Float64bits(p.capacity[r]) {
			return bad("capacity[%d] = %v (node alive %v), the policy's mesh has %v", r, c, st.Alive[r/w], p.capacity[r])
		}
	}
	if !st.Started && len(st.Reservations) > 0 {
		return bad("%d reservations before the first Decide", len(st.Reservations))
	}
	usage := make([]float64, st.Nodes*w)
	ledger := make([][]reservation, w)
	type unit struct{ job, node, slot int }
	units := make(map[unit]struct{}, len(st.Reservations))
	prevSlot := st.Now
	for k, e := range st.Reservations {
		// In slot order; those of a removed node survive in the current
		// slot only; x <= xbar <= MaxValue; one per job and unit.
		if e.Node < 0 || e.Node >= st.Nodes || e.Slot >= st.Now+w || e.Slot < prevSlot ||
			!(e.X > 0 && e.X <= MaxValue) || (!st.Alive[e.Node] && (!st.Started || e.Slot != st.Now)) {
			return bad("reservation %d: %+v (window [%d, %d), %d nodes, x in (0, MaxValue = %g])", k, e, st.Now, st.Now+w, st.Nodes, MaxValue)
		}
		u := unit{e.Job, e.Node, e.Slot}
		if _, dup := units[u]; dup {
			return bad("reservation %d: job %d holds node %d slot %d twice", k, e.Job, e.Node, e.Slot)
		}
		units[u] = struct{}{}
		prevSlot = e.Slot
		col := e.Slot % w
		r := e.Node*w + col
		usage[r] += e.X
		if c := st.Capacity[r]; st.Alive[e.Node] && usage[r] > c*(1+1e-9)+1e-12 {
			return bad("reservation %d: usage %v of node %d slot %d above capacity %v", k, usage[r], e.Node, e.Slot, c)
		}
		if !st.Alive[e.Node] {
			// A v0.1.0 snapshot's removed node (zero capacity): its
			// reservations of the executed slot are dropped, as
			// ChangeCluster drops a leaving node's.
			usage[r] = 0
			continue
		}
		ledger[col] = append(ledger[col], reservation{job: e.Job, node: e.Node, x: e.X})
	}
	p.started, p.now = st.Started, st.Now
	p.usage = usage
	p.ledger = ledger
	for col := range p.spare {
		p.spare[col] = p.spare[col][:0]
	}
	p.last = SolveResult{}
	return nil
}
