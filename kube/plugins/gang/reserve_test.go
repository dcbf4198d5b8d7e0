package gang

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// busyNodes returns n1 (4 CPUs, 3 used) and n2 (8 CPUs, 4 used).
func busyNodes() []fwk.NodeInfo {
	var out []fwk.NodeInfo
	for _, c := range []struct {
		name       string
		cap, inUse int64
	}{{"n1", 4, 3}, {"n2", 8, 4}} {
		u := pod("run-"+c.name, "", "", c.inUse)
		u.Spec.NodeName = c.name
		ni := framework.NewNodeInfo(u)
		ni.SetNode(node(c.name, c.cap))
		out = append(out, ni)
	}
	return out
}

// TestBlockedGroupReservation: a group that does not fit (2 x 3 CPUs on
// 1 + 4 free) reserves n2 (most room: one member) and n1 for the other;
// while the reservation lives a 1-CPU group fits nowhere (strict) or only
// beside the reservation, on n2 (backfill: 4 - 3 = 1 free); after the
// timeout it fits again, and the same group does not reserve again at
// once. Fails without the reservation: s is planned at once.
func TestBlockedGroupReservation(t *testing.T) {
	ctx := context.Background()
	for _, backfill := range []bool{false, true} {
		b0, b1 := pod("b0", "big", "2", 3), pod("b1", "big", "2", 3)
		s, t0 := pod("s0", "small", "1", 1), pod("t0", "tiny", "1", 1)
		_, pl, _ := setupWith(t, &Args{ReserveBlockedMillis: 300, Backfill: backfill}, nil, b0, b1, s, t0)
		nodes := busyNodes()
		_, st := pl.PreFilter(ctx, nil, b0, nodes)
		require.Equal(t, fwk.Unschedulable, st.Code(), "%v", st)
		require.NotNil(t, pl.resv, "the blocked group reserves")
		require.Len(t, pl.resv.on["n1"], 1)
		require.Len(t, pl.resv.on["n2"], 1)
		res, st := pl.PreFilter(ctx, nil, s, nodes)
		if backfill {
			require.True(t, st.IsSuccess(), "%v", st)
			require.Equal(t, []string{"n2"}, pinned(res), "backfill beside the reservation")
		} else {
			require.Equal(t, fwk.Unschedulable, st.Code(), "strict reservation: %v", st)
		}
		require.Zero(t, nodes[1].GetRequested().GetMilliCPU()-4000, "nodes must not be modified")
		time.Sleep(350 * time.Millisecond)
		_, st = pl.PreFilter(ctx, nil, b1, nodes)
		require.Equal(t, fwk.Unschedulable, st.Code())
		require.Nil(t, pl.resv, "a group whose reservation expired does not reserve again at once")
		_, st = pl.PreFilter(ctx, nil, t0, nodes)
		require.True(t, st.IsSuccess(), "after the timeout: %v", st)
	}
}

// TestReservationReleasedWhenPlaced: the group's own plans ignore its
// reservation, and placing the group drops it.
func TestReservationReleasedWhenPlaced(t *testing.T) {
	ctx := context.Background()
	b0, b1 := pod("b0", "big", "2", 3), pod("b1", "big", "2", 3)
	_, pl, _ := setupWith(t, &Args{ReserveBlockedMillis: 60000}, nil, b0, b1)
	_, st := pl.PreFilter(ctx, nil, b0, busyNodes())
	require.Equal(t, fwk.Unschedulable, st.Code())
	require.NotNil(t, pl.resv)
	free := busyNodes()[1:] // n2 with 4 free ...
	u := node("n3", 4)
	ni := framework.NewNodeInfo()
	ni.SetNode(u)
	free = append(free, ni) // ... and n3 with 4: the group fits
	_, st = pl.PreFilter(ctx, nil, b0, free)
	require.True(t, st.IsSuccess(), "%v", st)
	require.Nil(t, pl.resv, "placed: the reservation is dropped")
}

func TestReserveNodesNeedsAllocatable(t *testing.T) {
	require.Nil(t, reserveNodes([]*v1.Pod{pod("x", "", "", 9)}, busyNodes()), "9 CPUs fit no node's allocatable")
	err := ValidateGangArgs(field.NewPath("args"), &Args{GroupLabel: "a", MinMemberKey: "b", PermitWaitingTimeSeconds: 1, MaxGroupSize: 1, ReserveBlockedMillis: -1})
	require.ErrorContains(t, err, "args.reserveBlockedMillis")
}
