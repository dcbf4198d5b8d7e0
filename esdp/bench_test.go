package esdp

import (
	"math"
	"math/rand/v2"
	"testing"
)

// benchBudgeted builds P4(s,t) as ESDP sees it at slot t of a run on an
// instance with n channels, K types, capacities c and m = ceil(n/2):
// v^_e uniform on [0,1], n_e uniform on 1..t/4 (synthetic statistics of a
// learned state), delta = DeltaLogLog, g = GDefault.
func benchBudgeted(rng *rand.Rand, n, K, c, t int, xiScale float64) *Budgeted {
	m := (n + 1) / 2
	delta := DeltaLogLog(t)
	xi := math.Ceil(xiScale * float64(m) / delta)
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
	o := NewOracle(Settings{})
	r, err := o.SolveBudgeted(p)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		o.SolveBudgeted(p)
	}
	b.ReportMetric(float64(r.Cells), "cells")
	b.ReportMetric(float64(r.Bytes), "tablebytes")
}

// Default size: |E| = 32 (Table 2 mean), K = 3, c_k = 24 (alpha = 0.5 of
// the total demand), t = 2000.
func BenchmarkOracleDefault(b *testing.B) {
	benchmarkOracle(b, benchBudgeted(rand.New(rand.NewPCG(1, 1)), 32, 3, 24, 2000, 1))
}
