package onsocmax

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

func benchP3(n int) *P3 {
	return randomP3(rand.New(rand.NewPCG(uint64(n), 1)), n, []utility.Kind{utility.Log})
}

func benchmarkWaterFill(b *testing.B, n int) {
	p := benchP3(n)
	x, work := make([]float64, n), make([]float64, n)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WaterFill(x, p, nil, work); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkALM(b *testing.B, n int) {
	p := benchP3(n)
	x := make([]float64, n)
	var a ALM
	if _, err := a.SolveP3(x, p); err != nil { // grow the workspace
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.SolveP3(x, p); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkRatio times both solvers on the same job in the same run and
// reports ALM time / water-filling time.
func benchmarkRatio(b *testing.B, n int) {
	p := benchP3(n)
	x, work := make([]float64, n), make([]float64, n)
	var a ALM
	var tw, ta time.Duration
	b.ReportAllocs()
	for b.Loop() {
		t0 := time.Now()
		WaterFill(x, p, nil, work)
		t1 := time.Now()
		a.SolveP3(x, p)
		tw += t1.Sub(t0)
		ta += time.Since(t1)
	}
	b.ReportMetric(float64(ta)/float64(tw), "alm/wf")
}

func sized(b *testing.B, f func(*testing.B, int)) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) { f(b, n) })
	}
}

// BenchmarkWaterFill is the exact per-job solver on n units (log utilities).
func BenchmarkWaterFill(b *testing.B) { sized(b, benchmarkWaterFill) }

// BenchmarkALM is Algorithm 2 on the same jobs.
func BenchmarkALM(b *testing.B) { sized(b, benchmarkALM) }

// BenchmarkRatio reports ALM time / water-filling time on the same job.
func BenchmarkRatio(b *testing.B) { sized(b, benchmarkRatio) }

// BenchmarkDefaultDay runs OnSocMax (water-filling) over one default day
// of Section IV-A, slot by slot, reusing the policy (Reset per day).
func BenchmarkDefaultDay(b *testing.B) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	pr, _ := in.Pricing(0)
	pol, _ := newPolicyP(in.Mesh, pr, nil)
	day := func() {
		pol.Reset()
		next := 0
		for t := range in.Mesh.Slots {
			lo := next
			for next < len(in.Jobs) && in.Jobs[next].Arrival == t {
				next++
			}
			if _, err := pol.Decide(t, in.Jobs[lo:next]); err != nil {
				b.Fatal(err)
			}
		}
	}
	day() // grow the buffers
	b.ReportAllocs()
	for b.Loop() {
		day()
	}
}

// BenchmarkDefaultDayALM is BenchmarkDefaultDay with Algorithm 2.
func BenchmarkDefaultDayALM(b *testing.B) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	pr, _ := in.Pricing(0)
	pol, _ := newPolicyP(in.Mesh, pr, &Settings{Solver: AugmentedLagrangian})
	b.ReportAllocs()
	for b.Loop() {
		pol.Reset()
		if _, err := runOne(in, pol); err != nil {
			b.Fatal(err)
		}
	}
}

// scaledDay is the default day scaled k times in time: 24k slots and 20k
// jobs on the same 10 nodes, so the number of variables x_nr grows about
// linearly in k (about 480k).
func scaledDay(tb testing.TB, k int, seed uint64) *Instance {
	c := DefaultConfig()
	c.Slots, c.Jobs = 24*k, 20*k
	in, err := Generate(c, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		tb.Fatal(err)
	}
	return in
}

func numVars(in *Instance) int {
	n := 0
	for _, j := range in.Jobs {
		n += len(j.Units)
	}
	return n
}

// BenchmarkOfflineFlow is the exact offline optimum of one day scaled 1x,
// 5x and 20x (see scaledDay), with the solver's buffers reused across
// calls, as in a sweep.
func BenchmarkOfflineFlow(b *testing.B) {
	for _, k := range []int{1, 5, 20} {
		in := scaledDay(b, k, 1)
		b.Run(fmt.Sprintf("size=%dx", k), func(b *testing.B) {
			x := make([][]float64, len(in.Jobs))
			for n := range in.Jobs {
				x[n] = make([]float64, len(in.Jobs[n].Units))
			}
			var s FlowSolver
			b.ReportAllocs()
			var res FlowResult
			for b.Loop() {
				var err error
				if res, err = s.Solve(x, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(numVars(in)), "vars")
			b.ReportMetric(float64(res.Augmentations), "augmentations")
		})
	}
}

// BenchmarkOfflineLP is the dense simplex reference at 1x, for the ratio
// to BenchmarkOfflineFlow.
func BenchmarkOfflineLP(b *testing.B) {
	in := scaledDay(b, 1, 1)
	b.Run("size=1x", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := OfflineLP(in); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(numVars(in)), "vars")
	})
}

// BenchmarkRollingDecide is one slot of OnSocMax on a rolling mesh of n
// nodes and 24 slots in steady state: 4 arrivals per slot, each on 2
// nodes for 3 slots. One op is one Decide (the window advances one slot);
// it does not allocate once the buffers have grown.
func BenchmarkRollingDecide(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			c := make([]float64, n*24)
			for r := range c {
				c[r] = 5
			}
			m, err := bipartite.NewMesh(n, 24, c)
			if err != nil {
				b.Fatal(err)
			}
			p, err := New(m, Settings{Iota: 1, V: 4})
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 1))
			batch := make([]Job, 4)
			u := utility.Utility{Kind: utility.Linear, A: 2}
			for q := range batch {
				batch[q] = Job{XBar: make([]float64, 6), Beta: make([]float64, 6), Utility: make([]utility.Utility, 6), Units: make([]int, 0, 6)}
				for i := range 6 {
					batch[q].XBar[i], batch[q].Beta[i], batch[q].Utility[i] = 2, 0.2, u
				}
			}
			nodes := make([]int, 2)
			t, id := 0, 0
			step := func() {
				for q := range batch {
					j := &batch[q]
					nodes[0] = rng.IntN(n)
					nodes[1] = (nodes[0] + 1 + rng.IntN(n-1)) % n
					j.ID, j.Arrival, j.Deadline, j.Rho = id, t, t+2, 1+4*rng.Float64()
					j.Units, _ = p.Units(j.Units[:0], nodes, t, t+2)
					id++
				}
				if _, err := p.Decide(t, batch); err != nil {
					b.Fatal(err)
				}
				t++
			}
			for range 100 {
				step() // grow the buffers
			}
			b.ReportAllocs()
			for b.Loop() {
				step()
			}
		})
	}
}
