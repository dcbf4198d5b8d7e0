package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// lanes8Case draws eight blocks of n coordinates in the interleaved layout,
// each from the generator of the TinyBrackets tests (ties, ±0, subnormal
// and huge magnitudes, u = -0), with capacities 0, at a breakpoint's phi,
// a fraction of sum u, or huge; sometimes one invalid value.
func lanes8Case(rng *rand.Rand, n int) (z, u []float64, c [8]float64) {
	z, u = make([]float64, 8*n), make([]float64, 8*n)
	for b := 0; b < 8; b++ {
		in := randomInstance(rng, n)
		for i := 0; i < n; i++ {
			z[8*i+b], u[8*i+b] = in.z[i], in.u[i]
		}
		switch rng.IntN(5) {
		case 0:
			c[b] = 0
		case 1:
			x := in.z[rng.IntN(n)]
			for j := range in.z {
				c[b] += min(max(in.z[j]-x, 0), in.u[j])
			}
		case 2:
			c[b] = math.Inf(1)
		default:
			for j := range in.u {
				c[b] += in.u[j] * rng.Float64()
			}
		}
	}
	if rng.IntN(40) == 0 {
		bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
		i := rng.IntN(8 * n)
		if rng.IntN(2) == 0 {
			z[i] = bad[rng.IntN(3)]
		} else if rng.IntN(2) == 0 {
			u[i] = bad[rng.IntN(3)]
		} else {
			u[i] = -1
		}
	}
	return z, u, c
}

// TestTinySolve8MatchesTinySolve: every implementation gives, block by
// block, TinySolve's multiplier and projection bit for bit (the Go
// reference of TinySolve on the block copied out), rejects invalid input
// without writing, works in place (dst = z, dst = u) and writes nothing
// outside dst.
func TestTinySolve8MatchesTinySolve(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 88))
	forEachImpl(t, func(t *testing.T) {
		for k := 0; k < 20000; k++ {
			n := 1 + rng.IntN(8)
			z, u, c := lanes8Case(rng, n)
			var wantY [64]float64
			var wantTau [8]float64
			valid := true
			for b := 0; b < 8; b++ {
				var zb, ub, yb [8]float64
				for i := 0; i < n; i++ {
					zb[i], ub[i] = z[8*i+b], u[8*i+b]
				}
				var r Tiny
				tinySolveGo(&r, yb[:n], zb[:n], ub[:n], c[b])
				if r.State < 0 {
					valid = false
					break
				}
				wantTau[b] = r.Tau
				for i := 0; i < n; i++ {
					wantY[8*i+b] = yb[i]
				}
			}
			zc, zok := copyAt(z, k%5)
			uc, uok := copyAt(u, 4-k%5)
			dst, intact := guarded(8*n, 3)
			var tau [8]float64
			ok := TinySolve8(dst, zc, uc, &c, &tau, n)
			if !zok() || !uok() || !intact() {
				t.Fatalf("case %d: a write outside dst", k)
			}
			if ok != valid {
				t.Fatalf("case %d: n=%d z=%v u=%v c=%v: ok %v, want %v", k, n, z, u, c, ok, valid)
			}
			if !valid {
				for _, v := range dst {
					if math.Float64bits(v) != 0x7ff8dead0000beef {
						t.Fatalf("case %d: dst written on invalid input", k)
					}
				}
				continue
			}
			for b := range tau {
				if !same(tau[b], wantTau[b]) {
					t.Fatalf("case %d: n=%d block %d: z=%v u=%v c=%v: tau %v, want %v", k, n, b, z, u, c[b], tau[b], wantTau[b])
				}
			}
			for i := range dst {
				if !same(dst[i], wantY[i]) {
					t.Fatalf("case %d: n=%d dst[%d] (block %d) = %v, want %v (tau %v)", k, n, i, i%8, dst[i], wantY[i], wantTau[i%8])
				}
			}
			if k%7 == 0 {
				zz, uu := slices.Clone(z), slices.Clone(u)
				TinySolve8(zz, zz, uu, &c, &tau, n)
				TinySolve8(uu, z, uu, &c, &tau, n)
				for i := range zz {
					if !same(zz[i], wantY[i]) || !same(uu[i], wantY[i]) {
						t.Fatalf("case %d: in place: %v, %v, want %v", k, zz[i], uu[i], wantY[i])
					}
				}
			}
		}
	})
}
