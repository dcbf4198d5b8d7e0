package projection

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// instance is one capped-simplex projection problem.
type instance struct {
	z, u []float64
	c    float64
}

// scale is the magnitude KKT tolerances are relative to.
func (in instance) scale() float64 {
	s := 0.0
	for i := range in.z {
		s = max(s, math.Abs(in.z[i]), in.u[i])
	}
	if !math.IsInf(in.c, 0) {
		s = max(s, in.c)
	}
	return s
}

// checkKKT verifies the optimality conditions of y = argmin ||y-z||^2 over
// {0 <= y <= u, sum y <= c} with multiplier tau, to tol relative to the
// instance's scale: feasibility, tau >= 0, y = clip(z-tau, 0, u) and
// complementary slackness tau*(c - sum y) = 0. It returns "" if they hold.
func checkKKT(in instance, y []float64, tau, tol float64) string {
	sc := in.scale()
	if sc == 0 {
		sc = 1
	}
	eps := tol * sc
	n := len(in.z)
	if !(tau >= 0) || math.IsInf(tau, 0) {
		return "tau not a finite nonnegative number"
	}
	sum := 0.0
	for i := range n {
		if !(y[i] >= 0 && y[i] <= in.u[i]) {
			return "box violated"
		}
		want := min(max(in.z[i]-tau, 0), in.u[i])
		if math.Abs(y[i]-want) > eps {
			return "y != clip(z-tau, 0, u)"
		}
		sum += y[i]
	}
	sumTol := eps * float64(max(n, 1))
	if sum > in.c+sumTol {
		return "sum constraint violated"
	}
	if tau > eps && math.Abs(in.c-sum) > sumTol {
		return "complementary slackness violated"
	}
	return ""
}

// bisection is an independent slow solver: 200 halvings of [0, max z] on
// the non-increasing phi(tau) = sum clip(z-tau, 0, u), keeping phi(hi) <= c.
func bisection(in instance) []float64 {
	phi := func(t float64) float64 {
		s := 0.0
		for i, v := range in.z {
			s += math.Min(math.Max(v-t, 0), in.u[i])
		}
		return s
	}
	y := make([]float64, len(in.z))
	hi := 0.0
	if phi(0) > in.c {
		lo := 0.0
		for _, v := range in.z {
			hi = math.Max(hi, v)
		}
		for range 200 {
			m := lo + (hi-lo)/2
			if phi(m) > in.c {
				lo = m
			} else {
				hi = m
			}
		}
	}
	for i, v := range in.z {
		y[i] = math.Min(math.Max(v-hi, 0), in.u[i])
	}
	return y
}

// randomInstance draws one instance; the kinds cover generic data, ties,
// zero bounds and capacities, slack capacities and wide magnitudes.
func randomInstance(rng *rand.Rand, maxN int) instance {
	var n int
	switch rng.IntN(10) {
	case 0:
		n = 1
	case 1:
		n = rng.IntN(maxN + 1)
	case 2:
		n = smallN - 1 + rng.IntN(3) // around the switch to Newton passes
	case 3:
		n = 1 + rng.IntN(min(maxN, 200))
	default:
		n = 1 + rng.IntN(min(maxN, 20))
	}
	sc := math.Pow(10, float64(rng.IntN(25)-12)) // 1e-12 .. 1e12
	z := make([]float64, n)
	u := make([]float64, n)
	kind := rng.IntN(5)
	sumU := 0.0
	for i := range n {
		switch kind {
		case 0: // generic
			z[i] = sc * rng.NormFloat64()
			u[i] = sc * rng.Float64() * 2
		case 1: // ties on a small grid
			z[i] = sc * float64(rng.IntN(5)-1)
			u[i] = sc * float64(rng.IntN(3))
		case 2: // some zero bounds
			z[i] = sc * rng.NormFloat64()
			if rng.IntN(2) == 0 {
				u[i] = sc * rng.Float64()
			}
		case 3: // magnitudes mixed over 24 decades
			z[i] = math.Pow(10, float64(rng.IntN(25)-12)) * (rng.Float64()*2 - 0.5)
			u[i] = math.Pow(10, float64(rng.IntN(25)-12)) * rng.Float64()
		default: // OGASched-like: feasible y plus a gradient step
			u[i] = sc * (0.5 + rng.Float64())
			z[i] = u[i]*rng.Float64()*0.3 + sc*rng.Float64()*rng.Float64()*2
		}
		sumU += u[i]
	}
	var c float64
	switch rng.IntN(6) {
	case 0:
		c = 0
	case 1:
		c = sumU * (1 + rng.Float64())
	case 2:
		c = sumU
	case 3:
		c = math.Floor(sumU/sc*rng.Float64()) * sc
	default:
		c = sumU * rng.Float64()
	}
	return instance{z, u, c}
}

// adversarialInstances lists hand-made hard cases.
func adversarialInstances() []instance {
	ins := []instance{
		{nil, nil, 0},
		{nil, nil, 3},
		{[]float64{5}, []float64{10}, 0},
		{[]float64{5}, []float64{10}, 3},
		{[]float64{5}, []float64{1}, 3},
		{[]float64{-5}, []float64{1}, 0},
		{[]float64{5}, []float64{0}, 0},
		{[]float64{1, 1, 1, 1}, []float64{1, 1, 1, 1}, 2},
		{[]float64{1, 1, 1, 1}, []float64{0, 0, 0, 0}, 2},
		{[]float64{2, 2, 2}, []float64{1, 1, 1}, 3},
		{[]float64{2, 2, 2}, []float64{1, 1, 1}, 2.5},
		{[]float64{2, 1, 0, -1}, []float64{1, 1, 1, 1}, 1}, // z_i - u_i = z_{i+1}
		{[]float64{3, 2, 1}, []float64{1, 1, 1}, 2},        // flat phi at c
		{[]float64{3, 2, 1}, []float64{1, 1, 1}, 1},        // flat phi at c
		{[]float64{1e12, 1e-12, 1}, []float64{1e12, 1, 1e-12}, 1},
		{[]float64{1e12, 1e12 + 1, 1e12 - 1}, []float64{1e12, 1e12, 1e12}, 1e-12},
		{[]float64{1e-12, 2e-12, 3e-12}, []float64{1e-12, 1e-12, 1e-12}, 1e-12},
		{[]float64{1e-300, 2e-300}, []float64{1, 1}, 1e-300},
		{[]float64{0, 0, 0}, []float64{1, 1, 1}, 0},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, 6},
		{[]float64{1, 2, 3}, []float64{1, 2, 3}, math.Nextafter(6, 0)},
		{[]float64{0.3, 0.1, 0.2}, []float64{0.25, 0.25, 0.25}, 0.6},
		{[]float64{5, 5}, []float64{10, 10}, math.Inf(1)},
		// phi at the breakpoint -1e-5, summed in another order than
		// phi(0), rounds to c while phi(0) > c (a bracket below 0 once).
		{[]float64{2e-05, 1e-05, -1e-05, 3.0000000000000004e-05, 1e-05, 1e-05}, []float64{2e-05, 0, 1e-05, 1e-05, 1e-05, 1e-05}, 5e-05},
	}
	// Many equal breakpoints in a long block.
	for _, n := range []int{100, 3000} {
		z := make([]float64, n)
		u := make([]float64, n)
		for i := range z {
			z[i] = float64(i%7) - 2
			u[i] = float64(i % 3)
		}
		ins = append(ins, instance{z, u, float64(n) / 4}, instance{z, u, 0}, instance{z, u, 1})
	}
	return ins
}

func numCases() int {
	if testing.Short() {
		return 10_000
	}
	return 100_000
}

func TestCappedSimplexSatisfiesKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	check := func(k int, in instance) {
		t.Helper()
		y := make([]float64, len(in.z))
		tau := CappedSimplex(y, in.z, in.u, in.c)
		if msg := checkKKT(in, y, tau, 1e-9); msg != "" {
			t.Fatalf("case %d: %s\nz=%v\nu=%v\nc=%v\ny=%v tau=%v", k, msg, in.z, in.u, in.c, y, tau)
		}
		if len(in.z) == 0 {
			return
		}
		// The Newton path on every size, not only above smallN.
		tau = capNewton(y, in.z, in.u, in.c)
		if msg := checkKKT(in, y, tau, 1e-9); msg != "" {
			t.Fatalf("case %d: Newton path: %s\nz=%v\nu=%v\nc=%v\ny=%v tau=%v", k, msg, in.z, in.u, in.c, y, tau)
		}
	}
	for k, in := range adversarialInstances() {
		check(-k-1, in)
	}
	for k := range numCases() {
		check(k, randomInstance(rng, 3000))
	}
}

func TestMatchesBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	cases := adversarialInstances()
	for range numCases() / 10 {
		cases = append(cases, randomInstance(rng, 500))
	}
	for k, in := range cases {
		y := make([]float64, len(in.z))
		yn := make([]float64, len(in.z))
		CappedSimplex(y, in.z, in.u, in.c)
		if len(in.z) > 0 {
			capNewton(yn, in.z, in.u, in.c)
		}
		want := bisection(in)
		tol := 1e-9 * max(in.scale(), math.SmallestNonzeroFloat64)
		for i := range y {
			if math.Abs(y[i]-want[i]) > tol || math.Abs(yn[i]-want[i]) > tol {
				t.Fatalf("case %d: y[%d] = %v (Newton path %v), bisection %v\nz=%v\nu=%v\nc=%v", k, i, y[i], yn[i], want[i], in.z, in.u, in.c)
			}
		}
	}
}

func TestSortMatchesExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	cases := adversarialInstances()
	for range numCases() / 5 {
		cases = append(cases, randomInstance(rng, 1000))
	}
	for k, in := range cases {
		y := make([]float64, len(in.z))
		ys := make([]float64, len(in.z))
		CappedSimplex(y, in.z, in.u, in.c)
		tau := CappedSimplexSort(ys, in.z, in.u, in.c)
		if msg := checkKKT(in, ys, tau, 1e-9); msg != "" {
			t.Fatalf("case %d: sort: %s", k, msg)
		}
		tol := 1e-9 * in.scale()
		for i := range y {
			if math.Abs(y[i]-ys[i]) > tol {
				t.Fatalf("case %d: y[%d] = %v, sort %v", k, i, y[i], ys[i])
			}
		}
	}
}

// TestCappedSimplexAliasing checks dst = z and dst = u give the same
// result as a separate dst.
func TestCappedSimplexAliasing(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for k := range 2000 {
		in := randomInstance(rng, 2000)
		want := make([]float64, len(in.z))
		wt := CappedSimplex(want, in.z, in.u, in.c)
		for _, which := range []string{"z", "u"} {
			z := append([]float64(nil), in.z...)
			u := append([]float64(nil), in.u...)
			dst := z
			if which == "u" {
				dst = u
			}
			got := CappedSimplex(dst, z, u, in.c)
			if got != wt {
				t.Fatalf("case %d dst=%s: tau %v, want %v", k, which, got, wt)
			}
			for i := range want {
				if dst[i] != want[i] {
					t.Fatalf("case %d dst=%s: y[%d] = %v, want %v", k, which, i, dst[i], want[i])
				}
			}
		}
	}
}

func TestCappedSimplexPanics(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dst, z  []float64
		u       []float64
		c       float64
		message string
	}{
		{"length", make([]float64, 2), []float64{1, 2, 3}, []float64{1, 1, 1}, 1, "lengths"},
		{"nan z", make([]float64, 2), []float64{1, math.NaN()}, []float64{1, 1}, 1, "z[1] = NaN"},
		{"inf z", make([]float64, 2), []float64{math.Inf(-1), 1}, []float64{1, 1}, 1, "z[0] = -Inf"},
		{"nan u", make([]float64, 2), []float64{1, 1}, []float64{1, math.NaN()}, 1, "u[1] = NaN"},
		{"inf u", make([]float64, 2), []float64{1, 1}, []float64{math.Inf(1), 1}, 1, "u[0] = +Inf"},
		{"negative u", make([]float64, 2), []float64{1, 1}, []float64{1, -1}, 1, "u[1] = -1"},
		{"negative c", make([]float64, 2), []float64{1, 1}, []float64{1, 1}, -1, "c = -1"},
		{"nan c", make([]float64, 2), []float64{1, 1}, []float64{1, 1}, math.NaN(), "c = NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				v := recover()
				s, _ := v.(string)
				if !strings.HasPrefix(s, "projection: ") || !strings.Contains(s, tc.message) {
					t.Fatalf("panic %v, want projection: ...%s", v, tc.message)
				}
			}()
			CappedSimplex(tc.dst, tc.z, tc.u, tc.c)
		})
	}
}

func TestProjectCappedSimplexErrors(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, tc := range []struct {
		name string
		dst  []float64
		z, u []float64
		c    float64
		err  error
		text string
	}{
		{"length", make([]float64, 1), []float64{1, 2}, []float64{1, 1}, 1, ErrLength, "dst 1"},
		{"nan z", make([]float64, 2), []float64{1, nan}, []float64{1, 1}, 1, ErrNaN, "z index 1 value NaN"},
		{"inf z", make([]float64, 2), []float64{-inf, 1}, []float64{1, 1}, 1, ErrInf, "z index 0 value -Inf"},
		{"nan u", make([]float64, 2), []float64{1, 1}, []float64{nan, 1}, 1, ErrNaN, "u index 0"},
		{"inf u", make([]float64, 2), []float64{1, 1}, []float64{1, inf}, 1, ErrInf, "u index 1 value +Inf"},
		{"negative u", make([]float64, 2), []float64{1, 1}, []float64{1, -2}, 1, ErrNegativeCap, "index 1 value -2"},
		{"negative c", make([]float64, 2), []float64{1, 1}, []float64{1, 1}, -3, ErrNegativeCapacity, "c = -3"},
		{"nan c", make([]float64, 2), []float64{1, 1}, []float64{1, 1}, nan, ErrNaN, "c = NaN"},
		{"-inf c", make([]float64, 2), []float64{1, 1}, []float64{1, 1}, -inf, ErrInf, "c = -Inf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := append([]float64(nil), tc.dst...)
			_, err := ProjectCappedSimplex(dst, tc.z, tc.u, tc.c)
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.text) {
				t.Fatalf("error %v, want %v with %q", err, tc.err, tc.text)
			}
			for i := range dst {
				if dst[i] != tc.dst[i] {
					t.Fatalf("dst changed on error")
				}
			}
		})
	}
	z, u := []float64{3, 1, -1}, []float64{1, 2, 3}
	y := make([]float64, 3)
	tau, err := ProjectCappedSimplex(y, z, u, 1.5)
	if err != nil || checkKKT(instance{z, u, 1.5}, y, tau, 1e-12) != "" {
		t.Fatalf("valid input: err %v, y %v tau %v", err, y, tau)
	}
}

// randomBlocks builds nb blocks of sizes in [lo, hi] with random data.
func randomBlocks(rng *rand.Rand, nb, lo, hi int) (z, u []float64, bs Blocks) {
	bs.Offsets = []int{0}
	for range nb {
		n := lo + rng.IntN(hi-lo+1)
		sumU := 0.0
		for range n {
			z = append(z, rng.NormFloat64())
			v := rng.Float64()
			u = append(u, v)
			sumU += v
		}
		bs.Offsets = append(bs.Offsets, len(z))
		bs.Caps = append(bs.Caps, sumU*rng.Float64())
	}
	return z, u, bs
}

func TestProjectorDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	z, u, bs := randomBlocks(rng, 1500, 1, 60) // both the small and the Newton path
	want := make([]float64, len(z))
	wantTau := make([]float64, bs.NumBlocks())
	for b := range bs.NumBlocks() { // the reference: CappedSimplex block by block
		lo, hi := bs.Offsets[b], bs.Offsets[b+1]
		wantTau[b] = CappedSimplex(want[lo:hi], z[lo:hi], u[lo:hi], bs.Caps[b])
	}
	for b := range bs.NumBlocks() {
		lo, hi := bs.Offsets[b], bs.Offsets[b+1]
		in := instance{z[lo:hi], u[lo:hi], bs.Caps[b]}
		if msg := checkKKT(in, want[lo:hi], wantTau[b], 1e-9); msg != "" {
			t.Fatalf("block %d: %s", b, msg)
		}
	}
	for _, w := range []int{1, 2, 4} {
		p := NewProjector(w)
		for rep := range 3 {
			got := make([]float64, len(z))
			tau := make([]float64, bs.NumBlocks())
			p.Project(got, z, u, bs, tau)
			for i := range got {
				if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
					t.Fatalf("workers %d rep %d: y[%d] = %v, want %v", w, rep, i, got[i], want[i])
				}
			}
			for b := range tau {
				if math.Float64bits(tau[b]) != math.Float64bits(wantTau[b]) {
					t.Fatalf("workers %d: tau[%d] = %v, want %v", w, b, tau[b], wantTau[b])
				}
			}
		}
		// In place, tau discarded.
		zz := append([]float64(nil), z...)
		p.Project(zz, zz, u, bs, nil)
		for i := range zz {
			if zz[i] != want[i] {
				t.Fatalf("workers %d in place: y[%d] = %v, want %v", w, i, zz[i], want[i])
			}
		}
		p.Close()
		p.Close()
	}
}

func TestProjectorAllocatesNothing(t *testing.T) {
	if testing.CoverMode() != "" {
		t.Skip("coverage instrumentation")
	}
	rng := rand.New(rand.NewPCG(6, 6))
	z, u, bs := randomBlocks(rng, 1024*6, 3, 10)
	dst := make([]float64, len(z))
	tau := make([]float64, bs.NumBlocks())
	for _, w := range []int{1, 2} {
		p := NewProjector(w)
		p.Project(dst, z, u, bs, tau)
		if a := testing.AllocsPerRun(20, func() { p.Project(dst, z, u, bs, tau) }); a != 0 {
			t.Errorf("workers %d: %v allocations per Project", w, a)
		}
		p.Close()
	}
	big := make([]float64, 1<<14)
	bu := make([]float64, len(big))
	for i := range big {
		big[i], bu[i] = rng.NormFloat64(), rng.Float64()
	}
	out := make([]float64, len(big))
	if a := testing.AllocsPerRun(20, func() { CappedSimplex(out, big, bu, 100) }); a != 0 {
		t.Errorf("CappedSimplex: %v allocations", a)
	}
	if a := testing.AllocsPerRun(20, func() { CappedSimplexPaper(out, big, bu, 100) }); a != 0 {
		t.Errorf("CappedSimplexPaper: %v allocations", a)
	}
}

func TestProjectorPanics(t *testing.T) {
	p := NewProjector(2)
	defer p.Close()
	n := 2 * minParallel
	z := make([]float64, n)
	u := make([]float64, n)
	bs := Blocks{Offsets: []int{0, n / 2, n}, Caps: []float64{1, 1}}
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			v := recover()
			if s, _ := v.(string); !strings.HasPrefix(s, "projection: ") {
				t.Errorf("%s: panic %v", name, v)
			}
		}()
		f()
	}
	mustPanic("length", func() { p.Project(make([]float64, 3), z, u, bs, nil) })
	mustPanic("offsets", func() { p.Project(z, z, u, Blocks{Offsets: []int{0, n}, Caps: []float64{1, 1}}, nil) })
	mustPanic("order", func() { p.Project(z, z, u, Blocks{Offsets: []int{0, n, 1}, Caps: []float64{1, 1}}, nil) })
	mustPanic("tau", func() { p.Project(z, z, u, bs, make([]float64, 1)) })
	u[n-1] = math.NaN() // in the last block: a worker or the caller hits it
	mustPanic("data", func() { p.Project(make([]float64, n), z, u, bs, nil) })
	u[n-1] = 0
	u[0] = -1
	mustPanic("data first", func() { p.Project(make([]float64, n), z, u, bs, nil) })
	u[0] = 0
	p.Project(make([]float64, n), z, u, bs, nil) // still usable
	q := NewProjector(3)
	q.Close()
	mustPanic("closed", func() { q.Project(z, z, u, bs, nil) })
}
