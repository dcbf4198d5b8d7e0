package replay

import (
	"context"
	"fmt"
	"testing"

	v1 "k8s.io/api/core/v1"
)

// BenchmarkBurst replays a burst of pods (1 CPU each) on nodes (64 CPUs
// each) through the default profile and reports pods/s; the scheduler's
// own work is most of it (go test -cpuprofile shows the split).
func BenchmarkBurst(b *testing.B) {
	for _, size := range []struct{ nodes, pods int }{{100, 500}, {1000, 500}} {
		b.Run(fmt.Sprintf("nodes=%d/pods=%d", size.nodes, size.pods), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			bound := 0
			for b.Loop() {
				b.StopTimer()
				nodes := make([]*v1.Node, size.nodes)
				for i := range nodes {
					nodes[i] = node(fmt.Sprintf("n%d", i), 64)
				}
				h, err := Start(ctx, Config{SchedulerConfig: defaultYAML, Nodes: nodes})
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				for i := range size.pods {
					if err := h.Create(ctx, pod(fmt.Sprintf("p%d", i), 1)); err != nil {
						b.Fatal(err)
					}
				}
				if err := h.Settle(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				bound += h.Counts().Bound
				h.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(bound)/b.Elapsed().Seconds(), "pods/s")
		})
	}
}

// BenchmarkSettleIdle measures one Settle on an idle scheduler holding
// 1000 unschedulable pods: the cost a replay pays per step.
func BenchmarkSettleIdle(b *testing.B) {
	ctx := context.Background()
	h, err := Start(ctx, Config{SchedulerConfig: defaultYAML, Nodes: []*v1.Node{node("n0", 1)}})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	for i := range 1000 {
		if err := h.Create(ctx, pod(fmt.Sprintf("p%d", i), 2)); err != nil {
			b.Fatal(err)
		}
	}
	if err := h.Settle(ctx); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := h.Settle(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
