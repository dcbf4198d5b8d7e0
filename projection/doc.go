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
// of at most 8 coordinates are small with the assembly passes, 24 with the
// Go passes; with the assembly, blocks of 3 to 8 coordinates skip the
// sort: kernel.TinyBrackets evaluates phi at all 2n breakpoints at once
// (z and z - u in two zmm or four ymm registers, one coordinate per step)
// and brackets the root between two adjacent breakpoints, where phi is
// linear; kernel.TinySolve does that, the root of the piece and the clip
// in one assembly call. So with AVX-512 or AVX2 a block of 1-2
// coordinates is sorted, 3-8 bracketed and 9 or more iterated, with the
// same result bit for bit on both.
//
// Several blocks per vector: CappedSimplex8 projects eight blocks of the
// same size n <= 8 stored interleaved (coordinate i of block b at 8i+b),
// one block per AVX-512 lane: kernel.TinySolve8 runs TinySolve's
// operations lane by lane (the same sums in the same order, the same
// min/max operand order), so each block gets CappedSimplex's result bit
// for bit, without the per-block latency chain of reductions across
// lanes. OGASched interleaves runs of eight tight blocks of equal size in
// its block order and projects them this way; on other CPUs and builds
// CappedSimplex8 copies each block out.
//
// Timed over 4096 distinct random blocks (binding capacity, so branch
// predictors cannot memorise them; TestMinTimesSmallBlock, MINBENCH=1,
// minimum of 40 interleaved trials in one run on the shared 2-vCPU
// machine, 2026-11-24, another job running), per block:
//
//	n                          2     3     4     5     6     8     9    10    12    16    24
//	stack sort                26    33    55    88   119   175   208   232   279   371   572 ns
//	TinySolve, AVX-512        23    23    24    25    26    28     -     -     -     -     -
//	Newton, AVX-512           97   109   113   121   126   134   136   136   141   145   152
//	TinySolve, AVX2 (*)       25    27    28    30    32    35     -     -     -     -     -
//	Newton, AVX2 (*)         124   157   191   242   278   123   157   187   274   138   154
//	Newton, Go (*)           124   158   193   245   283   335   366   415   496   512   675
//
// (*) with its own sort timing, within 10% of the first row. The Go loop
// of TinySolve (TinyBrackets, TinyRoot, the clip) is no faster than the
// sort (1.2-2x), so only the assembly builds use it. Blocks of 1-2
// coordinates stay sorted: TinySolve is 0.88x the sort at 2 with AVX-512
// but 1.09x with AVX2, and both must take the same path.
// CappedSimplex8 solves eight blocks of 5 in 63 ns against 241 ns for
// eight CappedSimplex calls (BenchmarkCappedSimplexLanes8, 4096 distinct
// blocks, median of 6).
// Benchmarks that repeat one small block flatter the branchy paths by 2-3x
// (branch predictors learn the data).
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
//     a small block counts 2 passes, its O(n_b^2) insertion sort or
//     bracketing is not counted);
//   - span-coords/op: the span, the cost of the longest chain of dependent
//     block solves; the blocks are independent, so the chain is one solve
//     and the span is the largest single block's cost;
//   - parallelism: work / span, the speed-up an unbounded number of
//     workers could reach;
//   - bound-speedup: Brent's bound for the Projector's p workers,
//     work / max(work/p, span).
//
// The measured speed-up at 1, 2 and all cores is the ratio of ns/op of the
// w=1 and w=p sub-benchmarks of one run (benchstat -col /w). Measured
// for |R| = 128 servers, |L_r| = 10 (Newton passes with AVX-512):
//
//	K                  1       4      16      64
//	work            4390   17340   69260  275360 coordinate visits
//	span              60      60      70      70
//	parallelism       73     289     989    3934
//
// and for K = 6: span 4, 16, 160, 640, 5120 at |L_r| = 2, 8, 32, 128,
// 1024 (parallelism 768, 768, 562, 591, 625). The work grows linearly in
// K, the span stays at one block solve, O(|L_r|) times the few passes of
// the worst block (the maximum over more blocks adds a pass): the depth
// does not grow with K at all, which is within the paper's O(log K), and
// the speed-up is bounded by the cores, not by the span, at every size
// measured. On this 2-vCPU machine shared with other jobs (load average
// 13-15 during the runs), two goroutines get no more CPU than one
// (TestMinTimesProject: "plain goroutines speed up 0.28-0.85x"), so the
// wall-time speed-up at 2 workers cannot be measured here; run
// BenchmarkProjectSeries on a machine with idle cores.
//
// # Performance
//
// The passes of CappedSimplex run in Go assembly on amd64 in the default
// build (no GOEXPERIMENT, no cgo): AVX-512 when the CPU has AVX512F, else
// AVX2, chosen at run time with golang.org/x/sys/cpu; the build tags
// noasm or purego, or another architecture, select the pure-Go passes.
// Timed on a shared 2-vCPU AMD EPYC (load average 13-15 from other jobs,
// so medians of repeated benchmarks varied by 100% and more): minimum
// over 40-300 interleaved trials of each kernel and of copy() of the same
// data (TestMinTimesKernels, MINBENCH=1; the b.Loop benchmark with the
// same sub-benchmarks is BenchmarkCappedSimplexKernels). Data:
// z ~ U[-0.5,1.5], u ~ U[0.5,1.5], c = sum u / 4. None allocates.
//
//	n       AVX-512 (default)   AVX2              Go (-tags noasm)   copy()    before (scalar)
//	8         54 ns  18.0x      64 ns  21.3x      52 ns  17.3x        3 ns      51 ns
//	64       124 ns  17.7x     154 ns  22.0x     589 ns  84x          7 ns     550 ns
//	1Ki      796 ns  13.0x     1.84 us 30.1x     11.9 us 195x        61 ns     11.8 us
//	64Ki      65 us   6.1x      151 us 14.2x     1.00 ms  97x        10.6 us   -
//	1Mi      1.51 ms  5.6x     2.90 ms 10.7x     16.9 ms  59x        270 us    22.6 ms
//
// (ratio: to copy() in the same run; "before": the scalar passes this
// package had before the assembly, its own binary, same method.) With
// AVX-512 the projection is within 13x of the copy floor at 1Ki and 6x at
// 1Mi, 15x faster than before at both; the Go passes are as fast as
// before. Re-measured on a quiet machine (BenchmarkCappedSimplexKernels,
// -count 6, benchstat, median; 2026-11-24), AVX-512 / copy: 29.6 / 3.5 ns
// at 8 (8.6x, TinySolve), 123 / 7.5 ns at 64 (16x), 802 / 62 ns at 1Ki
// (13x), 67.8 / 7.9 us at 64Ki (8.6x), 1.54 / 0.24 ms at 1Mi (6.4x); AVX2
// 1.3x (small) to 2.3x (1Ki) the AVX-512 time, Go 1.8x to 15x. At n = 8 this benchmark repeats one block, which flatters the
// sort of the Go build (its branches are learned); on distinct blocks the
// bracketing the assembly builds use is 3x faster than the sort (see
// Method and complexity). One pass costs about 0.2 ns per coordinate in
// cache (BenchmarkPiece in package kernel); the method still needs 3-5
// passes (Newton passes, the check fused into the first, the clip).
// Blocks of 3 to 8 coordinates take TinySolve (0.16-0.70x the sort's
// time at 3 to 8 coordinates), blocks of 9 to 24 the vector Newton passes
// (0.29-0.74x with AVX-512). One OGASched-size batched projection
// (1024 x 6 blocks of 3..10 ports, TestMinTimesProject, three interleaved
// rounds): 321-343 us with AVX-512 against 671-779 us before (2.1-2.3x),
// and 726-762 us with -tags noasm; with 2 workers 281-332 us against
// 475-565 us.
//
// A GOEXPERIMENT=simd build has a fourth implementation of the kernels,
// "archsimd", written in Go with the experimental simd/archsimd package
// (Float64x8, AVX-512) for comparison with the assembly: it is never the
// default (kernel.Use selects it in the tests and benchmarks, which check it
// bit for bit like the others), and the default build does not depend on
// the experiment. CappedSimplex with it (median of 12 interleaved runs):
// 60 against 30 ns with the assembly at n = 8, 135 against 130 ns at 64,
// 1.25 against 0.82 us at 1Ki, 108 against 74 us at 64Ki, 2.07 against
// 1.65 ms at 1Mi; 10-20x faster than the Go passes. Most of the gap is
// archsimd's Max and Min, whose operand order on ties the compiler does
// not keep, so each max and min on a running extreme is a comparison and a
// blend. The details and the per-pass table are in the kernel package's
// documentation (projection/internal/kernel/doc.go).
//
// Per-slot series (|R| = 128, before the assembly): time grows linearly in
// K (fitted exponent 1.00 for K = 1..64, |L_r| = 10) and in |L_r| (0.97
// for |L_r| = 2..1024, K = 6); the paper's procedure grows as |L_r|^1.18
// (its inner loop repeats up to |L_r| times).
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
// ErrRange, wrapped with the offending index and value. CappedSimplex8
// and ProjectCappedSimplex8 follow the same rules for eight interleaved
// blocks (the error also names the block and coordinate).
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
