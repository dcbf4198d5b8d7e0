package bipartite

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkDecodeGraph measures the validating JSON decoder (limits, exact
// pairs, no unknown fields, no trailing data) on Bernoulli(0.5) graphs.
func BenchmarkDecodeGraph(b *testing.B) {
	for _, sz := range [][2]int{{10, 128}, {100, 1024}} {
		g, err := Bernoulli(sz[0], sz[1], 0.5, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		data, err := json.Marshal(g)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d", g.NumEdges()), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := (Limits{}).DecodeGraph(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRightRegular shows the O(|L| + d·|R|) work: the large-|L| case
// cost O(|L|·|R|) before the limits work (152 ms instead of 1.5 ms).
func BenchmarkRightRegular(b *testing.B) {
	for _, sz := range [][3]int{{10, 128, 3}, {1 << 16, 1 << 12, 2}} {
		b.Run(fmt.Sprintf("n=%dx%d,d=%d", sz[0], sz[1], sz[2]), func(b *testing.B) {
			b.ReportAllocs()
			rng := rand.New(rand.NewPCG(1, 1))
			for b.Loop() {
				if _, err := RightRegular(sz[0], sz[1], sz[2], rng); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
