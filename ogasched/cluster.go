package ogasched

import (
	"fmt"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// Mapping relates a changed problem to the one it was derived from:
// Ports[l'] is the old port that new port l' continues (-1: a new port),
// Nodes[r'] the old node that new node r' continues (-1: a new node). The
// edit methods of Problem (AddNode, RemoveNode, AddPort, RemovePort) return
// it; Policy.ChangeCluster consumes it. Each old index appears at most
// once.
type Mapping struct {
	Ports, Nodes []int
}

// identity returns 0..n-1.
func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// derive builds the problem with graph edges, demands, capacities and
// utilities given, the same K and beta as p, and validates it.
func (p *Problem) derive(nl, nr int, edges []bipartite.Edge, demand, capacity [][]float64, util [][]utility.Utility) (*Problem, error) {
	g, err := bipartite.NewGraph(nl, nr, edges)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDimension, err)
	}
	return NewProblem(g, demand, capacity, util, p.Beta)
}

// AddNode returns the problem with one more node (index NumNodes()) of
// capacities capacity[k] and utilities util[k] (len K each), connected to
// the given ports, and the Mapping from the new problem to p. p is not
// changed; the new problem shares p's unchanged rows. Errors (a nil
// problem, a port out of range or repeated, wrong lengths, invalid values)
// wrap ErrDimension or ErrValue.
func (p *Problem) AddNode(capacity []float64, util []utility.Utility, ports []int) (*Problem, Mapping, error) {
	if err := p.checkEdit(); err != nil {
		return nil, Mapping{}, err
	}
	g := p.Graph
	r := g.NumRight()
	if r >= MaxVertices {
		return nil, Mapping{}, fmt.Errorf("%w: AddNode: %d nodes, limit MaxVertices = %d", ErrDimension, r+1, MaxVertices)
	}
	edges := g.Edges()
	seen := make(map[int]bool, len(ports))
	for i, l := range ports {
		if l < 0 || l >= g.NumLeft() || seen[l] {
			return nil, Mapping{}, fmt.Errorf("%w: AddNode: ports[%d] = %d out of [0, %d) or repeated", ErrValue, i, l, g.NumLeft())
		}
		seen[l] = true
		edges = append(edges, bipartite.Edge{Left: l, Right: r})
	}
	q, err := p.derive(g.NumLeft(), r+1, edges, p.Demand,
		append(slices.Clip(p.Capacity), capacity), append(slices.Clip(p.Utility), util))
	if err != nil {
		return nil, Mapping{}, err
	}
	return q, Mapping{Ports: identity(g.NumLeft()), Nodes: append(identity(r), -1)}, nil
}

// RemoveNode returns the problem without node r (the nodes after it move
// down by one) and the Mapping from the new problem to p. Its ports keep
// their other nodes; a port left with no node gets nothing until a node
// that serves it joins. p is not changed.
func (p *Problem) RemoveNode(r int) (*Problem, Mapping, error) {
	if err := p.checkEdit(); err != nil {
		return nil, Mapping{}, err
	}
	g := p.Graph
	if r < 0 || r >= g.NumRight() {
		return nil, Mapping{}, fmt.Errorf("%w: RemoveNode: node %d out of [0, %d)", ErrValue, r, g.NumRight())
	}
	var edges []bipartite.Edge
	for _, e := range g.Edges() {
		switch {
		case e.Right < r:
			edges = append(edges, e)
		case e.Right > r:
			edges = append(edges, bipartite.Edge{Left: e.Left, Right: e.Right - 1})
		}
	}
	capacity := slices.Delete(slices.Clone(p.Capacity), r, r+1)
	util := slices.Delete(slices.Clone(p.Utility), r, r+1)
	q, err := p.derive(g.NumLeft(), g.NumRight()-1, edges, p.Demand, capacity, util)
	if err != nil {
		return nil, Mapping{}, err
	}
	nodes := slices.Delete(identity(g.NumRight()), r, r+1)
	return q, Mapping{Ports: identity(g.NumLeft()), Nodes: nodes}, nil
}

// AddPort returns the problem with one more port (index NumPorts()) of
// demands demand[k] (len K), connected to the given nodes, and the Mapping
// from the new problem to p. p is not changed.
func (p *Problem) AddPort(demand []float64, nodes []int) (*Problem, Mapping, error) {
	if err := p.checkEdit(); err != nil {
		return nil, Mapping{}, err
	}
	g := p.Graph
	l := g.NumLeft()
	if l >= MaxVertices {
		return nil, Mapping{}, fmt.Errorf("%w: AddPort: %d ports, limit MaxVertices = %d", ErrDimension, l+1, MaxVertices)
	}
	edges := g.Edges()
	seen := make(map[int]bool, len(nodes))
	for i, r := range nodes {
		if r < 0 || r >= g.NumRight() || seen[r] {
			return nil, Mapping{}, fmt.Errorf("%w: AddPort: nodes[%d] = %d out of [0, %d) or repeated", ErrValue, i, r, g.NumRight())
		}
		seen[r] = true
		edges = append(edges, bipartite.Edge{Left: l, Right: r})
	}
	q, err := p.derive(l+1, g.NumRight(), edges, append(slices.Clip(p.Demand), demand), p.Capacity, p.Utility)
	if err != nil {
		return nil, Mapping{}, err
	}
	return q, Mapping{Ports: append(identity(l), -1), Nodes: identity(g.NumRight())}, nil
}

// RemovePort returns the problem without port l (the ports after it move
// down by one) and the Mapping from the new problem to p. Arrival vectors
// of the new problem have one entry less. p is not changed.
func (p *Problem) RemovePort(l int) (*Problem, Mapping, error) {
	if err := p.checkEdit(); err != nil {
		return nil, Mapping{}, err
	}
	g := p.Graph
	if l < 0 || l >= g.NumLeft() {
		return nil, Mapping{}, fmt.Errorf("%w: RemovePort: port %d out of [0, %d)", ErrValue, l, g.NumLeft())
	}
	var edges []bipartite.Edge
	for _, e := range g.Edges() {
		switch {
		case e.Left < l:
			edges = append(edges, e)
		case e.Left > l:
			edges = append(edges, bipartite.Edge{Left: e.Left - 1, Right: e.Right})
		}
	}
	demand := slices.Delete(slices.Clone(p.Demand), l, l+1)
	q, err := p.derive(g.NumLeft()-1, g.NumRight(), edges, demand, p.Capacity, p.Utility)
	if err != nil {
		return nil, Mapping{}, err
	}
	return q, Mapping{Ports: slices.Delete(identity(g.NumLeft()), l, l+1), Nodes: identity(g.NumRight())}, nil
}

func (p *Problem) checkEdit() error {
	if p == nil {
		return fmt.Errorf("%w: nil problem", ErrDimension)
	}
	return p.validate()
}

// Validate checks m as the Mapping from the problem to, built by an edit
// method, to the problem from it was built from: one entry per port and
// node of to, each -1 or an index of from, no index of from twice. A nil
// problem or a bad entry is an error wrapping ErrDimension or ErrValue
// that names the field and index.
func (m Mapping) Validate(from, to *Problem) error {
	if from == nil || to == nil {
		return fmt.Errorf("%w: Mapping.Validate: nil problem", ErrDimension)
	}
	if err := checkMap("Ports", m.Ports, to.NumPorts(), from.NumPorts()); err != nil {
		return err
	}
	return checkMap("Nodes", m.Nodes, to.NumNodes(), from.NumNodes())
}

// checkMap validates m as a map from n new indices into old ones.
func checkMap(what string, m []int, n, old int) error {
	if len(m) != n {
		return fmt.Errorf("%w: Rebuild: len(Mapping.%s) = %d, want %d", ErrDimension, what, len(m), n)
	}
	seen := make(map[int]bool, len(m))
	for i, v := range m {
		if v < -1 || v >= old || (v >= 0 && seen[v]) {
			return fmt.Errorf("%w: Rebuild: Mapping.%s[%d] = %d out of [-1, %d) or repeated", ErrValue, what, i, v, old)
		}
		if v >= 0 {
			seen[v] = true
		}
	}
	return nil
}

// Rebuild returns OGASched on q, a changed cluster, carrying the learned
// state of o over: y of every edge (l', r') of q whose old port and node
// m.Ports[l'], m.Nodes[r'] were joined by an edge of o's problem keeps its
// value (every type k), other coordinates start at 0, and the result is
// projected onto q's feasible set Y (so it stays feasible when capacities
// shrink or demands change). The slot counters carry over, so the next
// Decide continues the old sequence. The settings are o's (Init is not
// reapplied; a nil Step is re-derived from q's diameter, a given Step is
// kept). q must have the same K as o's problem; a nil q, a mismatched K or
// an invalid mapping is an error wrapping ErrDimension or ErrValue. o is
// not changed and stays usable: Close it when done with it. Rebuild
// allocates the new policy's buffers (O(Dim)).
//
// With the exact projection the carried y is feasible for q; with
// Settings.PaperProjection it is the paper procedure's output.
//
// Deprecated: use ChangeCluster, which makes the same change in place (the
// cluster-change contract of package bipartite), so no second policy has
// to be closed.
func (o *Policy) Rebuild(q *Problem, m Mapping) (*Policy, error) { return o.rebuild(q, m) }

func (o *Policy) rebuild(q *Problem, m Mapping) (*Policy, error) {
	if q == nil {
		return nil, fmt.Errorf("%w: Rebuild: nil problem", ErrDimension)
	}
	if err := q.validate(); err != nil {
		return nil, err
	}
	if q.K != o.p.K {
		return nil, fmt.Errorf("%w: Rebuild: K = %d, the policy's problem has K = %d", ErrDimension, q.K, o.p.K)
	}
	if err := checkMap("Ports", m.Ports, q.NumPorts(), o.p.NumPorts()); err != nil {
		return nil, err
	}
	if err := checkMap("Nodes", m.Nodes, q.NumNodes(), o.p.NumNodes()); err != nil {
		return nil, err
	}
	s := o.set
	s.Init = nil
	n := newPolicy(q, s)
	K := q.K
	z := n.grad // scratch: the carried y in the flat layout of q
	carried := 0
	for e := 0; e < q.Graph.NumEdges(); e++ {
		ed := q.Graph.Edge(e)
		ol, or := m.Ports[ed.Left], m.Nodes[ed.Right]
		if ol < 0 || or < 0 {
			continue
		}
		if oe, ok := o.p.Graph.EdgeID(ol, or); ok {
			copy(z[e*K:e*K+K], o.y[oe*K:oe*K+K])
			carried++
		}
	}
	n.setY(z)
	clear(n.grad)
	n.decided, n.observed = o.decided, o.observed
	if o.log != nil {
		o.log.Info("rebuild", "family", "ogasched", "policy", o.logName(), "slot", o.decided, "ports", q.NumPorts(), "nodes", q.NumNodes(), "edges", q.Graph.NumEdges(), "carriedEdges", carried)
	}
	return n, nil
}

// ChangeCluster moves o, in place, onto q, a problem built from o's
// current problem by AddNode, RemoveNode, AddPort or RemovePort with the
// Mapping m, under the cluster-change contract of package bipartite: the
// learned y of every surviving edge carries over (other coordinates start
// at 0) and is projected onto q's feasible set; the slot counters carry
// over; the settings are o's. A snapshot taken afterwards restores into a
// policy built by New on q. On error (a nil q, another K, an invalid
// mapping: ErrDimension or ErrValue) o is unchanged. It allocates the
// buffers of q's size (O(Dim)) and releases o's projection workers.
func (o *Policy) ChangeCluster(q *Problem, m Mapping) error {
	n, err := o.rebuild(q, m)
	if err != nil {
		return err
	}
	o.Close()
	*o = *n
	return nil
}
