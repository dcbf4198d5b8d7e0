// Package esdp implements ESDP (Efficient Sampling-based Dynamic
// Programming), the online dispatcher of multi-server jobs on a bipartite
// graph with unknown service rates of Zhao, Deng, Chen, Yin, Dustdar and
// Zomaya, "Learning to Dispatch Multi-Server Jobs in Bipartite Graphs with
// Unknown Service Rates" (paper 002) and its journal version "... With
// Fluctuated Processing Speeds" (paper 003). Equation numbers are those of
// paper 002; paper 003 shifts them ((13)-(15) become (16)-(18), (17) becomes
// (21)).
//
// # Model
//
// Ports l in L (job types) connect to servers r in R through the channels
// e = (l, r) of a bipartite.Graph. There are K resource types with
// cluster-wide capacities c_k; channel e needs a_k^e units of type k. In slot
// t a job arrives at port l with probability rho_l (1_l(t) = 1), and the
// decision is x(t) in {0,1}^E subject to
//
//	sum_e a_k^e x_e(t) <= c_k  for every k          (1)
//	x_e(t) = 0 for the edges of ports without a job  (2)
//
// The social welfare of a slot is Sw(x(t)) = sum_e x_e Z~_e(t) (4), where
// Z~_e(t) in [0,1] is the normalised valuation minus supply cost, random with
// unknown mean v~_e. The regret (5) is sum_t v~.x*(t) - E[Sw(x(t))], x*(t)
// the omniscient oracle (6): the knapsack max v~.x over (1)-(2).
//
// # Algorithm
//
// From the semi-bandit feedback (the Z~_e(t) of the chosen edges) ESDP keeps
// n_e (7) and v^_e (8), and sets sigma^2_e = g(t)/(2 n_e) (9),
// g(t) = ln t + 4 ln(ln t + 1) m (10) with m = max ||x||_1. The index of
// P3(t) is delta(t) + v^.x + sqrt(sigma^2.x) with delta(t) -> 0. With the
// scale xi(t) = ceil(m/delta(t)) (15), Upsilon_e = ceil(xi v^_e) (13) and
// Sigma^2_e = xi^2 sigma^2_e (14), it solves for every budget s in
// S(t) = {0, ..., xi m}
//
//	P4(s,t): max Sigma^2.x  s.t. (1), (2), Upsilon.x >= s
//
// in one dynamic program (Algorithm 2) and plays x*(s*, t) with
// s* = argmax_s s + sqrt(Sigma^2.x*(s, t)) (17).
//
// # Oracles
//
// Oracle.SolveBudgeted solves all P4(s) exactly; Algorithm2 is the paper's
// Algorithm 2 as written (the reference, for small problems);
// Oracle.SolveKnapsack is the plain knapsack of (6). Both report the table
// size they need and fail with ErrTooLarge, naming it, when it exceeds
// Settings.MaxBytes. The fast program visits only reachable capacity states,
// clips capacities to the remaining demand and cuts each budget row at the
// largest budget its suffix can reach, so its cost is far below the worst
// case O(|E| |S| prod_k (c_k+1)) of the paper; its values and solutions are
// bit-identical to Algorithm2's (same recursion, item order and tie rule).
//
// # Decisions and deviations
//
//   - Slots: Decide(t, ...) takes t = 0, 1, ...; the paper's index is t+1
//     and the experiments' sequences use ln(t+1) (DeltaLogLog, GDefault).
//   - m = max ||x||_1 is ceil(alpha |E|), alpha = 0.5, as in the experiments
//     (Options.Alpha, or Options.M to give the exact value). If a feasible x
//     has more than m edges, S(t) may not reach Upsilon.x; Theorem 1's
//     inequality (33) is guaranteed when m is the true maximum.
//   - Upsilon is rounded up as in (13); Sigma^2 is the objective of P4 and is
//     kept real (rounding it would change nothing in the dynamic program).
//   - Algorithm 1 solves over all edges and then zeroes the edges of ports
//     without a job (Steps 10-16). By default ESDP solves over the edges of
//     arrived ports only — never worse, since it optimises over Omega(t)
//     itself; Options.SolveThenZero keeps the paper's variant.
//   - Unplayed edges (sigma^2 = +Inf): P3(t) is then the limit as their
//     sigma^2 grow without bound — maximise the number of unplayed edges
//     chosen, then v^.x. ESDP solves that limit exactly (one knapsack with
//     value (n+1) [n_e = 0] + v^_e) until every edge it may choose has been
//     played, which explores every edge within a few slots.
//   - s*: ties in (17) go to the smallest s.
//   - Algorithm 2's listing leaves x*(s,c',i) at 0 when the item is not
//     taken; Algorithm2 copies x*(s,c',i+1) as Case I (19) says.
//
// # Simulation
//
// Generate draws instances in the style of Tables 2/3 (DefaultConfig); the
// paper normalises rewards "W.L.O.G." without a formula: msched maps the raw
// welfare Z_e - sum_k f_k(a_k^e) affinely so that the channel means span
// [0,1] and clips the draws (see Generate); capacities are
// c_k = round(alpha sum_e a_k^e), so about alpha |E| channels fit. Instances
// round-trip through versioned JSON, so a trace loader can build them from
// real data. RunWith replays the same arrivals and rewards (common random
// numbers, one PCG stream per slot) through any set of policies and
// records the realised welfare, the expected welfare and the exact
// per-slot regret against the omniscient oracle.
package esdp
