// Package kernel holds the inner passes of projection.CappedSimplex: one
// pass that finds the linear piece of phi(t) = sum_i clip(z_i - t, 0, u_i)
// around a trial point t (Piece), the same pass at t = 0 fused with the
// input check and max z (Piece0), the final clip (Clip), and, for blocks
// of 1 to 8 coordinates, a sort-free bracket of the root (TinyBrackets),
// the whole solve in one call (TinySolve: bracket, root of the piece,
// clip), and the whole solve of eight such blocks at once, one per lane
// of a zmm register (TinySolve8; its AVX-512 kernel is lanes8_amd64.s).
// SmallBlock and TinyBlock give projection.CappedSimplex the block sizes
// at which its method changes for the implementation in use; Impl, Impls
// and Use name and switch the implementations (for tests and benchmarks).
//
// Each kernel's doc comment is its reference loop. On amd64 the kernels are
// written in Go assembly (stubs_amd64.go declares them, piece_amd64.s
// implements them) in two versions chosen at run time with
// golang.org/x/sys/cpu: AVX-512 (AVX512F, 8 float64 lanes in one zmm
// register) and AVX2 (two ymm registers). The pure-Go version in generic.go
// (with unrolled.go) is the fallback on other architectures and with the
// build tags noasm or purego (stubs_noasm.go), and the reference the tests
// compare every path against: bit for bit, on random and adversarial data
// (ties, signed zeros, huge, tiny and subnormal magnitudes, lengths 0 to
// 70 and longer, unaligned slices, guard cells around dst), and in
// FuzzKernels.
//
// # Lanes and determinism
//
// The sums are accumulated in 8 lanes, coordinate i in lane i % 8, in the
// same order by every implementation, and the lanes are combined by one
// fixed tree in Go (Lanes.Reduce). So the assembly versions and the Go
// version return bit-for-bit the same results on every input that
// satisfies the kernels' preconditions, and so do CappedSimplex's Newton
// passes and TinyBrackets on every CPU and build (which method
// CappedSimplex picks for a block of 3 to 24 coordinates does depend on
// the implementation: SmallBlock, TinyBlock). Counts, minima and maxima do
// not depend on the order; Reduce turns a -0 extreme into +0.
//
// The AVX-512 versions handle the last len(z) % 8 coordinates with masked
// loads and stores (masked-off lanes read as a coordinate that changes no
// accumulator); the AVX2 versions take whole chunks of 8 coordinates and
// the Go loop adds the rest into the same lanes (TinyBrackets loads its
// at most 8 coordinates with VMASKMOVPD). The assembly clears the upper
// AVX state (VZEROUPPER) before returning.
//
// TinySolve8 does not reduce across lanes at all: each lane is a block,
// and every sum TinySolve forms across a block's coordinates (phi(0), phi
// at a key, the sum of the piece at its midpoint) is formed across the
// eight coordinate vectors in the same order, with +0 vectors in the
// places of the lanes beyond n. So each lane gets TinySolve's result bit
// for bit (TestTinySolve8MatchesTinySolve, FuzzTinySolve8).
//
// # The archsimd implementation
//
// A fourth implementation, "archsimd", writes the five kernels in Go with
// the experimental package simd/archsimd (Float64x8, one zmm register of 8
// lanes; archsimd_amd64.go). It exists only when the experiment is on:
//
//	GOEXPERIMENT=simd go test ./projection/...
//
// and needs a CPU for which archsimd.X86.AVX512() is true. It is a
// comparison implementation: Impls lists it after avx512 and avx2, so it is
// never the default, and Use("archsimd") selects it; the default build
// (archsimd_off_amd64.go), -tags noasm and other architectures do not
// depend on the experiment and do not contain it. It has the lanes, the
// masked tails and the operations of the AVX-512 assembly, so every test
// and FuzzKernels compare it bit for bit with the Go reference (subtests
// named archsimd). There is no Float64x4 (AVX2) version.
//
// Two things the assembly does had to be spelled out. archsimd's Max and
// Min cannot express the kernels' ties: the compiler treats them as
// commutative (its SSA ops are marked so, and CSE may swap the operands),
// so which operand VMAXPD and VMINPD return on ±0 ties and NaN is not
// fixed by the source. Every max and min whose ties show is therefore a
// comparison and a Merge (acc = x > acc ? x : acc, which keeps the old
// value on ties as the Go loops and the assembly do); on the Left and
// Right accumulators that puts a compare-to-mask and a blend on the
// loop-carried chain instead of one VMAXPD: Piece at n = 1Ki took 342
// against 192 ns for the assembly, and 224 against 192 ns with Max and Min
// (whose ±0 lanes are then not guaranteed) in one interleaved run. And the
// compiler emits no VZEROUPPER: without archsimd.ClearAVXUpperBits at the
// end of each kernel, Go's scalar float code after the call ran slower (a
// Newton solve of 2 to 24 coordinates, TestMinTimesSmallBlock: 147-247 ns
// against 97-153 ns with the assembly; with it 98-156 ns).
//
// Measured with BenchmarkPiece (ns per pass, median of 12 runs of
// -benchtime 0.4s in two batches of 6, the implementations interleaved;
// benchstat; a shared 2-vCPU AMD EPYC (Zen 5 class) with another job
// benchmarking, so the spread is ±10-80%; z ~ U[-0.5,1.5], u ~
// U[0.5,1.5], t = 0.4):
//
//	n       pass    avx512 (asm)  archsimd          go
//	8       piece       10.2        10.6   ~          40.9
//	8       piece0      13.1        14.7  +13%        52.1
//	8       clip         6.8         6.5   ~           9.9
//	64      piece       17.1        23.2  +35%       237
//	64      piece0      22.3        27.9  +25%       322
//	64      clip         9.5        10.7  +12%        70.7
//	1Ki     piece      198         330    +67%      3518
//	1Ki     piece0     233         350    +50%      4387
//	1Ki     clip        60.1        97.4  +62%      1186
//	64Ki    piece    14.0 us     21.4 us  +53%     279 us
//	64Ki    piece0   15.1 us     24.0 us  +59%     368 us
//	64Ki    clip     16.6 us     17.0 us   ~       103 us
//	1Mi     piece     270 us      394 us  +46%    4196 us
//	1Mi     piece0    292 us      419 us  +44%    5331 us
//	1Mi     clip      539 us      510 us   ~      2146 us
//
// ("~": no significant difference, p > 0.05.) The whole projection
// (projection.BenchmarkCappedSimplexKernels, same runs), avx512 / archsimd
// / go: 30 / 60 / 59 ns at n = 8 (TinySolve), 130 / 135 / 660 ns at 64,
// 818 / 1252 / 12788 ns at 1Ki, 74 / 108 / 1183 us at 64Ki and
// 1.65 / 2.07 / 22.2 ms at 1Mi. TinySolve alone over 4096 distinct blocks
// (TestMinTimesSmallBlock): 22-27 ns with the assembly, 39-52 ns with
// archsimd, 46-240 ns in Go, at 2 to 8 coordinates. So archsimd is 10-20x
// faster than the Go loops and 1.3-1.7x slower than the assembly on the
// passes with accumulators out of the first cache level; Clip, without
// loop-carried state, is within noise of the assembly except at 1Ki.
package kernel
