package gang

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	internalcache "k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

func pod(name, grp, minMember string, cpu int64) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Labels: map[string]string{}, Annotations: map[string]string{}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI)}}}}},
	}
	if grp != "" {
		p.Labels[DefaultGroupLabel] = grp
	}
	if minMember != "" {
		p.Annotations[DefaultMinMemberKey] = minMember
	}
	return p
}

func node(name string, cpu int64) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{
		v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI), v1.ResourcePods: *resource.NewQuantity(110, resource.DecimalSI)}}}
}

// setup builds a framework with Gang at PreFilter, Reserve, Permit and
// PostBind, over a fake clientset holding pods.
type recorder struct {
	mu        sync.Mutex
	activated []string
}

func (r *recorder) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range pods {
		r.activated = append(r.activated, k)
	}
	slices.Sort(r.activated)
}

func setup(t *testing.T, args *Args, pods ...*v1.Pod) (framework.Framework, *Plugin) {
	fw, pl, _ := setupRec(t, args, pods...)
	return fw, pl
}

func setupRec(t *testing.T, args *Args, pods ...*v1.Pod) (framework.Framework, *Plugin, *recorder) {
	t.Helper()
	return setupWith(t, args, nil, pods...)
}

// setupWith is setupRec with more plugins in the profile (e.g. filters).
func setupWith(t *testing.T, args *Args, extra []tf.RegisterPluginFunc, pods ...*v1.Pod) (framework.Framework, *Plugin, *recorder) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs := clientsetfake.NewClientset()
	inf := informers.NewSharedInformerFactory(cs, 0)
	for _, p := range pods {
		require.NoError(t, inf.Core().V1().Pods().Informer().GetStore().Add(p))
	}
	var pl *Plugin
	rec := &recorder{}
	factory := func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := New(ctx, args, h)
		if err == nil {
			pl = p.(*Plugin)
		}
		return p, err
	}
	fw, err := tf.NewFramework(ctx, append([]tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, factory, "PreFilter", "Reserve", "Permit", "PostBind"),
	}, extra...), "gang", frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf),
		frameworkruntime.WithSnapshotSharedLister(internalcache.NewEmptySnapshot()),
		frameworkruntime.WithWaitingPods(frameworkruntime.NewWaitingPodsMap()), frameworkruntime.WithPodActivator(rec))
	require.NoError(t, err)
	return fw, pl, rec
}

func TestPermitAllowsTheGroupTogether(t *testing.T) {
	ctx := context.Background()
	p1, p2, p3 := pod("a", "g", "3", 1), pod("b", "g", "3", 1), pod("c", "g", "3", 1)
	fw, _, rec := setupRec(t, &Args{}, p1, p2, p3)
	for i, p := range []*v1.Pod{p1, p2} {
		wt, st := fw.RunPermitPlugins(ctx, framework.NewCycleState(), p, "n1")
		require.Truef(t, st.IsWait(), "%s: permit %v, want Wait (group not complete)", p.Name, st)
		fw.AddWaitingPod(p, wt)
		// A waiting member activates its pending siblings (not the waiting ones).
		want := [][]string{{"ns/b", "ns/c"}, {"ns/b", "ns/c", "ns/c"}}[i]
		rec.mu.Lock()
		require.Equal(t, want, rec.activated)
		rec.mu.Unlock()
	}
	require.NotNil(t, fw.GetWaitingPod(p1.UID), "a must be waiting")
	_, st := fw.RunPermitPlugins(ctx, framework.NewCycleState(), p3, "n1")
	require.True(t, st.IsSuccess(), "third member completes the group: %v", st)
	for _, p := range []*v1.Pod{p1, p2} {
		require.True(t, fw.WaitOnPermit(ctx, p).IsSuccess(), "%s must be allowed with its group", p.Name)
	}
	// A fourth member of a complete group is let through at once.
	p4 := pod("d", "g", "3", 1)
	_, st = fw.RunPermitPlugins(ctx, framework.NewCycleState(), p4, "n1")
	require.True(t, st.IsSuccess(), "member beyond min-member: %v", st)
	// A pod outside groups is never held.
	_, st = fw.RunPermitPlugins(ctx, framework.NewCycleState(), pod("solo", "", "", 1), "n1")
	require.True(t, st.IsSuccess())
}

func TestTimeoutRejectsTheWholeGroup(t *testing.T) {
	ctx := context.Background()
	p1, p2, p3 := pod("a", "g", "3", 1), pod("b", "g", "3", 1), pod("c", "g", "3", 1)
	fw, _ := setup(t, &Args{PermitWaitingTimeSeconds: 1}, p1, p2, p3)
	for _, p := range []*v1.Pod{p1, p2} {
		wt, st := fw.RunPermitPlugins(ctx, framework.NewCycleState(), p, "n1")
		require.True(t, st.IsWait())
		fw.AddWaitingPod(p, wt)
		time.Sleep(500 * time.Millisecond) // b's own timeout comes after a's
	}
	st := fw.WaitOnPermit(ctx, p1) // c never comes: a times out
	require.False(t, st.IsSuccess())
	require.Contains(t, st.Message(), "timeout")
	// The scheduler runs Unreserve for the failed member: the rest of the
	// group is rejected at once, not after its own timeout.
	fw.RunReservePluginsUnreserve(ctx, framework.NewCycleState(), p1, "n1")
	start := time.Now()
	st = fw.WaitOnPermit(ctx, p2)
	require.False(t, st.IsSuccess(), "b must be rejected with its group")
	require.Contains(t, st.Message(), "releasing the group")
	require.Less(t, time.Since(start), 500*time.Millisecond)
	n := 0
	fw.IterateOverWaitingPods(func(fwk.WaitingPod) { n++ })
	require.Zero(t, n, "no member may stay held")
}

func TestPreFilterPlansTheGroupWhole(t *testing.T) {
	ctx := context.Background()
	a, b, c := pod("a", "g", "3", 2), pod("b", "g", "3", 2), pod("c", "g", "3", 2)
	fw, pl := setup(t, &Args{}, a, b, c)
	_ = fw
	two := tf.BuildNodeInfos([]*v1.Node{node("n1", 2), node("n2", 3)})
	_, st := pl.PreFilter(ctx, nil, a, two)
	require.Equal(t, fwk.Unschedulable, st.Code(), "3 pods of 2 CPUs do not fit 2+3 CPUs: %v", st)
	require.Contains(t, st.Message(), "do not fit the cluster together")

	three := tf.BuildNodeInfos([]*v1.Node{node("n1", 1), node("n2", 2), node("n3", 4)})
	res, st := pl.PreFilter(ctx, nil, b, three)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Len(t, pinned(res), 1)
	require.Contains(t, []string{"n2", "n3"}, pinned(res)[0], "the group (3 x 2 CPUs) fits only as one on n2 and two on n3")

	// Fewer live members than min-member: unresolvable until more arrive.
	_, st = pl.PreFilter(ctx, nil, pod("x", "h", "2", 1), three)
	require.Equal(t, fwk.UnschedulableAndUnresolvable, st.Code())
	require.Contains(t, st.Message(), "0 of min-member 2")
	// A bad min-member names the key and the value.
	_, st = pl.PreFilter(ctx, nil, pod("y", "g", "zero", 1), three)
	require.Equal(t, fwk.UnschedulableAndUnresolvable, st.Code())
	require.Contains(t, st.Message(), `scheduling.x-k8s.io/min-member = "zero"`)
	// Outside groups: skipped.
	_, st = pl.PreFilter(ctx, nil, pod("solo", "", "", 1), three)
	require.Equal(t, fwk.Skip, st.Code())
}

func TestFirstFitAccountsEarlierMembers(t *testing.T) {
	nodes := tf.BuildNodeInfos([]*v1.Node{node("n1", 3), node("n2", 2)})
	ps := []*v1.Pod{pod("a", "", "", 2), pod("b", "", "", 1), pod("c", "", "", 2)}
	dst := make([]string, 3)
	require.True(t, FirstFit{}.Place(dst, ps, nodes, nil))
	require.Equal(t, []string{"n1", "n1", "n2"}, dst)
	ps = append(ps, pod("d", "", "", 1))
	require.False(t, FirstFit{}.Place(make([]string, 4), ps, nodes, nil), "5 CPUs asked of 5 with d: 6")
	require.Equal(t, int64(0), nodes[0].GetRequested().GetMilliCPU(), "nodes must not be modified")
}

func TestValidateGangArgs(t *testing.T) {
	a := &Args{}
	SetDefaults(a)
	require.NoError(t, ValidateGangArgs(field.NewPath("args"), a))
	bad := &Args{GroupLabel: "bad label!", MinMemberKey: "ok", PermitWaitingTimeSeconds: -1, MaxGroupSize: 1 << 20}
	err := ValidateGangArgs(field.NewPath("args"), bad)
	require.Error(t, err)
	for _, want := range []string{"args.groupLabel", "args.permitWaitingTimeSeconds", "args.maxGroupSize"} {
		require.Contains(t, err.Error(), want)
	}
	require.NotContains(t, err.Error(), "args.minMemberKey")
	_, err = New(context.Background(), &Args{PermitWaitingTimeSeconds: 7200}, nil)
	require.ErrorContains(t, err, "permitWaitingTimeSeconds")
}

func pinned(r *fwk.PreFilterResult) []string {
	if r == nil {
		return nil
	}
	out := r.NodeNames.UnsortedList()
	if len(out) > 1 {
		panic(strings.Join(out, ","))
	}
	return out
}
