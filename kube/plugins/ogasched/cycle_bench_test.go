package ogasched

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkplugins "k8s.io/kubernetes/pkg/scheduler/framework/plugins"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	schedmetrics "k8s.io/kubernetes/pkg/scheduler/metrics"
)

// cycleProfiles are the profiles of BenchmarkCycle: the default profile,
// and the default plugins plus OGASched (weight 2, as shipped) or DRF.
// DynamicResources is disabled in all three: it needs the scheduler's DRA
// manager, which a bare framework lacks (the pod has no claims).
var cycleProfiles = map[string]string{
	"default": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
`,
	"OGASched": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    preFilter: {enabled: [{name: OGASched}]}
    preScore: {enabled: [{name: OGASched}]}
    score: {enabled: [{name: OGASched, weight: 2}]}
    postBind: {enabled: [{name: OGASched}]}
  pluginConfig:
  - name: OGASched
    args: {stateStore: None}
`,
	"DRF": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    preFilter: {enabled: [{name: DRF}]}
    preScore: {enabled: [{name: DRF}]}
    score: {enabled: [{name: DRF, weight: 2}]}
    postBind: {enabled: [{name: DRF}]}
`,
}

// newCycleFramework builds the framework of a profile as kube-scheduler
// does: the configuration through the binary's loader, the in-tree
// registry plus msched's plugins, the nodes in a scheduler snapshot.
func newCycleFramework(b *testing.B, profile string, nodes []*v1.Node) (framework.Framework, *Plugin) {
	b.Helper()
	yaml := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100\nprofiles:\n- schedulerName: default-scheduler\n" + cycleProfiles[profile]
	path := filepath.Join(b.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		b.Fatal(err)
	}
	logger := klog.NewKlogr().V(10)
	cfg, err := options.LoadConfigFromFile(logger, path)
	if err != nil {
		b.Fatal(err)
	}
	schedmetrics.Register()
	var msched *Plugin
	capture := func(factory frameworkruntime.PluginFactory) frameworkruntime.PluginFactory {
		return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			pl, err := factory(ctx, obj, h)
			if err == nil {
				msched = pl.(*Plugin)
			}
			return pl, err
		}
	}
	registry := frameworkplugins.NewInTreeRegistry()
	if err := registry.Merge(frameworkruntime.Registry{OGASchedName: capture(NewOGASched), DRFName: capture(NewDRF)}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	b.Cleanup(cancel)
	objs := make([]runtime.Object, len(nodes))
	for i, n := range nodes {
		objs[i] = n
	}
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	f, err := frameworkruntime.NewFramework(ctx, registry, &cfg.Profiles[0],
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(inf),
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)),
		frameworkruntime.WithLogger(logger))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	return f, msched
}

// BenchmarkCycle measures one scheduling cycle's plugin work for one pod
// on 1523 nodes (the OpenB cluster): PreFilter, Filter on every node,
// PreScore, Score and NormalizeScore, with the default profile and with
// the msched plugins added. The msched rows are steady state: the learner
// goroutine has published its snapshot before the timer starts. Each
// msched sub-benchmark also runs the default profile's cycle alternately
// with its own (timer stopped) and reports x-default, its time over the
// default's paired in the same run (the shared machine drifts between
// runs).
func BenchmarkCycle(b *testing.B) {
	nodes := benchNodes(1523)
	for _, profile := range []string{"default", "OGASched", "DRF"} {
		b.Run("profile="+profile+"/nodes=1523", func(b *testing.B) {
			cycle := ogaCycle(b, profile, nodes)
			var base func()
			if profile != "default" {
				base = ogaCycle(b, "default", nodes)
			}
			var baseTime time.Duration
			b.ReportAllocs()
			for b.Loop() {
				cycle()
				if base != nil {
					b.StopTimer()
					t0 := time.Now()
					base()
					baseTime += time.Since(t0)
					b.StartTimer()
				}
			}
			if base != nil && baseTime > 0 {
				b.ReportMetric(float64(b.Elapsed())/float64(baseTime), "x-default")
			}
		})
	}
}

// ogaCycle returns one cycle of BenchmarkCycle in the profile, its msched
// plugin (if any) in steady state.
func ogaCycle(b *testing.B, profile string, nodes []*v1.Node) func() {
	b.Helper()
	f, msched := newCycleFramework(b, profile, nodes)
	infos, err := cache.NewSnapshot(nil, nodes).NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	pod := testPod("bench", 4, 16, 1)
	ctx := context.Background()
	feasible := make([]fwk.NodeInfo, 0, len(infos))
	cycle := func() {
		state := framework.NewCycleState()
		if _, st, _ := f.RunPreFilterPlugins(ctx, state, pod); !st.IsSuccess() {
			b.Fatalf("PreFilter: %v", st)
		}
		feasible = feasible[:0]
		for _, ni := range infos {
			if f.RunFilterPlugins(ctx, state, pod, ni).IsSuccess() {
				feasible = append(feasible, ni)
			}
		}
		if len(feasible) == 0 {
			b.Fatal("no feasible node")
		}
		if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			b.Fatalf("PreScore: %v", st)
		}
		if _, st := f.RunScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
			b.Fatalf("Score: %v", st)
		}
	}
	cycle() // starts the msched learner, which publishes its first rows
	if msched != nil {
		deadline := time.Now().Add(30 * time.Second)
		for msched.snap.Load() == nil {
			if time.Now().After(deadline) {
				b.Fatal("the msched plugin published nothing in 30 s")
			}
			time.Sleep(time.Millisecond)
		}
	}
	return cycle
}
