package onsocmax

import (
	"math/rand/v2"
	"testing"
	"time"

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

func BenchmarkWaterFill10(b *testing.B)   { benchmarkWaterFill(b, 10) }
func BenchmarkWaterFill100(b *testing.B)  { benchmarkWaterFill(b, 100) }
func BenchmarkWaterFill1000(b *testing.B) { benchmarkWaterFill(b, 1000) }
func BenchmarkALM10(b *testing.B)         { benchmarkALM(b, 10) }
func BenchmarkALM100(b *testing.B)        { benchmarkALM(b, 100) }
func BenchmarkALM1000(b *testing.B)       { benchmarkALM(b, 1000) }
func BenchmarkRatio10(b *testing.B)       { benchmarkRatio(b, 10) }
func BenchmarkRatio100(b *testing.B)      { benchmarkRatio(b, 100) }
func BenchmarkRatio1000(b *testing.B)     { benchmarkRatio(b, 1000) }

// BenchmarkDefaultDay runs OnSocMax (water-filling) over one default day
// of Section IV-A, slot by slot, reusing the policy (Reset per day).
func BenchmarkDefaultDay(b *testing.B) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	pr, _ := in.Pricing(0)
	pol, _ := NewPolicy(in.Mesh, pr, nil)
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
	pol, _ := NewPolicy(in.Mesh, pr, &PolicySettings{Solver: AugmentedLagrangian})
	b.ReportAllocs()
	for b.Loop() {
		pol.Reset()
		if _, err := Run(in, pol); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOfflineFlowDefaultDay is the exact offline optimum of one default day.
func BenchmarkOfflineFlowDefaultDay(b *testing.B) {
	in, _ := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := OfflineFlow(in); err != nil {
			b.Fatal(err)
		}
	}
}
