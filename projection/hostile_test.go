package projection

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runBounded runs f and fails the test if it does not return (normally or
// by a panic) within a generous deadline: every loop of the package must be
// bounded whatever the input.
func runBounded(t *testing.T, name string, f func()) (panicked any) {
	t.Helper()
	done := make(chan any, 1)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	select {
	case v := <-done:
		return v
	case <-time.After(20 * time.Second):
		t.Fatalf("%s did not return: an unbounded loop", name)
		return nil
	}
}

func hostileInputs() []struct {
	name string
	z, u []float64
	c    float64
} {
	nan, inf := math.NaN(), math.Inf(1)
	var cases []struct {
		name string
		z, u []float64
		c    float64
	}
	for _, n := range []int{1, 3, 8, 12, 30} { // sort, tiny (3, 8), sort or Newton (12), Newton
		mk := func(v float64) []float64 {
			s := make([]float64, n)
			for i := range s {
				s[i] = v * float64(i%3+1)
			}
			return s
		}
		for _, tc := range []struct {
			name string
			z, u []float64
			c    float64
		}{
			{"NaN z", append(mk(1)[:n-1], nan), mk(1), 1},
			{"NaN u", mk(2), append(mk(1)[:n-1], nan), 1},
			{"NaN c", mk(2), mk(1), nan},
			{"+Inf z", append(mk(1)[:n-1], inf), mk(1), 1},
			{"-Inf z", append(mk(1)[:n-1], -inf), mk(1), 1},
			{"±Inf z", append(mk(1)[:n-1], inf, -inf)[1:], mk(1), 1},
			{"+Inf u", mk(2), append(mk(1)[:n-1], inf), 1},
			{"+Inf c", mk(2), mk(1), inf},
			{"-Inf c", mk(2), mk(1), -inf},
			{"negative u", mk(2), mk(-1), 1},
			{"negative c", mk(2), mk(1), -1},
			{"huge z", mk(math.MaxFloat64 / 2), mk(math.MaxFloat64 / 3), 1},
			{"huge -z", mk(-math.MaxFloat64 / 2), mk(1), 1},
			{"huge c", mk(1e300), mk(1e300), math.MaxFloat64},
			{"subnormal", mk(5e-324), mk(5e-324), 5e-324},
		} {
			tc.name = fmt.Sprintf("%s n=%d", tc.name, n)
			cases = append(cases, tc)
		}
	}
	return cases
}

// Every kernel, with every implementation of the passes, returns or panics
// (the raw kernels' documented behaviour on invalid data) in bounded time on NaN, ±Inf and extreme magnitudes; the
// validating wrappers return an error for every invalid case, never panic,
// and leave dst untouched. CappedSimplexPaper looped forever on a NaN.
func TestKernelsBoundedOnHostileInput(t *testing.T) {
	forEachKernel(t, func(impl string) { testKernelsBoundedOnHostileInput(t) })
}

func testKernelsBoundedOnHostileInput(t *testing.T) {
	kernels := map[string]func(dst, z, u []float64, c float64) float64{
		"CappedSimplex":      CappedSimplex,
		"CappedSimplexPaper": CappedSimplexPaper,
		"CappedSimplexSort":  CappedSimplexSort,
		"capNewton":          capNewton,
		"capTiny": func(dst, z, u []float64, c float64) float64 {
			if len(z) < 1 || len(z) > 8 || !(c >= 0) {
				return 0 // its caller CappedSimplex checks n and c
			}
			return capTiny(dst, z, u, c)
		},
	}
	for _, tc := range hostileInputs() {
		valid := checkProjectInput(tc.z, tc.z, tc.u, tc.c, false) == nil
		for name, k := range kernels {
			dst := make([]float64, len(tc.z))
			if name == "capNewton" && !(tc.c >= 0) {
				continue // its caller CappedSimplex checks c
			}
			v := runBounded(t, name+" "+tc.name, func() { k(dst, tc.z, tc.u, tc.c) })
			if valid {
				assert.Nil(t, v, "%s %s: valid input panicked", name, tc.name)
			}
			if v != nil {
				assert.Contains(t, fmt.Sprint(v), "projection: ", "%s %s: panic message is prefixed", name, tc.name)
			}
		}
		for name, w := range map[string]func(dst, z, u []float64, c float64) (float64, error){
			"ProjectCappedSimplex":      ProjectCappedSimplex,
			"ProjectCappedSimplexPaper": ProjectCappedSimplexPaper,
		} {
			dst := make([]float64, len(tc.z))
			for i := range dst {
				dst[i] = 42
			}
			var err error
			v := runBounded(t, name+" "+tc.name, func() { _, err = w(dst, tc.z, tc.u, tc.c) })
			require.Nil(t, v, "%s %s panicked", name, tc.name)
			if valid := checkProjectInput(tc.z, tc.z, tc.u, tc.c, name == "ProjectCappedSimplex") == nil; !valid {
				require.Error(t, err, "%s %s", name, tc.name)
				for i := range dst {
					require.Equal(t, 42.0, dst[i], "%s %s: dst written on error", name, tc.name)
				}
			} else {
				require.NoError(t, err, "%s %s", name, tc.name)
			}
		}
	}
}

// The paper's procedure panics, documented and prefixed, on the inputs on
// which it used to loop forever or return NaN.
func TestCappedSimplexPaperPanicsOnInvalid(t *testing.T) {
	dst := make([]float64, 2)
	assert.PanicsWithValue(t, "projection: CappedSimplexPaper z[1] = NaN", func() {
		CappedSimplexPaper(dst, []float64{1, math.NaN()}, []float64{1, 1}, 1)
	})
	assert.PanicsWithValue(t, "projection: CappedSimplexPaper capacity c = NaN", func() {
		CappedSimplexPaper(dst, []float64{1, 2}, []float64{1, 1}, math.NaN())
	})
	assert.PanicsWithValue(t, "projection: CappedSimplexPaper u[0] = -1", func() {
		CappedSimplexPaper(dst, []float64{1, 2}, []float64{-1, 1}, 1)
	})
	_, err := ProjectCappedSimplexPaper(dst, []float64{1, math.NaN()}, []float64{1, 1}, 1)
	require.ErrorIs(t, err, ErrNaN)
	// On valid input the wrapper is the kernel.
	z, u := []float64{3, 1, 0.5}, []float64{1, 2, 2}
	want := make([]float64, 3)
	wantTau := CappedSimplexPaper(want, z, u, 2)
	got := make([]float64, 3)
	tau, err := ProjectCappedSimplexPaper(got, z, u, 2)
	require.NoError(t, err)
	assert.Equal(t, wantTau, tau)
	assert.Equal(t, want, got)
}

// A hostile worker count is capped, not allocated: the queue is sized by
// the capped count and results are unchanged.
func TestNewProjectorHugeWorkers(t *testing.T) {
	for _, w := range []int{-1 << 62, 0, 1, MaxWorkers, MaxWorkers + 1, 1e9, math.MaxInt} {
		p := NewProjector(w)
		assert.Equal(t, min(max(1, w), MaxWorkers), p.Workers(), "workers=%d", w)
		z := []float64{3, 1, 2, 5}
		dst := make([]float64, 4)
		tau := make([]float64, 2)
		p.Project(dst, z, []float64{1, 1, 1, 1}, Blocks{Offsets: []int{0, 2, 4}, Caps: []float64{1, 1}}, tau)
		assert.Equal(t, []float64{1, 0, 0, 1}, dst, "workers=%d", w)
		p.Close()
	}
}

// TestProjectCappedSimplex8Nil is issue 22 class 4: the validating entry
// point returns ErrNil for a nil c or tau and ErrLength for nil slices,
// where it panicked; the raw kernel documents its panic.
func TestProjectCappedSimplex8Nil(t *testing.T) {
	var c, tau [8]float64
	z := make([]float64, 8)
	for _, tc := range []struct {
		dst, z, u []float64
		c, tau    *[8]float64
		want      error
	}{
		{nil, nil, nil, &c, &tau, ErrLength},
		{z, z, z, nil, &tau, ErrNil},
		{z, z, z, &c, nil, ErrNil},
		{nil, nil, nil, nil, nil, ErrNil},
	} {
		require.NotPanics(t, func() {
			require.ErrorIs(t, ProjectCappedSimplex8(tc.dst, tc.z, tc.u, tc.c, tc.tau), tc.want)
		})
	}
	require.PanicsWithValue(t, "projection: CappedSimplex8 with a nil c or tau", func() { CappedSimplex8(z, z, z, nil, &tau) })
}

// TestProjectCappedSimplexInfiniteCapacity: c = +Inf means no sum
// constraint in ProjectCappedSimplex as in CappedSimplex (the box
// projection clip(z, 0, u), the same bits), and is rejected by the paper's
// wrapper, whose procedure would fill an infinite capacity.
func TestProjectCappedSimplexInfiniteCapacity(t *testing.T) {
	z := []float64{-1, 0.5, 3, 7}
	u := []float64{1, 1, 2, 10}
	want := make([]float64, len(z))
	wantTau := CappedSimplex(want, z, u, math.Inf(1))
	require.Equal(t, []float64{0, 0.5, 2, 7}, want)
	got := make([]float64, len(z))
	tau, err := ProjectCappedSimplex(got, z, u, math.Inf(1))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, wantTau, tau)
	_, err = ProjectCappedSimplex(got, z, u, math.Inf(-1))
	require.ErrorIs(t, err, ErrInf)
	_, err = ProjectCappedSimplexPaper(got, z, u, math.Inf(1))
	require.ErrorIs(t, err, ErrInf)
}

// TestProjectCappedSimplex8InfiniteCapacity: a block with c[b] = +Inf gets
// CappedSimplex's box projection bit for bit, in the validating wrapper as
// in the kernel.
func TestProjectCappedSimplex8InfiniteCapacity(t *testing.T) {
	forEachKernel(t, func(impl string) {
		for _, n := range []int{1, 3, 5, 8} {
			z := make([]float64, 8*n)
			u := make([]float64, 8*n)
			for i := range z {
				z[i] = float64(i%7) - 2.5
				u[i] = 1 + float64(i%3)
			}
			var c, tau [8]float64
			for b := range c {
				c[b] = float64(b + 1)
			}
			c[2], c[5] = math.Inf(1), math.Inf(1)
			got := make([]float64, len(z))
			require.NoError(t, ProjectCappedSimplex8(got, z, u, &c, &tau), "%s n=%d", impl, n)
			for b := range 8 {
				zb, ub, want := make([]float64, n), make([]float64, n), make([]float64, n)
				for i := range n {
					zb[i], ub[i] = z[8*i+b], u[8*i+b]
				}
				wt := CappedSimplex(want, zb, ub, c[b])
				for i := range n {
					require.Equal(t, math.Float64bits(want[i]), math.Float64bits(got[8*i+b]), "%s n=%d block %d coordinate %d", impl, n, b, i)
				}
				require.Equal(t, math.Float64bits(wt), math.Float64bits(tau[b]), "%s n=%d block %d tau", impl, n, b)
			}
			c[3] = math.Inf(-1)
			require.ErrorIs(t, ProjectCappedSimplex8(got, z, u, &c, &tau), ErrInf)
		}
	})
}
