package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refPiece is the reference loop of Piece's doc comment.
func refPiece(z, u []float64, t float64) Lanes {
	var l Lanes
	for j := range 8 {
		l.Left[j], l.Right[j] = math.Inf(-1), math.Inf(1)
		l.ZMax[j] = math.Inf(-1)
	}
	for i := range z {
		j := i % 8
		switch v := z[i] - t; {
		case v > 0 && v < u[i]:
			l.Sum[j] += z[i]
			l.Free[j]++
			if b := z[i] - u[i]; b > l.Left[j] {
				l.Left[j] = b
			}
			if z[i] < l.Right[j] {
				l.Right[j] = z[i]
			}
		case v > 0:
			l.Sum[j] += u[i]
			if b := z[i] - u[i]; b < l.Right[j] {
				l.Right[j] = b
			}
		default:
			if z[i] > l.Left[j] {
				l.Left[j] = z[i]
			}
		}
	}
	return l
}

// refPiece0 is the reference loop of Piece0's doc comment.
func refPiece0(z, u []float64) Lanes {
	l := refPiece(z, u, 0)
	for i := range z {
		j := i % 8
		l.Chk[j] += (z[i] - z[i]) + (u[i] - u[i])
		l.UMin[j] = min(l.UMin[j], u[i])
		if z[i] > l.ZMax[j] {
			l.ZMax[j] = z[i]
		}
	}
	return l
}

// same reports whether a and b are equal bit for bit.
func same(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

// forEachImpl runs f with every implementation this CPU runs.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	old := implName
	defer func() {
		for _, im := range impls {
			if im.name == old {
				use(im)
			}
		}
	}()
	ran := 0
	for _, im := range impls {
		if !im.ok {
			t.Logf("%s: not supported by this CPU, skipped", im.name)
			continue
		}
		use(im)
		ran++
		t.Run(im.name, f)
	}
	if ran == 0 {
		t.Fatal("no implementation ran")
	}
}

// guarded returns a slice of length n at offset off inside a buffer whose
// other elements hold a sentinel NaN, and a check that they still do.
func guarded(n, off int) (v []float64, intact func() bool) {
	const guard = 9
	sentinel := math.Float64frombits(0x7ff8dead0000beef)
	whole := make([]float64, off+n+guard)
	for i := range whole {
		whole[i] = sentinel
	}
	v = whole[off : off+n : off+n]
	return v, func() bool {
		for i, x := range whole {
			if (i < off || i >= off+n) && math.Float64bits(x) != 0x7ff8dead0000beef {
				return false
			}
		}
		return true
	}
}

// value draws one finite value from a mix of ordinary, tied, zero, huge,
// tiny and subnormal magnitudes.
func value(rng *rand.Rand, pool []float64) float64 {
	switch rng.IntN(10) {
	case 0:
		return 0
	case 1:
		return math.Copysign(0, -1)
	case 2:
		if len(pool) > 0 {
			return pool[rng.IntN(len(pool))] // a tie
		}
		return 1
	case 3:
		return (rng.Float64() - 0.3) * 1e15
	case 4:
		return (rng.Float64() - 0.3) * 1e-300
	case 5:
		return (rng.Float64() - 0.3) * 5e-324 * float64(rng.IntN(100))
	case 6:
		return float64(rng.IntN(5) - 1) // small integers: exact ties
	default:
		return 2*rng.Float64() - 0.5
	}
}

// instance is one input of the kernels, with its trial point.
type instance struct {
	z, u []float64
	t    float64
}

func randomInstance(rng *rand.Rand, n int) instance {
	z := make([]float64, n)
	u := make([]float64, n)
	for i := range z {
		z[i] = value(rng, z[:i])
		u[i] = math.Abs(value(rng, u[:i]))
		if rng.IntN(7) == 0 {
			u[i] = math.Copysign(0, -1) // -0 passes u >= 0
		}
	}
	in := instance{z: z, u: u}
	switch k := rng.IntN(4); {
	case k == 0 || n == 0:
		in.t = 0
	case k == 1:
		in.t = z[rng.IntN(n)] // t on a breakpoint
	case k == 2:
		i := rng.IntN(n)
		in.t = z[i] - u[i]
	default:
		in.t = value(rng, z)
	}
	return in
}

func instances(t testing.TB) []instance {
	rng := rand.New(rand.NewPCG(15, 1))
	var out []instance
	for n := 0; n <= 70; n++ {
		for range 20 {
			out = append(out, randomInstance(rng, n))
		}
	}
	for _, n := range []int{127, 128, 129, 1000, 1023, 4099} {
		out = append(out, randomInstance(rng, n))
	}
	return out
}

// copyAt copies x into a guarded slice at offset off.
func copyAt(x []float64, off int) (v []float64, intact func() bool) {
	v, intact = guarded(len(x), off)
	copy(v, x)
	return v, intact
}

func checkLanes(t *testing.T, name string, got, want *Lanes) {
	t.Helper()
	gs, gm, gl, gr := got.Reduce()
	ws, wm, wl, wr := want.Reduce()
	if !same(gs, ws) || gm != wm || !same(gl, wl) || !same(gr, wr) {
		t.Fatalf("%s: Reduce = (%v, %d, %v, %v), reference (%v, %d, %v, %v)", name, gs, gm, gl, gr, ws, wm, wl, wr)
	}
	for j := range 8 {
		if !same(got.Sum[j], want.Sum[j]) {
			t.Fatalf("%s: Sum lane %d = %v, reference %v", name, j, got.Sum[j], want.Sum[j])
		}
	}
}

func TestPieceMatchesReference(t *testing.T) {
	ins := instances(t)
	forEachImpl(t, func(t *testing.T) {
		for k, in := range ins {
			for _, off := range []int{0, 1, 3} {
				z, zok := copyAt(in.z, off)
				u, uok := copyAt(in.u, off+2)
				want := refPiece(in.z, in.u, in.t)
				var got Lanes
				Piece(&got, z, u, in.t)
				name := fmt.Sprintf("case %d n=%d off=%d t=%v", k, len(in.z), off, in.t)
				checkLanes(t, name, &got, &want)
				want0 := refPiece0(in.z, in.u)
				var got0 Lanes
				Piece0(&got0, z, u)
				checkLanes(t, name+" Piece0", &got0, &want0)
				gz, gok := got0.Reduce0()
				wz, wok := want0.Reduce0()
				if !same(gz, wz) || gok != wok || !gok {
					t.Fatalf("%s: Reduce0 = (%v, %v), reference (%v, %v)", name, gz, gok, wz, wok)
				}
				if !zok() || !uok() {
					t.Fatalf("%s: input buffers changed", name)
				}
			}
		}
	})
}

// TestPiece0Check puts one invalid value (NaN, ±Inf, negative u) at every
// position, tails included.
func TestPiece0Check(t *testing.T) {
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	forEachImpl(t, func(t *testing.T) {
		for n := 1; n <= 40; n++ {
			for i := range n {
				for k, b := range append(bad, -1e-300) {
					z := make([]float64, n)
					u := make([]float64, n)
					for j := range z {
						z[j], u[j] = float64(j%5)-1, 1
					}
					if k < len(bad) && i%2 == 0 {
						z[i] = b
					} else {
						u[i] = b
					}
					var l Lanes
					Piece0(&l, z, u)
					if _, ok := l.Reduce0(); ok {
						t.Fatalf("n=%d: %v at %d not caught (z=%v u=%v)", n, b, i, z, u)
					}
				}
			}
		}
	})
}

func TestClipMatchesReference(t *testing.T) {
	ins := instances(t)
	forEachImpl(t, func(t *testing.T) {
		for k, in := range ins {
			tau := math.Abs(in.t)
			want := make([]float64, len(in.z))
			for i := range want {
				want[i] = min(max(in.z[i]-tau, 0), in.u[i])
			}
			for _, off := range []int{0, 1, 5} {
				z, _ := copyAt(in.z, off)
				u, _ := copyAt(in.u, 0)
				dst, intact := guarded(len(in.z), off+1)
				Clip(dst, z, u, tau)
				if !intact() {
					t.Fatalf("case %d n=%d: Clip wrote outside dst", k, len(in.z))
				}
				for i := range want {
					if !same(dst[i], want[i]) {
						t.Fatalf("case %d n=%d: dst[%d] = %v, reference %v", k, len(in.z), i, dst[i], want[i])
					}
				}
				// In place, dst = z and dst = u.
				Clip(z, z, u, tau)
				for i := range want {
					if !same(z[i], want[i]) {
						t.Fatalf("case %d: in place on z: dst[%d] = %v, want %v", k, i, z[i], want[i])
					}
				}
				copy(z, in.z)
				Clip(u, z, u, tau)
				for i := range want {
					if !same(u[i], want[i]) {
						t.Fatalf("case %d: in place on u: dst[%d] = %v, want %v", k, i, u[i], want[i])
					}
				}
			}
		}
	})
}

// TestKernelsAllocateNothing checks the kernels on every implementation.
func TestKernelsAllocateNothing(t *testing.T) {
	in := randomInstance(rand.New(rand.NewPCG(1, 1)), 100)
	dst := make([]float64, 100)
	t.Logf("implementation in use: %s", Impl())
	forEachImpl(t, func(t *testing.T) {
		var l Lanes
		if a := testing.AllocsPerRun(100, func() {
			Piece(&l, in.z, in.u, 0.5)
			Piece0(&l, in.z, in.u)
			Clip(dst, in.z, in.u, 0.5)
		}); a != 0 {
			t.Errorf("%v allocations per run", a)
		}
	})
}

func TestShortSlicesPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"Piece":  func() { Piece(new(Lanes), make([]float64, 9), make([]float64, 8), 0) },
		"Piece0": func() { Piece0(new(Lanes), make([]float64, 9), make([]float64, 8)) },
		"Clip u": func() { Clip(make([]float64, 9), make([]float64, 9), make([]float64, 8), 0) },
		"Clip d": func() { Clip(make([]float64, 8), make([]float64, 9), make([]float64, 9), 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on a short slice", name)
				}
			}()
			f()
		}()
	}
}

// tinyRef runs the Go version of TinyBrackets (the reference loop).
func tinyRef(z, u []float64, c float64) Tiny {
	var r Tiny
	tinyGo(&r, z, u, c)
	return r
}

func sameTiny(a, b Tiny) bool {
	if a.State != b.State {
		return false
	}
	switch a.State {
	case 0:
		return same(a.Phi0, b.Phi0)
	case 1:
		return same(a.Phi0, b.Phi0) && same(a.Lo, b.Lo) && same(a.Hi, b.Hi)
	}
	return true
}

// checkTinySolve compares TinySolve with the Go reference (tinySolveGo):
// the Tiny record (Tau included) and dst bit for bit, nothing written
// outside dst, dst untouched on invalid input, and dst aliasing z and u.
func checkTinySolve(t *testing.T, k int, z0, u0 []float64, c float64) {
	t.Helper()
	n := len(z0)
	var want Tiny
	wantY := make([]float64, n)
	tinySolveGo(&want, wantY, slices.Clone(z0), slices.Clone(u0), c)
	for _, off := range []int{0, 5} {
		z, zok := copyAt(z0, off)
		u, uok := copyAt(u0, 7-off)
		dst, intact := guarded(n, off+2)
		var got Tiny
		TinySolve(&got, dst, z, u, c)
		if !zok() || !uok() || !intact() {
			t.Fatalf("case %d: z=%v u=%v c=%v: a write outside dst", k, z0, u0, c)
		}
		if !sameTiny(got, want) || (want.State >= 0 && !same(got.Tau, want.Tau)) {
			t.Fatalf("case %d: z=%v u=%v c=%v: %+v, reference %+v", k, z0, u0, c, got, want)
		}
		for i := range dst {
			if want.State < 0 {
				if math.Float64bits(dst[i]) != 0x7ff8dead0000beef {
					t.Fatalf("case %d: dst written on invalid input", k)
				}
			} else if !same(dst[i], wantY[i]) {
				t.Fatalf("case %d: z=%v u=%v c=%v: dst[%d] = %v, reference %v (tau %v)", k, z0, u0, c, i, dst[i], wantY[i], want.Tau)
			}
		}
	}
	if want.State < 0 {
		return
	}
	// dst = z, then dst = u.
	z, u := slices.Clone(z0), slices.Clone(u0)
	var got Tiny
	TinySolve(&got, z, z, u, c)
	for i := range z {
		if !same(z[i], wantY[i]) {
			t.Fatalf("case %d: dst = z: dst[%d] = %v, reference %v", k, i, z[i], wantY[i])
		}
	}
	z = slices.Clone(z0)
	TinySolve(&got, u, z, u, c)
	for i := range u {
		if !same(u[i], wantY[i]) {
			t.Fatalf("case %d: dst = u: dst[%d] = %v, reference %v", k, i, u[i], wantY[i])
		}
	}
}

// TestTinySolveRoot: TinySolve's tau solves phi(tau) = c to rounding when
// the capacity binds, and its dst is feasible.
func TestTinySolveRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	forEachImpl(t, func(t *testing.T) {
		for range 5000 {
			n := 1 + rng.IntN(8)
			z, u := make([]float64, n), make([]float64, n)
			sumU := 0.0
			for i := range z {
				z[i], u[i] = 4*rng.Float64()-1, 2*rng.Float64()
				sumU += u[i]
			}
			c := sumU * rng.Float64()
			dst := make([]float64, n)
			var r Tiny
			TinySolve(&r, dst, z, u, c)
			if r.State < 0 {
				t.Fatalf("valid input rejected: z=%v u=%v", z, u)
			}
			sum, scale := 0.0, c
			for i, y := range dst {
				if y < 0 || y > u[i] {
					t.Fatalf("dst[%d] = %v outside [0, %v]", i, y, u[i])
				}
				sum += y
				scale = max(scale, math.Abs(z[i]), u[i])
			}
			if r.State == 1 && math.Abs(sum-c) > 1e-12*float64(n)*scale {
				t.Fatalf("z=%v u=%v c=%v: sum %v != c (tau %v)", z, u, c, sum, r.Tau)
			}
			if r.State == 0 && (sum > c || r.Tau != 0) {
				t.Fatalf("z=%v u=%v c=%v: not binding but sum %v, tau %v", z, u, c, sum, r.Tau)
			}
		}
	})
}

// TestTinyBracketsMatchesReference compares every implementation with the
// reference loop on blocks of 1 to 8 coordinates (ties, zeros, huge and
// tiny magnitudes, capacities at and around the breakpoints' phi values,
// invalid values), and checks the bracket: lo < hi unless the block is
// degenerate, no key strictly inside.
func TestTinyBracketsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	type tc struct {
		z, u []float64
		c    float64
	}
	var cases []tc
	for range 20000 {
		in := randomInstance(rng, 1+rng.IntN(8))
		var c float64
		switch rng.IntN(4) {
		case 0:
			c = 0
		case 1:
			c = math.Abs(value(rng, in.u))
		case 2:
			// c equal to phi at a breakpoint.
			x := in.z[rng.IntN(len(in.z))]
			for j := range in.z {
				c += min(max(in.z[j]-x, 0), in.u[j])
			}
		default:
			for j := range in.u {
				c += in.u[j] * rng.Float64()
			}
		}
		if rng.IntN(50) == 0 {
			bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1}
			i := rng.IntN(len(in.z))
			if b := bad[rng.IntN(4)]; rng.IntN(2) == 0 && b != -1 {
				in.z[i] = b
			} else {
				in.u[i] = b
			}
		}
		cases = append(cases, tc{in.z, in.u, c})
	}
	forEachImpl(t, func(t *testing.T) {
		for k, in := range cases {
			checkTinySolve(t, k, in.z, in.u, in.c)
			for _, off := range []int{0, 3} {
				z, _ := copyAt(in.z, off)
				u, _ := copyAt(in.u, 7-off)
				var got Tiny
				TinyBrackets(&got, z, u, in.c)
				want := tinyRef(in.z, in.u, in.c)
				if !sameTiny(got, want) {
					t.Fatalf("case %d: z=%v u=%v c=%v: %+v, reference %+v", k, in.z, in.u, in.c, got, want)
				}
				if got.State == 1 {
					zmax := math.Inf(-1)
					for _, v := range in.z {
						zmax = max(zmax, v)
					}
					if !(got.Lo >= 0 && got.Lo < got.Hi && got.Hi <= zmax) {
						t.Fatalf("case %d: z=%v u=%v c=%v: bracket [%v, %v] not inside [0, max z = %v]", k, in.z, in.u, in.c, got.Lo, got.Hi, zmax)
					}
					for i := range in.z {
						for _, x := range []float64{in.z[i], in.z[i] - in.u[i]} {
							if got.Lo < x && x < got.Hi {
								t.Fatalf("case %d: key %v inside (%v, %v)", k, x, got.Lo, got.Hi)
							}
						}
					}
				}
			}
		}
	})
}
