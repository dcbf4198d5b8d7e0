package gang

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/metrics/legacyregistry"
	"k8s.io/component-base/metrics/testutil"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// The shape of Kubernetes' own gang performance test
// (test/integration/scheduler_perf/podgroup/gangscheduling, workloads
// 5000Nodes_{1000,2000,3000}Gangs_*): nodes of 4 CPU, 32 GiB, 110 pods;
// PodGroups gang-i with minCount 3; pods of 100m CPU and 100 MiB joining
// them through spec.schedulingGroup.podGroupName. Upstream measures the
// average of scheduler_podgroup_scheduling_attempt_duration_seconds
// (3.7, 5.0, 5.7 ms; thresholds 8, 10, 12 ms).
const (
	perfPodsPerGroup = 3
)

// perfNodes is 5000 as upstream's, or MSCHED_GANGPERF_NODES.
var perfNodes = 5000

func init() {
	if v := os.Getenv("MSCHED_GANGPERF_NODES"); v != "" {
		fmt.Sscan(v, &perfNodes)
	}
}

// perfProfiles: upstream-gang is kube-scheduler's default profile (with
// the GenericWorkload gate it includes GangScheduling and the default
// scorers); msched-gang disables GangScheduling and adds Gang.
const perfConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: %s
%s`

func perfProfile(name string) string {
	if name == "upstream-gang" {
		return ""
	}
	return `  plugins:
    multiPoint: {disabled: [{name: GangScheduling}]}
    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
`
}

// perfResult is one replay of the perf shape.
type perfResult struct {
	attempts  float64       // pod group scheduling attempts
	attempt   time.Duration // their average duration
	wall      time.Duration // scheduler start to last binding
	pods      int
	unbound   int
	podsPerS  float64
	maxOnNode int
}

// runGangPerf schedules groups groups of perfPodsPerGroup pods on
// perfNodes nodes with the named profile, in process (fake clientset,
// the real scheduler), and returns the attempt latency and throughput.
func runGangPerf(tb testing.TB, profileName string, groups int) perfResult {
	tb.Helper()
	if !utilfeature.DefaultFeatureGate.Enabled("GenericWorkload") {
		tb.Fatal("the GenericWorkload gate is off (TestMain turns it on)")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	alloc := v1.ResourceList{
		v1.ResourceCPU:    resource.MustParse("4"),
		v1.ResourceMemory: resource.MustParse("32Gi"),
		v1.ResourcePods:   resource.MustParse("110"),
	}
	var objs []runtime.Object
	for i := range perfNodes {
		name := fmt.Sprintf("node-%04d", i)
		objs = append(objs, &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name), Labels: map[string]string{v1.LabelHostname: name}},
			Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc, Phase: v1.NodeRunning,
				Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}}})
	}
	req := v1.ResourceList{v1.ResourceCPU: resource.MustParse("100m"), v1.ResourceMemory: resource.MustParse("100Mi")}
	pods := make([]*v1.Pod, 0, groups*perfPodsPerGroup)
	for g := range groups {
		pg := fmt.Sprintf("gang-%d", g)
		objs = append(objs, &schedv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: pg, Namespace: "gang-ns-0", UID: types.UID(pg)},
			Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: perfPodsPerGroup}}}})
		for j := range perfPodsPerGroup {
			name := fmt.Sprintf("test-gang-scheduling-%d", g*perfPodsPerGroup+j)
			pods = append(pods, &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "gang-ns-0", UID: types.UID(name)},
				Spec: v1.PodSpec{SchedulerName: profileName, SchedulingGroup: &v1.PodSchedulingGroup{PodGroupName: &pg},
					Containers: []v1.Container{{Name: "pause", Image: "registry.k8s.io/pause:3.10.1", Resources: v1.ResourceRequirements{Requests: req}}}}})
		}
	}
	for _, p := range pods {
		objs = append(objs, p)
	}
	// The plain object tracker: the field-managed one of NewClientset
	// rebuilds a REST mapper per call, which dominated the profile.
	client := fake.NewSimpleClientset(objs...) //nolint:staticcheck // SA1019, see above
	// Bindings: set spec.nodeName, at most maxLag ahead of the informer
	// (the fake watch channels hold 100 events).
	var issued, seen atomic.Int64
	var mu sync.Mutex
	perNode := map[string]int{}
	var last atomic.Int64
	const maxLag = 48
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		ca, ok := a.(clienttesting.CreateAction)
		if !ok || a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b := ca.GetObject().(*v1.Binding)
		for issued.Load()-seen.Load() > maxLag {
			time.Sleep(50 * time.Microsecond)
		}
		obj, err := client.Tracker().Get(v1.SchemeGroupVersion.WithResource("pods"), b.Namespace, b.Name)
		if err != nil {
			return true, nil, err
		}
		p := obj.(*v1.Pod).DeepCopy()
		p.Spec.NodeName = b.Target.Name
		issued.Add(1)
		mu.Lock()
		perNode[b.Target.Name]++
		mu.Unlock()
		last.Store(time.Now().UnixNano())
		return true, b, client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), p, p.Namespace)
	})
	dir := tb.TempDir()
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, fmt.Appendf(nil, perfConfig, profileName, perfProfile(profileName)), 0o600); err != nil {
		tb.Fatal(err)
	}
	logger := klog.NewKlogr().V(10)
	cfg, err := options.LoadConfigFromFile(logger, path)
	if err != nil {
		tb.Fatal(err)
	}
	inf := scheduler.NewInformerFactory(client, 0, nil)
	var bound atomic.Int64
	_, _ = inf.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(o, n any) {
			if op, np := o.(*v1.Pod), n.(*v1.Pod); op.Spec.NodeName == "" && np.Spec.NodeName != "" {
				seen.Add(1)
				bound.Add(1)
			}
		},
	})
	recorders := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	ctx = klog.NewContext(ctx, logger)
	sched, err := scheduler.New(ctx, client, inf, nil, profile.RecorderFactory(recorders),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithFrameworkOutOfTreeRegistry(frameworkruntime.Registry{Name: New}),
		scheduler.WithPodInitialBackoffSeconds(1),
		scheduler.WithPodMaxBackoffSeconds(1))
	if err != nil {
		tb.Fatal(err)
	}
	before := attemptStats(tb, profileName)
	inf.Start(ctx.Done())
	inf.WaitForCacheSync(ctx.Done())
	start := time.Now()
	go sched.Run(ctx)
	deadline := start.Add(5 * time.Minute)
	for bound.Load() < int64(len(pods)) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	end := time.Unix(0, last.Load())
	after := attemptStats(tb, profileName)
	r := perfResult{attempts: after[0] - before[0], pods: len(pods), unbound: len(pods) - int(bound.Load()), wall: end.Sub(start)}
	if r.attempts > 0 {
		r.attempt = time.Duration((after[1] - before[1]) / r.attempts * float64(time.Second))
	}
	r.podsPerS = float64(bound.Load()) / r.wall.Seconds()
	mu.Lock()
	for _, n := range perNode {
		r.maxOnNode = max(r.maxOnNode, n)
	}
	mu.Unlock()
	return r
}

// attemptStats returns the count and sum (seconds) of the pod group
// scheduling attempts of profile.
func attemptStats(tb testing.TB, profile string) [2]float64 {
	vec, err := testutil.GetHistogramVecFromGatherer(legacyregistry.DefaultGatherer, "scheduler_podgroup_scheduling_attempt_duration_seconds", map[string]string{"profile": profile})
	if err != nil {
		return [2]float64{}
	}
	var s [2]float64
	for _, h := range vec {
		s[0] += float64(h.GetSampleCount())
		s[1] += h.GetSampleSum()
	}
	return s
}

// BenchmarkGangPerf runs the upstream gang performance shape (5000 nodes,
// 1000/2000/3000 groups of 3) for upstream's GangScheduling and msched's
// Gang in the same run, and reports the average pod group scheduling
// attempt (ms/attempt), pods/s, and msched's ratios to upstream's. It is
// long (tens of seconds per size): run it alone, e.g.
//
//	go test -run '^$' -bench BenchmarkGangPerf -benchtime 1x ./plugins/gang/
func BenchmarkGangPerf(b *testing.B) {
	sizes := []int{1000, 2000, 3000}
	if v := os.Getenv("MSCHED_GANGPERF_GROUPS"); v != "" {
		sizes = sizes[:1]
		fmt.Sscan(v, &sizes[0])
	}
	for _, groups := range sizes {
		b.Run(fmt.Sprintf("groups=%d", groups), func(b *testing.B) {
			var up, ms perfResult
			for b.Loop() {
				up = runGangPerf(b, "upstream-gang", groups)
				ms = runGangPerf(b, "msched-gang", groups)
			}
			for _, r := range []struct {
				name string
				r    perfResult
			}{{"upstream", up}, {"msched", ms}} {
				b.ReportMetric(float64(r.r.attempt.Microseconds())/1000, r.name+"-ms/attempt")
				b.ReportMetric(r.r.podsPerS, r.name+"-pods/s")
				b.ReportMetric(float64(r.r.unbound), r.name+"-unbound")
				b.Logf("%s: %d pods, %d unbound, %.0f attempts of %.2f ms on average, %.1f s, %.0f pods/s, at most %d pods on a node",
					r.name, r.r.pods, r.r.unbound, r.r.attempts, float64(r.r.attempt.Microseconds())/1000, r.r.wall.Seconds(), r.r.podsPerS, r.r.maxOnNode)
			}
			if up.attempt > 0 && up.podsPerS > 0 {
				b.ReportMetric(float64(ms.attempt)/float64(up.attempt), "attempt-ratio")
				b.ReportMetric(ms.podsPerS/up.podsPerS, "pods/s-ratio")
			}
		})
	}
}
