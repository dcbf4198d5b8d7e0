package esdp

import (
	"context"
	"fmt"
	"math"
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
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/defaultbinder"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/queuesort"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mkPod(name string, cpu int64) *v1.Pod {
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID(name), Annotations: map[string]string{}},
		Spec: v1.PodSpec{SchedulerName: "msched-esdp", Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{
			Requests: v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI)}}}}},
	}
}

func finished(name string, cpu int64, node string, phase v1.PodPhase, reward string) *v1.Pod {
	p := mkPod(name, cpu)
	p.Spec.NodeName = node
	p.Status.Phase = phase
	if reward != "" {
		p.Annotations[DefaultRewardAnnotation] = reward
	}
	return p
}

// setup: nodes n1 and n2 with 4 CPUs; busy CPUs of each are taken by
// bound pods of another profile.
func setup(t *testing.T, busy int64) *Plugin {
	t.Helper()
	pl, err := setupWith(t, clientsetfake.NewClientset(), "msched-esdp", &Args{Resources: []ResourceSpec{{Name: "cpu"}}, SlotSeconds: 10}, busy)
	require.NoError(t, err)
	return pl
}

// setupWith builds the plugin of profile on cs with args (see setup).
func setupWith(t *testing.T, cs *clientsetfake.Clientset, profile string, args *Args, busy int64) (*Plugin, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	inf := informers.NewSharedInformerFactory(cs, 0)
	for _, n := range []string{"n1", "n2"} {
		require.NoError(t, inf.Core().V1().Nodes().Informer().GetStore().Add(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n},
			Status: v1.NodeStatus{Allocatable: v1.ResourceList{v1.ResourceCPU: resource.MustParse("4")}}}))
	}
	if busy > 0 {
		for _, n := range []string{"n1", "n2"} {
			b := finished("busy-"+n, busy, n, v1.PodRunning, "")
			b.Spec.SchedulerName = "default-scheduler"
			require.NoError(t, inf.Core().V1().Pods().Informer().GetStore().Add(b))
		}
	}
	var pl *Plugin
	factory := func(_ context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		p, err := newPlugin(args, h, epoch)
		pl = p
		return p, err
	}
	_, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterPreScorePlugin(Name, factory),
		tf.RegisterScorePlugin(Name, factory, 1),
	}, profile, frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf))
	if err != nil {
		return nil, err
	}
	return pl, nil
}

func scores(t *testing.T, pl *Plugin, pod *v1.Pod) map[string]int64 {
	t.Helper()
	st := framework.NewCycleState()
	require.True(t, pl.PreScore(context.Background(), st, pod, nil).IsSuccess())
	out := map[string]int64{}
	for _, n := range []string{"n1", "n2"} {
		ni := framework.NewNodeInfo()
		ni.SetNode(&v1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}})
		s, status := pl.Score(context.Background(), st, pod, ni)
		require.True(t, status.IsSuccess())
		out[n] = s
	}
	return out
}

func at(slot int) time.Time { return epoch.Add(time.Duration(slot)*10*time.Second + time.Second) }

func TestESDPLearnsTheBetterNode(t *testing.T) {
	ctx := context.Background()
	pl := setup(t, 2) // 2 CPUs free on each node: 4 in all
	pod := mkPod("p", 3)
	// Before any slot: no opinion.
	require.Equal(t, fwk.Skip, pl.PreScore(ctx, framework.NewCycleState(), pod, nil).Code())
	pl.Arrive(pod)
	require.NoError(t, pl.Step(ctx, at(0)))
	s := scores(t, pl, pod)
	// Nothing played: both channels have an infinite index (50); the
	// cluster's 4 free CPUs take one job of 3, so ESDP's decision x(t)
	// holds one of the two channels (+50).
	require.ElementsMatch(t, []int64{100, 50}, []int64{s["n1"], s["n2"]}, "%v", s)

	// Jobs of this shape do well on n1 (reward 0.9) and badly on n2 (0.1).
	for slot := 1; slot <= 30; slot++ {
		pl.Arrive(mkPod(fmt.Sprint("a", slot), 3))
		pl.Finish(finished(fmt.Sprint("g", slot), 3, "n1", v1.PodSucceeded, "0.9"))
		pl.Finish(finished(fmt.Sprint("b", slot), 3, "n2", v1.PodSucceeded, "0.1"))
		require.NoError(t, pl.Step(ctx, at(slot)))
	}
	obs, dropped := pl.Stats()
	require.Equal(t, 60, obs)
	require.Zero(t, dropped)
	e1, e2 := pl.edgeOf[0][0], pl.edgeOf[0][1]
	require.InDelta(t, 0.9, pl.pol.Mean(e1), 1e-12)
	require.InDelta(t, 0.1, pl.pol.Mean(e2), 1e-12)
	s = scores(t, pl, pod)
	require.Equal(t, score(true, pl.pol.Mean(e1), pl.pol.Variance(30, e1)), s["n1"], "n1 is ESDP's decision: %v", s)
	require.Equal(t, score(false, pl.pol.Mean(e2), pl.pol.Variance(30, e2)), s["n2"], "n2 is not: %v", s)
	require.Greater(t, s["n1"], int64(50))
	require.Less(t, s["n2"], int64(50))
}

func TestOutcomes(t *testing.T) {
	ctx := context.Background()
	pl := setup(t, 0)
	pl.Arrive(mkPod("p", 2))
	require.NoError(t, pl.Step(ctx, at(0)))
	pl.Finish(finished("ann", 2, "n1", v1.PodSucceeded, "0.25"))
	pl.Finish(finished("ann", 2, "n1", v1.PodSucceeded, "0.25")) // re-delivered: counted once
	pl.Finish(finished("fail", 2, "n2", v1.PodFailed, ""))
	pl.Finish(finished("running", 2, "n2", v1.PodRunning, ""))  // deleted while running: no outcome
	pl.Finish(finished("bad", 2, "n1", v1.PodSucceeded, "7"))   // invalid reward: phase decides (1)
	pl.Finish(finished("other", 3, "n1", v1.PodSucceeded, "1")) // shape not in the model
	pl.Finish(finished("gone", 2, "n9", v1.PodSucceeded, "1"))  // node not in the model
	pl.Arrive(mkPod("q", 2))
	require.NoError(t, pl.Step(ctx, at(1)))
	obs, dropped := pl.Stats()
	require.Equal(t, 3, obs)
	require.Equal(t, 2, dropped, "shape 3 never arrived and n9 is no node")
	e1, e2 := pl.edgeOf[0][0], pl.edgeOf[0][1]
	require.InDelta(t, (0.25+1)/2, pl.pol.Mean(e1), 1e-12)
	require.Equal(t, 2, pl.pol.Count(e1))
	require.InDelta(t, 0, pl.pol.Mean(e2), 1e-12)
	require.Equal(t, 1, pl.pol.Count(e2))
	// Same shape, same signature.
	a, _ := pl.SignPod(ctx, mkPod("x", 2))
	b, _ := pl.SignPod(ctx, mkPod("y", 2))
	c, _ := pl.SignPod(ctx, mkPod("z", 3))
	require.Equal(t, a, b)
	require.NotEqual(t, a, c)
}

// TestOutcomeInformer: from its first scoring cycle (after the state is
// loaded) the plugin of New watches the profile's finished pods through the
// API (the scheduler's informer never shows them finished).
func TestOutcomeInformer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cs := clientsetfake.NewClientset()
	inf := informers.NewSharedInformerFactory(cs, 0)
	var pl *Plugin
	_, err := tf.NewFramework(ctx, []tf.RegisterPluginFunc{
		tf.RegisterQueueSortPlugin(queuesort.Name, queuesort.New),
		tf.RegisterBindPlugin(defaultbinder.Name, defaultbinder.New),
		tf.RegisterScorePlugin(Name, func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			p, err := New(ctx, obj, h)
			if err == nil {
				pl = p.(*Plugin)
			}
			return p, err
		}, 1),
	}, "msched-esdp", frameworkruntime.WithClientSet(cs), frameworkruntime.WithInformerFactory(inf))
	require.NoError(t, err)
	_, err = cs.CoreV1().Pods("ns").Create(ctx, finished("done", 1, "n1", v1.PodSucceeded, "0.7"), metav1.CreateOptions{})
	require.NoError(t, err)
	time.Sleep(100 * time.Millisecond)
	pl.mu.Lock()
	require.Empty(t, pl.outcomes, "no watch before the first scoring cycle (a standby learns nothing)")
	pl.mu.Unlock()
	require.Equal(t, fwk.Skip, pl.PreScore(ctx, framework.NewCycleState(), mkPod("p", 1), nil).Code())
	require.Eventually(t, func() bool {
		pl.mu.Lock()
		defer pl.mu.Unlock()
		if len(pl.outcomes) != 1 {
			return false
		}
		o := pl.outcomes[0]
		o.rv = ""
		return o == outcome{shape: "1,0,0", node: "n1", reward: 0.7}
	}, 5*time.Second, 10*time.Millisecond)
}

func TestScore(t *testing.T) {
	require.Equal(t, int64(100), score(true, 0, math.Inf(1)), "unplayed and chosen")
	require.Equal(t, int64(50), score(false, 0, math.Inf(1)), "unplayed: above every played channel")
	require.Equal(t, int64(0), score(false, 0, 0))
	prev := int64(-1)
	for _, i := range []float64{0.1, 0.5, 1, 2, 10, 1e9} {
		s := score(false, i, 0)
		require.GreaterOrEqual(t, s, prev, "monotone in the index")
		require.Less(t, s, int64(50))
		prev = s
	}
}

func TestRebuildKeepsLearning(t *testing.T) {
	ctx := context.Background()
	pl := setup(t, 0)
	pl.Arrive(mkPod("p", 1))
	require.NoError(t, pl.Step(ctx, at(0)))
	pl.Finish(finished("g", 1, "n2", v1.PodSucceeded, "0.6"))
	pl.Arrive(mkPod("big", 4)) // a new shape: the model is rebuilt
	require.NoError(t, pl.Step(ctx, at(1)))
	require.Equal(t, []string{"1", "4"}, pl.portKeys)
	require.InDelta(t, 0.6, pl.pol.Mean(pl.edgeOf[0][1]), 1e-12, "the channel (1 CPU, n2) keeps its statistics")
	require.Zero(t, pl.pol.Count(pl.edgeOf[1][1]))
}

func TestValidateESDPArgs(t *testing.T) {
	a := &Args{}
	SetDefaults(a)
	require.NoError(t, ValidateESDPArgs(field.NewPath("args"), a))
	err := ValidateESDPArgs(field.NewPath("args"), &Args{Resources: []ResourceSpec{{Name: "cpu", Unit: "0"}}, MaxPorts: 1000, SlotSeconds: -1,
		RewardAnnotation: "a b", OracleMiB: -1})
	require.Error(t, err)
	for _, want := range []string{"args.resources[0].unit", "args.maxPorts", "args.slotSeconds", "args.rewardAnnotation", "args.oracleMiB"} {
		require.Contains(t, err.Error(), want)
	}
	_, err = New(context.Background(), &Args{MaxPorts: -1}, nil)
	require.ErrorContains(t, err, "args.maxPorts")
}
