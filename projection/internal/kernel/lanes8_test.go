package kernel

import (
	"encoding/binary"
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

// FuzzTinySolve8 runs TinySolve8 with every implementation on eight blocks
// of n = 1..8 coordinates decoded from data (raw float64 bits: NaN, ±Inf,
// negative u and all), and compares each block with TinySolve's Go
// reference bit for bit; invalid input must be refused without a write.
func FuzzTinySolve8(f *testing.F) {
	enc := func(vals ...float64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(1, 2, 3, 0.5, 2, 2, 1, 1, 0, 0, 5, 5, 4, 4, 3, 3), uint8(3), 1.5)
	f.Add(enc(1e300, 1e300, -1e300, 0, 5e-324, 1e-300, 1, 1, math.Copysign(0, -1), 2), uint8(8), 0.0)
	f.Add(enc(math.NaN(), 1, 2, math.Inf(1), -1, 3), uint8(5), 2.0)
	f.Fuzz(func(t *testing.T, data []byte, nb uint8, c0 float64) {
		n := 1 + int(nb%8)
		vals := make([]float64, 16*n+8)
		for i := range vals {
			if 8*i+8 <= len(data) {
				vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
			} else if len(data) > 0 {
				vals[i] = float64(data[i%len(data)]) / 16
			}
		}
		z, u := vals[:8*n], vals[8*n:16*n]
		var c [8]float64
		for b := range c {
			c[b] = math.Abs(vals[16*n+b]) + math.Abs(c0)*float64(b)
			if !(c[b] >= 0) {
				c[b] = 1
			}
		}
		var wantY [64]float64
		var wantTau [8]float64
		valid := true
		for b := 0; b < 8 && valid; b++ {
			var zb, ub, yb [8]float64
			for i := 0; i < n; i++ {
				zb[i], ub[i] = z[8*i+b], u[8*i+b]
			}
			var r Tiny
			tinySolveGo(&r, yb[:n], zb[:n], ub[:n], c[b])
			valid = r.State >= 0
			wantTau[b] = r.Tau
			for i := 0; i < n; i++ {
				wantY[8*i+b] = yb[i]
			}
		}
		forEachImpl(t, func(t *testing.T) {
			dst, intact := guarded(8*n, 1)
			var tau [8]float64
			if ok := TinySolve8(dst, z, u, &c, &tau, n); ok != valid {
				t.Fatalf("ok %v, want %v", ok, valid)
			}
			if !intact() {
				t.Fatal("a write outside dst")
			}
			for i := range dst {
				if !valid {
					if math.Float64bits(dst[i]) != 0x7ff8dead0000beef {
						t.Fatal("dst written on invalid input")
					}
				} else if !same(dst[i], wantY[i]) {
					t.Fatalf("dst[%d] = %v, want %v", i, dst[i], wantY[i])
				}
			}
			for b := range tau {
				if valid && !same(tau[b], wantTau[b]) {
					t.Fatalf("tau[%d] = %v, want %v", b, tau[b], wantTau[b])
				}
			}
		})
	})
}
