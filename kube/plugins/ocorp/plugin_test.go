package ocorp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"

	core "github.com/msched/msched/ocorp"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mkPod(name, sched string, cpu int64, work string, created time.Time) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), CreationTimestamp: metav1.NewTime(created), Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: sched, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI)}}}}},
	}
	if work != "" {
		p.Annotations[DefaultWorkAnnotation] = work
	}
	return p
}

func mkNode(name string, cpu int64) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourcePods: resource.MustParse("110")}}}
}

// cpuFit is a minimal Filter: the node's free CPU covers the pod's request.
type cpuFit struct{}

func (cpuFit) Name() string { return "cpuFit" }
func (cpuFit) Filter(_ context.Context, _ fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	if ni.GetAllocatable().GetMilliCPU()-ni.GetRequested().GetMilliCPU() < pod.Spec.Containers[0].Resources.Requests.Cpu().MilliValue() {
		return fwk.NewStatus(fwk.Unschedulable, "cpu")
	}
	return nil
}

type noNominator struct{}

func (noNominator) AddNominatedPod(klog.Logger, fwk.PodInfo, *fwk.NominatingInfo) {}
func (noNominator) DeleteNominatedPodIfExists(*v1.Pod)                            {}
func (noNominator) UpdateNominatedPod(klog.Logger, *v1.Pod, fwk.PodInfo)          {}
func (noNominator) NominatedPodsForNode(string) []fwk.PodInfo                     { return nil }

// setup builds the managed profile's framework (profile msched-ocorp)
// with OCORP at QueueSort and PostFilter and a CPU filter.
func setup(t *testing.T, profile string, nodes []*v1.Node, pods []*v1.Pod) (*Plugin, framework.Framework, *clientsetfake.Clientset) {
	t.Helper()
	pl, fw, cs, err := setupWith(t, profile, &Args{Profiles: []string{profile}}, nodes, pods)
	require.NoError(t, err)
	return pl, fw, cs
}

// setupWith is setup with args and extra API objects (e.g. a state
// ConfigMap).
func setupWith(t *testing.T, profile string, args *Args, nodes []*v1.Node, pods []*v1.Pod, extra ...runtime.Object) (*Plugin, framework.Framework, *clientsetfake.Clientset, error) {
	t.Helper()
	objs := append([]runtime.Object{}, extra...)
	for _, p := range pods {
		objs = append(objs, p)
	}
	return setupOn(t, clientsetfake.NewClientset(objs...), profile, args, nodes, pods)
}

// setupOn is setupWith on the clientset cs (one scheduler's profiles
// share one).
func setupOn(t *testing.T, cs *clientsetfake.Clientset, profile string, args *Args, nodes []*v1.Node, pods []*v1.Pod) (*Plugin, framework.Framework, *clientsetfake.Clientset, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inf := informers.NewSharedInformerFactory(cs, 0)
	for _, n := range nodes {
		require.NoError(t, inf.Core().V1().Nodes().Informer().GetStore().Add(n))
	}
	for _, p := range pods {
		require.NoError(t, inf.Core().V1().Pods().Informer().GetStore().Add(p))
	}
	var pl *Plugin
	factory := func(_ context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(args, h, epoch)
		pl = p
		return p, err
	}
	fw, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(Name, factory),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterFilterPlugin("cpuFit", func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return cpuFit{}, nil }),
		tf.RegisterPostFilterPlugin(Name, factory),
	}, profile, frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf),
		frameworkruntime.WithSnapshotSharedLister(cache.NewSnapshot(pods, nodes)), frameworkruntime.WithPodNominator(noNominator{}))
	return pl, fw, cs, err
}

func qpi(t *testing.T, p *v1.Pod, ts time.Time) *framework.QueuedPodInfo {
	pi, err := framework.NewPodInfo(p)
	require.NoError(t, err)
	return &framework.QueuedPodInfo{PodInfo: pi, QueueingParams: framework.QueueingParams{Timestamp: ts}}
}

func TestLessIsPrioritySortWithoutManagedPods(t *testing.T) {
	pl, _, _ := setup(t, "ocorp-eq", nil, nil)
	ps := queuesort.PrioritySort{}
	var infos []*framework.QueuedPodInfo
	for i := range 12 {
		p := mkPod(fmt.Sprint("p", i), "default-scheduler", int64(1+i%3), "", epoch)
		prio := int32(i % 4)
		p.Spec.Priority = &prio
		infos = append(infos, qpi(t, p, epoch.Add(time.Duration((i*7)%5)*time.Second)))
	}
	for _, a := range infos {
		for _, b := range infos {
			require.Equal(t, ps.Less(a, b), pl.Less(a, b), "%s vs %s", a.GetPod().Name, b.GetPod().Name)
		}
	}
}

func TestLessOrdersByOmega(t *testing.T) {
	const prof = "ocorp-order"
	pl, _, _ := setup(t, prof, []*v1.Node{mkNode("n1", 8)}, nil)
	short := mkPod("short", prof, 1, "10", epoch) // p = 1
	long := mkPod("long", prof, 1, "600", epoch)  // p = 60
	wide := mkPod("wide", prof, 4, "600", epoch)  // p = 60, d = 4
	other := mkPod("other", "default-scheduler", 1, "", epoch)
	at := epoch.Add(time.Hour) // queued later than all: timestamps never decide below
	q := func(p *v1.Pod) *framework.QueuedPodInfo { return qpi(t, p, at) }
	// omega = w/d with lambda = 0 before any slot, w of the next slot
	// (t = 1, the paper's slot 2): w = (t+1-a)^2/p + p.
	require.InDelta(t, 4.0/1+1, pl.Omega(short), 1e-12)
	require.InDelta(t, 4.0/60+60, pl.Omega(long), 1e-12)
	require.InDelta(t, (4.0/60+60)/4, pl.Omega(wide), 1e-12)
	require.Zero(t, pl.Omega(other))
	require.True(t, pl.Less(q(short), q(long)), "shorter job first (smaller w)")
	require.True(t, pl.Less(q(wide), q(long)), "same p, more cores: smaller omega = w/d first")
	require.True(t, pl.Less(q(other), q(short)), "unmanaged pods (omega 0) pass jobs OCORP leaves idle")
	hi := int32(10)
	long.Spec.Priority = &hi
	require.True(t, pl.Less(q(long), q(short)), "priority first")
}

func TestStepPublishesOCORPDuals(t *testing.T) {
	const prof = "ocorp-step"
	a := mkPod("a", prof, 2, "30", epoch)                   // slot 0, d 2, p 3
	b := mkPod("b", prof, 1, "", epoch.Add(12*time.Second)) // slot 1, d 1, p 60
	c := mkPod("c", "default-scheduler", 3, "", epoch)
	pl, _, _ := setup(t, prof, []*v1.Node{mkNode("n1", 4)}, []*v1.Pod{a, b, c})
	require.NoError(t, pl.Step(context.Background(), epoch.Add(25*time.Second))) // slot 2
	// Independently: the same jobs through the core policy.
	jobs := []core.Job{{Arrival: 0, Cores: 2, Processing: 3}, {Arrival: 1, Cores: 1, Processing: 60}}
	pol, err := core.New([]core.Machine{{Cores: 4}}, core.Settings{K: 2, Fill: true})
	require.NoError(t, err)
	_, err = pol.Decide(2, core.Obs{Jobs: []core.ActiveJob{{ID: 0, Job: jobs[0], Remaining: 6}, {ID: 1, Job: jobs[1], Remaining: 60}}})
	require.NoError(t, err)
	for i, p := range []*v1.Pod{a, b} {
		want := (core.Weight(jobs[i], 3, 2) - pol.Lambda(i)) / float64(jobs[i].Cores)
		require.InDelta(t, want, pl.Omega(p), 1e-9, p.Name)
	}
	s := pl.own.Load()
	require.Equal(t, 2, s.slot)
	require.NotContains(t, s.omega, types.UID("c"), "pods of other profiles are not jobs")
	// Once per slot.
	require.NoError(t, pl.Step(context.Background(), epoch.Add(29*time.Second)))
	require.Same(t, s, pl.own.Load())
}

func TestPostFilterPreemptsByOmega(t *testing.T) {
	const prof = "ocorp-pre"
	n1, n2 := mkNode("n1", 2), mkNode("n2", 2)
	v1a := mkPod("late1", prof, 1, "", epoch) // omega 3: evicted first
	v1b := mkPod("late2", prof, 1, "", epoch) // omega 1
	v2a := mkPod("early", prof, 1, "", epoch) // omega -9: earlier than the preemptor
	v2b := mkPod("dflt", "default-scheduler", 1, "", epoch)
	for _, v := range []*v1.Pod{v1a, v1b} {
		v.Spec.NodeName = "n1"
	}
	for _, v := range []*v1.Pod{v2a, v2b} {
		v.Spec.NodeName = "n2"
	}
	pre := mkPod("pre", prof, 1, "", epoch)
	wait0 := mkPod("waiter", prof, 1, "", epoch)
	pl, fw, cs := setup(t, prof, []*v1.Node{n1, n2}, []*v1.Pod{v1a, v1b, v2a, v2b})
	pl.own.Store(&snapshot{slot: 5, omega: map[types.UID]float64{"late1": 3, "late2": 1, "early": -9, "pre": -5, "waiter": 5}})

	ctx := context.Background()
	state := framework.NewCycleState()
	filtered := framework.NewNodeToStatus(map[string]*fwk.Status{
		"n1": fwk.NewStatus(fwk.Unschedulable, "cpu"), "n2": fwk.NewStatus(fwk.Unschedulable, "cpu")}, fwk.NewStatus(fwk.UnschedulableAndUnresolvable))
	res, st := pl.PostFilter(ctx, state, pre, filtered)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Equal(t, "n1", res.NominatedNodeName, "n2 holds only an earlier job and an unmanaged pod")
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		l, err := cs.CoreV1().Pods("ns").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		names := map[string]bool{}
		for _, p := range l.Items {
			names[p.Name] = true
		}
		return !names["late1"], nil
	}))
	for _, keep := range []string{"late2", "early", "dflt"} {
		_, err := cs.CoreV1().Pods("ns").Get(ctx, keep, metav1.GetOptions{})
		require.NoError(t, err, "%s must not be evicted: one victim is enough", keep)
	}
	// A pod later in OCORP's order than every running managed pod does not
	// preempt.
	_, st = pl.PostFilter(ctx, state, wait0, filtered)
	require.Equal(t, fwk.Unschedulable, st.Code())
	// Nodes ruled out as unresolvable are not tried.
	_, st = pl.PostFilter(ctx, state, pre, framework.NewDefaultNodeToStatus())
	require.Equal(t, fwk.Unschedulable, st.Code())
	require.Contains(t, st.Message(), "no node frees enough")
	_ = fw
}

func TestValidateOCORPArgs(t *testing.T) {
	a := &Args{}
	SetDefaults(a)
	require.NoError(t, ValidateOCORPArgs(field.NewPath("args"), a))
	err := ValidateOCORPArgs(field.NewPath("args"), &Args{Profiles: []string{"x", "x", ""}, SlotSeconds: -1, WorkAnnotation: "no good!",
		DefaultWorkSeconds: 0.5, K: 9, MaxJobs: -2})
	require.Error(t, err)
	for _, want := range []string{"args.profiles[1]", "args.profiles[2]", "args.slotSeconds", "args.workAnnotation", "args.defaultWorkSeconds", "args.k", "args.maxJobs"} {
		require.Contains(t, err.Error(), want)
	}
	_, err = New(context.Background(), &Args{SlotSeconds: 1e9}, nil)
	require.ErrorContains(t, err, "args.slotSeconds")
}
