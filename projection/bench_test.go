package projection

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/projection/internal/kernel"
)

// benchData is one block in the OGASched regime: z = y + step with y
// feasible, bounds u ~ U[0.5, 1.5], capacity a quarter of sum u, so the
// sum constraint binds and coordinates end capped, free and zero.
func benchData(n int) (z, u []float64, c float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	z = make([]float64, n)
	u = make([]float64, n)
	sumU := 0.0
	for i := range z {
		u[i] = 0.5 + rng.Float64()
		z[i] = 2*rng.Float64() - 0.5
		sumU += u[i]
	}
	return z, u, sumU / 4
}

func benchmarkKernel(b *testing.B, n int, f func(dst, z, u []float64, c float64) float64) {
	z, u, c := benchData(n)
	dst := make([]float64, n)
	b.SetBytes(int64(16 * n))
	b.ReportAllocs()
	for b.Loop() {
		f(dst, z, u, c)
	}
}

func copyFloor(dst, z, _ []float64, _ float64) float64 {
	copy(dst, z)
	return 0
}

// BenchmarkCappedSimplexKernels runs CappedSimplex with every
// implementation of its passes this CPU runs (kernel=avx512, avx2, go;
// go is what -tags noasm builds) and copy() of the same data (kernel=copy,
// the floor), interleaved in one process so that the ratios hold on a
// loaded machine.
func BenchmarkCappedSimplexKernels(b *testing.B) {
	def := kernel.Impl()
	defer kernel.Use(def)
	for _, n := range []int{8, 64, 1 << 10, 1 << 16, 1 << 20} {
		for _, k := range append(kernel.Impls(), "copy") {
			b.Run(fmt.Sprintf("n=%d/kernel=%s", n, k), func(b *testing.B) {
				if k == "copy" {
					benchmarkKernel(b, n, copyFloor)
					return
				}
				kernel.Use(k)
				defer kernel.Use(def)
				benchmarkKernel(b, n, CappedSimplex)
			})
		}
	}
}

func BenchmarkCappedSimplex8(b *testing.B)        { benchmarkKernel(b, 8, CappedSimplex) }
func BenchmarkCappedSimplex64(b *testing.B)       { benchmarkKernel(b, 64, CappedSimplex) }
func BenchmarkCappedSimplex1Ki(b *testing.B)      { benchmarkKernel(b, 1<<10, CappedSimplex) }
func BenchmarkCappedSimplex1Mi(b *testing.B)      { benchmarkKernel(b, 1<<20, CappedSimplex) }
func BenchmarkCappedSimplexSort8(b *testing.B)    { benchmarkKernel(b, 8, CappedSimplexSort) }
func BenchmarkCappedSimplexSort64(b *testing.B)   { benchmarkKernel(b, 64, CappedSimplexSort) }
func BenchmarkCappedSimplexSort1Ki(b *testing.B)  { benchmarkKernel(b, 1<<10, CappedSimplexSort) }
func BenchmarkCappedSimplexSort1Mi(b *testing.B)  { benchmarkKernel(b, 1<<20, CappedSimplexSort) }
func BenchmarkCappedSimplexPaper8(b *testing.B)   { benchmarkKernel(b, 8, CappedSimplexPaper) }
func BenchmarkCappedSimplexPaper64(b *testing.B)  { benchmarkKernel(b, 64, CappedSimplexPaper) }
func BenchmarkCappedSimplexPaper1Ki(b *testing.B) { benchmarkKernel(b, 1<<10, CappedSimplexPaper) }
func BenchmarkCappedSimplexPaper1Mi(b *testing.B) { benchmarkKernel(b, 1<<20, CappedSimplexPaper) }
func BenchmarkCappedSimplexCopy8(b *testing.B)    { benchmarkKernel(b, 8, copyFloor) }
func BenchmarkCappedSimplexCopy64(b *testing.B)   { benchmarkKernel(b, 64, copyFloor) }
func BenchmarkCappedSimplexCopy1Ki(b *testing.B)  { benchmarkKernel(b, 1<<10, copyFloor) }
func BenchmarkCappedSimplexCopy1Mi(b *testing.B)  { benchmarkKernel(b, 1<<20, copyFloor) }

// benchmarkBlocks projects nb blocks of size in [lo, hi] per iteration;
// workers = 0 runs CappedSimplexPaper serially over the blocks instead.
// Like OGASched's z(t+1), the data changes from call to call: it cycles
// through enough random z vectors that at least 8192 distinct blocks are
// seen, so branch predictors cannot memorise a small instance.
func benchmarkBlocks(b *testing.B, workers, nb, lo, hi int) {
	rng := rand.New(rand.NewPCG(uint64(nb), uint64(hi)))
	bs := Blocks{Offsets: []int{0}}
	var u []float64
	for range nb {
		n := lo + rng.IntN(hi-lo+1)
		sumU := 0.0
		for range n {
			v := 0.5 + rng.Float64()
			u = append(u, v)
			sumU += v
		}
		bs.Offsets = append(bs.Offsets, len(u))
		bs.Caps = append(bs.Caps, sumU/4)
	}
	zs := make([][]float64, max(1, 8192/nb))
	for j := range zs {
		zs[j] = make([]float64, len(u))
		for i := range zs[j] {
			zs[j][i] = 2*rng.Float64() - 0.5
		}
	}
	dst := make([]float64, len(u))
	tau := make([]float64, nb)
	b.SetBytes(int64(16 * len(u)))
	b.ReportAllocs()
	it := 0
	if workers == 0 {
		for b.Loop() {
			z := zs[it%len(zs)]
			it++
			for k := range nb {
				lo, hi := bs.Offsets[k], bs.Offsets[k+1]
				tau[k] = CappedSimplexPaper(dst[lo:hi], z[lo:hi], u[lo:hi], bs.Caps[k])
			}
		}
		return
	}
	p := NewProjector(workers)
	defer p.Close()
	for b.Loop() {
		p.Project(dst, zs[it%len(zs)], u, bs, tau)
		it++
	}
}

// One OGASched slot at Table II scale: |R| K = 1024 x 6 (r,k) blocks of
// |L_r| in [3, 10].
func BenchmarkProjectBlocks1024x6Workers1(b *testing.B) { benchmarkBlocks(b, 1, 1024*6, 3, 10) }
func BenchmarkProjectBlocks1024x6Workers2(b *testing.B) { benchmarkBlocks(b, 2, 1024*6, 3, 10) }

// BenchmarkProjectSeries is one full per-slot projection for |R| = 128
// servers, K resource types and |L_r| ports per server: exact with 1 and 2
// workers, and the paper's procedure serially (w=paper). The paper claims
// O(|L| log(K sum_l |R_l|)) per slot with the (r,k) blocks in parallel;
// the exact method is O(|R| K |L_r|) total work.
func BenchmarkProjectSeries(b *testing.B) {
	const servers = 128
	for _, w := range []int{1, 2, 0} {
		name := fmt.Sprint(w)
		if w == 0 {
			name = "paper"
		}
		for _, k := range []int{1, 4, 16, 64} {
			b.Run(fmt.Sprintf("w=%s/K=%d/L=10", name, k), func(b *testing.B) {
				benchmarkBlocks(b, w, servers*k, 10, 10)
			})
		}
		for _, l := range []int{2, 8, 32, 128, 1024} {
			b.Run(fmt.Sprintf("w=%s/K=6/L=%d", name, l), func(b *testing.B) {
				benchmarkBlocks(b, w, servers*6, l, l)
			})
		}
	}
}
