package baselines

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// dlrmGangModel is esdp's benchmark cluster of the DLRM trace's shape
// (see esdp's BenchmarkGangSlot): 156·scale services with a CN and an HN
// component, both needed, on 192·scale servers (half CPU nodes, half GPU
// nodes), each service eligible on 32 + 32 of them.
func dlrmGangModel(tb testing.TB, scale int, seed uint64) *bipartite.GangModel {
	rng := rand.New(rand.NewPCG(seed, 3))
	L, R, half := 156*scale, 192*scale, 96*scale
	var edges []bipartite.Edge
	for l := 0; l < L; l++ {
		for _, base := range []int{0, half} {
			for _, r := range rng.Perm(half)[:32] {
				edges = append(edges, bipartite.Edge{Left: l, Right: base + r})
			}
		}
	}
	g, err := bipartite.NewGraph(L, R, edges)
	if err != nil {
		tb.Fatal(err)
	}
	capv := make([]float64, 0, 3*R)
	for r := 0; r < R; r++ {
		if r < half {
			capv = append(capv, 96, 0, 384)
		} else {
			capv = append(capv, 96, 8, 768)
		}
	}
	jobs := make([]bipartite.GangJob, L)
	for l := range jobs {
		cn, hn := float64(2+rng.IntN(5)), float64(2+rng.IntN(5))
		jobs[l] = bipartite.GangJob{Demand: []float64{8 * cn, 0, 32 * cn, 12 * hn, hn, 120 * hn}}
	}
	m, err := bipartite.NewGangModel(g, 3, capv, jobs)
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// BenchmarkGangBaselineSlot measures one slot (Decide and Observe) of
// each gang baseline at the DLRM trace's size and 10x, 90 % of the job
// types arrived.
func BenchmarkGangBaselineSlot(b *testing.B) {
	for _, scale := range []int{1, 10} {
		m := dlrmGangModel(b, scale, 1)
		rng := rand.New(rand.NewPCG(2, 2))
		arr := make([]bool, m.NumJobs())
		for l := range arr {
			arr[l] = rng.Float64() < 0.9
		}
		C := m.NumComponents()
		fb := esdp.GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
		for _, p := range gangPolicies(b, m) {
			b.Run(fmt.Sprintf("services=%d/%s", 156*scale, p.Name()), func(b *testing.B) {
				t := 0
				b.ReportAllocs()
				for b.Loop() {
					x, err := p.Decide(t, arr)
					if err != nil {
						b.Fatal(err)
					}
					copy(fb.Server, x)
					if err := p.Observe(t, fb); err != nil {
						b.Fatal(err)
					}
					t++
				}
			})
		}
	}
}
