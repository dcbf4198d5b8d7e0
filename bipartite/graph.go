package bipartite

import (
	"fmt"
	"slices"
)

// Edge is an edge between left vertex Left and right vertex Right.
type Edge struct {
	Left, Right int
}

// Graph is an immutable bipartite graph with CSR adjacency both ways.
// The zero value is not usable; build one with NewGraph or a generator.
// A Graph is safe for concurrent use.
type Graph struct {
	numLeft, numRight int
	edges             []Edge // by id, sorted by (Left, Right)
	leftPtr           []int  // edges of l are ids leftPtr[l]..leftPtr[l+1]-1
	leftIDs           []int  // 0..|E|-1, so LeftEdges can return a slice
	rightPtr          []int  // CSR over right vertices
	rightEdges        []int  // edge ids at r, ascending Left
	leftNbr           []int  // Right of each edge in id order (R_l slices)
	rightNbr          []int  // Left of each edge in rightEdges order (L_r slices)
}

// NewGraph returns the graph with numLeft left and numRight right vertices
// and the given edges. Edge ids are assigned in (Left, Right) order. It
// returns an error wrapping ErrDimension for negative sizes, ErrEmpty when a
// side has no vertex, ErrTooLarge above the default Limits, ErrVertexRange
// for an edge endpoint out of range and ErrDuplicateEdge for a repeated
// edge. A graph with no edges is allowed. The edges slice is not retained.
func NewGraph(numLeft, numRight int, edges []Edge) (*Graph, error) {
	return Limits{}.NewGraph(numLeft, numRight, edges)
}

// NewGraph is the package-level NewGraph with the limits lim: sizes are
// checked against lim before anything is allocated.
func (lim Limits) NewGraph(numLeft, numRight int, edges []Edge) (*Graph, error) {
	if err := lim.CheckGraph(numLeft, numRight, len(edges)); err != nil {
		return nil, err
	}
	for i, e := range edges {
		if e.Left < 0 || e.Left >= numLeft {
			return nil, fmt.Errorf("%w: edge %d has left vertex %d, want [0,%d)", ErrVertexRange, i, e.Left, numLeft)
		}
		if e.Right < 0 || e.Right >= numRight {
			return nil, fmt.Errorf("%w: edge %d has right vertex %d, want [0,%d)", ErrVertexRange, i, e.Right, numRight)
		}
	}
	sorted := slices.Clone(edges)
	slices.SortFunc(sorted, cmpEdge)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, fmt.Errorf("%w: (%d,%d)", ErrDuplicateEdge, sorted[i].Left, sorted[i].Right)
		}
	}
	return build(numLeft, numRight, sorted), nil
}

func cmpEdge(a, b Edge) int {
	if a.Left != b.Left {
		return a.Left - b.Left
	}
	return a.Right - b.Right
}

// build constructs the CSR arrays from edges sorted by (Left, Right) without
// duplicates.
func build(numLeft, numRight int, edges []Edge) *Graph {
	m := len(edges)
	g := &Graph{
		numLeft:    numLeft,
		numRight:   numRight,
		edges:      edges,
		leftPtr:    make([]int, numLeft+1),
		leftIDs:    make([]int, m),
		rightPtr:   make([]int, numRight+1),
		rightEdges: make([]int, m),
		leftNbr:    make([]int, m),
		rightNbr:   make([]int, m),
	}
	for id, e := range edges {
		g.leftPtr[e.Left+1]++
		g.rightPtr[e.Right+1]++
		g.leftIDs[id] = id
		g.leftNbr[id] = e.Right
	}
	for l := 0; l < numLeft; l++ {
		g.leftPtr[l+1] += g.leftPtr[l]
	}
	for r := 0; r < numRight; r++ {
		g.rightPtr[r+1] += g.rightPtr[r]
	}
	next := slices.Clone(g.rightPtr[:numRight])
	// Ids are visited in ascending Left, so each L_r comes out sorted.
	for id, e := range edges {
		p := next[e.Right]
		g.rightEdges[p] = id
		g.rightNbr[p] = e.Left
		next[e.Right]++
	}
	return g
}

// NumLeft returns |L|.
func (g *Graph) NumLeft() int { return g.numLeft }

// NumRight returns |R|.
func (g *Graph) NumRight() int { return g.numRight }

// NumEdges returns |E|.
func (g *Graph) NumEdges() int { return len(g.edges) }

// Edge returns the endpoints of edge e. It panics if e is outside
// [0, NumEdges()).
func (g *Graph) Edge(e int) Edge {
	if uint(e) >= uint(len(g.edges)) {
		panic(fmt.Sprintf("bipartite: Edge(%d) outside [0, %d)", e, len(g.edges)))
	}
	return g.edges[e]
}

// checkLeft and checkRight panic, naming the accessor, if a vertex is out
// of range: the accessors are raw, like a slice index (EdgeID, which
// reports false, is the checking lookup).
func (g *Graph) checkLeft(fn string, l int) {
	if uint(l) >= uint(g.numLeft) {
		panic(fmt.Sprintf("bipartite: %s(%d): left vertex outside [0, %d)", fn, l, g.numLeft))
	}
}

func (g *Graph) checkRight(fn string, r int) {
	if uint(r) >= uint(g.numRight) {
		panic(fmt.Sprintf("bipartite: %s(%d): right vertex outside [0, %d)", fn, r, g.numRight))
	}
}

// Edges returns a copy of all edges in id order.
func (g *Graph) Edges() []Edge { return slices.Clone(g.edges) }

// LeftRange returns the id range [lo, hi) of the edges at left vertex l, in
// ascending order of their right vertex. It panics if l is outside
// [0, NumLeft()).
func (g *Graph) LeftRange(l int) (lo, hi int) {
	g.checkLeft("LeftRange", l)
	return g.leftPtr[l], g.leftPtr[l+1]
}

// LeftEdges returns the ids of the edges at left vertex l (ascending Right).
// The slice must not be modified. It panics if l is outside [0, NumLeft()).
func (g *Graph) LeftEdges(l int) []int {
	g.checkLeft("LeftEdges", l)
	return g.leftIDs[g.leftPtr[l]:g.leftPtr[l+1]:g.leftPtr[l+1]]
}

// RightEdges returns the ids of the edges at right vertex r (ascending Left).
// The slice must not be modified. It panics if r is outside
// [0, NumRight()).
func (g *Graph) RightEdges(r int) []int {
	g.checkRight("RightEdges", r)
	return g.rightEdges[g.rightPtr[r]:g.rightPtr[r+1]:g.rightPtr[r+1]]
}

// LeftNeighbors returns R_l, the right vertices adjacent to l, ascending.
// The slice must not be modified. It panics if l is outside [0, NumLeft()).
func (g *Graph) LeftNeighbors(l int) []int {
	g.checkLeft("LeftNeighbors", l)
	return g.leftNbr[g.leftPtr[l]:g.leftPtr[l+1]:g.leftPtr[l+1]]
}

// RightNeighbors returns L_r, the left vertices adjacent to r, ascending.
// The slice must not be modified. It panics if r is outside
// [0, NumRight()).
func (g *Graph) RightNeighbors(r int) []int {
	g.checkRight("RightNeighbors", r)
	return g.rightNbr[g.rightPtr[r]:g.rightPtr[r+1]:g.rightPtr[r+1]]
}

// EdgeID returns the id of edge (l, r) and whether it exists, in
// O(log |R_l|). Out-of-range vertices report false.
func (g *Graph) EdgeID(l, r int) (int, bool) {
	if l < 0 || l >= g.numLeft {
		return -1, false
	}
	lo, hi := g.leftPtr[l], g.leftPtr[l+1]
	i, ok := slices.BinarySearch(g.leftNbr[lo:hi], r)
	if !ok {
		return -1, false
	}
	return lo + i, true
}

// LeftDegree returns |R_l|. It panics if l is outside [0, NumLeft()).
func (g *Graph) LeftDegree(l int) int {
	g.checkLeft("LeftDegree", l)
	return g.leftPtr[l+1] - g.leftPtr[l]
}

// RightDegree returns |L_r|. It panics if r is outside [0, NumRight()).
func (g *Graph) RightDegree(r int) int {
	g.checkRight("RightDegree", r)
	return g.rightPtr[r+1] - g.rightPtr[r]
}
