package projection

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCappedSimplex8MatchesCappedSimplex: eight interleaved blocks get
// CappedSimplex's multipliers and projections bit for bit, for every n
// from 1 to 8 (the lane kernel for 3..8 with AVX-512, block by block
// otherwise), capacities binding or not, ties and zeros; invalid input
// panics like CappedSimplex, with dst untouched.
func TestCappedSimplex8MatchesCappedSimplex(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 8))
	for k := 0; k < 20000; k++ {
		n := 1 + rng.IntN(8)
		z, u := make([]float64, 8*n), make([]float64, 8*n)
		var c, tau [8]float64
		for i := range z {
			switch rng.IntN(6) {
			case 0:
				z[i] = float64(rng.IntN(3)) // ties
			case 1:
				z[i] = math.Copysign(0, -1)
			default:
				z[i] = 4*rng.Float64() - 1
			}
			u[i] = float64(rng.IntN(3)) * rng.Float64()
		}
		for b := range c {
			c[b] = 3 * rng.Float64() * float64(rng.IntN(3))
		}
		dst := make([]float64, 8*n)
		CappedSimplex8(dst, z, u, &c, &tau)
		for b := 0; b < 8; b++ {
			zb, ub, yb := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				zb[i], ub[i] = z[8*i+b], u[8*i+b]
			}
			want := CappedSimplex(yb, zb, ub, c[b])
			require.Equal(t, math.Float64bits(want), math.Float64bits(tau[b]), "case %d n %d block %d tau", k, n, b)
			for i := 0; i < n; i++ {
				require.Equal(t, math.Float64bits(yb[i]), math.Float64bits(dst[8*i+b]), "case %d n %d block %d coordinate %d", k, n, b, i)
			}
		}
	}
}

func TestCappedSimplex8Panics(t *testing.T) {
	var c, tau [8]float64
	z, u, dst := make([]float64, 40), make([]float64, 40), make([]float64, 40)
	for _, f := range []func(){
		func() { CappedSimplex8(dst[:39], z[:39], u[:39], &c, &tau) },
		func() { CappedSimplex8(dst[:72], make([]float64, 72), make([]float64, 72), &c, &tau) },
		func() { CappedSimplex8(dst[:0], z[:0], u[:0], &c, &tau) },
		func() { CappedSimplex8(dst[:16], z[:24], u[:24], &c, &tau) },
		func() {
			cc := c
			cc[3] = math.NaN()
			CappedSimplex8(dst, z, u, &cc, &tau)
		},
		func() {
			zz := make([]float64, 40)
			zz[17] = math.Inf(1)
			for i := range dst {
				dst[i] = 7
			}
			defer func() {
				for _, v := range dst {
					require.Equal(t, 7.0, v, "dst written before the panic")
				}
			}()
			CappedSimplex8(dst, zz, u, &c, &tau)
		},
		func() {
			uu := make([]float64, 40)
			uu[5] = -1
			CappedSimplex8(dst, z, uu, &c, &tau)
		},
	} {
		require.Panics(t, f)
	}
}

// BenchmarkCappedSimplexLanes8 compares one CappedSimplex8 call with eight
// CappedSimplex calls on the same blocks (n = 5, OGASched's median),
// cycling through 4096 distinct random binding blocks.
func BenchmarkCappedSimplexLanes8(b *testing.B) {
	const n, groups = 5, 512
	z, u, cs := smallBlocks(n, 8*groups)
	zi, ui := make([]float64, len(z)), make([]float64, len(u))
	for g := 0; g < groups; g++ {
		for bl := 0; bl < 8; bl++ {
			for i := 0; i < n; i++ {
				zi[g*8*n+8*i+bl] = z[(g*8+bl)*n+i]
				ui[g*8*n+8*i+bl] = u[(g*8+bl)*n+i]
			}
		}
	}
	dst := make([]float64, 8*n)
	var tau [8]float64
	b.Run("lanes8", func(b *testing.B) {
		b.ReportAllocs()
		g := 0
		for b.Loop() {
			c := (*[8]float64)(cs[g*8 : g*8+8])
			CappedSimplex8(dst, zi[g*8*n:(g+1)*8*n], ui[g*8*n:(g+1)*8*n], c, &tau)
			g = (g + 1) % groups
		}
	})
	b.Run("8xCappedSimplex", func(b *testing.B) {
		b.ReportAllocs()
		g := 0
		for b.Loop() {
			for bl := 0; bl < 8; bl++ {
				k := g*8 + bl
				CappedSimplex(dst[:n], z[k*n:(k+1)*n], u[k*n:(k+1)*n], cs[k])
			}
			g = (g + 1) % groups
		}
	})
}
