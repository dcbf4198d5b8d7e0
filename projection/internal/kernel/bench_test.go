package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func benchInput(n int) (z, u []float64) {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	z = make([]float64, n)
	u = make([]float64, n)
	for i := range z {
		u[i] = 0.5 + rng.Float64()
		z[i] = 2*rng.Float64() - 0.5
	}
	return z, u
}

// BenchmarkPiece times one pass of each kernel with each implementation
// this CPU runs (old: the scalar pass projection used before the kernels;
// copy: copy() of z, the floor), interleaved in one process.
func BenchmarkPiece(b *testing.B) {
	def := Impl()
	defer Use(def)
	for _, n := range []int{8, 64, 1 << 10, 1 << 16, 1 << 20} {
		z, u := benchInput(n)
		dst := make([]float64, n)
		for _, k := range append(Impls(), "old", "copy") {
			Use(def)
			if k != "old" && k != "copy" {
				Use(k)
			}
			b.Run(fmt.Sprintf("n=%d/kernel=%s/pass=piece", n, k), func(b *testing.B) {
				var l Lanes
				b.SetBytes(int64(16 * n))
				b.ReportAllocs()
				for b.Loop() {
					switch k {
					case "old":
						oldPieceAt(z, u, 0.4)
					case "copy":
						copy(dst, z)
					default:
						Piece(&l, z, u, 0.4)
					}
				}
			})
			if k == "old" || k == "copy" {
				continue
			}
			b.Run(fmt.Sprintf("n=%d/kernel=%s/pass=piece0", n, k), func(b *testing.B) {
				var l Lanes
				b.SetBytes(int64(16 * n))
				b.ReportAllocs()
				for b.Loop() {
					Piece0(&l, z, u)
				}
			})
			b.Run(fmt.Sprintf("n=%d/kernel=%s/pass=clip", n, k), func(b *testing.B) {
				b.SetBytes(int64(24 * n))
				b.ReportAllocs()
				for b.Loop() {
					Clip(dst, z, u, 0.4)
				}
			})
		}
	}
}
