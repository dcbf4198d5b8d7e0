package simplex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchMaster builds a set-packing master like the gang oracle's: S
// server rows (b = 1), C component rows (b = 0, less their y column)
// and cols pattern columns of a server and 1-5 components.
func benchMaster(S, C, cols int) *LP {
	rng := rand.New(rand.NewPCG(1, 1))
	b := make([]float64, S+C)
	for i := 0; i < S; i++ {
		b[i] = 1
	}
	p := New(b)
	for c := 0; c < C; c++ {
		p.AddColumn(0, 0, 1, []int{S + c}, []float64{-1})
	}
	rows := make([]int, 0, 6)
	vals := make([]float64, 0, 6)
	for k := 0; k < cols; k++ {
		rows, vals = append(rows[:0], rng.IntN(S)), append(vals[:0], 1)
		v := 0.0
		for n := 1 + rng.IntN(5); n > 0; n-- {
			c := S + rng.IntN(C)
			dup := false
			for _, r := range rows {
				dup = dup || r == c
			}
			if !dup {
				rows, vals = append(rows, c), append(vals, 1)
				v += rng.Float64()
			}
		}
		p.AddColumn(v, 0, math.Inf(1), rows, vals)
	}
	return p
}

// BenchmarkSolve solves a master from the slack basis (cold) and after
// fixing its largest fractional column at 1 (warm, the dual simplex).
func BenchmarkSolve(b *testing.B) {
	for _, sz := range []struct{ S, C, cols int }{{48, 128, 800}, {48, 256, 1600}} {
		b.Run(fmt.Sprintf("rows=%d/cold", sz.S+sz.C), func(b *testing.B) {
			p := benchMaster(sz.S, sz.C, sz.cols)
			b.ReportAllocs()
			for b.Loop() {
				p.ready = false
				if p.Solve(1<<20) != Optimal {
					b.Fatal("not optimal")
				}
			}
		})
		b.Run(fmt.Sprintf("rows=%d/fix", sz.S+sz.C), func(b *testing.B) {
			p := benchMaster(sz.S, sz.C, sz.cols)
			p.Solve(1 << 20)
			x := p.X(nil)
			j := -1
			for k := range x {
				if x[k] > 1e-6 && x[k] < 1-1e-6 && (j < 0 || x[k] > x[j]) {
					j = k
				}
			}
			if j < 0 {
				b.Skip("integral")
			}
			lo, up := p.lo[j], p.up[j]
			b.ReportAllocs()
			for b.Loop() {
				p.SetBounds(j, 1, 1)
				p.Solve(1 << 20)
				p.SetBounds(j, lo, up)
				p.Solve(1 << 20)
			}
		})
	}
}
