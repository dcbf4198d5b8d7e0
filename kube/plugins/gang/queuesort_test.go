package gang

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// queued returns a queued member of group g (min-member size; "" = no
// group) that first entered the queue at first and last at last.
func queued(name, g string, size int, prio int32, first, last time.Time) *framework.QueuedPodInfo {
	pod := &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: v1.PodSpec{Priority: &prio}}
	if g != "" {
		pod.Labels = map[string]string{DefaultGroupLabel: g}
		pod.Annotations = map[string]string{DefaultMinMemberKey: strconv.Itoa(size)}
	}
	pi, err := framework.NewPodInfo(pod)
	if err != nil {
		panic(err)
	}
	qi := &framework.QueuedPodInfo{PodInfo: pi}
	qi.Timestamp = last
	f := first
	qi.InitialAttemptTimestamp = &f
	return qi
}

// TestLessQueueOrder: with QueueByArrival the group that waited longest
// goes first even when its pods were requeued after the others' (the
// scheduler resets a pod's queue time at every failure), and its members
// stay together; QueueByMinMember puts the smaller group first; priority
// comes first in both.
func TestLessQueueOrder(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	a := queued("a", "big", 4, 0, at(0), at(3))
	c := queued("c", "big", 4, 0, at(0), at(4))
	b := queued("b", "small", 2, 0, at(1), at(2))
	hi := queued("hi", "", 1, 10, at(9), at(9))

	arrival := &Plugin{args: &Args{QueueOrder: QueueByArrival}}
	SetDefaults(arrival.args)
	assert.True(t, arrival.Less(a, b), "older group first")
	assert.True(t, arrival.Less(c, b), "older group first, all its members")
	assert.True(t, arrival.Less(a, c), "same arrival: earlier queue time")
	assert.False(t, arrival.Less(b, a))
	assert.True(t, arrival.Less(hi, a), "priority first")

	mm := &Plugin{args: &Args{QueueOrder: QueueByMinMember}}
	SetDefaults(mm.args)
	assert.True(t, mm.Less(b, a), "smaller group first")
	assert.True(t, mm.Less(a, c))
	assert.True(t, mm.Less(hi, b), "priority first")

	def := &Args{}
	SetDefaults(def)
	assert.Equal(t, QueueByArrival, def.QueueOrder)
}

// TestLessStrictWeakOrder checks, on random entities, that both orders are
// strict weak orders (irreflexive, transitive, incomparability
// transitive), as the scheduler's heap needs.
func TestLessStrictWeakOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 33))
	t0 := time.Unix(1000, 0)
	for _, order := range []string{QueueByArrival, QueueByMinMember} {
		p := &Plugin{args: &Args{QueueOrder: order}}
		SetDefaults(p.args)
		for it := range 50 {
			var es []*framework.QueuedPodInfo
			for i := range 12 {
				g := ""
				size := 1 + rng.IntN(3)
				if rng.IntN(4) > 0 {
					g = fmt.Sprint("g", rng.IntN(4))
					size = 1 + len(g)%3 + rng.IntN(1)
				}
				first := t0.Add(time.Duration(rng.IntN(4)) * time.Second)
				last := first.Add(time.Duration(rng.IntN(4)) * time.Second)
				es = append(es, queued(fmt.Sprint("p", i), g, size, int32(rng.IntN(2)), first, last))
			}
			less := func(i, j int) bool { return p.Less(es[i], es[j]) }
			n := len(es)
			for i := range n {
				require.False(t, less(i, i), "%s, instance %d: irreflexive", order, it)
				for j := range n {
					for k := range n {
						if less(i, j) && less(j, k) {
							require.True(t, less(i, k), "%s, instance %d: transitive %d<%d<%d", order, it, i, j, k)
						}
						inc := func(x, y int) bool { return !less(x, y) && !less(y, x) }
						if inc(i, j) && inc(j, k) {
							require.True(t, inc(i, k), "%s, instance %d: incomparability transitive", order, it)
						}
					}
				}
			}
		}
	}
}

// TestValidateQueueOrder: an unknown order is refused, naming the field.
func TestValidateQueueOrder(t *testing.T) {
	_, err := decodeArgs(&Args{QueueOrder: "share"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "queueOrder")
	a, err := decodeArgs(&Args{QueueOrder: QueueByMinMember})
	require.NoError(t, err)
	assert.Equal(t, QueueByMinMember, a.QueueOrder)
}
