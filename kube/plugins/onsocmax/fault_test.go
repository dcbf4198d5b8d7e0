package onsocmax

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/informers"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// activator records the pods the plugin activates.
type activator struct {
	mu  sync.Mutex
	got []string
}

func (a *activator) Activate(_ klog.Logger, pods map[string]*v1.Pod) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for k := range pods {
		a.got = append(a.got, k)
	}
}

func (a *activator) list() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.got...)
}

// replica builds one scheduler replica's plugin on cs (the wall clock, a
// pod activator), one node of 10 CPUs.
func replica(t *testing.T, cs *clientsetfake.Clientset, act fwk.PodActivator) *Plugin {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inf := informers.NewSharedInformerFactory(cs, 0)
	n := &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}, Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("10")}}}
	require.NoError(t, inf.Core().V1().Nodes().Informer().GetStore().Add(n))
	var pl *Plugin
	factory := func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(ctx, &Args{Resources: []ResourceSpec{{Name: "cpu"}}}, h, time.Now)
		pl = p
		return p, err
	}
	opts := []frameworkruntime.Option{frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf)}
	if act != nil {
		opts = append(opts, frameworkruntime.WithPodActivator(act))
	}
	_, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPluginAsExtensions(Name, factory, "PreEnqueue", "Reserve"),
	}, "onsocmax", opts...)
	require.NoError(t, err)
	return pl
}

func fastLease(t *testing.T) {
	d, r, p := leaseDuration, renewDeadline, retryPeriod
	leaseDuration, renewDeadline, retryPeriod = 2*time.Second, 1500*time.Millisecond, 100*time.Millisecond
	t.Cleanup(func() { leaseDuration, renewDeadline, retryPeriod = d, r, p })
}

// countPatches counts the status patches of pods on cs (and answers them,
// without applying: the fake's merge is slow); block, when not nil, holds
// each patch until it is closed.
func countPatches(cs *clientsetfake.Clientset, block chan struct{}) *atomic.Int64 {
	var n atomic.Int64
	cs.PrependReactor("patch", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if block != nil {
			<-block
		}
		n.Add(1)
		return true, &v1.Pod{}, nil
	})
	return &n
}

// TestValueRefusesHex: strconv.ParseFloat took "0x1p2" (and Inf, NaN,
// underscores) as a value; only decimal numbers are accepted.
func TestValueRefusesHex(t *testing.T) {
	pl, _ := setup(t)
	for _, raw := range []string{"0x1p2", "0X10", "1_0", "Inf", "infinity", "NaN", "1e", ".", "+", "1.5.2"} {
		v := pl.Decide(job("hex-"+raw, 1, raw, ""))
		require.Equal(t, ReasonRefused, v.Reason, "value %q", raw)
	}
	for raw, want := range map[string]float64{"4": 4, " 2.5 ": 2.5, "1e1": 10, ".5": 0.5, "3.": 3, "+7E-1": 0.7} {
		got, err := parseDecimal(raw)
		require.NoError(t, err, raw)
		require.Equal(t, want, got, raw)
	}
}

// TestDeadlineRequeues: a held job whose deadline passes was re-evaluated
// only at the next pod-delete or node event; now it is activated at its
// deadline, and PreEnqueue then refuses it.
func TestDeadlineRequeues(t *testing.T) {
	act := &activator{}
	pl := replica(t, clientsetfake.NewClientset(), act)
	deadline := time.Now().Add(300 * time.Millisecond).UTC().Format(time.RFC3339Nano)
	pod := job("late", 1, "0.01", deadline) // value below the price: held
	st := pl.PreEnqueue(context.Background(), pod)
	require.Equal(t, fwk.UnschedulableAndUnresolvable, st.Code())
	require.Contains(t, st.Message(), "holds the job")
	require.Eventually(t, func() bool { return len(act.list()) == 1 }, 5*time.Second, 10*time.Millisecond, "never requeued at the deadline")
	require.Equal(t, []string{"ns/late"}, act.list())
	st = pl.PreEnqueue(context.Background(), pod)
	require.Contains(t, st.Message(), "deadline")
	require.Contains(t, st.Message(), "passed")
}

// TestTwoReplicasOneWriter: two replicas gate the same six pods (PreEnqueue
// runs on standbys too); only the one holding the writer Lease patches
// the condition (the old code wrote twelve times).
func TestTwoReplicasOneWriter(t *testing.T) {
	fastLease(t)
	cs := clientsetfake.NewClientset()
	var pods []*v1.Pod
	for i := range 6 {
		p := job(fmt.Sprint("j", i), 1, "50", "")
		_, err := cs.CoreV1().Pods("ns").Create(context.Background(), p, metav1.CreateOptions{})
		require.NoError(t, err)
		pods = append(pods, p)
	}
	patches := countPatches(cs, nil)
	a, b := replica(t, cs, nil), replica(t, cs, nil)
	for _, p := range pods {
		a.PreEnqueue(context.Background(), p)
		b.PreEnqueue(context.Background(), p)
	}
	require.Eventually(t, func() bool { return patches.Load() >= 6 }, 10*time.Second, 10*time.Millisecond)
	time.Sleep(500 * time.Millisecond)
	require.Equal(t, int64(6), patches.Load(), "conditions written by both replicas")
	require.NotEqual(t, a.Writing(), b.Writing(), "exactly one replica writes")
}

// TestVerdictsNeverDropped: verdicts queued while the writer is stalled
// (the old 1 024-entry channel dropped the rest) are all written.
func TestVerdictsNeverDropped(t *testing.T) {
	const n = 1500
	cs := clientsetfake.NewClientset() // the patch reactor answers: no pods needed
	block := make(chan struct{})
	patches := countPatches(cs, block)
	pl := replica(t, cs, nil)
	for i := range n {
		pl.PreEnqueue(context.Background(), job(fmt.Sprint("q", i), 0, "50", ""))
	}
	close(block)
	require.Eventually(t, func() bool { return patches.Load() == n }, 20*time.Second, 20*time.Millisecond, "written %d of %d verdicts", patches.Load(), n)
}
