package ogasched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchConfigs are the paper's two sizes: Table II and the large scale.
var benchConfigs = []Config{DefaultConfig(), LargeConfig()}

// BenchmarkSlot measures one OGASched slot (Decide + Observe: gradient and
// projection) on generated instances; n is the decision dimension |E| K.
func BenchmarkSlot(b *testing.B) {
	for _, cfg := range benchConfigs {
		p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		tr, err := BernoulliTrace(p.NumPorts(), 64, 0.7, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			b.Fatal(err)
		}
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("n=%d/workers=%d", p.Dim(), workers), func(b *testing.B) {
				pol, err := New(p, Settings{Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				defer pol.Close()
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					x := tr.Arrivals[i%len(tr.Arrivals)]
					if _, err := pol.Decide(i, x); err != nil {
						b.Fatal(err)
					}
					if err := pol.Observe(i, x); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}

// BenchmarkGradient measures the gradient (30) alone: Problem.Gradient and
// the batched gradient that Policy.Observe uses.
func BenchmarkGradient(b *testing.B) {
	for _, cfg := range benchConfigs {
		p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", p.Dim()), func(b *testing.B) {
			x := make([]float64, p.NumPorts())
			for l := range x {
				x[l] = 1
			}
			y := make([]float64, p.Dim())
			g := make([]float64, p.Dim())
			b.ReportAllocs()
			for b.Loop() {
				p.Gradient(g, x, y)
			}
		})
		b.Run(fmt.Sprintf("batched/n=%d", p.Dim()), func(b *testing.B) {
			x := make([]float64, p.NumPorts())
			for l := range x {
				x[l] = 1
			}
			y := make([]float64, p.Dim())
			g := make([]float64, p.Dim())
			rt := newRewardTables(p)
			sums := make([]float64, p.K)
			b.ReportAllocs()
			for b.Loop() {
				rt.gradient(g, sums, x, y)
			}
		})
	}
}

// BenchmarkBestFixed measures y* of (10) to the default relative gap 1e-6
// on the Table II instance with T = 2000 arrivals.
func BenchmarkBestFixed(b *testing.B) {
	p, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	tr, err := BernoulliTrace(p.NumPorts(), 2000, 0.7, rand.New(rand.NewPCG(2, 2)))
	if err != nil {
		b.Fatal(err)
	}
	b.Run(fmt.Sprintf("n=%d", p.Dim()), func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			res, err := BestFixed(p, tr, BestFixedSettings{})
			if err != nil || !res.Converged {
				b.Fatal(err, res.Gap())
			}
		}
	})
}

// BenchmarkSnapshot measures saving (MarshalBinary) and restoring
// (UnmarshalBinary into a fresh policy's buffers) the learned state.
func BenchmarkSnapshot(b *testing.B) {
	for _, cfg := range benchConfigs {
		p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		pol, err := New(p, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		x := make([]float64, p.NumPorts())
		for l := range x {
			x[l] = 1
		}
		for s := 0; s < 10; s++ {
			pol.Decide(s, x)
			pol.Observe(s, x)
		}
		snap, err := pol.MarshalBinary()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("marshal/n=%d", p.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := pol.MarshalBinary(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("unmarshal/n=%d", p.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := pol.UnmarshalBinary(snap); err != nil {
					b.Fatal(err)
				}
			}
		})
		pol.Close()
	}
}

// BenchmarkRebuild measures removing a node and carrying the learned y
// over (Problem.RemoveNode + Policy.Rebuild).
func BenchmarkRebuild(b *testing.B) {
	for _, cfg := range benchConfigs {
		p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		pol, err := New(p, Settings{})
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", p.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				q, m, err := p.RemoveNode(p.NumNodes() / 2)
				if err != nil {
					b.Fatal(err)
				}
				next, err := pol.Rebuild(q, m)
				if err != nil {
					b.Fatal(err)
				}
				next.Close()
			}
		})
		pol.Close()
	}
}
