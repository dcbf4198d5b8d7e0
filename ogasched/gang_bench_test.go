package ogasched

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkGangSlot measures one OGASched-gang slot (Decide: the rounding;
// Observe: gradient and projection on the relaxation) at the DLRM trace's
// size (156 job types, 6-10 components each, about 1250 in all, on 48
// servers, K = 6, as trace.DLRMGangInstance's default cluster) and with ten
// times its servers; n is the relaxation's dimension.
func BenchmarkGangSlot(b *testing.B) {
	for _, servers := range []int{48, 480} {
		cfg := DefaultGangConfig()
		cfg.Config.Ports, cfg.Config.Nodes, cfg.Config.EdgeProb = 156, servers, 1
		cfg.MinComponents, cfg.MaxComponents = 6, 10
		in, err := GenerateGang(cfg, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			b.Fatal(err)
		}
		tr, err := BernoulliTrace(in.Model.NumJobs(), 64, 0.3, rand.New(rand.NewPCG(2, 2)))
		if err != nil {
			b.Fatal(err)
		}
		pol, err := NewGang(in.Model, in.Settings())
		if err != nil {
			b.Fatal(err)
		}
		i := 0 // slots continue across the sub-benchmark's runs
		b.Run(fmt.Sprintf("servers=%d/components=%d/n=%d", servers, in.Model.NumComponents(), pol.Relaxation().Dim()), func(b *testing.B) {
			b.ReportAllocs()
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
		pol.Close()
	}
}
