package bipartite

import (
	"fmt"
	"math"
	"slices"
)

// Mesh is the spatio-temporal resource mesh of paper 001: Nodes × Slots
// resource units, unit r = node*Slots + slot with capacity Capacity[r] (C_r).
// Build it with NewMesh, which validates it; fields are exported for JSON
// and must not be changed after construction.
type Mesh struct {
	Nodes    int       `json:"nodes"`
	Slots    int       `json:"slots"`
	Capacity []float64 `json:"capacity"`
}

// NewMesh returns a validated mesh. capacity must have nodes*slots finite,
// non-negative entries; it is copied.
func NewMesh(nodes, slots int, capacity []float64) (*Mesh, error) {
	m := &Mesh{Nodes: nodes, Slots: slots, Capacity: slices.Clone(capacity)}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// Validate checks the dimensions and capacities of m.
func (m *Mesh) Validate() error {
	if m.Nodes <= 0 || m.Slots <= 0 {
		return fmt.Errorf("%w: mesh nodes=%d slots=%d", ErrEmpty, m.Nodes, m.Slots)
	}
	if len(m.Capacity) != m.Nodes*m.Slots {
		return fmt.Errorf("%w: len(capacity)=%d, want nodes*slots=%d", ErrDimension, len(m.Capacity), m.Nodes*m.Slots)
	}
	for r, c := range m.Capacity {
		if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
			return fmt.Errorf("%w: capacity[%d]=%v", ErrCapacity, r, c)
		}
	}
	return nil
}

// NumUnits returns Nodes*Slots.
func (m *Mesh) NumUnits() int { return m.Nodes * m.Slots }

// Unit returns the index of resource unit (node, slot). It panics when
// either is out of range.
func (m *Mesh) Unit(node, slot int) int {
	if node < 0 || node >= m.Nodes || slot < 0 || slot >= m.Slots {
		panic(fmt.Sprintf("bipartite: unit (%d,%d) outside %dx%d mesh", node, slot, m.Nodes, m.Slots))
	}
	return node*m.Slots + slot
}

// NodeSlot is the inverse of Unit.
func (m *Mesh) NodeSlot(r int) (node, slot int) { return r / m.Slots, r % m.Slots }

// Available appends to dst the units R_n = {(i,t): i ∈ nodes, arrival ≤ t ≤
// deadline} of paper 001 eq. (1), ordered by node (as given) then slot, and
// returns the extended slice. The deadline is clipped to the last slot; an
// arrival after the last slot yields no unit. It returns an error for a node
// out of range or repeated, a negative arrival or deadline < arrival.
func (m *Mesh) Available(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	if arrival < 0 || deadline < arrival {
		return dst, fmt.Errorf("%w: arrival=%d deadline=%d", ErrInterval, arrival, deadline)
	}
	for j, i := range nodes {
		if i < 0 || i >= m.Nodes {
			return dst, fmt.Errorf("%w: nodes[%d]=%d, want [0,%d)", ErrVertexRange, j, i, m.Nodes)
		}
		for _, k := range nodes[:j] {
			if k == i {
				return dst, fmt.Errorf("%w: node %d repeated at index %d", ErrDuplicateEdge, i, j)
			}
		}
	}
	last := min(deadline, m.Slots-1)
	for _, i := range nodes {
		for t := arrival; t <= last; t++ {
			dst = append(dst, i*m.Slots+t)
		}
	}
	return dst, nil
}
