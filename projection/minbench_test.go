package projection

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/msched/msched/projection/internal/kernel"
)

// TestMinTimes (MINBENCH=1) times kernels as the minimum over many short
// trials, interleaved, which is robust to a loaded machine.
func TestMinTimes(t *testing.T) {
	if os.Getenv("MINBENCH") == "" {
		t.Skip("set MINBENCH=1")
	}
	kernels := []struct {
		name string
		f    func(dst, z, u []float64, c float64) float64
	}{{"exact", CappedSimplex}, {"sort", CappedSimplexSort}, {"paper", CappedSimplexPaper}, {"copy", copyFloor}}
	for _, n := range []int{8, 16, 24, 32, 48, 64, 1 << 10, 1 << 20} {
		z, u, c := benchData(n)
		dst := make([]float64, n)
		reps := max(1, (1<<14)/n)
		best := make([]time.Duration, len(kernels))
		for trial := 0; trial < 200 && (n < 1<<20 || trial < 15); trial++ {
			for k, kr := range kernels {
				if n > 1<<12 && kr.name == "paper" {
					continue
				}
				st := time.Now()
				for range reps {
					kr.f(dst, z, u, c)
				}
				d := time.Since(st) / time.Duration(reps)
				if best[k] == 0 || d < best[k] {
					best[k] = d
				}
			}
		}
		t.Logf("n=%8d exact %10v sort %10v paper %10v copy %10v  exact/sort %.2f exact/copy %.1f", n, best[0], best[1], best[2], best[3],
			float64(best[0])/float64(best[1]), float64(best[0])/float64(best[3]))
	}
}

// TestMinTimesProject (MINBENCH=1) times one OGASched-size batched
// projection (1024 x 6 blocks of 3..10) per worker count.
func TestMinTimesProject(t *testing.T) {
	if os.Getenv("MINBENCH") == "" {
		t.Skip("set MINBENCH=1")
	}
	rng := rand.New(rand.NewPCG(1024*6, 10))
	z, u, bs := randomBlocks(rng, 1024*6, 3, 10)
	dst := make([]float64, len(z))
	tau := make([]float64, bs.NumBlocks())
	for _, w := range []int{1, 2} {
		p := NewProjector(w)
		best := time.Hour
		for range 200 {
			st := time.Now()
			p.Project(dst, z, u, bs, tau)
			best = min(best, time.Since(st))
		}
		p.Close()
		t.Logf("workers %d: %v per Project (%d blocks, %d coordinates)", w, best, bs.NumBlocks(), len(z))
	}
	// What the machine gives two goroutines at all: the same work twice,
	// one after the other and concurrently.
	work := func(dst []float64) {
		for range 10 {
			projectRange(dst, z, u, bs, nil, 0, bs.NumBlocks())
		}
	}
	dst2 := make([]float64, len(z))
	st := time.Now()
	work(dst)
	work(dst2)
	serial := time.Since(st)
	st = time.Now()
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { work(dst); wg.Done() }()
	go func() { work(dst2); wg.Done() }()
	wg.Wait()
	t.Logf("GOMAXPROCS %d: plain goroutines speed up %.2fx", runtime.GOMAXPROCS(0), float64(serial)/float64(time.Since(st)))
}

// TestMinTimesKernels (MINBENCH=1) times CappedSimplex with every kernel
// implementation this CPU runs and copy() of the same data, as the
// minimum over many short interleaved trials, and logs the ratios to
// copy (the numbers in doc.go's Performance section).
func TestMinTimesKernels(t *testing.T) {
	if os.Getenv("MINBENCH") == "" {
		t.Skip("set MINBENCH=1")
	}
	def := kernel.Impl()
	defer kernel.Use(def)
	names := append(kernel.Impls(), "copy")
	for _, n := range []int{8, 64, 1 << 10, 1 << 16, 1 << 20} {
		z, u, c := benchData(n)
		dst := make([]float64, n)
		reps := max(1, (1<<15)/n)
		best := make([]time.Duration, len(names))
		for trial := 0; trial < 300 && (n < 1<<16 || trial < 40); trial++ {
			for k, name := range names {
				f := CappedSimplex
				if name == "copy" {
					f = copyFloor
				} else {
					kernel.Use(name)
				}
				st := time.Now()
				for range reps {
					f(dst, z, u, c)
				}
				if d := time.Since(st) / time.Duration(reps); best[k] == 0 || d < best[k] {
					best[k] = d
				}
			}
		}
		line := fmt.Sprintf("n=%8d", n)
		for k, name := range names {
			line += fmt.Sprintf("  %s %9v (%5.1fx copy)", name, best[k], float64(best[k])/float64(best[len(names)-1]))
		}
		t.Log(line)
	}
}
