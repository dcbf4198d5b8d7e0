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
// # Gangs
//
// A GangModel is the model of the gang extensions of papers 000 (§III-E) and
// 003 (§3.4), shared by both families and their baselines. Gang job type l
// has components Q_l, component q demanding a_l^{q,k} of resource k, and a
// minimum m_l <= |Q_l| (Kubernetes' min-available; GangJob.Min = 0 means
// all). Servers r have per-server capacities c_{(k,r)}; the graph's edge
// (l, r) makes r eligible for l's components. The reading msched uses
// (both papers omit the design): a component is scheduled only when it gets
// its whole demand on one server, and a job counts in a slot only when at
// least m_l of its components are scheduled; otherwise none of it is placed
// and no capacity is held for it. That is, with x_{l,q,r} in {0,1},
//
//	Σ_r x_{l,q,r} <= 1                      each component on one server at most
//	Σ_{q,r} x_{l,q,r} ∈ {0} ∪ [m_l, |Q_l|]  all-or-nothing (arrived jobs only)
//	Σ_{l,q} a_l^{q,k} x_{l,q,r} <= c_{(k,r)}  per-server capacities
//
// GangModel.Check verifies a placement against exactly these constraints,
// independently of any policy's code, and counts what it breaks. A
// GangModel round-trips through JSON (GangModel.MarshalJSON, version 1;
// Limits.DecodeGangModel decodes strictly under the limits), so that any
// other tool can solve the same instance.
//
// One gang shape. Both families' gang policies (ogasched.NewGang,
// esdp.NewGang) and their gang baselines (baselines.NewGangDRF, …,
// NewGangHSWF, …) are built as NewX(model *GangModel, XSettings) (*X,
// error) and change cluster the same way: a GangModel edit method
// (AddServer, RemoveServer, AddJob, RemoveJob) returns the changed model
// and its GangMapping{Jobs, Servers}, and pol.ChangeCluster(model, mapping)
// applies it, with the settings given at construction (they are not passed
// again, so a seed cannot change). Job types are "jobs" in both families.
// The placement is one notion and one vector in both: for every flat
// component, the server it is placed on or -1 (ogasched.GangDecision.Server,
// esdp's []int decision), checked by GangModel.Check. What differs is
// what each paper observes and learns from, so the observation and
// decision types stay the families': OGASched-gang observes arrival counts
// x_l >= 0 (its reward is linear in x_l) and learns from them, and its
// decision also carries the relaxation's fractional y (GangDecision.Y);
// ESDP-gang observes which job types arrived ([]bool), decides the bare
// placement ([]int) and learns from the per-component rewards
// (esdp.GangFeedback). Only ogasched.GangPolicy holds goroutines (the
// projection workers of Settings.Workers), so only it has Close; a
// scheduler holding policies of both families can close whatever
// implements interface{ Close() }.
//
// # Capacity arithmetic
//
// Demands and capacities are float64 reals (0.3, 0.7, 1.25 GiB), so one
// rule, used by every family, every oracle, every baseline and
// GangModel.Check, decides whether a load fits a capacity c:
//
//	Fits(load, c)  ⇔  load <= c + CapacityTol·c,   CapacityTol = 1e-9
//
// where the load of a (server, resource) is the float64 sum of the
// demands placed on it, added one at a time in any order (a solver that
// removes a demand restores the load it had before adding it, never
// subtracts). Why a relative tolerance rather than exact integer units:
// demands in this library are arbitrary reals (normalised trace units,
// generated draws), not multiples of a unit the model could fix, and a
// decimal such as 0.3 has no exact binary value, so an exact rule would
// refuse fits a user sees as exact (0.3 + 0.2 + 0.3 + 0.2 on a capacity of
// 1 is 1 in float64, but capacity − 0.3 − 0.2 − 0.3 = 0.19999999999999996 <
// 0.2). What the rule guarantees, for n demands summed on one (server,
// resource) with n <= 2^22 (float64's unit roundoff is 2^-53, so any
// order's sum is within n·2^-53·load ≈ 4.7e-10·load of the exact sum):
//
//   - every placement whose exact load is at most c is accepted, in every
//     summation order: exact fits are feasible for every family;
//   - no placement whose exact load exceeds c·(1 + 2·CapacityTol) is ever
//     accepted;
//   - two summation orders can disagree only on a load within n·2^-53 of
//     c·(1 + CapacityTol), that is about 1e-9 over capacity, never on an
//     exact fit nor on a load a rounding unit over it (both accepted).
//
// A capacity of 0 accepts only a zero load. Capacities and demands are
// finite and non-negative (the models reject anything else), so the rule
// is monotone: a smaller load never fits worse. Solvers that bound an
// optimum (the esdp gang oracle's Lagrangian and LP bounds) relax the
// capacity to FitLimit(c), so that their bounds are bounds of the problem
// under this rule, and report Optimal only for a placement proved optimal
// under it.
//
// The places that decide a fit with this rule: GangModel.Fits and
// GangModel.Check; esdp's GangChannels, GangOracle (rounding, branch and
// bound, bounds) and through them ESDP-gang and the omniscient gang
// oracle; ogasched's GangPolicy; the gang baselines of baselines (HSWF-gang,
// LCF-gang, LWTF-gang of the ESDP family; DRF-gang, FAIRNESS-gang,
// BINPACKING-gang, SPREADING-gang, FIRSTFIT-gang of the OGASched family).
// baselines' TestGangFamiliesAgreeOnExactFits runs all of them on the same
// exact-fit probes. Capacities that are integers (esdp's cluster-wide
// budgets, ocorp's unit knapsack) are exact and need no tolerance.
// Continuous allocations are not placements and keep their solvers' stated
// tolerances: ogasched's fractional y (ogasched.FeasibilityTol, scaled to
// the instance) and onsocmax's workloads (relative 1e-9 plus 1e-12, for
// a solver's output on a capacity of 0).
//
// # Policies
//
// OnlinePolicy[Obs, Dec] is one small generic interface in the spirit of the
// Kubernetes scheduler framework's Plugin: a Name and a Decide. Policies that
// learn from feedback also implement Learner[Fb]. Each family (ogasched,
// onsocmax, esdp, ocorp) defines its observation, decision and feedback types.
//
// # Conventions shared by every family
//
// What a user learns driving one family carries to the next. Every family
// package and the baselines follow these rules; a package doc says where a
// rule needs a family-specific word.
//
//   - Constructors: New(model, Settings) (*Policy, error). The model is the
//     family's instance type (a Problem, a Cluster, a Mesh, machines);
//     Settings is passed by value and its zero value is the paper's setup
//     under the faithful reading, each field documenting its zero value.
//     Settings.Validate joins every problem with errors.Join, naming the
//     field and the value; New calls it first. A nil model is an error, never
//     a panic. Variants of a paper's algorithm have their own constructor and
//     struct named after the paper (ocorp.NewPlus → *ocorp.Plus); Policy
//     always names the paper algorithm's struct.
//   - The contract: each family declares
//     type OnlinePolicy = bipartite.OnlinePolicy[Obs, Decision]
//     (and Learner where it learns from feedback); every policy and
//     baseline of the family satisfies it.
//   - Slots are 0-based ints. Decide(t, …) needs t >= 0 and a t greater
//     than that of the previous Decide; gaps are allowed and each family says
//     what a gap means to its learner. Observe(t, fb) names the t of the
//     latest Decide, once. Anything else is an error wrapping the family's
//     ErrSlot.
//   - Decision lifetime (the rule every package states word for word): a
//     decision returned by Decide, and every slice in it, is owned by the
//     policy and valid until the next call of any method of that policy;
//     copy what you keep. The policy never reads a returned decision
//     back, so a caller that modifies it changes nothing the policy does
//     later. Hot paths therefore do not allocate per slot.
//   - Jobs are identified by caller-chosen int IDs, opaque (any value),
//     unique among live jobs. Decisions name jobs by ID, never by an index
//     into the observation. The state of a job is released when it finishes
//     or leaves the observation, so memory follows the live jobs.
//   - A call that returns an error leaves the policy exactly as it was.
//   - Learned state survives a restart: stateful policies implement
//     encoding.BinaryMarshaler and encoding.BinaryUnmarshaler (and the JSON
//     pair, with the same bytes): a versioned JSON object
//     {"format": "msched/PKG.TYPE", "version": 1, "model": fingerprint,
//     "check": "sha256:…", "state": {…}} (check is a SHA-256 of the other
//     fields, which catches accidents, not an adversary) restored into a
//     policy freshly built by New on the same model, which checks format,
//     version, fingerprint, check, lengths and values and returns an
//     error wrapping the family's ErrSnapshot, unchanged, on any mismatch.
//   - Errors wrap a sentinel of the package's errors.go with %w (the cause
//     too). Long solvers take a context.Context or a documented work budget;
//     Settings.Logger (*slog.Logger, nil = off) carries per-slot diagnostics
//     in one vocabulary: the messages "decide", "observe", "rebuild" (a
//     cluster change) and "outcome" (a job's fate), each with the
//     attributes family ("ogasched", "onsocmax", "esdp", "ocorp"), policy
//     (its Name) and slot, then the family's own.
//   - Cluster changes follow the contract below.
//   - Simulators: Run(inst, []OnlinePolicy, RunSettings) (*Result, error);
//     generators: Config, DefaultConfig(), Generate(Config, *rand.Rand) in
//     generate.go; solver statuses start at NotTerminated.
//
// The families adopt these rules as listed in CHANGELOG.md; where a family
// has not yet, its doc says so. Where a setting depends on the jobs to
// come rather than on the model (onsocmax.Settings.Iota and V, the bounds
// of a job's marginal welfare), its zero value is the value of the
// paper's experimental setup, derived from the generator's documented
// ranges, and its doc says when a user must set it.
//
// # Cluster changes
//
// Nodes, servers, machines, ports or job types come and go while a policy
// runs. Every family follows one contract, written here once, as the
// kube-scheduler framework writes its extension points' contracts; each
// package doc repeats its first sentence word for word:
//
// Cluster changes are made in place on the policy, which keeps what it
// learned about what survives.
//
//   - In place: the change is a method of the policy, ChangeCluster(model,
//     mapping) (ocorp also has AddMachine / RemoveMachine for one machine);
//     no second policy is created, so none has to be closed. On error the
//     policy is exactly as it was.
//   - Indices: the surviving nodes (servers, machines, ports) keep their
//     relative order and are renumbered compactly: a removal moves every
//     later index down by one, an addition takes the next free index at
//     the end. Where indices move, the change carries a Mapping from each
//     new index to the old index it continues, -1 for a new element.
//   - Building the new model: the family's model type has edit methods that
//     build the changed model from the current one and return it with its
//     Mapping (ogasched.Problem.RemoveNode, esdp.Cluster.RemoveServer, …),
//     leaving the current one unchanged; ChangeCluster(model, mapping)
//     takes both.
//   - Restoring: a snapshot taken after a change restores into a policy
//     built by New on the current (changed) model, with the same settings;
//     a policy built on the model before the change refuses it.
//
// All four families follow it: ogasched (Problem edit methods,
// Policy.ChangeCluster), esdp (Cluster edit methods), onsocmax (the mesh
// is a bipartite.Mesh, so its edit functions are onsocmax.AddNode and
// onsocmax.RemoveNode; onsocmax.Mapping{Nodes}) and ocorp (the machine
// slice is the model), and so do their stateful baselines. The gang
// policies of both families and their baselines share one: GangModel's
// edit methods and GangMapping (see "Gangs"). The conformance suite
// (internal/conformance, TestConformance) checks every policy against
// this contract and the other rules above.
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
// .ValidateMesh; a zero field keeps its default, and a field above its
// ceiling (CeilingMaxVertices 2^28, CeilingMaxEdges 2^28, CeilingMaxPairs
// 2^36, CeilingMaxUnits 2^30) is an error from Limits.Validate, which
// every method of Limits calls first: no setting can make a graph or mesh
// allocate terabytes. The accessors of Graph (Edge, LeftRange,
// LeftEdges, RightEdges, LeftNeighbors, RightNeighbors, LeftDegree,
// RightDegree) and Mesh.NodeSlot are raw, like a slice index: an index out
// of range panics with a message naming the accessor, the index and the
// range; EdgeID is the checking lookup. Packages that size their
// own tables from a graph or mesh call [Limits.CheckGraph] or
// [Limits.CheckMesh] first. The edge list of a decoded graph is bounded by
// the length of the input. RightRegular works in O(|L| + d·|R|).
//
// Limits.MaxComponents bounds Σ_l |Q_l| of a GangModel (DefaultMaxComponents);
// a value above CeilingMaxComponents is an error, and K is at most
// MaxGangResources.
package bipartite
