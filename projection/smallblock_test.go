package projection

import (
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/msched/msched/projection/internal/kernel"
)

// smallBlocks returns nb distinct random blocks of n coordinates in the
// benchmark's regime (binding capacity).
func smallBlocks(n, nb int) (z, u, c []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 99))
	z = make([]float64, n*nb)
	u = make([]float64, n*nb)
	c = make([]float64, nb)
	for b := range nb {
		s := 0.0
		for i := b * n; i < (b+1)*n; i++ {
			u[i] = 0.5 + rng.Float64()
			z[i] = 2*rng.Float64() - 0.5
			s += u[i]
		}
		c[b] = s / 4
	}
	return z, u, c
}

// BenchmarkSmallBlock times one block solve of n coordinates by each
// small-block method, over 4096 distinct blocks so that branch predictors
// cannot learn them (ns/op is per block).
func BenchmarkSmallBlock(b *testing.B) {
	methods := []struct {
		name string
		f    func(dst, z, u []float64, c float64) float64
	}{{"sort", capSmall}, {"newton", capNewton}, {"tiny", capTiny}}
	const nb = 4096
	for _, n := range []int{2, 4, 5, 6, 8, 10, 12, 16} {
		z, u, c := smallBlocks(n, nb)
		dst := make([]float64, n)
		for _, m := range methods {
			if m.name == "tiny" && n > kernel.TinyBlock() {
				continue // TinyBrackets takes 1 to 8 coordinates
			}
			b.Run(fmt.Sprintf("n=%d/method=%s", n, m.name), func(b *testing.B) {
				b.ReportAllocs()
				k := 0
				for b.Loop() {
					m.f(dst, z[k*n:(k+1)*n], u[k*n:(k+1)*n], c[k])
					k = (k + 1) & (nb - 1)
				}
			})
		}
	}
}

// TestMinTimesSmallBlock (MINBENCH=1) is BenchmarkSmallBlock as the
// minimum over many short interleaved trials (robust to a loaded machine).
func TestMinTimesSmallBlock(t *testing.T) {
	if os.Getenv("MINBENCH") == "" {
		t.Skip("set MINBENCH=1")
	}
	methods := []struct {
		name string
		f    func(dst, z, u []float64, c float64) float64
	}{{"sort", capSmall}, {"newton", capNewton}, {"tiny", capTiny}}
	const nb = 4096
	def := kernel.Impl()
	defer kernel.Use(def)
	for _, k := range kernel.Impls() {
		kernel.Use(k)
		t.Logf("kernel %s", k)
		for _, n := range []int{2, 3, 4, 5, 6, 8, 9, 10, 12, 16, 24} {
			z, u, c := smallBlocks(n, nb)
			dst := make([]float64, n)
			best := make([]time.Duration, len(methods))
			for range 40 {
				for k, m := range methods {
					if m.name == "tiny" && n > 8 {
						continue
					}
					st := time.Now()
					for b := range nb {
						m.f(dst, z[b*n:(b+1)*n], u[b*n:(b+1)*n], c[b])
					}
					if d := time.Since(st) / nb; best[k] == 0 || d < best[k] {
						best[k] = d
					}
				}
			}
			t.Logf("n=%3d  sort %6v  newton %6v  tiny %6v  newton/sort %.2f  tiny/sort %.2f", n, best[0], best[1], best[2], float64(best[1])/float64(best[0]), float64(best[2])/float64(best[0]))
		}
	}
}
