package projection

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCappedSimplex8MatchesCappedSimplex: eight interleaved blocks get
// CappedSimplex's multipliers and projections bit for bit, and satisfy the
// KKT conditions of their blocks, for every n
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
			// And the projection itself: the KKT conditions of the block.
			if msg := checkKKT(instance{zb, ub, c[b]}, yb, tau[b], 1e-9); msg != "" {
				t.Fatalf("case %d n %d block %d: %s", k, n, b, msg)
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

// ProjectCappedSimplex8 names the block, coordinate and value of bad data
// and leaves dst and tau alone; on good data it is CappedSimplex8.
func TestProjectCappedSimplex8Errors(t *testing.T) {
	var c [8]float64
	for b := range c {
		c[b] = 1
	}
	good := func() (z, u []float64) {
		z, u = make([]float64, 24), make([]float64, 24)
		for i := range z {
			z[i], u[i] = float64(i%5)/2, 1
		}
		return z, u
	}
	for _, tc := range []struct {
		name string
		edit func(z, u []float64, c *[8]float64) ([]float64, []float64)
		want error
		msg  string
	}{
		{"length", func(z, u []float64, c *[8]float64) ([]float64, []float64) { return z[:20], u[:20] }, ErrLength, "z 20"},
		{"too long", func(z, u []float64, c *[8]float64) ([]float64, []float64) {
			return make([]float64, 72), make([]float64, 72)
		}, ErrLength, "z 72"},
		{"NaN z", func(z, u []float64, c *[8]float64) ([]float64, []float64) { z[13] = math.NaN(); return z, u }, ErrNaN, "z index 13 (block 5, coordinate 1)"},
		{"Inf u", func(z, u []float64, c *[8]float64) ([]float64, []float64) { u[2] = math.Inf(1); return z, u }, ErrInf, "u index 2 (block 2, coordinate 0)"},
		{"negative u", func(z, u []float64, c *[8]float64) ([]float64, []float64) { u[22] = -1; return z, u }, ErrNegativeCap, "index 22 (block 6, coordinate 2)"},
		{"huge z", func(z, u []float64, c *[8]float64) ([]float64, []float64) { z[0] = 1e308; return z, u }, ErrRange, "z index 0"},
		{"negative c", func(z, u []float64, c *[8]float64) ([]float64, []float64) { c[4] = -2; return z, u }, ErrNegativeCapacity, "c[4] = -2"},
		{"NaN c", func(z, u []float64, c *[8]float64) ([]float64, []float64) { c[7] = math.NaN(); return z, u }, ErrNaN, "c[7]"},
	} {
		z, u := good()
		cc := c
		z, u = tc.edit(z, u, &cc)
		dst := make([]float64, len(z))
		for i := range dst {
			dst[i] = 7
		}
		tau := [8]float64{9, 9, 9, 9, 9, 9, 9, 9}
		err := ProjectCappedSimplex8(dst, z, u, &cc, &tau)
		require.ErrorIs(t, err, tc.want, tc.name)
		require.Contains(t, err.Error(), tc.msg, tc.name)
		for _, v := range dst {
			require.Equal(t, 7.0, v, tc.name)
		}
		require.Equal(t, [8]float64{9, 9, 9, 9, 9, 9, 9, 9}, tau, tc.name)
	}
	z, u := good()
	dst, want := make([]float64, 24), make([]float64, 24)
	var tau, wantTau [8]float64
	require.NoError(t, ProjectCappedSimplex8(dst, z, u, &c, &tau))
	CappedSimplex8(want, z, u, &c, &wantTau)
	require.Equal(t, want, dst)
	require.Equal(t, wantTau, tau)
}

// FuzzProjectCappedSimplex8: any bytes give an error or CappedSimplex's
// projection of every block, never a panic.
func FuzzProjectCappedSimplex8(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, nb uint8) {
		n := int(nb % 10) // 0 and 9 are length errors
		vals := make([]float64, 16*n+8)
		for i := range vals {
			if 8*i+8 <= len(data) {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			} else if len(data) > 0 {
				vals[i] = float64(data[i%len(data)]) - 64
			}
		}
		z, u := vals[:8*n], vals[8*n:16*n]
		var c, tau [8]float64
		copy(c[:], vals[16*n:])
		dst := make([]float64, 8*n)
		if err := ProjectCappedSimplex8(dst, z, u, &c, &tau); err != nil {
			return
		}
		for b := 0; b < 8; b++ {
			zb, ub, yb := make([]float64, n), make([]float64, n), make([]float64, n)
			for i := 0; i < n; i++ {
				zb[i], ub[i] = z[8*i+b], u[8*i+b]
			}
			want := CappedSimplex(yb, zb, ub, c[b])
			if math.Float64bits(want) != math.Float64bits(tau[b]) {
				t.Fatalf("block %d: tau %v, want %v", b, tau[b], want)
			}
			for i := 0; i < n; i++ {
				if math.Float64bits(yb[i]) != math.Float64bits(dst[8*i+b]) {
					t.Fatalf("block %d coordinate %d: %v, want %v", b, i, dst[8*i+b], yb[i])
				}
			}
		}
	})
}
