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
package kernel
