package esdp

import (
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
)

// Mapping relates a changed cluster to the cluster it was built from:
// Ports[l'] is the port of the old cluster that port l' of the new one
// continues, -1 for a new port; Servers[r'] likewise for servers. The
// edit methods of Cluster (AddPort, RemovePort, AddServer, RemoveServer)
// return it and Policy.ChangeCluster consumes it (the cluster-change
// contract of package bipartite).
type Mapping struct {
	Ports, Servers []int
}

// NewChannel is the data of a channel an edit method adds: its demand
// a_k (len K) and its supply cost.
type NewChannel struct {
	Demand []int
	Cost   float64
}

// RemovePort returns the cluster without port l and the Mapping from the
// new cluster to c: the ports after l move down one index, in their old
// order; servers keep theirs. c is not changed. An index out of range or
// the last port is an error wrapping ErrDimension.
func (c *Cluster) RemovePort(l int) (*Cluster, Mapping, error) {
	if err := c.Validate(); err != nil {
		return nil, Mapping{}, err
	}
	np := c.NumPorts()
	if l < 0 || l >= np || np == 1 {
		return nil, Mapping{}, fmt.Errorf("%w: RemovePort: port %d of %d (the last port cannot be removed)", ErrDimension, l, np)
	}
	m := Mapping{Ports: slices.Delete(identity(np), l, l+1), Servers: identity(c.Graph.NumRight())}
	return c.derive(m, nil)
}

// RemoveServer returns the cluster without server r and the Mapping from
// the new cluster to c: the servers after r move down one index, in their
// old order; ports keep theirs. c is not changed. An index out of range or
// the last server is an error wrapping ErrDimension.
func (c *Cluster) RemoveServer(r int) (*Cluster, Mapping, error) {
	if err := c.Validate(); err != nil {
		return nil, Mapping{}, err
	}
	ns := c.Graph.NumRight()
	if r < 0 || r >= ns || ns == 1 {
		return nil, Mapping{}, fmt.Errorf("%w: RemoveServer: server %d of %d (the last server cannot be removed)", ErrDimension, r, ns)
	}
	m := Mapping{Ports: identity(c.NumPorts()), Servers: slices.Delete(identity(ns), r, r+1)}
	return c.derive(m, nil)
}

// AddPort returns the cluster with one more port, index NumPorts(),
// joined to the given servers by channels of the given data (one per
// server, in the same order), and the Mapping from the new cluster to c.
// c is not changed. A server out of range or repeated, a length mismatch
// or an invalid demand or cost is an error wrapping ErrDimension or
// ErrValue.
func (c *Cluster) AddPort(servers []int, ch []NewChannel) (*Cluster, Mapping, error) {
	if err := c.Validate(); err != nil {
		return nil, Mapping{}, err
	}
	if len(servers) != len(ch) {
		return nil, Mapping{}, fmt.Errorf("%w: AddPort: %d servers, %d channels", ErrDimension, len(servers), len(ch))
	}
	l := c.NumPorts()
	add := make([]addedChannel, len(servers))
	for i, r := range servers {
		add[i] = addedChannel{bipartite.Edge{Left: l, Right: r}, ch[i]}
	}
	m := Mapping{Ports: append(identity(l), -1), Servers: identity(c.Graph.NumRight())}
	return c.derive(m, add)
}

// AddServer returns the cluster with one more server, index
// Graph.NumRight(), joined to the given ports by channels of the given
// data (one per port, in the same order), and the Mapping from the new
// cluster to c. c is not changed. Errors as for AddPort.
func (c *Cluster) AddServer(ports []int, ch []NewChannel) (*Cluster, Mapping, error) {
	if err := c.Validate(); err != nil {
		return nil, Mapping{}, err
	}
	if len(ports) != len(ch) {
		return nil, Mapping{}, fmt.Errorf("%w: AddServer: %d ports, %d channels", ErrDimension, len(ports), len(ch))
	}
	r := c.Graph.NumRight()
	add := make([]addedChannel, len(ports))
	for i, l := range ports {
		add[i] = addedChannel{bipartite.Edge{Left: l, Right: r}, ch[i]}
	}
	m := Mapping{Ports: identity(c.NumPorts()), Servers: append(identity(r), -1)}
	return c.derive(m, add)
}

type addedChannel struct {
	e  bipartite.Edge
	ch NewChannel
}

func identity(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// derive builds the cluster of the mapping m (new index -> old index)
// from c, keeping the data of every channel whose ends survive, plus the
// added channels, and validates it.
func (c *Cluster) derive(m Mapping, add []addedChannel) (*Cluster, Mapping, error) {
	nl, nr := len(m.Ports), len(m.Servers)
	newPort := make([]int, c.NumPorts())
	newServer := make([]int, c.Graph.NumRight())
	for i := range newPort {
		newPort[i] = -1
	}
	for i := range newServer {
		newServer[i] = -1
	}
	for l, old := range m.Ports {
		if old >= 0 {
			newPort[old] = l
		}
	}
	for r, old := range m.Servers {
		if old >= 0 {
			newServer[old] = r
		}
	}
	K := c.K
	type src struct {
		old int // old channel, -1 for an added one
		add int // index into add
	}
	data := map[bipartite.Edge]src{}
	var edges []bipartite.Edge
	for e := range c.NumEdges() {
		ed := c.Graph.Edge(e)
		l, r := newPort[ed.Left], newServer[ed.Right]
		if l < 0 || r < 0 {
			continue
		}
		ne := bipartite.Edge{Left: l, Right: r}
		edges = append(edges, ne)
		data[ne] = src{old: e, add: -1}
	}
	for i, a := range add {
		if a.e.Left < 0 || a.e.Left >= nl || a.e.Right < 0 || a.e.Right >= nr {
			return nil, Mapping{}, fmt.Errorf("%w: channel %d: (%d, %d) out of range (%d ports, %d servers)", ErrDimension, i, a.e.Left, a.e.Right, nl, nr)
		}
		if _, dup := data[a.e]; dup {
			return nil, Mapping{}, fmt.Errorf("%w: channel %d: (%d, %d) repeated", ErrDimension, i, a.e.Left, a.e.Right)
		}
		if len(a.ch.Demand) != K {
			return nil, Mapping{}, fmt.Errorf("%w: channel %d: len(Demand) = %d, want K = %d", ErrDimension, i, len(a.ch.Demand), K)
		}
		if v := a.ch.Cost; math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, Mapping{}, fmt.Errorf("%w: channel %d: Cost = %v", ErrValue, i, v)
		}
		edges = append(edges, a.e)
		data[a.e] = src{old: -1, add: i}
	}
	g, err := bipartite.NewGraph(nl, nr, edges)
	if err != nil {
		return nil, Mapping{}, fmt.Errorf("%w: %w", ErrDimension, err)
	}
	E := g.NumEdges()
	out := &Cluster{Graph: g, K: K, Demand: make([]int, E*K), Capacity: slices.Clone(c.Capacity), Cost: make([]float64, E)}
	for e := range E {
		s := data[g.Edge(e)]
		if s.old >= 0 {
			copy(out.Demand[e*K:e*K+K], c.Demand[s.old*K:s.old*K+K])
			out.Cost[e] = c.Cost[s.old]
		} else {
			copy(out.Demand[e*K:e*K+K], add[s.add].ch.Demand)
			out.Cost[e] = add[s.add].ch.Cost
		}
	}
	if err := out.Validate(); err != nil {
		return nil, Mapping{}, err
	}
	return out, m, nil
}
