package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/metrics"
)

// TestMain registers the scheduler's metrics, which the framework runtime
// records into.
func TestMain(m *testing.M) {
	metrics.Register()
	os.Exit(m.Run())
}

const defaultYAML = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
`

func node(name string, cpu int64) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(1<<30, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(100, resource.DecimalSI),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{v1.LabelHostname: name}},
		Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
}

func pod(name string, cpu int64) *v1.Pod {
	req := v1.ResourceList{v1.ResourceCPU: *resource.NewQuantity(cpu, resource.DecimalSI)}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: k8stypes.UID("uid-" + name)},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
			Containers: []v1.Container{{Name: "c", Image: "i", Resources: v1.ResourceRequirements{Requests: req, Limits: req}}}},
	}
}

// capacity is an independent allocatable check, as a replay's Admit is.
type capacity struct {
	mu   sync.Mutex
	free map[string]int64
	req  map[string]int64
	at   map[string]string
}

func (c *capacity) admit(p *v1.Pod, n string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.req[p.Name]
	if c.free[n] < r {
		return fmt.Errorf("%s does not fit %s", p.Name, n)
	}
	c.free[n] -= r
	c.at[p.Name] = n
	return nil
}

// TestSettleAndDelete: two 4-CPU nodes and three 3-CPU pods: two are bound
// (one per node), the third waits; deleting a bound pod lets it in.
func TestSettleAndDelete(t *testing.T) {
	ctx := context.Background()
	c := &capacity{free: map[string]int64{"n0": 4, "n1": 4}, req: map[string]int64{"a": 3, "b": 3, "c": 3}, at: map[string]string{}}
	var after []string
	h, err := Start(ctx, Config{
		SchedulerConfig: defaultYAML,
		Nodes:           []*v1.Node{node("n0", 4), node("n1", 4)},
		Admit:           c.admit,
		AfterBind:       func(p *v1.Pod, n string) { after = append(after, p.Name+"@"+n) },
	})
	require.NoError(t, err)
	defer h.Close()
	for _, n := range []string{"a", "b", "c"} {
		require.NoError(t, h.Create(ctx, pod(n, c.req[n])))
	}
	require.NoError(t, h.Settle(ctx))
	got := h.Counts()
	assert.Equal(t, 2, got.Bound)
	assert.Equal(t, 1, got.Pending)
	assert.Equal(t, 0, got.Refused)
	assert.GreaterOrEqual(t, got.Cycles, 3)
	assert.Len(t, after, 2)
	assert.NotEqual(t, c.at["a"], c.at["b"], "two 3-CPU pods on one 4-CPU node")
	// The bound pods carry their node.
	for _, n := range []string{"a", "b"} {
		assert.Equal(t, c.at[n], h.Pod("default", n).Spec.NodeName, n)
	}
	assert.Equal(t, "", h.Pod("default", "c").Spec.NodeName)

	c.mu.Lock()
	c.free[c.at["a"]] += 3
	c.mu.Unlock()
	wasBound, err := h.Delete(ctx, "default", "a")
	require.NoError(t, err)
	assert.True(t, wasBound)
	require.NoError(t, h.Settle(ctx))
	got = h.Counts()
	assert.Equal(t, Counts{Pending: 0, Bound: 2, BoundTotal: 3, Refused: 0, Cycles: got.Cycles}, got)
	assert.Equal(t, c.at["a"], c.at["c"], "c takes a's place")
	assert.Len(t, h.TakeCycles(), got.Cycles)
	assert.Empty(t, h.TakeCycles())
	assert.Empty(t, h.Client().Actions(), "actions are dropped at Settle")

	_, err = h.Delete(ctx, "default", "a")
	assert.ErrorIs(t, err, ErrReplay)
	assert.ErrorIs(t, h.Create(ctx, pod("b", 1)), ErrReplay, "duplicate")
	p := pod("d", 1)
	p.Spec.NodeName = "n0"
	assert.ErrorIs(t, h.Create(ctx, p), ErrReplay, "bound pod")
}

// TestAdmitRefuses: a binding refused by Admit is counted and the pod is
// retried; nothing is bound when Admit refuses everything.
func TestAdmitRefuses(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	tries := 0
	h, err := Start(ctx, Config{
		SchedulerConfig: defaultYAML,
		Nodes:           []*v1.Node{node("n0", 4)},
		Admit: func(*v1.Pod, string) error {
			mu.Lock()
			defer mu.Unlock()
			tries++
			if tries <= 2 {
				return errors.New("refused")
			}
			return nil
		},
	})
	require.NoError(t, err)
	defer h.Close()
	require.NoError(t, h.Create(ctx, pod("a", 1)))
	// A refused binding is a scheduling error: the pod goes back to the
	// queue and is retried at once (backoff 0), until Admit accepts it.
	require.NoError(t, h.Settle(ctx))
	got := h.Counts()
	assert.Equal(t, 1, got.Bound)
	assert.Equal(t, 2, got.Refused)
}

func TestStartErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Start(ctx, Config{SchedulerConfig: defaultYAML})
	assert.ErrorIs(t, err, ErrReplay)
	_, err = Start(ctx, Config{SchedulerConfig: "kind: Nope", Nodes: []*v1.Node{node("n0", 1)}})
	assert.ErrorIs(t, err, ErrReplay)
	_, err = Start(ctx, Config{SchedulerConfig: defaultYAML, Nodes: []*v1.Node{node("n0", 1)}, InitialBackoffSeconds: 2, MaxBackoffSeconds: 1})
	assert.ErrorIs(t, err, ErrReplay)
	_, err = Start(ctx, Config{SchedulerConfig: defaultYAML, Nodes: []*v1.Node{node("n0", 1)}, FeatureGates: map[string]bool{"NoSuchGate": true}})
	assert.ErrorIs(t, err, ErrReplay)
}

// TestFeatureGates: a gate is on while the harness runs and restored by
// Close.
func TestFeatureGates(t *testing.T) {
	const gate = "GenericWorkload"
	before := feature.DefaultFeatureGate.Enabled(gate)
	h, err := Start(context.Background(), Config{SchedulerConfig: defaultYAML, Nodes: []*v1.Node{node("n0", 1)}, FeatureGates: map[string]bool{gate: !before}})
	require.NoError(t, err)
	assert.Equal(t, !before, bool(feature.DefaultFeatureGate.Enabled(gate)))
	h.Close()
	assert.Equal(t, before, bool(feature.DefaultFeatureGate.Enabled(gate)))
}

// waiter is a Permit plugin that holds every pod for wait.
type waiter struct{ wait time.Duration }

func (waiter) Name() string { return "Waiter" }

func (w waiter) Permit(context.Context, fwk.CycleState, *v1.Pod, string) (*fwk.Status, time.Duration) {
	return fwk.NewStatus(fwk.Wait, "held"), w.wait
}

const waiterYAML = defaultYAML + `  plugins:
    permit: {enabled: [{name: Waiter}]}
`

// TestPermitTimeoutFired: a pod held at Permit for an hour is rejected as
// soon as nothing else can happen, the way its timer would reject it, so
// Settle returns at once; with WallPermitTimeouts it waits for the timer.
func TestPermitTimeoutFired(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		wall bool
		wait time.Duration
	}{{false, time.Hour}, {true, 300 * time.Millisecond}} {
		reg := frameworkruntime.Registry{"Waiter": func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
			return waiter{tc.wait}, nil
		}}
		h, err := Start(ctx, Config{SchedulerConfig: waiterYAML, Nodes: []*v1.Node{node("n0", 4)}, Registry: reg, WallPermitTimeouts: tc.wall, SettleTimeout: 20 * time.Second})
		require.NoError(t, err)
		start := time.Now()
		require.NoError(t, h.Create(ctx, pod("a", 1)))
		require.NoError(t, h.Settle(ctx))
		took := time.Since(start)
		got := h.Counts()
		h.Close()
		assert.Equal(t, 0, got.Bound, "wall %v", tc.wall)
		assert.Equal(t, 1, got.Pending, "wall %v", tc.wall)
		if tc.wall {
			assert.Equal(t, 0, got.PermitTimeouts)
			assert.GreaterOrEqual(t, took, tc.wait, "Settle returned before the Permit timer")
		} else {
			// The rejected pod is retried with backoff 0 and may reach
			// Permit again before the scheduler is idle, so its timeout
			// can fire more than once within the one Settle (CI saw 2);
			// what matters is that it fires at all, within the bound.
			assert.GreaterOrEqual(t, got.PermitTimeouts, 1)
			assert.LessOrEqual(t, got.PermitTimeouts, 100, "more than MaxPermitTimeouts (default 100) in one Settle")
			assert.Less(t, took, 10*time.Second, "Settle waited for the hour-long Permit")
		}
	}
}

// looper holds every pod at Permit and, when one is rejected, activates
// it again: a Permit loop that never settles by itself.
type looper struct{ h fwk.Handle }

func (looper) Name() string { return "Looper" }

func (looper) Permit(context.Context, fwk.CycleState, *v1.Pod, string) (*fwk.Status, time.Duration) {
	return fwk.NewStatus(fwk.Wait, "held"), time.Hour
}

func (looper) Reserve(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

func (l looper) Unreserve(ctx context.Context, _ fwk.CycleState, p *v1.Pod, _ string) {
	l.h.Activate(klog.FromContext(ctx), map[string]*v1.Pod{p.Namespace + "/" + p.Name: p})
}

// TestPermitLoopBounded: a plugin that requeues its rejected pod forever
// costs one Settle at most MaxPermitTimeouts fired timeouts, then Settle
// returns and counts the loop.
//
// The looper activates its pod from Unreserve, while the pod is still in
// flight; now and then the upstream queue then tracks the pod twice and
// drops it ("the same pod is tracked in multiple places ... Discarding
// the popped entity"), and Settle rightly reports it lost (14 of 100 runs
// under -race beside another test run, none of 30 idle). Such a run
// cannot show the loop, so the scenario runs again, on a new harness, up
// to three times; any other error, or wrong counts, fail it.
func TestPermitLoopBounded(t *testing.T) {
	ctx := context.Background()
	reg := frameworkruntime.Registry{"Looper": func(_ context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return looper{h}, nil
	}}
	y := defaultYAML + `  plugins:
    reserve: {enabled: [{name: Looper}]}
    permit: {enabled: [{name: Looper}]}
`
	for attempt := 1; ; attempt++ {
		h, err := Start(ctx, Config{SchedulerConfig: y, Nodes: []*v1.Node{node("n0", 4)}, Registry: reg, MaxPermitTimeouts: 5, SettleTimeout: 20 * time.Second})
		require.NoError(t, err)
		require.NoError(t, h.Create(ctx, pod("a", 1)))
		err = h.Settle(ctx)
		if err != nil && attempt < 3 && errors.Is(err, ErrReplay) && strings.Contains(err.Error(), "pending pods the scheduler does not hold: [default/a]") {
			t.Logf("attempt %d: the queue dropped the looper's pod (%v); again", attempt, err)
			h.Close()
			continue
		}
		require.NoError(t, err)
		got := h.Counts()
		h.Close()
		assert.Equal(t, 0, got.Bound)
		assert.Equal(t, 5, got.PermitTimeouts)
		assert.Equal(t, 1, got.PermitLoops)
		return
	}
}
