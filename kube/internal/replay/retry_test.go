package replay

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// TestSettleOnFailedRetries: upstream's GangScheduling (GenericWorkload
// gate) retries a PodGroup that cannot fit for ever, so the plain idle
// rule never holds (before SettleOnFailedRetries, this Settle did not
// return: the retries count as progress, and the test failed on its
// 30 s context). With the rule, Settle returns with the group waiting
// whole, and a deletion that frees room is a change: the next Settle
// places the group whole.
func TestSettleOnFailedRetries(t *testing.T) {
	pg := &schedv1beta1.PodGroup{
		ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: "default", UID: k8stypes.UID("uid-pg")},
		Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{
			Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: 2}}},
	}
	c := &capacity{free: map[string]int64{"n0": 2, "n1": 2}, req: map[string]int64{"filler": 2, "m0": 2, "m1": 2}, at: map[string]string{}}
	h, err := Start(context.Background(), Config{
		SchedulerConfig:       defaultYAML,
		Nodes:                 []*v1.Node{node("n0", 2), node("n1", 2)},
		Objects:               []runtime.Object{pg},
		FeatureGates:          map[string]bool{"GenericWorkload": true},
		InitialBackoffSeconds: 1, MaxBackoffSeconds: 1,
		Admit:                 c.admit,
		SettleOnFailedRetries: true,
	})
	require.NoError(t, err)
	defer h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, h.Create(ctx, pod("filler", 2)))
	require.NoError(t, h.Settle(ctx))
	require.Equal(t, 1, h.Counts().Bound)

	name := "pg"
	for _, m := range []string{"m0", "m1"} {
		p := pod(m, 2)
		p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
		require.NoError(t, h.Create(ctx, p))
	}
	require.NoError(t, h.Settle(ctx), "an infeasible group that upstream retries for ever")
	got := h.Counts()
	assert.Equal(t, 1, got.Bound, "nothing of the group is bound")
	assert.Equal(t, 2, got.Pending)
	assert.GreaterOrEqual(t, got.RetrySettles, 1)
	for _, m := range []string{"m0", "m1"} {
		assert.Empty(t, h.Pod("default", m).Spec.NodeName, m)
	}

	c.mu.Lock()
	c.free[c.at["filler"]] += 2
	c.mu.Unlock()
	_, err = h.Delete(ctx, "default", "filler")
	require.NoError(t, err)
	require.NoError(t, h.Settle(ctx))
	got = h.Counts()
	assert.Equal(t, 2, got.Bound, "the deletion is a change: the group is placed whole")
	assert.Equal(t, 0, got.Pending)
	assert.NotEqual(t, h.Pod("default", "m0").Spec.NodeName, h.Pod("default", "m1").Spec.NodeName)
}
