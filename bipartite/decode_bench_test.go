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

// BenchmarkDecodeGangModelRefused: an 8.4 MB gang model with 350 000
// components, refused for its component count (Limits.MaxComponents =
// 1000). The strict key walk took 6.8 s of it before issue 30 (a
// json.Decoder token per value, ~3 µs each).
func BenchmarkDecodeGangModelRefused(b *testing.B) {
	var buf []byte
	buf = append(buf, `{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"capacity":[1e6],"jobs":[{"min":1,"demand":[`...)
	for i := 0; len(buf) < 8400000; i++ {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = fmt.Appendf(buf, "%g", 0.25+float64(i%97)/1000)
	}
	buf = append(buf, "]}]}"...)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Limits{MaxComponents: 1000}).DecodeGangModel(buf); err == nil {
			b.Fatal("accepted")
		}
	}
}
