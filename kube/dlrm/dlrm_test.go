package dlrm

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/trace"
)

func TestCountGroups(t *testing.T) {
	// (bound, size): whole, whole, half (2 stranded), none, half (1), empty group.
	whole, half, stranded := countGroups([][2]int{{3, 3}, {1, 1}, {2, 3}, {0, 4}, {1, 8}, {0, 0}})
	assert.Equal(t, 2, whole)
	assert.Equal(t, 2, half)
	assert.Equal(t, 3, stranded)
	assert.False(t, halfBound(0, 3))
	assert.True(t, halfBound(1, 3))
	assert.True(t, halfBound(2, 3))
	assert.False(t, halfBound(3, 3))
}

func TestRequest(t *testing.T) {
	// The most frequent HN instance in trace.DLRMUnits: 8 vCPU, 1 GPU,
	// 120 GiB, 25 %, 680 GiB, no CN slot.
	u := []float64{1, 1, 120.0 / 64, 1, 680.0 / 256, 0} // CPU, GPU, MEM, RDMA, DISK, CN-SLOT
	assert.Equal(t, [nres]int64{16, 120 << 10, 2, 25, 680 << 10, 0}, request([]float64{2, 2, 120.0 / 64, 1, 680.0 / 256, 0}))
	assert.Equal(t, [nres]int64{8, 120 << 10, 1, 25, 680 << 10, 0}, request(u))
	// A fractional GiB rounds up to the next MiB.
	assert.Equal(t, int64(1025), request([]float64{0, 0, (1 + 0.5/1024) / 64, 0, 0, 0})[1], "memory MiB")
}

func TestGroupsFromInstances(t *testing.T) {
	ins := []trace.DLRMInstance{
		{Name: "c1", Role: trace.RoleCN, App: "a", CPU: 48, MemoryGiB: 200, RDMA: 25, DiskGiB: 100, MaxPerNode: -1, HasCreation: true, Creation: 10},
		{Name: "c2", Role: trace.RoleCN, App: "a", CPU: 48, MemoryGiB: 200, RDMA: 25, DiskGiB: 100, MaxPerNode: -1},
		{Name: "h1", Role: trace.RoleHN, App: "a", CPU: 12, GPU: 1, MemoryGiB: 120, RDMA: 25, DiskGiB: 640, MaxPerNode: -1, HasCreation: true, Creation: 4000},
		{Name: "h2", Role: trace.RoleHN, App: "b", CPU: 8, GPU: 2, MemoryGiB: 64, RDMA: 50, DiskGiB: 256, MaxPerNode: -1, HasCreation: true, Creation: 4100},
	}
	groups, nodes, err := Groups(ins)
	require.NoError(t, err)
	// App a arrives in slots 0 and 1, app b in slot 1.
	require.Len(t, groups, 3)
	assert.Equal(t, []int{0, 1, 1}, []int{groups[0].Slot, groups[1].Slot, groups[2].Slot})
	assert.Equal(t, []string{"a", "a", "b"}, []string{groups[0].App, groups[1].App, groups[2].App})
	cn := [nres]int64{48, 200 << 10, 0, 25, 100 << 10, 1}
	hn := [nres]int64{12, 120 << 10, 1, 25, 640 << 10, 0}
	assert.Equal(t, [][nres]int64{cn, cn, hn}, groups[0].Members)
	assert.Equal(t, [][nres]int64{{8, 64 << 10, 2, 50, 256 << 10, 0}}, groups[2].Members)
	require.Len(t, nodes, 48)
	assert.Equal(t, [nres]int64{256, 2048 << 10, 0, 200, 4096 << 10, 110}, nodes[0].Alloc)
	assert.Equal(t, [nres]int64{128, 1024 << 10, 8, 400, 8192 << 10, 0}, nodes[47].Alloc)
	assert.Equal(t, "cn-00", nodes[0].Name)
	assert.Equal(t, "hn-47", nodes[47].Name)
}

// TestReplayHalfBound runs the real scheduler on one node with 10 vCPU
// and a group of three 4-vCPU members: the default profile binds two of
// them (half-bound, 2 pods stranded), the gang profile none; a later
// group of two 1-vCPU members fits in what is left and is placed whole by
// both.
func TestReplayHalfBound(t *testing.T) {
	node := Node{Name: "cn-0", Alloc: [nres]int64{10, 64 << 10, 0, 100, 1 << 20, 10}}
	m := [nres]int64{4, 1 << 10, 0, 1, 1 << 10, 1}
	small := [nres]int64{1, 1 << 10, 0, 1, 1 << 10, 1}
	groups := []Group{
		{Name: "big", App: "a", Slot: 0, Members: [][nres]int64{m, m, m}},
		{Name: "small", App: "b", Slot: 1, Members: [][nres]int64{small, small}},
	}
	for _, tc := range []struct {
		p                                      Profile
		placed, half, end, stranded, podsBound int
	}{
		{Default, 1, 1, 1, 2, 4},
		{Gang, 1, 0, 0, 0, 2},
		// Upstream retries the big group for ever: before
		// Options.SettleOnFailedRetries its replay never settled.
		{Upstream, 1, 0, 0, 0, 2},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		r, err := Run(ctx, groups, []Node{node}, tc.p, Options{PermitSeconds: 2})
		cancel()
		require.NoError(t, err, tc.p)
		assert.Equal(t, 0, r.Violations, tc.p)
		assert.Equal(t, tc.placed, r.Placed, "%s placed", tc.p)
		assert.Equal(t, tc.half, r.HalfBound, "%s ever half-bound", tc.p)
		assert.Equal(t, tc.end, r.PartialEnd, "%s half-bound at the end", tc.p)
		assert.Equal(t, tc.stranded, r.StrandedPods, "%s stranded", tc.p)
		assert.Equal(t, tc.podsBound, r.PodsBound, "%s pods bound", tc.p)
		assert.Equal(t, []int{0}, r.PlaceSlots, "%s: the small group is placed in its arrival slot", tc.p)
	}
	_, err := Run(context.Background(), nil, []Node{node}, Gang, Options{})
	assert.ErrorIs(t, err, ErrNoGroups)
	_, err = Run(context.Background(), groups, []Node{node}, "Nope", Options{})
	assert.ErrorIs(t, err, ErrNoGroups)
}

// TestReplayLife deletes groups after their life: the second group only
// fits once the first has left.
func TestReplayLife(t *testing.T) {
	node := Node{Name: "cn-0", Alloc: [nres]int64{8, 64 << 10, 0, 100, 1 << 20, 10}}
	m := [nres]int64{4, 1 << 10, 0, 1, 1 << 10, 1}
	groups := []Group{
		{Name: "first", Slot: 0, Members: [][nres]int64{m, m}},
		{Name: "second", Slot: 1, Members: [][nres]int64{m, m}},
		{Name: "third", Slot: 2, Members: [][nres]int64{m}},
	}
	r, err := Run(context.Background(), groups, []Node{node}, Gang, Options{LifeSlots: 1, PermitSeconds: 2})
	require.NoError(t, err)
	assert.Equal(t, 3, r.Placed)
	assert.Equal(t, 0, r.HalfBound)
	assert.Equal(t, 5, r.PodsBound)
}
