package esdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// benchBudgeted builds P4(s,t) as ESDP sees it at slot t: n channels with
// demands in {1,2}^K, capacities c, m = max ||x||_1, xi = ceil(xiScale m /
// delta(t)), S = {0..xi m}; synthetic learned statistics v^_e ~ U[0,1],
// n_e ~ U{1..t/4}; delta = DeltaLogLog, g = GDefault.
func benchBudgeted(seed uint64, n, K, c, m, t int, xiScale float64) *Budgeted {
	rng := rand.New(rand.NewPCG(seed, 1))
	xi := math.Ceil(xiScale * float64(m) / DeltaLogLog(t))
	g := GDefault(t, float64(m))
	p := &Budgeted{K: K, Demand: make([]int, n*K), Capacity: make([]int, K), Upsilon: make([]int, n),
		Sigma2: make([]float64, n), MaxBudget: int(xi) * m}
	for i := range p.Demand {
		p.Demand[i] = 1 + rng.IntN(2)
	}
	for k := range p.Capacity {
		p.Capacity[k] = c
	}
	for e := 0; e < n; e++ {
		p.Upsilon[e] = int(math.Ceil(xi * rng.Float64()))
		p.Sigma2[e] = xi * xi * g / (2 * float64(1+rng.IntN(t/4)))
	}
	return p
}

func benchmarkOracle(b *testing.B, p *Budgeted) {
	o := NewOracle(OracleSettings{})
	r, err := o.SolveBudgeted(p)
	if err != nil {
		b.Skip(err)
	}
	cells, bytes := r.Cells, r.Bytes
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.SolveBudgeted(p)
	}
	b.ReportMetric(float64(cells), "cells")
	b.ReportMetric(float64(bytes), "tablebytes")
	b.ReportMetric(float64(len(p.Sigma2))*float64(p.MaxBudget+1)*prodCap(p.Capacity), "worstcells")
}

func prodCap(c []int) float64 {
	v := 1.0
	for _, x := range c {
		v *= float64(x + 1)
	}
	return v
}

// Default size: |E| = 32 (the mean of Table 2), K = 3, c_k = 24 (alpha = 0.5
// of the expected total demand 48), m = 16, t = 2000 (|S| = 817).
func BenchmarkOracleDefault(b *testing.B) {
	benchmarkOracle(b, benchBudgeted(1, 32, 3, 24, 16, 2000, 1))
}

// 2x and 4x |E| on the same cluster (capacities and m unchanged): more
// ports or a denser graph.
func BenchmarkOracle2xEdges(b *testing.B) {
	benchmarkOracle(b, benchBudgeted(1, 64, 3, 24, 16, 2000, 1))
}
func BenchmarkOracle4xEdges(b *testing.B) {
	benchmarkOracle(b, benchBudgeted(1, 128, 3, 24, 16, 2000, 1))
}

// Series for the growth against O(|E| |S| prod_k (c_k+1)): vary one factor
// (|E| with c = 24, |S| = 817; |S| with |E| = 32, c = 24; prod (c_k+1) with
// |E| = 64, |S| = 817, so that the capacities bind: the total demand is
// about 96 per type).
func BenchmarkOracleSeriesEdges(b *testing.B) {
	for _, n := range []int{8, 16, 32, 64, 128} {
		b.Run(fmt.Sprintf("E=%d", n), func(b *testing.B) { benchmarkOracle(b, benchBudgeted(2, n, 3, 24, 16, 2000, 1)) })
	}
}

func BenchmarkOracleSeriesBudgets(b *testing.B) {
	for _, sc := range []float64{0.25, 0.5, 1, 2, 4} {
		p := benchBudgeted(3, 32, 3, 24, 16, 2000, sc)
		b.Run(fmt.Sprintf("S=%d", p.MaxBudget+1), func(b *testing.B) { benchmarkOracle(b, p) })
	}
}

func BenchmarkOracleSeriesCapacity(b *testing.B) {
	for _, c := range []int{3, 6, 12, 24, 48} {
		p := benchBudgeted(4, 64, 3, c, 16, 2000, 1)
		b.Run(fmt.Sprintf("prodc=%d", int(prodCap(p.Capacity))), func(b *testing.B) { benchmarkOracle(b, p) })
	}
}

// BenchmarkAlgorithm2VsFast runs the paper's Algorithm 2 as written and the
// fast dynamic program on the same instance (|E| = 20, K = 2, c = (8, 8),
// |S| = 121) in every iteration and reports both times and their ratio.
func BenchmarkAlgorithm2VsFast(b *testing.B) {
	p := benchBudgeted(5, 20, 2, 8, 10, 2000, 0.4)
	o := NewOracle(OracleSettings{})
	var ref, fast time.Duration
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		if _, err := Algorithm2(p, OracleSettings{}); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := o.SolveBudgeted(p); err != nil {
			b.Fatal(err)
		}
		ref += t1.Sub(t0)
		fast += time.Since(t1)
	}
	b.ReportMetric(float64(ref.Nanoseconds())/float64(b.N), "alg2-ns/op")
	b.ReportMetric(float64(fast.Nanoseconds())/float64(b.N), "fast-ns/op")
	b.ReportMetric(float64(ref)/float64(fast), "ratio")
}

// BenchmarkKnapsackDefault is the omniscient oracle (6) at the default size.
func BenchmarkKnapsackDefault(b *testing.B) {
	p := benchBudgeted(1, 32, 3, 24, 16, 2000, 1)
	kp := &Knapsack{K: p.K, Demand: p.Demand, Capacity: p.Capacity, Value: p.Sigma2}
	o := NewOracle(OracleSettings{})
	o.SolveKnapsack(kp)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := o.SolveKnapsack(kp); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPolicySlot is one full ESDP slot (Decide + Observe) on the
// default instance (seed 1, |E| = 35) after 2000 learned slots.
func BenchmarkPolicySlot(b *testing.B) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	p, _ := New(&in.Cluster, Settings{})
	rng := rand.New(rand.NewPCG(2, 2))
	arrived := make([]bool, in.NumPorts())
	z := make([]float64, in.NumEdges())
	fb := Feedback{Chosen: make([]bool, in.NumEdges()), Reward: z}
	// Learned state without paying for 2000 DP slots: feed every edge
	// rewards as if played ~2000/|E| times, then decide at slot 2000.
	for e := range fb.Chosen {
		fb.Chosen[e] = true
	}
	for i := 0; i < 60; i++ {
		in.SampleRewards(z, rng)
		if err := p.Warm(fb); err != nil {
			b.Fatal(err)
		}
	}
	step := func(t int) {
		in.SampleArrivals(arrived, rng)
		in.SampleRewards(z, rng)
		x, err := p.Decide(t, arrived)
		if err != nil {
			b.Fatal(err)
		}
		copy(fb.Chosen, x)
		if err := p.Observe(t, fb); err != nil {
			b.Fatal(err)
		}
	}
	for t := 2000; t < 2020; t++ { // reach the steady table sizes
		step(t)
	}
	b.ReportAllocs()
	t := 2020
	for b.Loop() {
		step(t)
		t++
	}
}

// BenchmarkPolicySnapshot saves and restores ESDP's state (MarshalBinary,
// UnmarshalBinary into a policy built by New) for |E| channels.
func BenchmarkPolicySnapshot(b *testing.B) {
	for _, ports := range []int{8, 80} {
		cfg := DefaultConfig()
		cfg.Ports = ports
		in, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		p, _ := New(&in.Cluster, Settings{})
		fb := Feedback{Chosen: make([]bool, in.NumEdges()), Reward: make([]float64, in.NumEdges())}
		for e := range fb.Chosen {
			fb.Chosen[e], fb.Reward[e] = true, 0.3
		}
		p.Warm(fb)
		q, _ := New(&in.Cluster, Settings{})
		b.Run(fmt.Sprintf("E=%d", in.NumEdges()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				data, err := p.MarshalBinary()
				if err != nil {
					b.Fatal(err)
				}
				if err := q.UnmarshalBinary(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkModeSlot is one exploitation slot (every channel played, every
// port with a job, slot 1000) of the exact DP and of the scalable oracle
// on instances with capacities in [10, 20], |R| = 100 and growing |L|. It
// reports the scalable oracle's certified gap (gap) and |E|. An exact run
// whose tables exceed 1 GiB is skipped.
func BenchmarkModeSlot(b *testing.B) {
	for _, ports := range []int{5, 10, 20, 40, 80} {
		cfg := DefaultConfig()
		cfg.Ports, cfg.Servers, cfg.CapLo, cfg.CapHi = ports, 100, 10, 20
		in, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		E := in.NumEdges()
		fb := Feedback{Chosen: make([]bool, E), Reward: make([]float64, E)}
		rng := rand.New(rand.NewPCG(2, 2))
		all := make([]bool, in.NumPorts())
		for l := range all {
			all[l] = true
		}
		for _, mode := range []Mode{ModeExact, ModeScalable} {
			b.Run(fmt.Sprintf("E=%d/mode=%v", E, mode), func(b *testing.B) {
				p, _ := New(&in.Cluster, Settings{Mode: mode, Oracle: OracleSettings{MaxCells: 1 << 31}})
				for round := 0; round < 3; round++ {
					for e := range fb.Chosen {
						fb.Chosen[e] = true
						in.SampleRewards(fb.Reward, rng)
					}
					p.Warm(fb)
				}
				t := 1000
				if _, err := p.Decide(t, all); err != nil {
					b.Skip(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					t++
					if _, err := p.Decide(t, all); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(p.Last().Gap, "gap")
				b.ReportMetric(float64(E), "edges")
			})
		}
	}
}
