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
// with edges in id order; decoding validates exactly as NewGraph does, and
// also rejects unknown fields, an edge that is not a pair ([], [0],
// [0,0,7]) and data after the object.
//
// # Limits
//
// msched runs inside other people's schedulers, where one hostile size (a
// JSON field, a flag, a trace) must not abort the process. Every size a
// constructor or decoder of this package is given is checked against a
// [Limits] value before anything is allocated, with overflow-safe products
// (internal/checked), and a size above its limit gives an error wrapping
// [ErrTooLarge] that names the field, the value and the limit, e.g.
//
//	bipartite: size above limit: numLeft=1000000000, limit MaxVertices=16777216
//
// The defaults fit a 24 GiB machine comfortably:
//
//	what                          limit        default               memory at the limit
//	|L|, |R| of a Graph           MaxVertices  2^24 = 16,777,216     128 MiB per CSR pointer array
//	|E| of a Graph                MaxEdges     2^25 = 33,554,432     about 2.5 GiB while decoding and building
//	|L|×|R| (Complete, Bernoulli) MaxPairs     2^30 ≈ 1.07e9         one draw per pair, ~10 s
//	Nodes×Slots of a Mesh         MaxUnits     2^26 = 67,108,864     512 MiB of capacities
//
// They apply to NewGraph, Complete (which panics, documented, as it has no
// error result), Bernoulli, RightRegular, Graph.UnmarshalJSON, NewMesh,
// Mesh.Validate and Mesh.Available. Where a user needs more, the methods
// of Limits take explicit limits: Limits{MaxEdges: 1 << 28}.NewGraph(...),
// .Complete, .Bernoulli, .RightRegular, .DecodeGraph, .NewMesh,
// .ValidateMesh; a zero field keeps its default. Packages that size their
// own tables from a graph or mesh call [Limits.CheckGraph] or
// [Limits.CheckMesh] first. The edge list of a decoded graph is bounded by
// the length of the input. RightRegular works in O(|L| + d·|R|).
package bipartite
