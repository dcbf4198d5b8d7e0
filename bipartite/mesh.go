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
// non-negative entries; it is copied. Sizes are bounded by the default
// Limits (MaxUnits).
func NewMesh(nodes, slots int, capacity []float64) (*Mesh, error) {
	return Limits{}.NewMesh(nodes, slots, capacity)
}

// NewMesh is the package-level NewMesh with the limits lim.
func (lim Limits) NewMesh(nodes, slots int, capacity []float64) (*Mesh, error) {
	m := &Mesh{Nodes: nodes, Slots: slots, Capacity: capacity}
	if err := lim.ValidateMesh(m); err != nil {
		return nil, err
	}
	m.Capacity = slices.Clone(capacity)
	return m, nil
}

// Validate checks the dimensions and capacities of m against the default
// Limits: Nodes × Slots is computed without overflow and bounded by
// MaxUnits.
func (m *Mesh) Validate() error { return Limits{}.ValidateMesh(m) }

// ValidateMesh checks the dimensions and capacities of m against lim. It
// returns an error wrapping ErrNil for a nil mesh, ErrEmpty for a
// non-positive size, ErrTooLarge when Nodes × Slots exceeds lim.MaxUnits
// (or int), ErrDimension when len(Capacity) differs from it and
// ErrCapacity for a NaN, infinite or negative capacity.
func (lim Limits) ValidateMesh(m *Mesh) error {
	if m == nil {
		return fmt.Errorf("%w: mesh", ErrNil)
	}
	if err := lim.CheckMesh(m.Nodes, m.Slots); err != nil {
		return err
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

// NodeSlot is the inverse of Unit. It panics if r is outside
// [0, NumUnits()).
func (m *Mesh) NodeSlot(r int) (node, slot int) {
	if r < 0 || r >= m.NumUnits() || m.Slots <= 0 {
		panic(fmt.Sprintf("bipartite: NodeSlot(%d) outside [0, %d) of a %dx%d mesh", r, m.NumUnits(), m.Nodes, m.Slots))
	}
	return r / m.Slots, r % m.Slots
}

// Available appends to dst the units R_n = {(i,t): i ∈ nodes, arrival ≤ t ≤
// deadline} of paper 001 eq. (1), ordered by node (as given) then slot, and
// returns the extended slice. The deadline is clipped to the last slot; an
// arrival after the last slot yields no unit. It returns an error for a node
// out of range or repeated, a negative arrival or deadline < arrival. The
// mesh must be valid (NewMesh, Validate): the result then has at most
// Nodes × Slots <= Limits.MaxUnits entries.
func (m *Mesh) Available(dst []int, nodes []int, arrival, deadline int) ([]int, error) {
	if arrival < 0 || deadline < arrival {
		return dst, fmt.Errorf("%w: arrival=%d deadline=%d", ErrInterval, arrival, deadline)
	}
	if err := (Limits{}).CheckMesh(m.Nodes, m.Slots); err != nil {
		return dst, err // a mesh that never went through Validate
	}
	if len(nodes) > m.Nodes {
		return dst, fmt.Errorf("%w: %d nodes given for a mesh of %d, so one repeats", ErrDuplicateEdge, len(nodes), m.Nodes)
	}
	var seen []bool // for long node lists: O(len(nodes)) instead of quadratic
	if len(nodes) > 32 {
		seen = make([]bool, m.Nodes)
	}
	for j, i := range nodes {
		if i < 0 || i >= m.Nodes {
			return dst, fmt.Errorf("%w: nodes[%d]=%d, want [0,%d)", ErrVertexRange, j, i, m.Nodes)
		}
		if seen != nil {
			if seen[i] {
				return dst, fmt.Errorf("%w: node %d repeated at index %d", ErrDuplicateEdge, i, j)
			}
			seen[i] = true
			continue
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
