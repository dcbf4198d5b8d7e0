package ogasched

import (
	"math/rand/v2"
	"testing"
)

// benchmarkSlot measures one OGASched slot (Decide + Observe: gradient and
// projection) on a generated instance.
func benchmarkSlot(b *testing.B, cfg Config, workers int) {
	p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	tr, err := BernoulliTrace(p.NumPorts(), 64, 0.7, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		b.Fatal(err)
	}
	pol, err := New(p, Settings{Workers: workers})
	if err != nil {
		b.Fatal(err)
	}
	defer pol.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		x := tr.Arrivals[i%len(tr.Arrivals)]
		if _, err := pol.Decide(i, x); err != nil {
			b.Fatal(err)
		}
		if err := pol.Observe(i, x); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSlotDefault(b *testing.B)         { benchmarkSlot(b, DefaultConfig(), 1) }
func BenchmarkSlotDefault2Workers(b *testing.B) { benchmarkSlot(b, DefaultConfig(), 2) }
func BenchmarkSlotLarge(b *testing.B)           { benchmarkSlot(b, LargeConfig(), 1) }
func BenchmarkSlotLarge2Workers(b *testing.B)   { benchmarkSlot(b, LargeConfig(), 2) }

// benchmarkGradient measures the gradient (30) alone.
func benchmarkGradient(b *testing.B, cfg Config) {
	p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	x := make([]float64, p.NumPorts())
	for l := range x {
		x[l] = 1
	}
	y := make([]float64, p.Dim())
	g := make([]float64, p.Dim())
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.Gradient(g, x, y)
	}
}

func BenchmarkGradientDefault(b *testing.B) { benchmarkGradient(b, DefaultConfig()) }
func BenchmarkGradientLarge(b *testing.B)   { benchmarkGradient(b, LargeConfig()) }
