package onsocmax

import (
	"context"
	"fmt"
	"log/slog"
	"slices"

	"github.com/msched/msched/bipartite"
)

// Mapping relates a changed mesh to the mesh it was built from: Nodes[i']
// is the node of the old mesh that node i' of the new one continues, -1
// for a new node. The edit functions AddNode and RemoveNode return it and
// Policy.ChangeCluster (and the MAX-FIRST and EQUAL-SHARE baselines')
// consumes it, under the cluster-change contract of package bipartite.
// Each old index appears at most once.
type Mapping struct {
	Nodes []int
}

// Validate checks m as the Mapping from the mesh to, built by an edit
// function, to the mesh from it was built from: both valid (ValidateMesh)
// with the same number of slots W, one entry per node of to, each -1 or a
// node of from, no node of from twice. Errors wrap ErrValue, ErrTooLarge,
// ErrDimension or ErrNode and name the field and index.
func (m Mapping) Validate(from, to *bipartite.Mesh) error {
	if err := checkMesh(from); err != nil {
		return fmt.Errorf("Mapping.Validate: from: %w", err)
	}
	if err := checkMesh(to); err != nil {
		return fmt.Errorf("Mapping.Validate: to: %w", err)
	}
	if from.Slots != to.Slots {
		return fmt.Errorf("%w: Mapping.Validate: W = %d slots, the mesh before has %d", ErrDimension, to.Slots, from.Slots)
	}
	return checkMap(m.Nodes, to.Nodes, from.Nodes)
}

// checkMap validates nodes as a map from n new node indices into old ones.
func checkMap(nodes []int, n, old int) error {
	if len(nodes) != n {
		return fmt.Errorf("%w: len(Mapping.Nodes) = %d, want %d nodes", ErrDimension, len(nodes), n)
	}
	seen := make([]bool, old)
	for i, v := range nodes {
		if v < -1 || v >= old || (v >= 0 && seen[v]) {
			return fmt.Errorf("%w: Mapping.Nodes[%d] = %d out of [-1, %d) or repeated", ErrNode, i, v, old)
		}
		if v >= 0 {
			seen[v] = true
		}
	}
	return nil
}

// identity returns 0..n-1.
func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// AddNode returns the mesh m with one more node, index m.Nodes, whose
// capacity template is capacity (len m.Slots, finite, non-negative), and
// the Mapping from the new mesh to m (the identity, then -1). m is not
// changed. Errors: ErrValue for a nil or invalid mesh or a bad capacity,
// ErrDimension for a template of another length, ErrTooLarge beyond
// MaxUnits units.
func AddNode(m *bipartite.Mesh, capacity []float64) (*bipartite.Mesh, Mapping, error) {
	if err := checkMesh(m); err != nil {
		return nil, Mapping{}, fmt.Errorf("AddNode: %w", err)
	}
	if len(capacity) != m.Slots {
		return nil, Mapping{}, fmt.Errorf("%w: AddNode: capacity has %d slots, mesh W = %d", ErrDimension, len(capacity), m.Slots)
	}
	for s, c := range capacity {
		if !finiteNonNeg(c) {
			return nil, Mapping{}, fmt.Errorf("%w: AddNode: capacity[%d] = %v", ErrValue, s, c)
		}
	}
	if m.Nodes >= MaxUnits/m.Slots {
		return nil, Mapping{}, fmt.Errorf("%w: AddNode: %d nodes x %d slots > MaxUnits = %d", ErrTooLarge, m.Nodes+1, m.Slots, MaxUnits)
	}
	c := make([]float64, 0, len(m.Capacity)+m.Slots)
	c = append(append(c, m.Capacity...), capacity...)
	q := &bipartite.Mesh{Nodes: m.Nodes + 1, Slots: m.Slots, Capacity: c}
	return q, Mapping{Nodes: append(identity(m.Nodes), -1)}, nil
}

// RemoveNode returns the mesh m without node i, the later nodes moved
// down one index in their old order, and the Mapping from the new mesh
// to m (the identity without i). m is not changed. A nil or invalid mesh
// is an error wrapping ErrValue; a node out of range, or the last node
// (a mesh has at least one), ErrNode.
func RemoveNode(m *bipartite.Mesh, i int) (*bipartite.Mesh, Mapping, error) {
	if err := checkMesh(m); err != nil {
		return nil, Mapping{}, fmt.Errorf("RemoveNode: %w", err)
	}
	if i < 0 || i >= m.Nodes || m.Nodes == 1 {
		return nil, Mapping{}, fmt.Errorf("%w: RemoveNode: node %d of %d (the last node cannot be removed)", ErrNode, i, m.Nodes)
	}
	w := m.Slots
	c := slices.Delete(slices.Clone(m.Capacity), i*w, (i+1)*w)
	q := &bipartite.Mesh{Nodes: m.Nodes - 1, Slots: w, Capacity: c}
	return q, Mapping{Nodes: slices.Delete(identity(m.Nodes), i, i+1)}, nil
}

// NumNodes returns the number of nodes of the current mesh.
func (p *Policy) NumNodes() int { return p.nodes }

// Alive reports whether node is a node of the current mesh, 0 <= node <
// NumNodes().
//
// Deprecated: since ChangeCluster renumbers the surviving nodes compactly
// there are no removed nodes in the numbering; use NumNodes.
func (p *Policy) Alive(node int) bool { return node >= 0 && node < p.nodes }

// Units appends to dst the units of the given nodes for the slots
// [arrival, min(deadline, arrival+W-1)] (the window of a job arriving at
// arrival, eq. (1)), ordered by node then slot, in the policy's numbering
// node*W + slot%W, and returns the extended slice. It returns an error
// wrapping ErrNode for a node out of range or repeated and ErrValue for
// a negative arrival or deadline < arrival.
func (p *Policy) Units(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	if arrival < 0 || deadline < arrival {
		return dst, fmt.Errorf("%w: arrival %d, deadline %d", ErrValue, arrival, deadline)
	}
	for k, i := range nodes {
		if i < 0 || i >= p.nodes {
			return dst, fmt.Errorf("%w: nodes[%d] = %d, cluster has %d", ErrNode, k, i, p.nodes)
		}
		if slices.Contains(nodes[:k], i) {
			return dst, fmt.Errorf("%w: node %d repeated at index %d", ErrNode, i, k)
		}
	}
	n := min(deadline-arrival, p.w-1) // slots after arrival; no overflow
	for _, i := range nodes {
		for k := 0; k <= n; k++ {
			dst = append(dst, i*p.w+(arrival%p.w+k)%p.w)
		}
	}
	return dst, nil
}

// Mesh returns the current cluster as a new mesh of NumNodes() nodes × W
// slots with each node's capacity template: New's mesh, or the mesh of
// the latest ChangeCluster. It is the model the edit functions AddNode
// and RemoveNode start from and the model a snapshot taken now restores
// into, New(p.Mesh(), same Settings), as the cluster-change contract of
// package bipartite asks.
func (p *Policy) Mesh() *bipartite.Mesh {
	return &bipartite.Mesh{Nodes: p.nodes, Slots: p.w, Capacity: slices.Clone(p.capacity)}
}

// remodel refingerprints the policy on its current cluster after a change.
func (p *Policy) remodel() {
	p.model = fingerprint(&bipartite.Mesh{Nodes: p.nodes, Slots: p.w, Capacity: p.capacity}, p.settings)
}

// Reservations appends to dst the reservations of node in the window's
// slots after the latest Decide's slot t (all of them before the first
// Decide), in slot order then allocation order, and returns the extended
// slice: the reservations a ChangeCluster that drops node cancels, which
// the caller places again. An index out of range returns dst and an error
// wrapping ErrNode.
func (p *Policy) Reservations(dst []Allocation, node int) ([]Allocation, error) {
	if p == nil || p.w == 0 {
		return dst, fmt.Errorf("%w: Policy not built by New", ErrValue)
	}
	if node < 0 || node >= p.nodes {
		return dst, fmt.Errorf("%w: Reservations(%d): cluster has %d nodes", ErrNode, node, p.nodes)
	}
	first := p.now
	if p.started {
		first++
	}
	for s := first; s < p.now+p.w; s++ {
		col := s % p.w
		for _, e := range p.ledger[col] {
			if e.node == node {
				dst = append(dst, Allocation{Job: e.job, Unit: node*p.w + col, Node: node, Slot: s, X: e.x})
			}
		}
	}
	return dst, nil
}

// ChangeCluster moves p, in place, onto mesh, with m mapping each node of
// mesh to the current node it continues (-1 = new), under the
// cluster-change contract of package bipartite; AddNode(p.Mesh(), …) and
// RemoveNode(p.Mesh(), …) build both. A surviving node keeps its
// reservations and usage levels, re-laid under its new index; its
// capacity template becomes mesh's. A new node starts with no usage and
// serves the jobs of the next Decide on. The reservations of a node that
// leaves are dropped: those of the slot being executed (that of the latest
// Decide) with it, those of later slots cancelled (Reservations lists
// them beforehand, to place them again). Jobs name units in the new
// numbering from the next Decide on. A snapshot taken afterwards restores
// into New(mesh, same Settings) and is refused by a policy on the mesh
// before the change.
//
// Errors, with p unchanged: an invalid mesh (ErrValue, ErrTooLarge), a
// mesh of another W (ErrDimension), a bad mapping (ErrDimension, ErrNode),
// and a surviving node whose new capacity in some slot of the window is
// below the usage already reserved there (ErrValue: reservations are
// commitments; cancel them by removing the node, or shrink the capacity
// once the slots have passed). It allocates the re-laid usage (O(nodes*W)).
func (p *Policy) ChangeCluster(mesh *bipartite.Mesh, m Mapping) error {
	if p == nil || p.w == 0 {
		return fmt.Errorf("%w: Policy not built by New", ErrValue)
	}
	if err := checkMesh(mesh); err != nil {
		return fmt.Errorf("ChangeCluster: %w", err)
	}
	w := p.w
	if mesh.Slots != w {
		return fmt.Errorf("%w: ChangeCluster: mesh W = %d slots, the policy's window has %d", ErrDimension, mesh.Slots, w)
	}
	if err := checkMap(m.Nodes, mesh.Nodes, p.nodes); err != nil {
		return fmt.Errorf("ChangeCluster: %w", err)
	}
	for i, o := range m.Nodes {
		if o < 0 {
			continue
		}
		for col := range w {
			u, c := p.usage[o*w+col], mesh.Capacity[i*w+col]
			if u > c*(1+1e-9)+1e-12 {
				return fmt.Errorf("%w: ChangeCluster: node %d (was %d) capacity %v in slot column %d is below its reserved usage %v",
					ErrValue, i, o, c, col, u)
			}
		}
	}
	newIndex := make([]int, p.nodes)
	for o := range newIndex {
		newIndex[o] = -1
	}
	for i, o := range m.Nodes {
		if o >= 0 {
			newIndex[o] = i
		}
	}
	usage := make([]float64, mesh.Nodes*w)
	for i, o := range m.Nodes {
		if o >= 0 {
			copy(usage[i*w:(i+1)*w], p.usage[o*w:(o+1)*w])
		}
	}
	dropped := 0
	for col, rs := range p.ledger {
		keep := rs[:0]
		for _, e := range rs {
			if ni := newIndex[e.node]; ni >= 0 {
				e.node = ni
				keep = append(keep, e)
				continue
			}
			dropped++
		}
		clear(rs[len(keep):])
		p.ledger[col] = keep
	}
	p.nodes, p.usage, p.capacity = mesh.Nodes, usage, slices.Clone(mesh.Capacity)
	p.remodel()
	if l := p.settings.Logger; l != nil {
		l.LogAttrs(context.Background(), slog.LevelInfo, "rebuild", slog.String("family", "onsocmax"), slog.String("policy", p.Name()),
			slog.Int("slot", p.now), slog.Int("nodes", p.nodes), slog.Int("dropped", dropped))
	}
	if debugChecks {
		p.mustBeFeasible()
	}
	return nil
}

// AddNode adds a node whose capacity in absolute slot s is
// capacity[s%W] (len(capacity) = W, finite, non-negative) and returns its
// index, NumNodes() before the call. It is ChangeCluster with the mesh
// and Mapping of AddNode(p.Mesh(), capacity), with the same errors; the
// policy is unchanged on error.
//
// Deprecated: use the edit function AddNode and ChangeCluster (the
// cluster-change contract of package bipartite). Since v0.2.0 the index is
// always NumNodes(): removed nodes leave no hole to reuse.
func (p *Policy) AddNode(capacity []float64) (int, error) {
	if p == nil || p.w == 0 {
		return 0, fmt.Errorf("%w: Policy not built by New", ErrValue)
	}
	q, m, err := AddNode(p.Mesh(), capacity)
	if err != nil {
		return 0, err
	}
	if err := p.ChangeCluster(q, m); err != nil {
		return 0, err
	}
	return p.nodes - 1, nil
}

// RemoveNode removes node from the cluster: its reservations in the
// window's slots after the latest Decide's slot (Reservations) are
// cancelled and appended to dst, and the nodes after it move down one
// index. It is Reservations followed by ChangeCluster with the mesh and
// Mapping of RemoveNode(p.Mesh(), node). An index out of range, or the
// last node, returns dst and an error wrapping ErrNode, with the policy
// unchanged.
//
// Deprecated: use the edit function RemoveNode, Reservations and
// ChangeCluster (the cluster-change contract of package bipartite). Since
// v0.2.0 the later nodes are renumbered, as everywhere in the module.
func (p *Policy) RemoveNode(node int, dst []Allocation) ([]Allocation, error) {
	if p == nil || p.w == 0 {
		return dst, fmt.Errorf("%w: Policy not built by New", ErrValue)
	}
	q, m, err := RemoveNode(p.Mesh(), node)
	if err != nil {
		return dst, err
	}
	n := len(dst)
	dst, _ = p.Reservations(dst, node)
	if err := p.ChangeCluster(q, m); err != nil {
		return dst[:n], err
	}
	return dst, nil
}
