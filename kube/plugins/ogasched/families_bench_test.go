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

	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/kube/plugins/ocorp"
	"github.com/msched/msched/kube/plugins/onsocmax"
)

// familyProfiles are the profiles of BenchmarkFamilyCycle: the default
// profile, and the default plugins plus one family plugin at the
// extension points the shipped configs enable (state in memory: the
// ConfigMap store is off the scheduling path anyway).
var familyProfiles = map[string]string{
	"default": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
`,
	"ESDP": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    preScore: {enabled: [{name: ESDP}]}
    score: {enabled: [{name: ESDP, weight: 2}]}
  pluginConfig:
  - name: ESDP
    args: {stateStore: None}
`,
	"OnSocMax": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    preEnqueue: {enabled: [{name: OnSocMax}]}
    reserve: {enabled: [{name: OnSocMax}]}
`,
	"OCORP": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    queueSort: {enabled: [{name: OCORP}], disabled: [{name: "*"}]}
    preFilter: {enabled: [{name: OCORP}]}
    postFilter: {enabled: [{name: OCORP}], disabled: [{name: DefaultPreemption}]}
  pluginConfig:
  - name: OCORP
    args: {profiles: [default-scheduler], stateStore: None}
`,
	"Gang": `  plugins:
    multiPoint: {disabled: [{name: DynamicResources}]}
    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
`,
}

// newFamilyFramework builds the framework of a profile as
// newCycleFramework does, with the family plugins registered; pods are
// in the API (the plugins list them through informers). It returns the
// family plugin instance (nil for the default profile).
func newFamilyFramework(b *testing.B, profile string, nodes []*v1.Node, pods []*v1.Pod) (framework.Framework, fwk.Plugin) {
	b.Helper()
	yaml := "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 100\nprofiles:\n- schedulerName: default-scheduler\n" + familyProfiles[profile]
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
	var got fwk.Plugin
	capture := func(factory frameworkruntime.PluginFactory) frameworkruntime.PluginFactory {
		return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			pl, err := factory(ctx, obj, h)
			if err == nil {
				got = pl
			}
			return pl, err
		}
	}
	registry := frameworkplugins.NewInTreeRegistry()
	if err := registry.Merge(frameworkruntime.Registry{esdp.Name: capture(esdp.New), onsocmax.Name: capture(onsocmax.New),
		ocorp.Name: capture(ocorp.New), gang.Name: capture(gang.New)}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), logger))
	b.Cleanup(cancel)
	objs := make([]runtime.Object, 0, len(nodes)+len(pods))
	for _, n := range nodes {
		objs = append(objs, n)
	}
	for _, p := range pods {
		objs = append(objs, p)
	}
	client := fake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(client, 0)
	f, err := frameworkruntime.NewFramework(ctx, registry, &cfg.Profiles[0],
		frameworkruntime.WithClientSet(client),
		frameworkruntime.WithInformerFactory(inf),
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(nil, nodes)),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()),
		frameworkruntime.WithLogger(logger))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	return f, got
}

// BenchmarkFamilyCycle measures one scheduling cycle for one pod on 1523
// nodes (the OpenB cluster) with the default profile and with each family
// plugin added: 10 queue-sort comparisons (a heap pop in a queue of ~1000
// pods), PreEnqueue, PreFilter, Filter on every node the PreFilter result
// allows, PreScore and Score when more than one node is feasible (as
// kube-scheduler does), Reserve and Permit. The pod is a gang of
// min-member 1 with a declared value, so every family plugin takes its
// real path. Learned plugins are in steady state (a slot stepped before
// the timer starts). On a shared machine the time drifts between runs, so
// each family sub-benchmark also runs the default profile's cycle
// alternately with its own (timer stopped) and reports x-default: its
// time over the default's, paired in the same run.
func BenchmarkFamilyCycle(b *testing.B) {
	nodes := benchNodes(1523)
	pod := testPod("bench", 4, 16, 1)
	pod.Namespace = "default"
	pod.Spec.SchedulerName = "default-scheduler"
	pod.Labels = map[string]string{gang.DefaultGroupLabel: "g"}
	pod.Annotations = map[string]string{gang.DefaultMinMemberKey: "1", onsocmax.DefaultValueAnnotation: "1000000"}
	for _, profile := range []string{"default", "ESDP", "OnSocMax", "OCORP", "Gang"} {
		b.Run("profile="+profile+"/nodes=1523", func(b *testing.B) {
			cycle := familyCycle(b, profile, nodes, pod)
			var base func()
			if profile != "default" {
				base = familyCycle(b, "default", nodes, pod)
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

// familyCycle returns one scheduling cycle of pod in the profile (see
// BenchmarkFamilyCycle), with the profile's plugins in steady state.
func familyCycle(b *testing.B, profile string, nodes []*v1.Node, pod *v1.Pod) func() {
	b.Helper()
	f, pl := newFamilyFramework(b, profile, nodes, []*v1.Pod{pod})
	infos, err := cache.NewSnapshot(nil, nodes).NodeInfos().List()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	less := f.QueueSortFunc()
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		b.Fatal(err)
	}
	qa := &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: time.Now()}}
	qb := &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: time.Now().Add(time.Second)}}
	feasible := make([]fwk.NodeInfo, 0, len(infos))
	cycle := func() {
		for range 10 {
			if !less(qa, qb) {
				b.Fatal("queue sort: an earlier pod of equal priority must come first")
			}
		}
		for _, pe := range f.PreEnqueuePlugins() {
			if st := pe.PreEnqueue(ctx, pod); !st.IsSuccess() {
				b.Fatalf("PreEnqueue %s: %v", pe.Name(), st)
			}
		}
		state := framework.NewCycleState()
		res, st, _ := f.RunPreFilterPlugins(ctx, state, pod)
		if !st.IsSuccess() {
			b.Fatalf("PreFilter: %v", st)
		}
		feasible = feasible[:0]
		for _, ni := range infos {
			if res != nil && !res.AllNodes() && !res.NodeNames.Has(ni.Node().Name) {
				continue
			}
			if f.RunFilterPlugins(ctx, state, pod, ni).IsSuccess() {
				feasible = append(feasible, ni)
			}
		}
		if len(feasible) == 0 {
			b.Fatal("no feasible node")
		}
		host := feasible[0].Node().Name
		if len(feasible) > 1 {
			if st := f.RunPreScorePlugins(ctx, state, pod, feasible); !st.IsSuccess() {
				b.Fatalf("PreScore: %v", st)
			}
			scores, st := f.RunScorePlugins(ctx, state, pod, feasible)
			if !st.IsSuccess() {
				b.Fatalf("Score: %v", st)
			}
			best := int64(-1)
			for _, s := range scores {
				if s.TotalScore > best {
					best, host = s.TotalScore, s.Name
				}
			}
		}
		if st := f.RunReservePluginsReserve(ctx, state, pod, host); !st.IsSuccess() {
			b.Fatalf("Reserve: %v", st)
		}
		if _, st := f.RunPermitPlugins(ctx, state, pod, host); !st.IsSuccess() {
			b.Fatalf("Permit: %v", st)
		}
	}
	cycle() // starts the plugins' goroutines (state loaded: none)
	// Steady state: one slot stepped with this pod's shape arrived.
	switch p := pl.(type) {
	case *esdp.Plugin:
		p.Arrive(pod)
		if err := p.Step(ctx, time.Now().Add(2*time.Minute)); err != nil {
			b.Fatal(err)
		}
		if st := p.PreScore(ctx, framework.NewCycleState(), pod, nil); !st.IsSuccess() {
			b.Fatalf("ESDP has no scores for the pod's shape after a slot: %v", st)
		}
	case *ocorp.Plugin:
		if err := p.Step(ctx, time.Now().Add(time.Minute)); err != nil {
			b.Fatal(err)
		}
	}
	return cycle
}
