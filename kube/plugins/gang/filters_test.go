package gang

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/apis/config"
	plfeature "k8s.io/kubernetes/pkg/scheduler/framework/plugins/feature"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/nodeaffinity"
	"k8s.io/kubernetes/pkg/scheduler/framework/plugins/tainttoleration"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

// filterPlugins are NodeAffinity (PreFilter, Filter) and TaintToleration
// (Filter), as in the default profile.
func filterPlugins() []tf.RegisterPluginFunc {
	na := func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return nodeaffinity.New(ctx, &config.NodeAffinityArgs{}, h, plfeature.Features{})
	}
	return []tf.RegisterPluginFunc{
		tf.RegisterPluginAsExtensions(nodeaffinity.Name, na, "PreFilter", "Filter"),
		tf.RegisterFilterPlugin(tainttoleration.Name, frameworkruntime.FactoryAdapter(plfeature.Features{}, tainttoleration.New)),
	}
}

// TestPlanRespectsFilters: members ask pool=a by node selector; the first
// node (pool=b) and the second (pool=a, tainted NoSchedule) pass the
// resource check, so a plan on resources alone puts members there. The
// plan must use only the untainted pool=a nodes, for every placer; when no
// node passes a member's filters the group is not started. Fails on the
// old code (the plan ignored the Filter plugins).
func TestPlanRespectsFilters(t *testing.T) {
	ctx := context.Background()
	mk := func(name string) *v1.Pod {
		p := pod(name, "g", "3", 2)
		p.Spec.NodeSelector = map[string]string{"pool": "a"}
		return p
	}
	a, b, c := mk("a"), mk("b"), mk("c")
	nb, nt, n3, n4 := node("nb", 8), node("nt", 8), node("n3", 4), node("n4", 2)
	nb.Labels = map[string]string{"pool": "b"}
	for _, n := range []*v1.Node{nt, n3, n4} {
		n.Labels = map[string]string{"pool": "a"}
	}
	nt.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "x", Effect: v1.TaintEffectNoSchedule}}
	nodes := tf.BuildNodeInfos([]*v1.Node{nb, nt, n3, n4})
	for _, placer := range []GangPlacer{&Knapsack{}, FirstFit{}} {
		fw, pl, _ := setupWith(t, &Args{}, filterPlugins(), a, b, c)
		_ = fw
		pl.placer = placer
		got := map[string]string{}
		for _, m := range []*v1.Pod{a, b, c} {
			res, st := pl.PreFilter(ctx, nil, m, nodes)
			require.Truef(t, st.IsSuccess(), "%T %s: %v", placer, m.Name, st)
			got[m.Name] = pinned(res)[0]
		}
		cnt := map[string]int{}
		for _, n := range got {
			require.Containsf(t, []string{"n3", "n4"}, n, "%T placed a member on %s: %v", placer, n, got)
			cnt[n]++
		}
		require.LessOrEqualf(t, cnt["n3"], 2, "%T: n3 holds two 2-CPU members: %v", placer, got)
		require.LessOrEqualf(t, cnt["n4"], 1, "%T: n4 holds one: %v", placer, got)
	}
	// Without n3 the pool=a untainted capacity is 2 CPUs: no plan.
	fw, pl, _ := setupWith(t, &Args{}, filterPlugins(), a, b, c)
	_ = fw
	_, st := pl.PreFilter(ctx, nil, a, tf.BuildNodeInfos([]*v1.Node{nb, nt, n4}))
	require.Equal(t, fwk.Unschedulable, st.Code(), "%v", st)
	// A member no node admits names itself.
	d := mk("d")
	d.Spec.NodeSelector = map[string]string{"pool": "z"}
	fw, pl, _ = setupWith(t, &Args{}, filterPlugins(), d, b, c)
	_ = fw
	_, st = pl.PreFilter(ctx, nil, d, nodes)
	require.Equal(t, fwk.Unschedulable, st.Code())
	require.Contains(t, st.Message(), "member d passes")
}

// TestFailedPlanIsNotRepeated: a member that comes back to PreFilter after
// being pinned to its planned node (its Filter failed there, or it was
// rejected) gets a new plan that avoids that node.
func TestFailedPlanIsNotRepeated(t *testing.T) {
	ctx := context.Background()
	a, b := pod("a", "g", "2", 1), pod("b", "g", "2", 1)
	nodes := tf.BuildNodeInfos([]*v1.Node{node("n1", 4), node("n2", 4)})
	_, pl, _ := setupWith(t, &Args{}, nil, a, b)
	res, st := pl.PreFilter(ctx, nil, a, nodes)
	require.True(t, st.IsSuccess(), "%v", st)
	first := pinned(res)[0]
	res, st = pl.PreFilter(ctx, nil, a, nodes) // a failed on first
	require.True(t, st.IsSuccess(), "%v", st)
	require.NotEqual(t, first, pinned(res)[0], "the failed (member, node) pair was planned again")
	// b is in the new plan and gets its node without replanning.
	res, st = pl.PreFilter(ctx, nil, b, nodes)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Len(t, pinned(res), 1)
}

// TestPlanReservesItsNodes: a group's plan reserves the nodes of its
// members not yet scheduled, so another group's plan cannot take them
// (members of two groups interleaved in the queue). Fails without the
// reservation: b would be planned on n1 too.
func TestPlanReservesItsNodes(t *testing.T) {
	ctx := context.Background()
	a0, a1 := pod("a0", "a", "2", 2), pod("a1", "a", "2", 2)
	b0, b1 := pod("b0", "b", "2", 2), pod("b1", "b", "2", 2)
	nodes := tf.BuildNodeInfos([]*v1.Node{node("n1", 4)})
	_, pl, _ := setupWith(t, &Args{}, nil, a0, a1, b0, b1)
	res, st := pl.PreFilter(ctx, nil, a0, nodes)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Equal(t, []string{"n1"}, pinned(res))
	// a0 is not in this snapshot yet, but a1's share of n1 is reserved.
	_, st = pl.PreFilter(ctx, nil, b0, nodes)
	require.Equal(t, fwk.Unschedulable, st.Code(), "b planned on capacity reserved for a1: %v", st)
	res, st = pl.PreFilter(ctx, nil, a1, nodes)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Equal(t, []string{"n1"}, pinned(res))
}
