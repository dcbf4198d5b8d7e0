// Package bipartite holds the shared model of msched: the bipartite graph of
// left vertices (ports, job types or jobs) and right vertices (servers or
// resource units), the spatio-temporal resource Mesh of nodes × time slots,
// and the OnlinePolicy contract every policy of every family satisfies.
//
// # Graph
//
// A Graph G = (L, R, E) is immutable once built. Left vertices are 0..|L|-1,
// right vertices 0..|R|-1, and edges ("channels" in paper 000) 0..|E|-1.
// Edge ids are assigned in lexicographic (Left, Right) order, whatever the
// order given to NewGraph, so the edges of a left vertex l — the set R_l of
// paper 000 — form the contiguous id range LeftRange(l). Per-edge data is
// stored flat by the algorithm packages (y[e*K+k]). The adjacency is kept in
// compressed sparse row (CSR) form both ways: LeftEdges(l) and RightEdges(r)
// (the set L_r) are O(1) slices into the graph's storage and must not be
// modified.
//
// # Mesh
//
// A Mesh is the resource mesh of paper 001: N nodes × T slots. Resource unit
// r = (i, t) has index i*T + t and capacity C_r. A job n that arrives at a_n
// with deadline d_n and may run on the node set I_n can use
//
//	R_n = {(i, t) : i ∈ I_n, a_n ≤ t ≤ d_n}          (paper 001, eq. (1))
//
// returned by Mesh.Available. Paper 001 leaves open whether the deadline slot
// itself is usable; msched includes it (closed interval) and clips it to the
// horizon T-1.
//
// # Policies
//
// OnlinePolicy[Obs, Dec] is one small generic interface in the spirit of the
// Kubernetes scheduler framework's Plugin: a Name and a Decide. Policies that
// learn from feedback also implement Learner[Fb]. Each family (ogasched,
// onsocmax, esdp, ocorp) defines its observation, decision and feedback types.
//
// # JSON
//
// Graphs encode as {"version":1,"left":|L|,"right":|R|,"edges":[[l,r],...]}
// with edges in id order; decoding validates exactly as NewGraph does.
package bipartite
