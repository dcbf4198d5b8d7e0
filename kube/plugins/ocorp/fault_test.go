package ocorp

import (
	"container/heap"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// savedOCORP runs a managed plugin six slots and returns its saved state
// ConfigMap.
func savedOCORP(t *testing.T, prof string) (*v1.ConfigMap, []*v1.Node, []*v1.Pod) {
	t.Helper()
	ctx := context.Background()
	nodes := []*v1.Node{mkNode("n1", 4)}
	pods := statePods(prof)
	a, _, cs, err := setupWith(t, prof, &Args{Profiles: []string{prof}}, nodes, pods)
	require.NoError(t, err)
	for slot := 1; slot <= 6; slot++ {
		require.NoError(t, a.Step(ctx, epoch.Add(time.Duration(slot)*10*time.Second+time.Second)))
	}
	a.save(ctx, klog.Background())
	cm, err := cs.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, "msched-ocorp-"+prof, metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, a.Close())
	entry(prof).Store(nil) // a new process: nothing published yet
	cm.ResourceVersion = ""
	return cm, nodes, pods
}

// TestUnmanagedFollowsRestoredClock: after a restart the managed instance
// restored the saved slot clock while the unmanaged profile's instance
// (whose Less the queue may use) kept its own, so the two priced a pod
// without a published omega differently. The restored clock is published
// with the duals.
func TestUnmanagedFollowsRestoredClock(t *testing.T) {
	const prof = "ocorp-clock"
	ctx := context.Background()
	cm, nodes, pods := savedOCORP(t, prof)
	cs := clientsetfake.NewClientset(cm)
	later := epoch.Add(time.Hour) // this process started later
	b, _, _, err := setupOn(t, cs, prof, &Args{Profiles: []string{prof}}, nodes, pods)
	require.NoError(t, err)
	u, _, _, err := setupOn(t, cs, "default-scheduler", &Args{Profiles: []string{prof}}, nodes, pods)
	require.NoError(t, err)
	b.setEpoch(later)
	u.setEpoch(later)
	require.NoError(t, b.load(ctx, klog.Background()))
	require.NoError(t, b.Step(ctx, epoch.Add(75*time.Second))) // slot 7 of the saved clock
	x := mkPod("new", prof, 2, "60", epoch.Add(72*time.Second))
	require.Equal(t, b.Omega(x), u.Omega(x), "the queue's Less prices a new pod on another clock than the managed profile")
}

// TestRestoreLessNoRace: restore wrote p.epoch while Less (the queue's
// goroutines) read it without a lock. Run with -race.
func TestRestoreLessNoRace(t *testing.T) {
	const prof = "ocorp-race"
	cm, nodes, pods := savedOCORP(t, prof)
	b, _, _, err := setupOn(t, clientsetfake.NewClientset(cm), prof, &Args{Profiles: []string{prof}}, nodes, pods)
	require.NoError(t, err)
	x, y := qpi(t, mkPod("x", prof, 1, "", epoch), epoch), qpi(t, mkPod("y", prof, 2, "", epoch), epoch)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
				b.Less(x, y)
			}
		}
	}()
	for range 20 {
		require.NoError(t, b.restore([]byte(cm.Data["state.json"]), time.Now()))
	}
	close(stop)
	wg.Wait()
}

// TestEvictionsBounded: each preemption started one evict goroutine with
// no bound and no timeout; at most maxEvictions evict at once, and a
// PostFilter past it does not preempt (the pod is retried).
func TestEvictionsBounded(t *testing.T) {
	const prof = "ocorp-evict"
	n1 := mkNode("n1", 2)
	var victims []*v1.Pod
	for _, name := range []string{"v1", "v2"} {
		v := mkPod(name, prof, 1, "", epoch)
		v.Spec.NodeName = "n1"
		victims = append(victims, v)
	}
	pl, _, cs := setup(t, prof, []*v1.Node{n1}, victims)
	pl.own.Store(&snapshot{slot: 5, omega: map[types.UID]float64{"v1": 3, "v2": 1, "pre": -5}})
	block := make(chan struct{})
	// The fake clientset runs one reactor at a time: the first delete
	// holds every eviction goroutine.
	cs.PrependReactor("delete", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-block
		return true, nil, nil
	})
	filtered := framework.NewNodeToStatus(map[string]*fwk.Status{"n1": fwk.NewStatus(fwk.Unschedulable, "cpu")}, fwk.NewStatus(fwk.UnschedulableAndUnresolvable))
	ok := 0
	for range 3 * maxEvictions {
		_, st := pl.PostFilter(context.Background(), framework.NewCycleState(), mkPod("pre", prof, 1, "", epoch), filtered)
		if st.IsSuccess() {
			ok++
		}
	}
	close(block)
	require.Equal(t, maxEvictions, ok, "preemptions started while %d were evicting", maxEvictions)
	require.Eventually(t, func() bool { return len(pl.evicting) == 0 }, 5*time.Second, 5*time.Millisecond, "evictions never finished")
}

// lessHeap is a container/heap over Less, as the scheduling queue's.
type lessHeap struct {
	items []*framework.QueuedPodInfo
	less  func(a, b fwk.QueuedEntityInfo) bool
}

func (h *lessHeap) Len() int           { return len(h.items) }
func (h *lessHeap) Less(i, j int) bool { return h.less(h.items[i], h.items[j]) }
func (h *lessHeap) Swap(i, j int)      { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *lessHeap) Push(x any)         { h.items = append(h.items, x.(*framework.QueuedPodInfo)) }
func (h *lessHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

// TestQueueKeysChangeOnlyAtSlots documents the queue drift (doc.go, "Queue
// order between slots"): between two published slots Less never changes;
// a slot may reverse two pods' order, and a heap filled before it keeps
// the previous order for the pods already in it.
func TestQueueKeysChangeOnlyAtSlots(t *testing.T) {
	const prof = "ocorp-drift"
	pl, _, _ := setup(t, prof, nil, nil)
	qx, qy := qpi(t, mkPod("x", prof, 1, "", epoch), epoch), qpi(t, mkPod("y", prof, 1, "", epoch), epoch)
	pl.own.Store(&snapshot{slot: 1, epoch: epoch.UnixNano(), omega: map[types.UID]float64{"x": 1, "y": 2}})
	for range 100 {
		require.True(t, pl.Less(qx, qy))
		require.False(t, pl.Less(qy, qx))
	}
	h := &lessHeap{less: pl.Less}
	heap.Push(h, qy)
	heap.Push(h, qx)
	pl.own.Store(&snapshot{slot: 2, epoch: epoch.UnixNano(), omega: map[types.UID]float64{"x": 2, "y": 1}})
	require.True(t, pl.Less(qy, qx), "the slot reversed the keys")
	first := heap.Pop(h).(*framework.QueuedPodInfo)
	require.Equal(t, "x", first.Pod.Name, "pods already in the heap keep the previous slot's order")
	heap.Push(h, first) // requeued: the current keys
	require.Equal(t, "y", heap.Pop(h).(*framework.QueuedPodInfo).Pod.Name)
}
