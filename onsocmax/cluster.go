package onsocmax

import (
	"fmt"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
)

// NumNodes returns the number of node indices in use, removed nodes
// included (their indices are reused by AddNode).
func (p *Policy) NumNodes() int { return p.nodes }

// Alive reports whether node is a node of the current cluster.
func (p *Policy) Alive(node int) bool { return node >= 0 && node < p.nodes && p.alive[node] }

// Units appends to dst the units of the given nodes for the slots
// [arrival, min(deadline, arrival+W-1)] (the window of a job arriving at
// arrival, eq. (1)), ordered by node then slot, in the policy's numbering
// node*W + slot%W, and returns the extended slice. It returns an error
// wrapping ErrNode for a node out of range or repeated and ErrValue for
// a negative arrival or deadline < arrival. Removed nodes are accepted
// (their units have zero capacity).
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
// slots: each node's capacity template, zero for a removed node. It is
// the model a snapshot taken now restores into, New(p.Mesh(), same
// Settings), as the cluster-change contract of package bipartite asks: a
// snapshot taken after AddNode or RemoveNode is refused by a policy built
// on the mesh before the change.
func (p *Policy) Mesh() *bipartite.Mesh {
	return &bipartite.Mesh{Nodes: p.nodes, Slots: p.w, Capacity: slices.Clone(p.capacity)}
}

// remodel refingerprints the policy on its current cluster after a change.
func (p *Policy) remodel() {
	p.model = fingerprint(&bipartite.Mesh{Nodes: p.nodes, Slots: p.w, Capacity: p.capacity}, p.settings)
}

// AddNode adds a node whose capacity in absolute slot s is
// capacity[s%W] (len(capacity) = W, finite, non-negative) and returns its
// index: the lowest index of a removed node, else NumNodes(). The new
// node has no usage; it serves the jobs of the next Decide on (the slots
// of its window already passed are not used). The learned usage of every
// other node is kept. Errors: ErrDimension for a template of another
// length, ErrValue for a bad capacity, ErrTooLarge beyond MaxUnits units;
// the policy is then unchanged.
func (p *Policy) AddNode(capacity []float64) (int, error) {
	if len(capacity) != p.w {
		return 0, fmt.Errorf("%w: AddNode capacity has %d slots, window W = %d", ErrDimension, len(capacity), p.w)
	}
	for s, c := range capacity {
		if !finiteNonNeg(c) {
			return 0, fmt.Errorf("%w: AddNode capacity[%d] = %v", ErrValue, s, c)
		}
	}
	node := slices.Index(p.alive, false)
	if node < 0 {
		if !checked.Within(MaxUnits, p.nodes+1, p.w) {
			return 0, fmt.Errorf("%w: %d nodes x %d slots > MaxUnits = %d", ErrTooLarge, p.nodes+1, p.w, MaxUnits)
		}
		node = p.nodes
		p.nodes++
		p.alive = append(p.alive, true)
		p.capacity = append(p.capacity, capacity...)
		p.usage = append(p.usage, make([]float64, p.w)...)
		p.remodel()
		return node, nil
	}
	p.alive[node] = true
	// RemoveNode zeroed the usage of the later slots. The current slot's
	// reservations were the old node's, being executed; the slot is never
	// decided again, so they are dropped with the old node.
	if p.started {
		col := p.now % p.w
		p.ledger[col] = slices.DeleteFunc(p.ledger[col], func(e reservation) bool { return e.node == node })
		p.usage[node*p.w+col] = 0
	}
	copy(p.capacity[node*p.w:(node+1)*p.w], capacity)
	p.remodel()
	return node, nil
}

// RemoveNode removes node from the cluster: its capacity becomes zero,
// and its reservations in the window's slots after the latest Decide's
// slot t (all of them before the first Decide), which it will not serve,
// are cancelled and appended to dst, in slot order then allocation
// order; the extended slice is returned. Reservations in slot t itself
// are kept (that slot is being executed). The node's index may be reused
// by AddNode. Jobs of later Decides may still name its units; they have
// zero capacity. The usage of the other nodes is unchanged. An index out
// of range or already removed returns an error wrapping ErrNode and dst,
// with the policy unchanged.
func (p *Policy) RemoveNode(node int, dst []Allocation) ([]Allocation, error) {
	if node < 0 || node >= p.nodes || !p.alive[node] {
		return dst, fmt.Errorf("%w: RemoveNode(%d): cluster has %d nodes, alive %v", ErrNode, node, p.nodes, node >= 0 && node < p.nodes && p.alive[node])
	}
	first := p.now
	if p.started {
		first++
	}
	for s := first; s < p.now+p.w; s++ {
		col := s % p.w
		keep := p.ledger[col][:0]
		for _, e := range p.ledger[col] {
			if e.node == node {
				dst = append(dst, Allocation{Job: e.job, Unit: node*p.w + col, Node: node, Slot: s, X: e.x})
				continue
			}
			keep = append(keep, e)
		}
		p.ledger[col] = keep
		p.usage[node*p.w+col] = 0
	}
	p.alive[node] = false
	clear(p.capacity[node*p.w : (node+1)*p.w])
	p.remodel()
	return dst, nil
}
