package onsocmax

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
)

// loaded returns a policy on a 4-node, 5-slot rolling mesh after some
// slots without cluster changes, holding reservations in later slots.
func loaded(t *testing.T, set Settings) *Policy {
	t.Helper()
	p, err := New(rollMesh(t, 4, 5, 21), set)
	require.NoError(t, err)
	for _, s := range rollSlots(12) {
		_, _, jobs := slotInputs(p, 11, s) // draws only; no change applied
		for n := range jobs {
			// slotInputs renumbers for its own removal: redraw on all nodes.
			jobs[n].Units, err = p.Units(jobs[n].Units[:0], []int{n % 4, (n + 1) % 4, (n + 2) % 4}, s, jobs[n].Deadline)
			require.NoError(t, err)
			k := len(jobs[n].Units)
			jobs[n].XBar, jobs[n].Beta, jobs[n].Utility = fill(jobs[n].XBar, k, 3), fill(jobs[n].Beta, k, 0.2), nil
			for range k {
				jobs[n].Utility = append(jobs[n].Utility, lin(2+0.1*float64(n)))
			}
		}
		_, err := p.Decide(s, jobs)
		require.NoError(t, err)
	}
	later := 0
	for s := p.now + 1; s < p.now+p.w; s++ {
		later += len(p.ledger[s%p.w])
	}
	require.Positive(t, later, "the test needs reservations in later slots")
	return p
}

func fill(dst []float64, n int, v float64) []float64 {
	dst = dst[:0]
	for range n {
		dst = append(dst, v)
	}
	return dst
}

// TestChangeClusterRelays: one ChangeCluster that drops node 1 and adds a
// node leaves the policy state for state where the deprecated one-node
// wrappers RemoveNode(1) then AddNode leave it (same snapshot bytes); the
// usage rows and reservations of the survivors move to their new indices
// unchanged, the leaving node's later reservations are those Reservations
// listed, and the Mapping the edit functions return validates.
func TestChangeClusterRelays(t *testing.T) {
	set := Settings{Iota: 1, V: 3.3}
	a, b := loaded(t, set), loaded(t, set)
	before := a.Mesh()
	oldUsage := slices.Clone(a.usage)
	w := a.w
	add := []float64{4, 5, 6, 7, 8}
	want := []int{0, 2, 3, -1}
	c := append(slices.Clone(before.Capacity[:w]), before.Capacity[2*w:]...)
	mesh := &bipartite.Mesh{Nodes: 4, Slots: w, Capacity: append(c, add...)}
	require.NoError(t, Mapping{Nodes: want}.Validate(before, mesh))
	cancelled, err := a.Reservations(nil, 1)
	require.NoError(t, err)
	require.NoError(t, a.ChangeCluster(mesh, Mapping{Nodes: want}))
	require.Equal(t, mesh.Capacity, a.Mesh().Capacity)
	for i, o := range want {
		if o < 0 {
			require.Equal(t, make([]float64, w), a.usage[i*w:(i+1)*w])
			continue
		}
		require.Equal(t, bitsOf(oldUsage[o*w:(o+1)*w]), bitsOf(a.usage[i*w:(i+1)*w]), "node %d (was %d)", i, o)
	}

	got, err := b.RemoveNode(1, nil)
	require.NoError(t, err)
	require.Equal(t, allocBits(cancelled), allocBits(got))
	i, err := b.AddNode(add)
	require.NoError(t, err)
	require.Equal(t, 3, i)
	sa, err := a.MarshalBinary()
	require.NoError(t, err)
	sb, err := b.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, sa, sb, "one ChangeCluster = RemoveNode then AddNode")

	// The edit functions build the same meshes and mappings.
	m1, mp1, err := RemoveNode(before, 1)
	require.NoError(t, err)
	require.Equal(t, []int{0, 2, 3}, mp1.Nodes)
	require.NoError(t, mp1.Validate(before, m1))
	m2, mp2, err := AddNode(m1, add)
	require.NoError(t, err)
	require.Equal(t, []int{0, 1, 2, -1}, mp2.Nodes)
	require.Equal(t, mesh.Capacity, m2.Capacity)
	require.Equal(t, 4, before.Nodes, "the edit functions do not change their mesh")
}

// TestChangeClusterRefuses: every bad change returns an error wrapping
// the named sentinel and leaves the policy bit for bit as it was.
func TestChangeClusterRefuses(t *testing.T) {
	p := loaded(t, Settings{Iota: 1, V: 3.3})
	snap0, err := p.MarshalBinary()
	require.NoError(t, err)
	cur := p.Mesh()
	w := p.w
	other, err := bipartite.NewMesh(4, w+1, make([]float64, 4*(w+1)))
	require.NoError(t, err)
	shrunk := p.Mesh()
	for r := range shrunk.Capacity {
		if p.usage[r] > 0 {
			shrunk.Capacity[r] = p.usage[r] / 2
			break
		}
	}
	id := []int{0, 1, 2, 3}
	cases := []struct {
		name string
		mesh *bipartite.Mesh
		m    Mapping
		want error
	}{
		{"nil mesh", nil, Mapping{Nodes: id}, ErrValue},
		{"other W", other, Mapping{Nodes: id}, ErrDimension},
		{"short mapping", cur, Mapping{Nodes: id[:3]}, ErrDimension},
		{"nil mapping", cur, Mapping{}, ErrDimension},
		{"out of range", cur, Mapping{Nodes: []int{0, 1, 2, 4}}, ErrNode},
		{"below -1", cur, Mapping{Nodes: []int{0, 1, 2, -2}}, ErrNode},
		{"repeated", cur, Mapping{Nodes: []int{0, 1, 1, 3}}, ErrNode},
		{"capacity below usage", shrunk, Mapping{Nodes: id}, ErrValue},
		{"NaN capacity", &bipartite.Mesh{Nodes: 4, Slots: w, Capacity: append(make([]float64, 4*w-1), math.NaN())}, Mapping{Nodes: id}, ErrValue},
	}
	for _, c := range cases {
		err := p.ChangeCluster(c.mesh, c.m)
		require.ErrorIs(t, err, c.want, c.name)
		snap, err := p.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, snap0, snap, "%s: a failed change changed the policy", c.name)
	}
	var nilp *Policy
	require.ErrorIs(t, nilp.ChangeCluster(cur, Mapping{Nodes: id}), ErrValue)
	_, err = nilp.Reservations(nil, 0)
	require.ErrorIs(t, err, ErrValue)
	_, err = p.Reservations(nil, 4)
	require.ErrorIs(t, err, ErrNode)

	_, _, err = AddNode(nil, []float64{1})
	require.ErrorIs(t, err, ErrValue)
	_, _, err = AddNode(cur, []float64{1})
	require.ErrorIs(t, err, ErrDimension)
	_, _, err = AddNode(cur, []float64{1, 1, 1, 1, math.Inf(1)})
	require.ErrorIs(t, err, ErrValue)
	huge := &bipartite.Mesh{Nodes: MaxUnits, Slots: 1, Capacity: make([]float64, MaxUnits)}
	_, _, err = AddNode(huge, []float64{1})
	require.ErrorIs(t, err, ErrTooLarge)
	_, _, err = RemoveNode(cur, -1)
	require.ErrorIs(t, err, ErrNode)
	one, err := bipartite.NewMesh(1, 2, []float64{1, 1})
	require.NoError(t, err)
	_, _, err = RemoveNode(one, 0)
	require.ErrorIs(t, err, ErrNode, "the last node stays")
	require.ErrorIs(t, Mapping{Nodes: id}.Validate(cur, other), ErrDimension)
}

// TestRestoreV010RemovedNode: a v0.1.0 snapshot that marks a removed node
// (zero capacity, reservations of the executed slot only) still restores
// into New on the mesh of that time; those reservations are dropped, as
// ChangeCluster drops a leaving node's.
func TestRestoreV010RemovedNode(t *testing.T) {
	m, err := bipartite.NewMesh(2, 2, []float64{0, 0, 10, 10})
	require.NoError(t, err)
	set := Settings{Iota: 1, V: 3}
	p, err := New(m, set)
	require.NoError(t, err)
	st := policyState{Started: true, Now: 3, Nodes: 2, Alive: []bool{false, true}, Capacity: m.Capacity,
		Reservations: []reservationRecord{{Job: 1, Node: 0, Slot: 3, X: 2}, {Job: 1, Node: 1, Slot: 3, X: 4}, {Job: 2, Node: 1, Slot: 4, X: 5}}}
	data, err := snapshot.Encode(snapshotFormat, snapshotVersion, fingerprint(m, set), st)
	require.NoError(t, err)
	require.NoError(t, p.UnmarshalBinary(data))
	assert.Equal(t, []float64{0, 0, 5, 4}, p.Usage()) // columns: slot 4 -> 0, slot 3 -> 1
	got, err := p.Reservations(nil, 1)
	require.NoError(t, err)
	assert.Equal(t, []Allocation{{Job: 2, Unit: 2, Node: 1, Slot: 4, X: 5}}, got)
}

// FuzzChangeCluster: any mesh and mapping given to ChangeCluster of a
// policy holding reservations either fails with the policy bit for bit
// unchanged, or succeeds with a feasible state whose snapshot restores
// into New on that mesh; no input panics.
func FuzzChangeCluster(f *testing.F) {
	f.Add([]byte{4, 0, 2, 3, 255, 9, 9, 9, 9, 9})
	f.Add([]byte{3, 0, 1, 2, 7, 7, 7, 7, 7, 1, 1})
	f.Add([]byte{2, 3, 3, 0})
	f.Add([]byte{1, 254})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 512 {
			return
		}
		p := loaded(t, Settings{Iota: 1, V: 3.3})
		snap0, err := p.MarshalBinary()
		require.NoError(t, err)
		n := int(data[0] % 8) // 0 nodes: an invalid mesh
		data = data[1:]
		nodes := make([]int, n)
		for i := range nodes {
			nodes[i] = -1
			if len(data) > 0 {
				nodes[i] = int(int8(data[0]))%6 - 1 // -6 .. 4: some out of range
				data = data[1:]
			}
		}
		w := p.w
		capacity := make([]float64, n*w)
		for r := range capacity {
			capacity[r] = 6 // above any usage of loaded: survivors keep theirs
			if len(data) > 0 {
				capacity[r] = float64(data[0]) / 16
				data = data[1:]
			}
		}
		mesh := &bipartite.Mesh{Nodes: n, Slots: w, Capacity: capacity}
		if err := p.ChangeCluster(mesh, Mapping{Nodes: nodes}); err != nil {
			snap, err := p.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, snap0, snap, "a failed change changed the policy")
			return
		}
		p.mustBeFeasible()
		snap, err := p.MarshalBinary()
		require.NoError(t, err)
		q, err := New(mesh, Settings{Iota: 1, V: 3.3})
		require.NoError(t, err)
		require.NoError(t, q.UnmarshalBinary(snap))
	})
}
