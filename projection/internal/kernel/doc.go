// Package kernel holds the inner passes of projection.CappedSimplex: one
// pass that finds the linear piece of phi(t) = sum_i clip(z_i - t, 0, u_i)
// around a trial point t (Piece), the same pass at t = 0 fused with the
// input check and max z (Piece0), the final clip (Clip), and, for blocks
// of 1 to 8 coordinates, a sort-free bracket of the root (TinyBrackets).
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
// at most 8 coordinates with VMASKMOVPD). The assembly clears the upper AVX state (VZEROUPPER) before returning.
//
// # The archsimd implementation
//
// A fourth implementation, "archsimd", writes Piece, Piece0 and Clip in Go
// with the experimental package simd/archsimd (Float64x8, one zmm register
// of 8 lanes; archsimd_amd64.go). It exists only when the experiment is on:
//
//	GOEXPERIMENT=simd go test ./projection/...
//
// and needs a CPU for which archsimd.X86.AVX512() is true. It is a
// comparison implementation: Impls lists it after avx512 and avx2, so it is
// never the default, and Use("archsimd") selects it; the default build
// (archsimd_off_amd64.go), -tags noasm and other architectures do not
// depend on the experiment and do not contain it. It has the lanes, the
// masked tail and the operations of the AVX-512 assembly, so every test and
// FuzzKernels compare it bit for bit with the Go reference (subtests named
// archsimd). TinyBrackets and TinySolve, for which it has no code of its
// own, run the AVX-512 assembly; there is no Float64x4 (AVX2) version.
//
// archsimd's Max and Min cannot express the kernels' ties: the compiler
// treats them as commutative (its SSA ops are marked so, and CSE may swap
// the operands), so which operand VMAXPD and VMINPD return on ±0 ties and
// NaN is not fixed by the source. Every max and min is therefore a
// comparison and a Merge (acc = x > acc ? x : acc, which keeps the old
// value on ties as the Go loops and the assembly do). On the Left and
// Right accumulators that puts a compare-to-mask and a blend on the
// loop-carried chain instead of one VMAXPD: Piece at n = 1Ki took 342 ns
// against 192 ns for the assembly; with Max and Min (whose ±0 lanes are
// then not guaranteed) it took 224 against 192 ns in one interleaved run.
//
// Measured with BenchmarkPiece (ns per pass, median of 6 interleaved runs
// of -benchtime 0.4s, benchstat; a shared 2-vCPU AMD EPYC with another job
// benchmarking, so the spread is ±5-60%; z ~ U[-0.5,1.5], u ~ U[0.5,1.5],
// t = 0.4):
//
//	n       pass    avx512 (asm)  archsimd          go
//	8       piece       10.3        15.0  +46%        39.9
//	8       piece0      13.1        15.9  +21%        49.0
//	8       clip         6.9         6.0   ~           9.2
//	64      piece       16.2        32.4  +100%      231
//	64      piece0      19.8        28.6  +45%       283
//	64      clip         9.5        10.2   ~          69.0
//	1Ki     piece      192         343    +79%      3543
//	1Ki     piece0     237         353    +49%      4226
//	1Ki     clip        61.8       101    +63%      1136
//	64Ki    piece    13.0 us     21.5 us  +65%     269 us
//	64Ki    piece0   15.2 us     22.4 us  +47%     329 us
//	64Ki    clip     16.4 us     17.2 us   ~       102 us
//	1Mi     piece     264 us      381 us  +44%    4121 us
//	1Mi     piece0    292 us      391 us  +34%    5299 us
//	1Mi     clip      438 us      508 us   ~      2390 us
//
// ("~": no significant difference, p > 0.05.) The whole projection
// (projection.BenchmarkCappedSimplexKernels, same runs): 31 / 30 / 58 ns at
// n = 8 (the tiny path: AVX-512 assembly for both), 125 / 200 / 673 ns at
// 64, 809 / 1326 / 13461 ns at 1Ki, 72 / 107 / 1229 us at 64Ki and
// 1.74 / 2.07 / 21.5 ms at 1Mi (avx512 / archsimd / go). So archsimd is
// 10-20x faster than the Go loops and 1.3-1.8x slower than the assembly
// on the passes with accumulators; Clip, without loop-carried state, is
// within noise of the assembly except in cache at 1Ki.
package kernel
