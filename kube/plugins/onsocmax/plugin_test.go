package onsocmax

import (
	"context"
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
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func job(name string, cpu int64, value, deadline string) *v1.Pod {
	p := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Annotations: map[string]string{}},
		Spec: v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI)}}}}},
	}
	if value != "" {
		p.Annotations[DefaultValueAnnotation] = value
	}
	if deadline != "" {
		p.Annotations[DefaultDeadlineAnnotation] = deadline
	}
	return p
}

// setup: one node of 10 CPUs, cpu the only priced resource.
func setup(t *testing.T, pods ...*v1.Pod) (*Plugin, *clientsetfake.Clientset) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	objs := []runtime.Object{}
	for _, p := range pods {
		objs = append(objs, p)
	}
	cs := clientsetfake.NewClientset(objs...)
	inf := informers.NewSharedInformerFactory(cs, 0)
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("10")}}}
	require.NoError(t, inf.Core().V1().Nodes().Informer().GetStore().Add(n))
	var pl *Plugin
	factory := func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(ctx, &Args{Resources: []ResourceSpec{{Name: "cpu"}}}, h, func() time.Time { return t0 })
		pl = p
		return p, err
	}
	_, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, factory, "PreEnqueue", "Reserve"),
	}, "onsocmax", frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf))
	require.NoError(t, err)
	return pl, cs
}

// integral is an independent Simpson integration of the price function.
func integral(p *Plugin, u, x float64) float64 {
	const n = 2000
	h := x / n
	s := p.price.MarginalCost(u, 1) + p.price.MarginalCost(u+x, 1)
	for i := 1; i < n; i++ {
		w := 2.0
		if i%2 == 1 {
			w = 4
		}
		s += w * p.price.MarginalCost(u+float64(i)*h, 1)
	}
	return s * h / 3
}

func TestAdmissionFollowsMarginalCost(t *testing.T) {
	ctx := context.Background()
	pl, _ := setup(t)
	// Empty cluster: 2 of 10 CPUs cost iota * 0.2 (the flat part of phi).
	st := pl.PreEnqueue(ctx, job("a", 2, "0.5", ""))
	require.True(t, st.IsSuccess(), "%v", st)
	// A job worth less than its cluster share at the floor price waits.
	b := job("b", 2, "0.1", "")
	st = pl.PreEnqueue(ctx, b)
	require.Equal(t, fwk.UnschedulableAndUnresolvable, st.Code())
	require.Contains(t, st.Message(), "value 0.1 < marginal cost")
	vb := pl.Decide(b)
	require.Equal(t, ReasonPending, vb.Reason)
	require.InDelta(t, integral(pl, 0.2, 0.2), vb.Cost, 1e-6)
	require.GreaterOrEqual(t, vb.Cost, 0.2-1e-12, "phi >= iota everywhere")
	// Prices rise with the committed usage: each admitted job of 2 CPUs
	// pays the integral of phi over its share, checked independently.
	used := 0.2
	last := 0.0
	for i, name := range []string{"c", "d", "e"} {
		v := pl.Decide(job(name, 2, "100", ""))
		require.Equal(t, ReasonAdmitted, v.Reason, "job %d", i)
		require.InDelta(t, integral(pl, used, 0.2), v.Cost, 1e-6, "cost of job %d at usage %g", i, used)
		require.Greater(t, v.Cost, last)
		last, used = v.Cost, used+0.2
	}
	// 8 of 10 CPUs committed: a job of 3 does not fit at any value.
	v := pl.Decide(job("f", 3, "1e9", ""))
	require.Equal(t, ReasonPending, v.Reason)
	require.Contains(t, v.Message, "cannot take it now")
	require.Equal(t, []float64{8}, pl.Committed())
	// a leaves: f fits and is admitted on re-evaluation.
	pl.release("a")
	require.Equal(t, ReasonAdmitted, pl.Decide(job("f", 3, "1e9", "")).Reason)
}

func TestRefusals(t *testing.T) {
	pl, _ := setup(t)
	for _, c := range []struct {
		pod  *v1.Pod
		want string
	}{
		{job("nov", 1, "", ""), "annotation msched.io/value (the job's value) is required"},
		{job("badv", 1, "lots", ""), `msched.io/value = "lots"`},
		{job("negv", 1, "-3", ""), `msched.io/value = "-3"`},
		{job("nanv", 1, "NaN", ""), `msched.io/value = "NaN"`},
		{job("badd", 1, "5", "tomorrow"), `msched.io/deadline = "tomorrow": must be an RFC 3339 time`},
		{job("late", 1, "5", t0.Add(-time.Second).Format(time.RFC3339)), "deadline 2025-12-31T23:59:59Z passed"},
	} {
		v := pl.Decide(c.pod)
		require.Equal(t, ReasonRefused, v.Reason, c.pod.Name)
		require.Contains(t, v.Message, c.want, c.pod.Name)
	}
	require.Equal(t, []float64{0}, pl.Committed(), "refused jobs commit nothing")
	// Larger than the cluster: held, not refused (nodes may join).
	v := pl.Decide(job("huge", 11, "5", ""))
	require.Equal(t, ReasonPending, v.Reason)
	require.Contains(t, v.Message, "more than the cluster's 10; waiting for nodes")
	// A future deadline does not refuse.
	v = pl.Decide(job("ok", 1, "5", t0.Add(time.Hour).Format(time.RFC3339)))
	require.Equal(t, ReasonAdmitted, v.Reason)
}

func TestLedgerReserveUnreserve(t *testing.T) {
	ctx := context.Background()
	pl, _ := setup(t)
	a := job("a", 4, "10", "")
	require.True(t, pl.PreEnqueue(ctx, a).IsSuccess())
	require.True(t, pl.Reserve(ctx, nil, a, "n1").IsSuccess())
	require.Equal(t, []float64{4}, pl.Committed())
	pl.Unreserve(ctx, nil, a, "n1")
	require.Equal(t, []float64{4}, pl.Committed(), "an unreserved pod keeps its admission")
	require.True(t, pl.PreEnqueue(ctx, a).IsSuccess(), "and is not priced again")
	// A pod reserved without admission (admitted before a restart) enters
	// the ledger.
	b := job("b", 3, "", "")
	require.True(t, pl.Reserve(ctx, nil, b, "n1").IsSuccess())
	require.Equal(t, []float64{7}, pl.Committed())
	pl.release("a")
	pl.release("b")
	require.Equal(t, []float64{0}, pl.Committed())
}

func TestVerdictIsWrittenToThePod(t *testing.T) {
	ctx := context.Background()
	b := job("b", 2, "0.1", "")
	pl, cs := setup(t, b)
	require.False(t, pl.PreEnqueue(ctx, b).IsSuccess())
	var cond *v1.PodCondition
	require.NoError(t, wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 5*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := cs.CoreV1().Pods("ns").Get(ctx, "b", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for i := range got.Status.Conditions {
			if got.Status.Conditions[i].Type == ConditionAdmitted {
				cond = &got.Status.Conditions[i]
				return true, nil
			}
		}
		return false, nil
	}))
	require.Equal(t, v1.ConditionFalse, cond.Status)
	require.Equal(t, ReasonPending, cond.Reason)
	require.Contains(t, cond.Message, "marginal cost")
}

func TestValidateOnSocMaxArgs(t *testing.T) {
	a := &Args{}
	SetDefaults(a)
	require.NoError(t, ValidateOnSocMaxArgs(field.NewPath("args"), a))
	bad := &Args{Resources: []ResourceSpec{{Name: "cpu", Unit: "-1"}, {Name: "cpu", Unit: "x"}, {Unit: "1"}}, Iota: 5, V: 2,
		ValueAnnotation: "msched.io/v", DeadlineAnnotation: "msched.io/v"}
	err := ValidateOnSocMaxArgs(field.NewPath("args"), bad)
	require.Error(t, err)
	for _, want := range []string{"args.resources[0].unit", "args.resources[1].name", "args.resources[1].unit", "args.resources[2].name", "args.v", "args.deadlineAnnotation"} {
		require.Contains(t, err.Error(), want)
	}
	_, err = New(context.Background(), &Args{Iota: -1}, nil)
	require.ErrorContains(t, err, "args.iota")
}
