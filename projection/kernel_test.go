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

// capNewtonOrSmall is CappedSimplex, but forces the Newton passes on
// blocks of more than 8 coordinates so that the vector kernels run on
// every size the small-block path would otherwise take.
func capNewtonOrSmall(y []float64, in instance) float64 {
	if len(in.z) > 8 {
		return capNewton(y, in.z, in.u, in.c)
	}
	return CappedSimplex(y, in.z, in.u, in.c)
}
