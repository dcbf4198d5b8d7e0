// Package projection implements the exact Euclidean projection onto the
// capped simplex (box-constrained continuous quadratic knapsack)
//
//	P(z) = argmin_y ||y - z||^2  subject to  0 <= y_i <= u_i,  sum_i y_i <= c,
//
// one block at a time (CappedSimplex, ProjectCappedSimplex) and for many
// independent blocks in parallel (Projector), with the paper's inexact
// procedure beside it for reproduction (CappedSimplexPaper).
//
// In OGASched (Zhao et al., "Scheduling Multi-Server Jobs With Sublinear
// Regrets via Online Learning", paper 000) the projection (32) of the online
// gradient step separates into one such block per (server r, resource k):
// the ports l in L_r with bounds u_l = a_l^k and capacity c = c_r^k.
//
// # Optimality conditions
//
// With one multiplier tau = rho/2 >= 0 for the sum constraint, y is the
// projection if and only if
//
//	y_i = clip(z_i - tau, 0, u_i) = min(max(z_i - tau, 0), u_i),
//	sum_i y_i <= c,  tau >= 0,  tau (c - sum_i y_i) = 0.
//
// phi(tau) = sum_i clip(z_i - tau, 0, u_i) is continuous, piecewise linear
// and non-increasing, with breakpoints z_i - u_i (coordinate i stops being
// capped) and z_i (it reaches 0); its slope is minus the number of "free"
// coordinates, 0 < z_i - tau < u_i. So tau = 0 if phi(0) <= c, and otherwise
// tau is the root of phi(tau) = c in (0, max z]; on the linear piece
// containing it, tau = (sum_capped u_i + sum_free z_i - c) / #free.
// CappedSimplex returns this tau; it is unique when some coordinate is free,
// and one valid multiplier otherwise.
//
// # Method and complexity
//
// CappedSimplex is a safeguarded Newton iteration on phi (in the spirit of
// Cominetti, Mascarenhas and Silva, "A Newton's method for the continuous
// quadratic knapsack problem", Math. Prog. Comp. 2014). Each pass over the
// data, at a trial point t, computes in one branch-free loop (masks and
// bitwise selects; the only branches record a new extreme and are rarely
// taken) the linear piece of phi
// around t: the sums of u over capped and z over free coordinates, the free
// count, and the nearest breakpoints left and right of t. The Newton point
// is the root of that piece; if it lies inside the piece it is the exact
// answer and the iteration stops. Otherwise the bracket [lo, hi] with
// phi(lo) > c >= phi(hi) is shrunk (to the piece's end when the piece stays
// on one side of c) and the next trial point is the Newton point if inside
// the bracket, else the secant point, else the midpoint. Every pass costs
// O(n); the bracket only shrinks and phi has at most 2n pieces, so the
// iteration is finite, and rounding can only end it with the bracket
// collapsed to adjacent floats. Measured on random blocks (TestNewtonPasses,
// z ~ U[-0.5,1.5], u ~ U[0.5,1.5], c ~ U[0, sum u / 2]) the mean number of
// Newton passes after the first is 1.7 at n = 64, 2.2 at n = 1Ki, 2.5 at
// n = 64Ki and 3 at n = 1Mi, at most 5. Total cost: 2 + (passes) linear
// passes (the first fuses the precondition check, the last writes dst),
// no sorting, no allocation, no scratch space.
//
// The passes run in package projection/internal/kernel: Go assembly for
// amd64 with AVX-512 (8 float64 lanes in one zmm register, masked tails)
// or AVX2 (two ymm registers), chosen at run time with golang.org/x/sys/cpu,
// and a pure-Go version of the same loops, the reference and the fallback
// on other architectures or with the build tag noasm (or purego). All
// three sum in the same 8 lanes in the same order, so the Newton path
// gives the same result bit for bit on every CPU (the tests check it on
// every path the CPU runs, the fuzz targets too).
//
// Small blocks (OGASched's |L_r| is 2 to 30, median 5) take another path:
// one pass checks the input, sums phi(0) and collects the at most 48
// breakpoints in a stack array, then insertion-sorts them and walks them
// with running sums (O(n^2) comparisons, no allocation); the running sums
// add O(n) roundings, so the result is exact to about n ulps of the
// largest term. The switch follows the kernels (kernel.SmallBlock): blocks
// of at most 9 coordinates are sorted with the AVX-512 passes, 12 with
// AVX2 (whose tails run in Go), 24 with the Go passes. Timed over 4096
// distinct random blocks (binding capacity, so branch predictors cannot
// memorise them; TestMinTimesSmallBlock, MINBENCH=1, minimum of 40
// interleaved trials on the loaded 2-vCPU machine, so about 3x the
// unloaded times), per block:
//
//	n                      2     4     5     8     9    10    12    16    24
//	stack sort            28    68    97   183   203   229   281   375   581 ns
//	Newton, AVX-512       96   137   161   224   198   194   207   233   245 ns
//	Newton, AVX2         144   250   294   174   215   312   316   198   232 ns
//	Newton, Go           115   184   233   337   364   406   463   578   748 ns
//
// A sort-free variant for n <= 8 (phi evaluated at all 2n breakpoints at
// once, O(n^2) flops) measured the same as the sort (1.03-1.29x its time)
// and was dropped. Benchmarks that repeat one small block flatter the
// branchy paths by 2-3x (branch predictors learn the data).
//
// CappedSimplexSort is the textbook baseline: sort the 2n breakpoints,
// O(n log n), allocating 2n floats. The tests check both against each other,
// against an independent 200-step bisection and against the KKT conditions
// above on 10^5 random and adversarial instances (ties, u_i = 0, c = 0,
// c >= sum u, magnitudes 1e-12 to 1e12 in one block, n = 0, 1, ..., 3000),
// and by fuzzing.
//
// # The paper's procedure (Algorithm 1, steps 7-31)
//
// The paper writes the KKT system (34)-(37), splits L_r into B^1 (at the
// bound a_l), B^2 (at 0) and B^3 (free), and solves
// (38) rho = 2/|B^3| (sum_{B^3} z - c + sum_{B^1} a) iteratively: starting
// with B^3 = L_r, move the ports with z_l - rho/2 < 0 to B^2 and recompute
// (Michelot's simplex projection); then, only if the largest z exceeds its
// bound, put that one port in B^1 and redo it once. It differs from the
// projection in three ways:
//
//  1. (38) forces sum y = c; it never allows rho = 0, so when the clipped z
//     already fits (phi(0) < c) it returns rho < 0 and raises y above z to
//     fill the capacity, breaking the bounds when c is close to sum u.
//  2. Only port 1 (largest z) is ever checked against its bound, once; the
//     bounds a_l differ across ports, so other ports can end above a_l, and
//     capping port 1 can push others above theirs.
//  3. Literally, the pseudo-code never writes y = 0 for ports in B^2: the
//     first negative port keeps its negative value and ports dropped later
//     keep stale values from an earlier pass. CappedSimplexPaper follows the
//     text's definition of B^2 (y = 0) instead; the literal reading is
//     measured too.
//
// When no bound is active and the capacity binds it is exact (Michelot;
// TestPaperVariantIsExactWhenItShouldBe). Step 20 cites (39) for rho; it is
// (38). If B^3 becomes empty (38) divides by zero; CappedSimplexPaper then
// reports tau = 0. It needs no sort: it visits ports in the order a stable
// descending sort would, with identical results.
//
// Measured against CappedSimplex (TestPaperVariantMeasured, 20000 instances
// per row, seed (9,9); "differ": ||y_paper - y_exact||_inf > 1e-9;
// "infeasible": a bound or the sum violated by more than 1e-9; "overfill":
// the paper's sum exceeds the exact one, i.e. it filled slack capacity):
//
//	family                                  variant  differ  max dist  mean dist  infeasible  max viol  overfill
//	n~U{2..20}, z~U[-.5,1.5], u~U[.5,1.5],   B2=0     65.6%   1.68      0.349      57.7%       1.68      51.4%
//	  c~U[0, sum u]                          literal  97.6%   1.68      0.435      92.0%       1.85      56.7%
//	n=10, same z, u, c = sum u / 4           B2=0     21.9%   0.769     0.0265     19.5%       0.769      3.3%
//	                                         literal  99.98%  1.06      0.191      99.97%      1.06       5.1%
//	n=10, c = sum u (slack)                  B2=0    100%     1.8       0.899     100%         1.8      100%
//	                                         literal 100%     1.8       0.899     100%         1.8      100%
//	OGASched-like step: y = P(z0),           B2=0     11.7%   0.332     0.00901    11.6%       0.332      0.06%
//	  z = y + 0.5 g, g~U[-0.2,1], c=sum u/4  literal  98.9%   0.387     0.0833     98.9%       0.387      0.57%
//
// Distances are in the units of z (all data is O(1) here). So the paper's
// procedure is not a projection: in the OGASched-like regime about one
// block in nine comes out infeasible, by up to a third of a unit, and in
// the literal reading almost every block does. The policy in package
// ogasched therefore uses CappedSimplex and keeps CappedSimplexPaper only
// as an option for reproducing the paper.
//
// # Batched projection
//
// Projector.Project projects the blocks of a Blocks layout, chunked by
// coordinate count over persistent worker goroutines (the caller works
// too). Each block is projected by CappedSimplex alone, so the result is
// bit-for-bit the same for any worker count. Small problems (fewer than
// 4096 coordinates) run inline. The paper claims O(|L| log(K sum_l |R_l|))
// time per slot with the (r,k) blocks in parallel; the total work here is
// O(sum_r |L_r| K) = O(K sum_l |R_l|) per slot, linear, with a small number
// of passes per block (see BenchmarkProjectSeries).
//
// # Work and span
//
// The paper's parallel-depth claim cannot be seen in wall time on two
// cores, so the batched benchmarks (BenchmarkProjectSeries,
// BenchmarkProjectBlocks*) report it as metrics, measured on the
// benchmark's data by re-running each block solve with a pass counter:
//
//   - work-coords/op: the work, the sum over blocks of n_b times the number
//     of O(n_b) passes its solve makes (check/phi(0), Newton passes, clip;
//     a sorted small block counts 2 passes, its insertion sort is not
//     counted);
//   - span-coords/op: the span, the cost of the longest chain of dependent
//     block solves; the blocks are independent, so the chain is one solve
//     and the span is the largest single block's cost;
//   - parallelism: work / span, the speed-up an unbounded number of
//     workers could reach;
//   - bound-speedup: Brent's bound for the Projector's p workers,
//     work / max(work/p, span).
//
// The measured speed-up at 1, 2 and all cores is the ratio of ns/op of the
// w=1 and w=p sub-benchmarks of one run (benchstat -col /w). For |R| = 128
// servers and |L_r| = 10 the span is 20 coordinate visits for every K (1
// to 64: one sorted block), the work 2560 K: the depth is O(|L_r|),
// constant in K, rather than the paper's O(log K), and the parallelism
// grows linearly in K (128 at K = 1, 8192 at K = 64), so the speed-up is
// bounded by the cores, not by the span, at every size measured.
//
// # Performance
//
// Medians of 6 runs of bench_test.go on a shared 2-vCPU AMD EPYC (other
// jobs running; in this environment two goroutines get no more CPU than
// one, see TestMinTimesProject, so the parallel Projector cannot show a
// speed-up here). Data: z ~ U[-0.5,1.5], u ~ U[0.5,1.5], c = sum u / 4.
//
//	n      CappedSimplex   Sort (baseline)   Paper      copy floor   exact/sort  exact/copy
//	8          61 ns          163 ns           68 ns       4.5 ns      0.37        14
//	64        587 ns         1.20 us          1.03 us      7.6 ns      0.49        78
//	1Ki      12.1 us         26.8 us          20.2 us     72 ns        0.45       168
//	1Mi      15.4 ms          126 ms           53 ms      317 us       0.12        49
//
// All kernels but Sort allocate nothing. The exact projection is 2-8x
// faster than sorting and faster than the paper's inexact procedure at
// every size, but 14-170x the copy floor, not within 20x: copy moves 8
// bytes per coordinate with vector instructions at 50-100 GB/s, while one
// scalar classification pass costs about 3 ns per coordinate and the
// method needs 3-5 passes. One OGASched slot at Table II scale (1024 x 6
// blocks of 3..10 ports) takes about 1 ms. Per-slot series (|R| = 128):
// time grows linearly in K (fitted exponent 1.00 for K = 1..64, |L_r| =
// 10) and in |L_r| (0.97 for |L_r| = 2..1024, K = 6), about 25 ns per
// coordinate; the paper's procedure grows as |L_r|^1.18 (its inner loop
// repeats up to |L_r| times) and is 1.9x slower at |L_r| = 10, 4.1x at
// |L_r| = 1024.
//
// # Input and errors
//
// The kernels take dst first, may write dst = z (or dst = u), allocate
// nothing (CappedSimplexSort excepted) and panic with a "projection: ..."
// message on mismatched lengths. Their preconditions are finite z and u,
// u_i >= 0, c >= 0 (c = +Inf means no sum constraint) and no overflow of
// sums: n max(|z_i|, u_i, c) below math.MaxFloat64. CappedSimplex checks
// the first three in its first pass, at almost no cost, and panics on a
// violation; ProjectCappedSimplex checks all of them first and returns
// ErrLength, ErrNaN, ErrInf, ErrNegativeCap, ErrNegativeCapacity or
// ErrRange, wrapped with the offending index and value.
//
// CappedSimplexPaper checks the same preconditions up front and panics on a
// violation (it used to loop forever on a NaN: the threshold of its inner
// loop became NaN and no coordinate ever left B^3);
// ProjectCappedSimplexPaper is its validating wrapper. Every loop of the
// package is bounded whatever the input, NaN and ±Inf included: the paper's
// inner procedure by n+1 rounds per pass, the Newton iteration of
// CappedSimplex by its switch to bisection after 64 passes (at most about
// 2100 halvings of a finite bracket), the breakpoint walks by n steps
// (TestKernelsBoundedOnHostileInput runs each kernel on NaN, ±Inf,
// subnormal and near-MaxFloat64 data under a deadline).
package projection
