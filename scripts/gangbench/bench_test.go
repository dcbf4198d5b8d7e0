package main

import (
	"testing"

	"github.com/msched/msched/esdp"
)

// BenchmarkMediumExact solves medium instances of the HiGHS comparison
// with GangExact at its defaults, to its proof: medium-13 (proved by the
// job probes), medium-23 and -41 (by the job tree; the two slowest
// against HiGHS before it) and medium-5 (searched to the end, the tree
// not needed). Nodes per solve are reported with the time; a solve
// allocates nothing once the oracle's buffers have grown.
func BenchmarkMediumExact(b *testing.B) {
	for _, i := range []int{5, 13, 23, 41} {
		in, err := medium(i)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(in.name, func(b *testing.B) {
			o := esdp.GangOracle{Settings: esdp.GangOracleSettings{Method: esdp.GangExact}}
			x := make([]int, in.p.Channels.Model().NumComponents())
			var r esdp.GangKnapsackResult
			b.ReportAllocs()
			for b.Loop() {
				if r, err = o.Solve(x, in.p); err != nil {
					b.Fatal(err)
				}
			}
			if r.Status != esdp.Optimal {
				b.Fatalf("%s: %v", in.name, r.Status)
			}
			b.ReportMetric(float64(r.Nodes), "nodes")
		})
	}
}
