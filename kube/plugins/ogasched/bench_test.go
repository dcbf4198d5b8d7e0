package ogasched

import (
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2/ktesting"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/noderesources"
	plugintesting "k8s.io/kubernetes/pkg/scheduler/framework/plugins/testing"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// benchNodes returns n nodes shaped like OpenB's (1523 in the trace):
// a CPU-only node, then GPU nodes of 1, 2, 4 and 8 GPUs, repeated.
func benchNodes(n int) []*v1.Node {
	shapes := []struct{ cpu, memGi, gpu int64 }{{96, 512, 0}, {32, 128, 1}, {64, 256, 2}, {96, 384, 4}, {96, 768, 8}}
	nodes := make([]*v1.Node, n)
	for i := range nodes {
		s := shapes[i%len(shapes)]
		nodes[i] = testNode(fmt.Sprintf("node-%04d", i), s.cpu, s.memGi, s.gpu)
		// Room for pods: without it NodeResourcesFit rejects every node
		// ("Too many pods") and a cycle would score nothing.
		nodes[i].Status.Allocatable[v1.ResourcePods] = *resource.NewQuantity(110, resource.DecimalSI)
	}
	return nodes
}

// benchmarkScore measures one pod's scoring on every node: PreScore once,
// then Score for each node, as the framework runs them (serially here).
func benchmarkScore(b *testing.B, factory frameworkruntime.PluginFactory, args runtime.Object, nodes []*v1.Node) {
	_, ctx := ktesting.NewTestContext(b)
	pl := plugintesting.SetupPlugin(ctx, b, factory, args, cache.NewSnapshot(nil, nodes))
	pre := pl.(fwk.PreScorePlugin)
	sc := pl.(fwk.ScorePlugin)
	var infos []fwk.NodeInfo
	for _, n := range nodes {
		ni := framework.NewNodeInfo()
		ni.SetNode(n)
		infos = append(infos, ni)
	}
	pod := testPod("bench", 4, 16, 1)
	// Prime: the msched plugins learn the port and their learner publishes
	// the rows once.
	if pf, ok := pl.(fwk.PreFilterPlugin); ok {
		pf.PreFilter(ctx, framework.NewCycleState(), pod, infos)
	}
	if p, ok := pl.(*Plugin); ok {
		deadline := time.Now().Add(30 * time.Second)
		for p.snap.Load() == nil {
			if time.Now().After(deadline) {
				b.Fatal("the plugin published nothing in 30 s")
			}
			time.Sleep(time.Millisecond)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		state := framework.NewCycleState()
		if st := pre.PreScore(ctx, state, pod, infos); !st.IsSuccess() {
			b.Fatalf("PreScore: %v", st)
		}
		for _, ni := range infos {
			if _, st := sc.Score(ctx, state, pod, ni); !st.IsSuccess() {
				b.Fatalf("Score: %v", st)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(nodes)), "ns/node")
}

// BenchmarkScore compares the per-pod scoring cost over 1523 nodes (the
// OpenB cluster) of OGASched and DRF with NodeResourcesFit's
// LeastAllocated and MostAllocated.
func BenchmarkScore(b *testing.B) {
	nodes := benchNodes(1523)
	fit := func(t config.ScoringStrategyType) runtime.Object {
		return &config.NodeResourcesFitArgs{ScoringStrategy: &config.ScoringStrategy{Type: t,
			Resources: []config.ResourceSpec{{Name: "cpu", Weight: 1}, {Name: "memory", Weight: 1}, {Name: "nvidia.com/gpu", Weight: 1}}}}
	}
	b.Run("plugin=OGASched/nodes=1523", func(b *testing.B) { benchmarkScore(b, NewOGASched, nil, nodes) })
	b.Run("plugin=DRF/nodes=1523", func(b *testing.B) { benchmarkScore(b, NewDRF, nil, nodes) })
	fitFactory := frameworkruntime.FactoryAdapter(plfeature.Features{}, noderesources.NewFit)
	b.Run("plugin=NodeResourcesFit-LeastAllocated/nodes=1523", func(b *testing.B) {
		benchmarkScore(b, fitFactory, fit(config.LeastAllocated), nodes)
	})
	b.Run("plugin=NodeResourcesFit-MostAllocated/nodes=1523", func(b *testing.B) {
		benchmarkScore(b, fitFactory, fit(config.MostAllocated), nodes)
	})
}
