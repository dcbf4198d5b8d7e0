// Package onsocmax implements OnSocMax, the alpha-competitive online
// workload dispatching policy for deadline-aware multi-server jobs of Zhao
// et al., "Theoretically Guaranteed Online Workload Dispatching for
// Deadline-Aware Multi-Server Jobs" (paper 001), with its marginal-cost
// pricing, two per-job solvers, the offline optimum and a simulator.
//
// # Usage
//
//	pol, err := onsocmax.New(mesh, onsocmax.Settings{}) // the paper's bounds of eq. (8); or {Iota, V}
//	for t := 0; ; t++ {                        // any increasing slots, past mesh.Slots
//		units, _ := pol.Units(nil, nodes, t, deadline) // a job's units R_n
//		dec, err := pol.Decide(t, arrivals)    // Job{ID, Arrival: t, Units, ...}
//		// dec.Allocations: x on (Node, Slot); dec.Outcomes: per job, why
//	}
//	m, mp, _ := onsocmax.RemoveNode(pol.Mesh(), i) // node i leaves; later nodes move down
//	removed, _ := pol.Reservations(nil, i)     // its future reservations, to place again
//	err = pol.ChangeCluster(m, mp)             // in place
//	state, _ := pol.MarshalBinary()            // restore: New(pol.Mesh(), settings) + UnmarshalBinary
//
// Example_embedding is the whole loop. The rules shared by every family
// (slots, decision ownership, job IDs, snapshots, errors) are in the
// bipartite package documentation.
//
// # Model
//
// The cluster is a bipartite.Mesh of nodes x slots; resource unit r has
// capacity C_r. Job n arrives with a target workload rho_n, its available
// units R_n (eq. (1)), per-unit caps xbar_nr, per-unit concave utilities
// f_nr (eq. (2)) and cluster weights beta_nr (g_nr(x) = beta_nr x / C_r,
// eq. (3)). The offline problem P1 is
//
//	maximise  sum_n sum_{r in R_n} f_nr(x_nr) + beta_nr x_nr / C_r
//	s.t.      sum_r x_nr <= rho_n            (4)
//	          sum_n x_nr <= C_r              (6)
//	          0 <= x_nr <= xbar_nr           (7)
//
// # Pricing (Theorem 2, cleaned)
//
// iota <= f'_nr + beta_nr/C_r <= v bound the marginal welfare (8).
// alpha-hat is the root alpha >= 2 of
//
//	alpha - 1 = 1/(alpha-1) + ln((alpha v/iota - 1)/(alpha-1))        (40)
//
// (alpha = 2 when v = iota), w_r = C_r/(alpha-1) the threshold, and
//
//	phi_r(u) = iota                                         u < w_r
//	phi_r(u) = iota/alpha + (iota - iota/alpha) e^{alpha (u - w_r)/C_r}   w_r <= u <= C_r
//	phi_r(u) = +Inf                                         u > C_r
//
// so phi_r is continuous at w_r and phi_r(C_r) = v. The cost (12) Phi_r is
// its integral from the usage omega_r to omega_r + x, in closed form
// (Pricing.Cost). The paper's printed Theorem 2 has typos (the printed
// (40) reads "alpha^v"; the exponential branch's constants do not give
// phi(C) = v); the forms above are re-derived from (28) binding.
//
// # Per-job problem P3 (the form implemented)
//
// When job n arrives Algorithm 1 solves
//
//	maximise  sum_{r in R_n} [ f_nr(x_r) + beta_nr x_r / C_r - Phi_r(x_r) ]
//	s.t.      sum_r x_r <= rho_n,  0 <= x_r <= xbar_nr
//
// (type P3: f_n is separable over units as in (2), so this is exactly the
// paper's P3 with W~_n), then updates omega_r += x_r (11). Two solvers:
//
//   - WaterFill (default): exact dual bisection on the multiplier mu of
//     sum_r x_r <= rho_n; each unit's response uses the utility's inverse
//     derivative on the flat part of phi_r and the inverse of phi_r (linear
//     f) or a scalar bisection (other f) on its exponential part. Units
//     whose response jumps at mu* (linear utilities) are filled in
//     proportion so that the sum is exactly rho_n.
//   - ALM: Algorithm 2, the augmented-Lagrangian method with the slack
//     variables eliminated as in (23)-(24), for any SeparableProblem (a sum
//     of convex one-dimensional terms with linear inequality rows and
//     penalised bounds). Table II's sigma_0, p, theta_1, theta_2, learning
//     rate and decay are the defaults.
//
// Both return a SolveResult with the multiplier mu and a typed Status;
// P3.KKTResidual measures the KKT conditions (13).
//
// # Deviations of the ALM from Algorithm 2
//
//   - Table II's final tolerances eta = 0.1 and epsilon = 10 stop the method
//     far from the optimum; the defaults are 1e-9 (TableII returns the
//     literal values).
//   - With sigma_0 = 0.97 < 1 lines 19 and 24 loosen the tolerances; they
//     shrink by max(sigma, MinShrink = 10) on success, and the inner
//     tolerance never grows on failure.
//   - Multipliers are updated after every outer iteration (method of
//     multipliers); Algorithm 2's "update only if v <= epsilon_k" is
//     ALMSettings.PaperSchedule. With p = 1.002 and theta_1 = 0.99 its test
//     can fail for thousands of iterations.
//   - The violation (25) sums absolute values |max(g, -lambda/sigma)| (the
//     signed sum can cancel); PaperViolation restores the signed sum.
//   - Step 6 "gradient descent" is an accelerated projected gradient (FISTA
//     with gradient restart) whose step starts at the learning rate and is
//     backtracked by the decay factor. x_r >= 0 and x_r <= C_r - omega_r
//     are kept exactly by projection (f_nr and Phi_r are undefined
//     outside); x_r <= xbar_nr is penalised as in (18).
//   - SolveP3 returns a feasible point: the iterate clipped to its box and
//     scaled down if it exceeds rho_n by the residual violation.
//   - SolveP3 starts from the largest allocation (each unit at its cap,
//     scaled into sum x <= rho_n). Where P3 is indifferent — a linear f_nr
//     whose marginal welfare equals phi_r = iota on the flat part — the
//     iterate then stays on the serving side. Started at 0, the policy
//     with the ALM broke the Theorem 2 bound on 30 of 500 random instances
//     (OPT/ONLINE = +Inf on single-job instances with v = iota).
//   - a sqrt(x) (utility.Sqrt) has f'(0) = +Inf; its derivative is
//     evaluated at 1e-12 in the ALM, and the bound v of (8) is taken at a
//     minimum workload unit (MarginalBounds' minUnit, DefaultMinUnit =
//     0.01), so for such jobs v is not a true bound near x = 0.
//
// # Ties in the exact solver
//
// utility.InvDeriv returns 0 where a linear utility is indifferent
// (p = a). WaterFill resolves such ties (within a relative 1e-12, since
// iota = a + beta/C is computed in another order) toward serving the
// workload. The proof of Theorem 1 (Case I) needs this: with the 0
// tie-break a single job with v = iota gets nothing and OPT/ONLINE = +Inf.
//
// # Policy
//
// Policy (New) is Algorithm 1 and satisfies OnlinePolicy =
// bipartite.OnlinePolicy[[]Job, Decision]: Decide(t, jobs) processes the
// jobs arriving in slot t in order, solves P3 at the current usage levels,
// reserves the result (units of later slots included) and updates omega_r
// by (11). Units of zero capacity are skipped; usage is clamped at C_r
// (rounding). The non-partitionable variant of Section III-D
// (x_nr in {0, xbar_nr}) is Settings.NonPartitionable: each unit's exact
// net value f(xbar) + beta xbar/C - Phi_r(xbar) is computed and positive
// units that fit are taken greedily by value per workload while
// sum x <= rho_n (exact for the paper's xbar_nr = rho_n, where at most one
// unit fits). The paper's approximation phi(omega + x) x of the cost is
// not used.
//
// Slots and the rolling mesh. Slots are 0-based; Decide needs t >= 0 and
// greater than the previous Decide's t (ErrSlot). The paper's mesh has a
// fixed horizon T; a scheduler's does not. With W = mesh.Slots, the policy
// keeps the window [t, t+W) of its latest Decide(t): node i's capacity in
// absolute slot s is mesh.Capacity[i*W + s%W] (the mesh is a periodic
// template), and the slots entering the window as t advances start with
// no usage. A job names unit (node i, slot s) as i*W + s%W (Units builds
// them, WindowSlot inverts them; for s < W this is the mesh index) and may
// use the slots [Arrival, min(Deadline, Arrival+W-1)]. A gap between two
// Decides means no arrivals in between; the reservations made for those
// slots stand. On a fixed instance (slots below W) this is exactly the
// paper's policy.
//
// A changing cluster.
// Cluster changes are made in place on the policy, which keeps what it
// learned about what survives.
// The edit functions AddNode(mesh, capacity) and RemoveNode(mesh, i)
// build the changed mesh from the current one (Policy.Mesh) with its
// Mapping (new node index -> old, -1 = new), and Policy.ChangeCluster
// applies both: the surviving nodes keep their relative order and are
// renumbered compactly (a removal moves every later node down one index,
// an addition takes the next index at the end), their usage levels and
// reservations re-laid under the new indices and their capacity templates
// taken from the new mesh (never below what is already reserved: ErrValue).
// A leaving node's reservations in the slots after the latest Decide are
// cancelled (Reservations lists them first, so the scheduler can place
// that work again, as new jobs); those of the slot being executed go with
// it. A new node starts empty. Jobs name units in the new numbering from
// the next Decide on. A snapshot taken after a change restores into a
// policy built by New on the current mesh, Policy.Mesh(), with the same
// settings; a policy on the mesh before the change refuses it. The
// baselines MAX-FIRST and EQUAL-SHARE have the same ChangeCluster.
// Policy.AddNode and Policy.RemoveNode remain, deprecated, as the
// one-node cases (since v0.2.0 they renumber like ChangeCluster).
//
// Online bounds. Theorem 2 needs iota and v of (8), which the paper takes
// from the whole instance; a scheduler declares them in Settings. The zero
// Settings stand for the bounds of the paper's experimental setup, derived
// from the generator's documented ranges (Config.MarginalBounds of
// DefaultConfig with the paper's linear, log and a*sqrt(x) utilities:
// iota = 1/14 + 0.1/32 ≈ 0.0746, v = 15 + 0.5/8 ≈ 15.06 at the default
// MinUnit), which every job Generate draws from such a configuration
// satisfies; a scheduler whose own utilities, betas, caps or capacities
// leave those ranges sets Iota and V (Instance.MarginalBounds,
// Config.MarginalBounds), and tighter bounds give a smaller alpha. A job
// with a unit whose marginal welfare f'_nr(x) + beta_nr/C_r over
// [0, xbar_nr] leaves [Iota, V] is, under the default RejectOutOfBounds,
// given nothing with the Reason AboveBounds or BelowBounds: the policy
// then runs exactly as on the admitted jobs, which satisfy (8), so
// OPT/ONLINE <= alpha holds against the optimum of the admitted jobs.
// AdmitOutOfBounds serves such jobs under the declared pricing: every
// decision stays feasible, but no ratio is claimed. Every job of a batch
// gets an Outcome: Allocated, PricedOut (the prices exceed its marginal
// welfare), NoCapacity, AboveBounds or BelowBounds.
//
// Decisions and errors.
// Decision lifetime: a decision returned by Decide, and every slice in it,
// is owned by the policy and valid until the next call of any method of
// that policy; copy what you keep. The policy never reads a returned
// decision back, so a caller that modifies it changes nothing the policy
// does later.
// Decide is all or nothing: on any
// error (a slot out of order, an invalid job, a duplicate ID in the batch,
// a solver failure on a later job) it returns a zero Decision and leaves
// the policy exactly as it was. Job IDs are the caller's, opaque; the
// policy keeps no state per job beyond its reservations in the window.
//
// Snapshots. MarshalBinary (and MarshalJSON, same bytes) saves the window
// position, the cluster's nodes and every reservation in the window, in
// the envelope {"format":"msched/onsocmax.Policy","version":1,"model":…,
// "check":"sha256:…","state":…}, fingerprinted on the mesh and settings
// given to New.
// UnmarshalBinary into a policy built by New on the same model checks
// every index, slot and value, recomputes the usage levels from the
// reservations in their original order (bit for bit) and checks them
// against the capacities (0 < x <= MaxValue, one reservation per job and
// unit, none before the first Decide); any mismatch is an error wrapping
// ErrSnapshot and the internal/snapshot cause, with the policy unchanged.
//
// Diagnostics. Settings.Logger, when set, receives one Debug record per
// Decide and one per job that got nothing; nil costs one comparison.
//
// # Offline optimum
//
// OfflineFlow (FlowSolver) is the default exact optimum of P1 for linear
// utilities: a min-cost flow solved by successive shortest paths with
// Dijkstra and Johnson potentials, adding the jobs one at a time with the
// source and the sink merged, so each search stays among the jobs that
// overlap the new one. Measured (go test -bench 'OfflineFlow$|OfflineLP'
// -benchtime=100x -count=3, shared 2-core Xeon, best of 3): 0.05 ms for
// the default day (483 variables), 0.34 ms at 5x (2 394 variables), 1.4 ms
// at 20x (8 824 variables), growth exponent about 1.1 in the variables;
// OfflineLP takes 1.6 s on the default day. HiGHS through scipy was quoted
// at 1.67 ms for the default day and 5.2 ms at 5x (not re-measured here).
// Over 10 000 generated and near-degenerate instances (capacities of 1e-3
// beside 1e3, equal utilities, zero betas, duplicated jobs) it matches
// OfflineLP within a relative 2.2e-14 with at most 60 augmentations (1.9
// per arc); DefaultMaxAugmentations (8 per arc) bounds
// every run, reached returns ErrIterationLimit. The former Bellman-Ford
// version hung on an instance with a capacity of 1e-3 (cost -460 beside
// -2.5): its absolute relaxation tolerance 1e-14 was below the rounding of
// 460, so an arc and its own reverse (a zero-cost cycle) relaxed each
// other and the predecessor walk cycled forever without reaching the
// source.
//
// OfflineLP solves the same LP with gonum's dense lp.Simplex on the
// standard form with one slack per row (rows = jobs + units + variables;
// MaxLPVariables = 2000; about 1.6 s for the default day). It is the
// independent reference of the tests, for small instances of moderate
// scale only (with capacities of 1e12 its tolerance shows in the 7th
// digit).
// OfflineConcave handles any utilities: Lagrangian relaxation of (6) gives
// upper bounds (the dual P2 with mu_n solved exactly by water-filling),
// projected subgradient steps with the Polyak step improve them, and
// Frank-Wolfe with the flow as linear oracle gives feasible lower bounds
// (and, when every gradient is finite, a second upper bound). The result
// is a certified bracket [Lower, Upper] with its relative gap.
//
// # Simulation and data
//
// Run(inst, policies, RunSettings) replays an Instance slot by slot
// through policies of the family, one Series per policy in Result.Series
// (OnSocMax, baselines.MaxFirst, baselines.EqualShare) and checks
// feasibility and causality. Generate draws instances as in Section IV-A
// (see Config and DefaultConfig for every choice: capacities per node,
// Poisson(2.03) arrivals per slot until 20 jobs, deadline = arrival +
// floor(Exp(4 slots)), rho ~ N(18, 3), xbar ~ N(7, 1) per (job, node),
// locality: each node with probability 0.5, one utility kind per job,
// a ~ U[1, 3] and beta ~ U[0.1, 0.5] per (job, unit); the paper's "poly"
// a sqrt(x) is utility.Sqrt).
//
// Utility coefficients: Section IV-A reads "for each n in N, r in R_n,
// f_nr(x) = a x, a ~ U[1, 3]", one a per (job, unit), which is the
// default. Config.PerJobUtility keeps the reading of our first generator
// (one a per job for all its units) as a named option. It matters: over
// 20 default days (seeds 1-20, go run ./examples/onsocmax), OPT/policy is
// 1.0023 for OnSocMax and 1.343 / 1.348 for MAX-FIRST / EQUAL-SHARE per
// (job, unit), but 1.0012 against 1.0041 / 1.0037 per job; at mean
// capacity 4 OnSocMax beats MAX-FIRST on 17 of 20 days per (job, unit) and
// on 1 of 20 per job. With per-job coefficients all units of a job are
// worth the same to it, so choosing units by value, which is what the
// prices of OnSocMax do, gains nothing.
//
// # What reproduces (go run ./examples/reproduce -family onsocmax)
//
// Over seeds 1-5 x 20 generated days each, with the exact OPT for linear
// utilities and the certified lower end of OfflineConcave otherwise; the
// readings tried are a per (job, unit) (faithful) and a per job (literal):
//
//   - "OnSocMax distinctly outperforms MAX-FIRST and EQUAL-SHARE" (Figs.
//     4-5): per (job, unit), OPT/policy 1.003 against 1.322 and 1.329;
//     per job, 1.001 against 1.004 and 1.004 (not distinct). With log and
//     poly utilities OnSocMax stays within 0.4 % of OPT while the
//     baselines are 2.0-2.6x below it, under both readings.
//   - "OnSocMax performs best for linear utilities" does not reproduce
//     under either reading: alpha-hat grows with v/iota (2.9 linear, 4.7
//     log, 5.8 poly) as the paper argues, but the measured OPT/OnSocMax
//     is 1.003 / 1.001 / 1.004.
//   - Theorem 2 holds on all 3 200 linear days (worst OPT/OnSocMax 1.48,
//     smallest alpha-hat 2.61).
//   - Fig. 6 (capacity 4..20 x mean workload 12..24): per (job, unit)
//     OnSocMax is best on every seed at 14 of 15 points and on the mean
//     over seeds at 15 of 15; per job at 7 of 15, MAX-FIRST leading under
//     congestion.
//
// # Information advantage of the baselines
//
// The baselines decide slot by slot: when they spend the capacity of
// slot t they have seen every job arriving up to t, and they never commit
// capacity of a later slot. OnSocMax commits each job's whole allocation,
// later slots included (resource reservation), when the job arrives,
// without knowing the jobs still to come. Every comparison in this
// repository is under this asymmetry, which favours the baselines.
//
// # Performance
//
// A slot of Policy.Decide in steady state allocates nothing
// (BenchmarkRollingDecide: 4 arrivals per slot on 2 nodes x 3 slots,
// 24-slot window: 0 allocs/op; 36-90 us per slot for 10 to 1000 nodes
// on a shared 2-core Xeon, up to 340 us when it was loaded). A default
// day of Section IV-A takes 2-4 ms and allocates nothing
// (BenchmarkDefaultDay). Memory follows the window, not the jobs:
// TestMemoryFlatWithJobChurn runs 10^6 short jobs with a node leaving and
// joining every 1000 slots and reads the live heap after a GC: 233 KB
// after 10^5 jobs, 169 KB after 10^6. Per job, Decide validates the
// units in O(|R_n|) and the solver is WaterFill's bisection; advancing
// the window costs O(nodes) per slot.
//
// # Limits and failure behaviour
//
// Every mesh the package accepts (ValidateMesh: Instance.Validate,
// New, the decoders, the baselines) has Nodes*Slots computed without
// overflow and at most MaxUnits = 2^24; Config.Validate also bounds Jobs by
// MaxJobs = 2^20 and Generate stops with ErrTooLarge beyond
// MaxGeneratedUnits = 2^26 (job, unit) pairs; ReadInstance reads at most
// MaxInstanceBytes = 1 GiB and rejects trailing data. Policy.Decide and the
// baselines' Decide are all or nothing: an error (ErrSlot for a slot out
// of order, ErrValue for an invalid or late job, ErrDuplicate for a job ID
// repeated in a batch) returns a zero decision and leaves the policy
// exactly as it was, and so is ChangeCluster; AddNode stops at MaxUnits
// units (ErrTooLarge).
// The offline solvers have documented work budgets: FlowSolver
// FlowSettings.MaxAugmentations (ErrIterationLimit), OfflineConcave
// OfflineSettings.MaxIterations and, if set, OfflineSettings.Context
// (checked before every iteration), OfflineLP MaxLPVariables.
//
// Instances round-trip through
// versioned JSON:
//
//	{"version":1,"mesh":{"nodes":N,"slots":T,"capacity":[C_r]},
//	 "jobs":[{"id":0,"arrival":a,"deadline":d,"rho":rho,"units":[r...],
//	          "xbar":[...],"beta":[...],"utility":[{"kind":"linear","a":2}]}]}
//
// with jobs in non-decreasing arrival order and every unit's slot within
// [arrival, deadline]; the decoder validates everything, so a trace loader
// can emit this form.
package onsocmax
