package projection

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/projection/internal/kernel"
)

// forEachKernel runs f once per implementation of the inner passes that
// this CPU runs (AVX-512, AVX2, Go), restoring the default afterwards.
func forEachKernel(t testing.TB, f func(name string)) {
	t.Helper()
	def := kernel.Impl()
	defer kernel.Use(def)
	for _, name := range kernel.Impls() {
		if !kernel.Use(name) {
			t.Fatalf("kernel %s listed but not usable", name)
		}
		f(name)
	}
}

// TestCappedSimplexSameOnEveryKernel checks that CappedSimplex returns the
// same y and tau bit for bit with every implementation of its passes (the
// Go one is the reference), on random and adversarial instances, and that
// all of them stay within 1e-14 (relative to the instance's scale) of the
// breakpoint-sorting baseline wherever the data is of one magnitude.
func TestCappedSimplexSameOnEveryKernel(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 15))
	cases := adversarialInstances()
	for range numCases() / 10 {
		cases = append(cases, randomInstance(rng, 3000))
	}
	for _, n := range []int{25, 64, 1000, 1 << 14} {
		z, u, c := benchData(n)
		cases = append(cases, instance{z, u, c})
	}
	type result struct {
		y   []float64
		tau float64
	}
	want := make([]result, len(cases))
	if !kernel.Use("go") {
		t.Fatal("no Go kernel")
	}
	for k, in := range cases {
		y := make([]float64, len(in.z))
		want[k] = result{y, capNewtonOrSmall(y, in)}
	}
	worst := 0.0
	forEachKernel(t, func(name string) {
		for k, in := range cases {
			y := make([]float64, len(in.z))
			tau := capNewtonOrSmall(y, in)
			if math.Float64bits(tau) != math.Float64bits(want[k].tau) {
				t.Fatalf("%s: case %d (n=%d): tau = %v, Go kernel %v", name, k, len(in.z), tau, want[k].tau)
			}
			for i := range y {
				if math.Float64bits(y[i]) != math.Float64bits(want[k].y[i]) {
					t.Fatalf("%s: case %d (n=%d): y[%d] = %v, Go kernel %v", name, k, len(in.z), i, y[i], want[k].y[i])
				}
			}
		}
	})
	// The public CappedSimplex takes the same method per size with every
	// assembly kernel (sort 1-2, bracket 3-8, Newton 9+), so it agrees bit
	// for bit across them too.
	var first [][]float64
	forEachKernel(t, func(name string) {
		if name == "go" {
			return
		}
		for k, in := range cases {
			y := make([]float64, len(in.z))
			CappedSimplex(y, in.z, in.u, in.c)
			if first == nil || len(first) <= k {
				first = append(first, y)
				continue
			}
			for i := range y {
				if math.Float64bits(y[i]) != math.Float64bits(first[k][i]) {
					t.Fatalf("%s: case %d (n=%d): CappedSimplex y[%d] = %v, first assembly kernel %v", name, k, len(in.z), i, y[i], first[k][i])
				}
			}
		}
	})
	// Agreement with an independent method: sorting the breakpoints.
	for k, in := range cases {
		ys := make([]float64, len(in.z))
		CappedSimplexSort(ys, in.z, in.u, in.c)
		sc := in.scale()
		for i := range ys {
			if sc > 0 {
				worst = max(worst, math.Abs(want[k].y[i]-ys[i])/sc)
			}
		}
	}
	t.Logf("largest |y - y_sort| / scale: %.3g", worst)
	if worst > 1e-14 {
		t.Errorf("largest |y - y_sort| / scale = %.3g > 1e-14", worst)
	}
}

// capNewtonOrSmall is CappedSimplex with the method fixed by the size
// alone: Newton passes above 8 coordinates (so that the vector kernels run
// on every size the small-block path would otherwise take), the
// tiny-block bracketing from 1 to 8, which have a Go and an AVX-512
// version each.
func capNewtonOrSmall(y []float64, in instance) float64 {
	switch n := len(in.z); {
	case n > 8:
		return capNewton(y, in.z, in.u, in.c)
	case n == 0:
		return 0
	default:
		return capTiny(y, in.z, in.u, in.c)
	}
}

// TestCapTinyMatchesBisection checks the tiny-block path with every
// kernel against the KKT conditions, the bisection reference and the
// sorting path on random and adversarial blocks of 1 to 8 coordinates.
func TestCapTinyMatchesBisection(t *testing.T) {
	rng := rand.New(rand.NewPCG(16, 16))
	var cases []instance
	for _, in := range adversarialInstances() {
		if n := len(in.z); n >= 1 && n <= 8 {
			cases = append(cases, in)
		}
	}
	for len(cases) < numCases() {
		in := randomInstance(rng, 8)
		if n := len(in.z); n >= 1 && n <= 8 {
			cases = append(cases, in)
		}
	}
	forEachKernel(t, func(name string) {
		for k, in := range cases {
			y := make([]float64, len(in.z))
			tau := capTiny(y, in.z, in.u, in.c)
			if msg := checkKKT(in, y, tau, 1e-9); msg != "" {
				t.Fatalf("%s: case %d: %s\nz=%v\nu=%v\nc=%v", name, k, msg, in.z, in.u, in.c)
			}
			want := bisection(in)
			tol := 1e-9 * max(in.scale(), math.SmallestNonzeroFloat64)
			ys := make([]float64, len(in.z))
			capSmall(ys, in.z, in.u, in.c)
			for i := range y {
				if math.Abs(y[i]-want[i]) > tol || math.Abs(y[i]-ys[i]) > tol {
					t.Fatalf("%s: case %d: y[%d] = %v, bisection %v, sort %v\nz=%v\nu=%v\nc=%v", name, k, i, y[i], want[i], ys[i], in.z, in.u, in.c)
				}
			}
		}
	})
}

// TestSwitchSizesFitTheBuffers checks that every kernel's switch sizes fit
// the small paths: capSmall's stack buffers hold smallN coordinates,
// TinyBrackets at most 8.
func TestSwitchSizesFitTheBuffers(t *testing.T) {
	forEachKernel(t, func(name string) {
		if s := kernel.SmallBlock(); s < 1 || s > smallN {
			t.Errorf("%s: SmallBlock() = %d outside [1, %d]", name, s, smallN)
		}
		if s := kernel.TinyBlock(); s < 0 || s > 8 {
			t.Errorf("%s: TinyBlock() = %d outside [0, 8]", name, s)
		}
	})
}
