// Package esdpx holds what package esdp shares with package baselines
// without exporting it: the model fingerprints of the family's snapshots
// and the gang helpers of esdp (statistics carry-over, feedback, restore
// checks), which esdp installs here at initialisation. Nothing outside
// the module can import it, so none of it is public API.
package esdpx

import (
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
)

// The gang helpers of package esdp, installed by its init (their types
// name esdp's types, which this package cannot import): baselines asserts
// each to its function type once, at its own initialisation.
//
//	CarryGang      func(from, to *esdp.GangChannels, st *esdp.Stats, jobs, servers []int) (esdp.Stats, error)
//	ObserveGang    func(st *esdp.Stats, ch *esdp.GangChannels, x []int, decided bool, lastT, t int, fb esdp.GangFeedback) error
//	CheckGangState func(ch *esdp.GangChannels, st *esdp.Stats, started bool, lastT int, pending []int) error
var CarryGang, ObserveGang, CheckGangState any

// ClusterFingerprint returns the model hasher of a snapshot written by an
// ESDP-family policy of format on a cluster: the graph, K, the demands,
// capacities and costs. Policies add their own settings to it.
func ClusterFingerprint(format string, g *bipartite.Graph, k int, demand, capacity []int, cost []float64) *snapshot.Hasher {
	h := snapshot.NewHasher(format)
	h.Int(g.NumLeft()).Int(g.NumRight()).Int(g.NumEdges())
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		h.Int(ed.Left).Int(ed.Right)
	}
	return h.Int(k).Ints(demand).Ints(capacity).Floats(cost)
}

// GangFingerprint returns the model hasher of a snapshot written by a gang
// policy of format on m: the graph, K, capacities, demands and m_l.
func GangFingerprint(format string, m *bipartite.GangModel) *snapshot.Hasher {
	h := snapshot.NewHasher(format)
	g := m.Graph()
	h.Int(g.NumLeft()).Int(g.NumRight()).Int(g.NumEdges()).Int(m.K())
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		h.Int(ed.Left).Int(ed.Right)
	}
	for r := 0; r < m.NumServers(); r++ {
		h.Floats(m.Capacity(r))
	}
	for l := 0; l < m.NumJobs(); l++ {
		lo, hi := m.Components(l)
		h.Int(hi - lo).Int(m.Min(l))
		for c := lo; c < hi; c++ {
			h.Floats(m.Demand(c))
		}
	}
	return h
}
