// Package ogasched implements OGASched, online gradient ascent scheduling of
// multi-server jobs on a bipartite graph (Zhao et al., "Scheduling
// Multi-Server Jobs With Sublinear Regrets via Online Learning", paper 000).
//
// # Usage
//
// Build a Problem (NewProblem: graph of job types and nodes, demands,
// capacities, utilities, beta), then pol, err := New(p, Settings{}) (the
// zero Settings is the paper's setup with the step (53)). Each slot t
// (0-based, increasing, gaps allowed): y, err := pol.Decide(t, x) gives the
// allocation y[e*K+k] before the slot's arrivals are known; once the
// arrivals x(t) are known, pol.Observe(t, x) learns from them. Save the
// learned state with pol.MarshalBinary and restore it into New(p, same
// Settings) with UnmarshalBinary. When the cluster changes, derive the new
// problem (q, m, err := p.RemoveNode(r), or AddNode, AddPort, RemovePort)
// and move the policy onto it with pol.ChangeCluster(q, m). See Example.
//
// Decision lifetime: a decision returned by Decide, and every slice in it,
// is owned by the policy and valid until the next call of any method of
// that policy; copy what you keep. The policy never reads a returned
// decision back, so a caller that modifies it changes nothing the policy
// does later.
//
// Cluster changes are made in place on the policy, which keeps what it
// learned about what survives. The edit methods of Problem build the changed problem and its
// Mapping (new index -> old index, -1 = new) and leave p unchanged;
// surviving ports and nodes keep their order and are renumbered compactly;
// ChangeCluster(q, m) carries y over; a snapshot taken afterwards restores
// into New(q, same Settings) (the contract of package bipartite).
//
// The other conventions of package bipartite hold: Decide needs t > the previous Decide's t and
// Observe names the latest Decide's t once (else ErrSlot; a skipped slot or
// a missing Observe is a slot without arrivals, which does not move y); a
// failed call leaves the policy unchanged; errors wrap the sentinels of
// errors.go; Settings.Logger (nil = off) receives per-slot diagnostics.
// Jobs are the arrivals x_l(t) of job type (port) l: OGASched allocates per
// job type, so it has no job IDs; a caller with several jobs of one type in
// a slot uses Expand (Section III-D). The baselines of package baselines
// (DRF, FAIRNESS, BINPACKING, SPREADING and the -pod variants) learn
// nothing; their snapshot keeps only the slot order; ChangeCluster moves
// them onto a changed problem in place.
//
// A snapshot is {"format":"msched/ogasched.Policy","version":1,
// "model":FINGERPRINT,"check":"sha256:…","state":{"decided","observed","y",
// "check"}}: y(t) and the slot counters (the step schedules of this
// package depend on the slot only); the fingerprint covers the problem (graph, K, demands,
// capacities, utilities, beta), the step schedule and the projection, not
// Workers or Logger. Restoring into another model, truncated or altered
// bytes give an error wrapping ErrSnapshot. ChangeCluster keeps y on every edge
// whose port and node survive, starts new edges at 0, and projects onto
// the new feasible set, so the carried decision is feasible for the new
// cluster.
//
// # Model
//
// Ports l in L (job types) connect to computing instances r in R (nodes)
// through the edges of a bipartite.Graph; R_l are the nodes of port l and
// L_r the ports of node r. There are K resource types. In slot t the
// arrivals are x(t) = [x_l(t)] (0/1 in the paper, counts allowed) and the
// decision is y(t) = [y_(l,r)^k], stored flat as y[e*K+k] for edge e = (l,r).
// The feasible set Y is
//
//	0 <= y_(l,r)^k <= a_l^k                     (5)
//	sum_{l in L_r} y_(l,r)^k <= c_r^k           (6)
//
// and the reward of slot t, with the separable nice setup (12)
// f_k(sum_r y^k) = sum_r f_r^k(y^k), is
//
//	q(x, y) = sum_l x_l [ sum_{r in R_l} sum_k f_r^k(y_(l,r)^k)
//	                      - max_k beta_k sum_{r in R_l} y_(l,r)^k ]     (7)-(8)
//
// whose supergradient (30) is x_l((f_r^k)'(y_(l,r)^k) - beta_k [k = k*_l]),
// k*_l the dominant overhead type (27) (smallest index on ties).
//
// # Algorithm
//
// Policy is Algorithm 1: y(t+1) = Pi_Y(y(t) + eta_t grad q(x(t), y(t))).
// Decision timing follows the paper: y(t) is chosen before x(t) is seen.
// Decide returns y(t); Observe(t, x(t)) reveals the arrivals and takes the
// step. Baselines (package baselines) allocate after seeing x(t), which
// favours them.
//
// The projection (32) separates into independent blocks, one per (r,k):
// project z onto {0 <= y_l <= a_l^k, sum_{l in L_r} y_l <= c_r^k}. The policy
// keeps y in (r,k)-block order internally, with a permutation to the flat
// layout, and projects exactly with projection.Projector (in parallel over
// blocks). Deviation: the paper's Algorithm 1 inner procedure is a heuristic
// (it caps only the largest element and its (38) ignores rho >= 0); it is
// available as Settings.PaperProjection (projection.CappedSimplexPaper).
// Measured on the default instance (Table II, T = 2000, seed 1): with the
// paper's procedure 1999 of 2000 decisions violate the demand bound (5)
// (it fills each node's capacity even when the ports ask for less), and
// the "reward" of those infeasible allocations, 871.88 per slot, exceeds
// the exact policy's 663.48 and DRF's 725.25. A result obtained with the
// paper's projection is therefore not comparable with feasible baselines.
//
// # Deviations
//
// The exact projection instead of Algorithm 1's inner procedure (above,
// Settings.PaperProjection restores it) and the step size (below).
//
// # Step size (deviation from the experiments' literal setup)
//
// The default step (Settings.Step nil) is the theory step (53),
// eta_t = diam/(||grad q(t)|| sqrt T), in the instance's own units: Theory
// when Settings.Horizon gives T, TheoryAnytime (sqrt(t+1) in place of
// sqrt T) otherwise. The paper's experiments use Geometric with
// eta_0 = 25, lambda = 0.9999 (Table II) and say they "tune the learning
// rate at each time t around the value (53)"; eta_0 = 25 is in the units of
// the authors' trace. It stays available, named, as PaperGeometric().
// Readings tried, on Generate(DefaultConfig()) with Bernoulli(0.7)
// arrivals, seeds 1-5, average reward per slot at T = 2000 (mean over
// seeds; best fixed allocation y* in hindsight, by BestFixed, 734.5):
//
//	PaperGeometric (eta_0 = 25)       565.4   (regret/sqrt T: 7559)
//	Theory (53), T known (default)    725.5   (399)
//	TheoryAnytime (53), sqrt(t+1)     731.0   (154)
//	Geometric anchored at (53)        725.6   (396)  (lambda^t times (53))
//	Constant OptimalConstant          720.1   (640)
//	DRF / FAIRNESS (see baselines)    677.3 / 694.2
//
// (53) averages about 0.14 along the trajectory (OptimalConstant 0.073),
// so eta_0 = 25 is about 180 times too large: coordinates swing between 0
// and their bound every slot. With (53) OGASched leads DRF and FAIRNESS on
// every seed and is within 1.2 % of y*.
//
// Regret bound and schedules. The bound (39) = H_G sqrt(T), H_G of (52), is
// Problem.RegretBound; it assumes x in {0,1}^L and the constant step
// Problem.OptimalConstant. The geometric schedule is outside the theorem's
// assumptions, and measured so: its regret divided by sqrt T grows with T,
// i.e. the regret is nearly linear, while the constant step and (53) stay
// flat (regret against y* of BestFixed, mean over seeds 1-5; seed 1 in
// brackets):
//
//	T                     500            2000            8000
//	PaperGeometric    3962 [2414]    7559 [4445]    12739 [7220]
//	Theory (53)        409  [414]     399  [402]      399  [394]
//	Constant           648  [656]     640  [646]      637  [641]
//	TheoryAnytime      175  [150]     154  [131]      149  [120]
//
// all far below H_G (about 1.4e4 on these instances). TheoryAnytime does
// best here, but (53) with the horizon is the paper's formula, so it is the
// default when the horizon is known.
//
// # Results against the paper's claims
//
// On Generate(DefaultConfig()) with Bernoulli(0.7) arrivals, T = 2000,
// seeds 1-5 (go run ./examples/reproduce -family ogasched regenerates
// these): with the step (53) and the fractional baselines OGASched leads
// DRF by +7.2 % (+3.9 to +12.9), FAIRNESS by +4.6 %, BINPACKING and
// SPREADING by +6.5 % on every seed, against the paper's +11.33, +7.75,
// +13.89 and +13.44 % (Table III, Fig. 2): the direction reproduces, the
// margins are smaller. Under the literal reading (eta0 = 25) OGASched
// trails DRF and FAIRNESS by 17-19 %; the whole-pod BINPACKING/SPREADING
// get about 6 per slot against about 680 for the fractional ones.
//
// Fig. 7 (OGASched ahead under every utility kind) does not hold for
// linear utilities: with every f_r^k linear OGASched trails the best
// baseline on 5/5 seeds (1730.8 against 1848.1 per slot). Readings tried
// (seed 1): step (53) 1709.0, TheoryAnytime 1725.2, OptimalConstant
// 1701.8, eta0 = 25 1710.0; DRF 1809.8, FAIRNESS 1814.4. No step can close
// the gap: the best fixed allocation y* itself (1730.3 on seed 1, 1751.9
// mean) is below the baselines, which see x(t) before allocating and give
// idle ports' capacity to the ports with a job, while OGASched, like any
// fixed y, commits before the arrivals. With log, reciprocal and poly
// utilities OGASched leads (4/5, 5/5, 5/5 seeds).
//
// # Performance
//
// One slot (Decide + Observe) allocates nothing and costs O(|E| K) for the
// gradient plus the projection. The policy lays y out in block order for
// the projection: first the blocks whose bounds sum to at most their
// capacity (clipped in one loop: the capacity cannot bind), then runs of
// eight blocks of equal size 3 to 8 interleaved for
// projection.CappedSimplex8 (one block per AVX-512 lane), then the other
// blocks, projected by a projection.Projector (in parallel with
// Settings.Workers). Every block gets projection.CappedSimplex's result
// bit for bit whatever the layout (TestStepMatchesBlockwiseProjection*).
// Run evaluates rewards by utility kind from tables shared by all
// policies, memoises each policy's utility values across slots (a value
// whose y did not change is not evaluated again) and, for a Policy on
// Run's own problem, computes the reward and the gradient in one pass;
// all bit for bit as Problem.RewardParts and Problem.Gradient.
//
// Measured on the shared 2-vCPU machine (AMD Turin class, AVX-512),
// quiet, 2026-11-24: BenchmarkSlot on the large setting (|E| K = 30948)
// 0.21 ms per slot with 1 or 2 workers, against 0.47-0.49 ms before this
// layout (benchstat, 6 interleaved runs), 0 allocs/op. go run
// ./examples/ogasched -preset large (T = 10000, OGASched and the four
// baselines on 2 workers, y* to a 1e-4 gap beside them): 4.2-4.4 s wall;
// one after the other, the policies took 3.5-3.6 s (OGASched 2.5 s, DRF
// 0.9 s, FAIRNESS 1.8 s, BINPACKING and SPREADING 0.9 s each) and y*
// 0.9 s; the previous version took 12.1-12.3 s for the policies alone,
// with the same rewards and series.csv byte for byte.
//
// # Best fixed allocation in hindsight
//
// BestFixed computes y* of (10), the comparator of the regret, for given
// arrivals, with a certificate: a feasible Y whose value sum_t q(x(t), Y) is
// within a stated relative duality gap (default 1e-6) of a proven upper
// bound on the optimum. It is tested against gonum's simplex on linear
// utilities (where the problem is a linear program) and against an
// independent slow projected ascent on concave ones. On the Table II
// instance (T = 2000) it converges to a gap below 1e-6 in about 0.1 s; on
// the large one (T = 10000) to 1e-4 in 0.9 s and to 1e-6 in about 4 s.
//
// # Multiple arrivals
//
// Section III-D gives each of up to J_l simultaneous jobs of port l its own
// variables; Expand and ExpandArrivals build that problem. Passing a count
// x_l > 1 directly instead scales port l's reward by x_l.
//
// # Gangs
//
// NewGang(model, GangSettings{}) builds OGASched-gang, the extension of
// §III-E ("the design detail is omitted due to space limits"), on a
// bipartite.GangModel: job types l with components q (demand a_l^{q,k},
// whole on one server), a minimum m_l, per-server capacities c_{(k,r)}.
// Utilities and beta come from GangSettings (nil: linear a = 1, beta = 0).
// Each slot, d, err := pol.Decide(t, x) returns d.Server[c], the server of
// every flat component or -1, placing only arrived jobs (x_l > 0) and each
// all or nothing; pol.Observe(t, x) learns. Slots, ownership, snapshots
// (format "msched/ogasched.GangPolicy") and cluster changes (a
// bipartite.GangModel edit method, then ChangeCluster(model, mapping))
// follow the family's rules above. The gang baselines of package baselines
// (DRF-, FAIRNESS-, BINPACKING-, SPREADING-, FIRSTFIT-gang) satisfy the
// same GangOnlinePolicy; RunGang replays arrivals through any of them and
// counts bipartite.GangModel.Check's violations. See Example_gang.
//
// Reading. A component counts only when it gets its whole demand on one
// server, and a job counts in a slot only when at least m_l of its
// components are placed (GangMinComponents); its reward is the per-port
// reward (7)-(8) with each placed component as a port with y = a_c,
//
//	x_l sum_{c placed} [ sum_k f_r^k(a_c^k) - max_k beta_k a_c^k ]   (GangReward)
//
// The paper's own set, jobs with a "positive allocation", is an open
// condition that a gang placement cannot use (any one component would
// count); it is kept as GangLiteralPositive, whose placements are not
// all-or-nothing and which Check counts as violations.
//
// Relaxation and learning. GangRelaxation is the OGASched problem whose
// ports are the components: y_{c,r}^k in the per-component box
// [0, a_c^k] on every eligible server, per-server capacities, the same
// utilities. A 0/1 placement is a point of it with the same reward
// (TestGangRewardIsRelaxationAtIntegralPoints). OGASched-gang runs
// Algorithm 1 on it unchanged (the exact projection per (r,k) block, step
// (53)); its fractional y(t) is chosen before x(t), like OGASched's.
//
// Rounding (per slot, after x(t)). phi_{c,r} is the mean over the types c
// demands of y_{c,r}^k / a_c^k, and v(c, r) the component's reward on r.
// Arrived jobs are taken in decreasing order of the mean over their
// components of max_r phi_{c,r} (ties: a hash of (Seed, t, l), so the
// order is deterministic given the seed and needs no state); each
// component goes to the server with the largest phi_{c,r} max(v(c,r), 0)
// among those it fits in the capacity left (ties: larger phi, then lower
// index); a job with fewer than m_l components placed is rolled back
// whole. Guarantees: every placement is feasible for Check (all or
// nothing, capacities up to 1e-12 relative, only arrived jobs;
// TestGangFeasibleEverySlot); the same seed gives the same placements;
// when y(t) is itself a gang placement the rounding keeps it for the
// arrived jobs and only adds jobs in the capacity left
// (TestGangRoundingExactOnIntegralPoints). Not guaranteed: a constant
// factor of the relaxation's value (the relaxation lets a component hold
// its demand on every eligible server at once, which no placement can),
// nor that the greedy finds a placement for a job whenever one exists.
//
// Bounds. GangBestFixed is BestFixed on the relaxation: a certified bound
// on every fixed point of the relaxation, hence on every fixed gang
// placement, and the comparator of the fractional regret. It is not a
// bound on policies that adapt to x(t) (the baselines, the rounding), and
// it is loose: on Table II with components (seed 1) it is 2.24e6 against a
// job bound of 1.78e5, i.e. more than 12 times what any placement can earn. GangJobBound, sum_t sum_l x_l V_l with V_l the job's
// best placement on an otherwise empty cluster, bounds every policy in
// every slot. examples/gang reports the gap to both every run.
//
// Measured (go run ./examples/gang -seeds 1-5 -esdp=false; Table II with
// 2-5 components per job, one job in three elastic with m_l = |Q_l| - 1,
// T = 2000, rho = 0.7): OGASched-gang earns 145,939 on average against
// 75,635-82,852 for the gang baselines; it leads the best baseline of
// each seed by +42.8 % to +81.2 %; its gap to the job bound is 7.2 %
// (3.1-12.0 %), to the relaxation bound 93.1 %; no policy broke a Check
// rule. Capacity never binds on that instance (every policy serves every
// arrived job), so the lead comes from choosing servers by their reward;
// the learned phi matters where capacity binds, as on the DLRM trace
// (package trace, "# DLRM gangs": 4 % of the arrived jobs cannot be
// placed). There (go run ./examples/gang -trace DIR -seeds 1-5, T = 744
// hourly slots) OGASched-gang earns 385,044 on average against
// 276,760-282,905, leading the best baseline of each seed by +30.7 % to
// +37.3 %; its gap to the job bound is 49.5 % (which ignores contention
// between jobs), to the relaxation bound 74.3 %; no violations.
//
// Performance: one slot (Decide + Observe) allocates nothing; it costs the
// OGASched slot on the relaxation (dimension sum_c |R_l(c)| K) plus
// O(sum_{arrived} |Q_l| |R_l| K) for the rounding. BenchmarkGangSlot.
//
// # Limits and bad input
//
// Nothing that reaches an exported function panics, exhausts memory or
// hangs: data errors are returned, wrapping ErrDimension, ErrValue,
// ErrSettings, ErrSlot, ErrSnapshot or ErrVersion and naming the field,
// index, value and limit.
// Sizes are checked with overflow-safe arithmetic before any allocation:
//
//	limit               value     bounds
//	MaxK                1024      K (len(beta), Config.K, "k" in JSON)
//	MaxDim              2^25      |E| K (a Policy holds ~8.5 vectors of it: 2.4 GiB)
//	MaxVertices         2^24      ports and nodes a JSON graph declares; Trace.Ports
//	MaxGenerateCells    2^26      Config.Ports x Config.Nodes in Generate
//	MaxTraceCells       2^28      ports x T of BernoulliTrace and of a Trace
//	MaxWorkers          1024      Settings.Workers, RunSettings.Workers
//	MaxValue            1e15      demands, capacities, arrival counts, f'(0)
//	MaxBestFixedIter    1e7       BestFixedSettings.MaxIter
//
// Rules: NewProblem (and New, Run, BestFixed, Expand, which re-validate a
// Problem built as a struct literal) rejects a utility with an infinite or
// huge derivative at 0, f'(0) > MaxValue: utility.Sqrt, linear a = 1e308,
// reciprocal a = 1e-200. Their gradient (30) at y = 0 is infinite or
// overflows the step; the paper's finite-slope variant of sqrt is poly,
// a sqrt(y+1) - a. New(nil, ...) and every nil input return an error.
// Decide and Observe reject a wrong length, NaN, infinite, negative or
// above-MaxValue arrivals and slots out of order (ErrSlot); Observe also
// refuses a step that is not finite and a gradient step that overflows. A call that returns an error leaves the
// policy unchanged. The JSON decoders reject unknown fields, trailing data,
// a trace with fewer than one port, and declared sizes above the limits
// before the graph is built.
//
// Feasibility is an invariant: every decision Decide returns or Observe
// keeps satisfies (6) within FeasibilityTol (1e-9) times the problem's
// largest demand or capacity, and (5) exactly with the exact projection.
// At the value limits a gradient step reaches 1e30 (a step of 1e15 times
// arrivals of 1e15), where the projection's rounding alone exceeded a
// capacity of 2 by 1; when eta |grad| is large enough for that to be
// possible, Observe checks every block and scales one whose sum exceeds
// its capacity onto it (the decision is then feasible, no longer the exact
// projection). A debug build (go test -tags mscheddebug) asserts the
// invariant in every Decide and Observe and panics on a violation.
//
// # Simulation
//
// Generate draws instances in the style of Table II (DefaultConfig,
// LargeConfig), BernoulliTrace draws arrivals, Run replays one trace through
// any set of policies and returns a *Result whose Series has one entry per
// policy. Problem and Trace round-trip through versioned JSON.
// The paper builds instances from Alibaba traces that are not published in
// usable form; Generate uses heterogeneous node classes with the six
// resource types CPU, MEM, GPU, NPU, TPU, FPGA, demands scaled by the
// contention level, utilities (54) with a ~ U[1, 1.5] and beta_k ~ U[0.3, 0.5].
package ogasched
