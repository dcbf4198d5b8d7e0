// Package ogasched implements OGASched, online gradient ascent scheduling of
// multi-server jobs on a bipartite graph (Zhao et al., "Scheduling
// Multi-Server Jobs With Sublinear Regrets via Online Learning", paper 000).
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
// Step sizes: Geometric (eta_{t+1} = lambda eta_t, eta_0 = 25,
// lambda = 0.9999, the experiments' default), Theory (53) and Constant.
// The regret bound (39) = H_G sqrt(T) with H_G of (52) is Problem.RegretBound;
// it assumes x in {0,1}^L and the constant step Problem.OptimalConstant.
//
// # Multiple arrivals
//
// Section III-D gives each of up to J_l simultaneous jobs of port l its own
// variables; Expand and ExpandArrivals build that problem. Passing a count
// x_l > 1 directly instead scales port l's reward by x_l.
//
// # Simulation
//
// Generate draws instances in the style of Table II (DefaultConfig,
// LargeConfig), BernoulliTrace draws arrivals, Run replays one trace through
// any set of policies. Problem and Trace round-trip through versioned JSON.
// The paper builds instances from Alibaba traces that are not published in
// usable form; Generate uses heterogeneous node classes with the six
// resource types CPU, MEM, GPU, NPU, TPU, FPGA, demands scaled by the
// contention level, utilities (54) with a ~ U[1, 1.5] and beta_k ~ U[0.3, 0.5].
package ogasched
