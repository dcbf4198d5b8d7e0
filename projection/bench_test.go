package projection

import (
	"fmt"
	"math/rand/v2"
	"runtime"
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
	work, span := workSpan(zs[0], u, bs)
	p := NewProjector(workers)
	defer p.Close()
	for b.Loop() {
		p.Project(dst, zs[it%len(zs)], u, bs, tau)
		it++
	}
	reportWorkSpan(b, work, span, p.Workers())
}

// workSpan measures the batched projection of z in coordinate visits: the
// work is the sum over blocks of n_b times the number of O(n_b) passes its
// solve makes (a small block counts 2: the collecting pass and the clip;
// its O(n^2) sort or bracketing is not counted), and the span is the largest
// such cost of one block: the blocks are independent, so the longest chain
// of dependent block solves is a single solve. It runs the solves serially
// with the package's pass counter (not for concurrent use).
func workSpan(z, u []float64, bs Blocks) (work, span float64) {
	defer func() { passCounter = nil }()
	dst := make([]float64, len(z))
	for b := range bs.NumBlocks() {
		lo, hi := bs.Offsets[b], bs.Offsets[b+1]
		n := hi - lo
		passes := 2
		if n > kernel.SmallBlock() {
			cnt := 0
			passCounter = &cnt
			capNewton(dst[lo:hi], z[lo:hi], u[lo:hi], bs.Caps[b])
			passes = 2 + cnt
		}
		cost := float64(n * passes)
		work += cost
		span = max(span, cost)
	}
	return work, span
}

// reportWorkSpan adds the work and span of one batched projection to a
// benchmark's metrics (see doc.go, "Work and span"): work and span in
// coordinate visits, their ratio (the parallelism: the speed-up an
// unbounded number of workers could reach), and the speed-up Brent's bound
// allows the Projector's worker count p, work / max(work/p, span).
func reportWorkSpan(b *testing.B, work, span float64, p int) {
	b.ReportMetric(work, "work-coords/op")
	b.ReportMetric(span, "span-coords/op")
	if span > 0 {
		b.ReportMetric(work/span, "parallelism")
		b.ReportMetric(work/max(work/float64(p), span), "bound-speedup")
	}
}

// One OGASched slot at Table II scale: |R| K = 1024 x 6 (r,k) blocks of
// |L_r| in [3, 10].
func BenchmarkProjectBlocks1024x6Workers1(b *testing.B) { benchmarkBlocks(b, 1, 1024*6, 3, 10) }
func BenchmarkProjectBlocks1024x6Workers2(b *testing.B) { benchmarkBlocks(b, 2, 1024*6, 3, 10) }

// seriesWorkers is 1, 2 and every core (GOMAXPROCS, if above 2), then 0
// for the paper's serial procedure.
func seriesWorkers() []int {
	ws := []int{1, 2}
	if p := runtime.GOMAXPROCS(0); p > 2 {
		ws = append(ws, p)
	}
	return append(ws, 0)
}

// BenchmarkProjectSeries is one full per-slot projection for |R| = 128
// servers, K resource types and |L_r| ports per server: exact with 1, 2
// and all workers (w=1, w=2, w=GOMAXPROCS when above 2; the worker count
// is the innermost name so that benchstat -col /w shows the speed-ups of
// one run), and the paper's procedure serially (w=paper). Each exact run
// reports work and span (see reportWorkSpan and doc.go). The paper claims
// O(|L| log(K sum_l |R_l|)) time per slot with the (r,k) blocks in
// parallel; here the work is O(|R| K |L_r|) and the span, one block solve,
// O(|L_r|) whatever K.
func BenchmarkProjectSeries(b *testing.B) {
	const servers = 128
	run := func(name string, nb, l int) {
		for _, w := range seriesWorkers() {
			wn := fmt.Sprint(w)
			if w == 0 {
				wn = "paper"
			}
			b.Run(fmt.Sprintf("%s/w=%s", name, wn), func(b *testing.B) {
				benchmarkBlocks(b, w, nb, l, l)
			})
		}
	}
	for _, k := range []int{1, 4, 16, 64} {
		run(fmt.Sprintf("K=%d/L=10", k), servers*k, 10)
	}
	for _, l := range []int{2, 8, 32, 128, 1024} {
		run(fmt.Sprintf("K=6/L=%d", l), servers*6, l)
	}
}
