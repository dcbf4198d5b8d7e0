package esdp

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
)

// dlrmGangModel builds a synthetic stress model loosely after the DLRM
// trace (156 services, each with a CN and an HN component role) times
// scale; it is not the trace's size, which is what trace.DLRMGangInstance
// maps (BenchmarkGangOracleDLRM): 156·scale job types of two components, both needed
// (m_l = 2); K = 3 (CPU cores, GPUs, memory GiB). A component is a role's
// group of 2-6 instances started together: the CN one n·(8 cores, 32 GiB),
// the HN one n·(12 cores, 1 GPU, 120 GiB) (the trace's first HN rows).
// The trace lists no nodes; the cluster assumed here has 192·scale
// servers, half CPU nodes (96 cores, 0 GPUs, 384 GiB) and half GPU nodes
// (96 cores, 8 GPUs, 768 GiB), so that a server holds 1-3 components and
// capacities bind; every service may use a pool of 32 CPU and 32 GPU
// nodes (64 servers; 20 k channels at scale 1, 200 k at scale 10).
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

// BenchmarkGangSlot measures one steady slot (Decide and Observe, every
// channel played about 20 times) of ESDP-gang on the synthetic stress
// model dlrmGangModel (156 two-component jobs on 192 servers) and at 10x,
// with the oracle in GangAuto and GangScalable mode; 90 % of the job types
// have a job.
func BenchmarkGangSlot(b *testing.B) {
	for _, scale := range []int{1, 10} {
		m := dlrmGangModel(b, scale, 1)
		for _, meth := range []GangMethod{GangAuto, GangScalable} {
			b.Run(fmt.Sprintf("synthetic=%d/%v", 156*scale, meth), func(b *testing.B) {
				p, err := NewGang(m, GangSettings{Oracle: GangOracleSettings{Method: meth}})
				if err != nil {
					b.Fatal(err)
				}
				rng := rand.New(rand.NewPCG(2, 2))
				for i := range p.stats.count {
					n := 1 + rng.IntN(40)
					p.stats.count[i], p.stats.sum[i] = n, float64(n)*rng.Float64()
				}
				arr := make([]bool, m.NumJobs())
				for l := range arr {
					arr[l] = rng.Float64() < 0.9
				}
				C := m.NumComponents()
				fb := GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
				for c := range fb.Reward {
					fb.Reward[c] = 0.5
				}
				t := 1000
				if _, err := p.Decide(t, arr); err != nil { // warm the buffers
					b.Fatal(err)
				}
				p.decided = false
				t++
				b.ReportAllocs()
				var info GangSlotInfo
				for b.Loop() {
					x, err := p.Decide(t, arr)
					if err != nil {
						b.Fatal(err)
					}
					copy(fb.Server, x)
					if err := p.Observe(t, fb); err != nil {
						b.Fatal(err)
					}
					info = p.Last()
					t++
				}
				b.ReportMetric(float64(p.Channels().Len()), "channels")
				b.ReportMetric(info.Gap/info.Index, "relgap")
			})
		}
	}
}

// BenchmarkGangOracle measures one gang knapsack (values U[0,1], 90 % of
// the job types arrived) at the default synthetic size and on the
// synthetic stress model (dlrmGangModel, at 1x and 10x), per method;
// relgap is the certified gap over the value. The trace's own size is
// BenchmarkGangOracleDLRM's.
func BenchmarkGangOracle(b *testing.B) {
	type inst struct {
		name string
		m    *bipartite.GangModel
	}
	def, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		b.Fatal(err)
	}
	for _, in := range []inst{{"default", def.Model}, {"synthetic", dlrmGangModel(b, 1, 1)}, {"synthetic10x", dlrmGangModel(b, 10, 1)}} {
		ch, err := NewGangChannels(in.m)
		if err != nil {
			b.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(4, 4))
		p := &GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, in.m.NumJobs())}
		for i := range p.Value {
			p.Value[i] = rng.Float64()
		}
		for l := range p.Arrived {
			p.Arrived[l] = rng.Float64() < 0.9
		}
		x := make([]int, in.m.NumComponents())
		for _, meth := range []GangMethod{GangExact, GangAuto, GangScalable} {
			if meth == GangExact && in.name != "default" {
				continue
			}
			b.Run(fmt.Sprintf("%s/%v", in.name, meth), func(b *testing.B) {
				o := GangOracle{Settings: GangOracleSettings{Method: meth}}
				r, err := o.Solve(x, p) // warm the buffers
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					r, err = o.Solve(x, p)
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Gap/r.Value, "relgap")
				b.ReportMetric(float64(r.Nodes), "nodes")
			})
		}
	}
}
