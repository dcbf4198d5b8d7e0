package onsocmax

import (
	"bytes"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/utility"
)

// rollSettings are the settings of the rolling tests: declared bounds
// that some generated jobs leave (a in [0.8, 3.5] + beta/C).
var rollSettings = []Settings{
	{Iota: 1, V: 3.3},
	{Iota: 1, V: 3.3, OutOfBounds: AdmitOutOfBounds},
	{Iota: 1, V: 3.3, NonPartitionable: true},
	{Iota: 1, V: 3.3, Solver: AugmentedLagrangian, ALM: ALMSettings{GradTol: 1e-7, ViolationTol: 1e-7}},
}

func rollMesh(t testing.TB, nodes, w int, seed uint64) *bipartite.Mesh {
	rng := rand.New(rand.NewPCG(seed, 99))
	c := make([]float64, nodes*w)
	for r := range c {
		c[r] = 2 + 8*rng.Float64()
		if rng.IntN(10) == 0 {
			c[r] = 0
		}
	}
	m, err := bipartite.NewMesh(nodes, w, c)
	require.NoError(t, err)
	return m
}

// rollSlots is the slot sequence of the rolling tests: gaps of 0 to 2.
func rollSlots(n int) []int {
	ts := make([]int, n)
	for k := 1; k < n; k++ {
		ts[k] = ts[k-1] + 1
		if k%4 == 0 {
			ts[k] += 2 // a gap of two slots
		}
		if k%7 == 0 {
			ts[k]++
		}
	}
	return ts
}

// slotInputs draws what happens before and at slot t, from (seed, t)
// and the cluster only: a node may leave or join, then a few jobs arrive
// on random surviving nodes with deadlines up to W+1 slots ahead, their
// units in the numbering after the change.
func slotInputs(p *Policy, seed uint64, t int) (remove int, add []float64, jobs []Job) {
	rng := rand.New(rand.NewPCG(seed, uint64(t)))
	w, _ := p.Window()
	remove = -1
	var alive []int
	for i := range p.NumNodes() {
		alive = append(alive, i)
	}
	switch rng.IntN(6) {
	case 0:
		add = make([]float64, w)
		for s := range add {
			add[s] = 1 + 9*rng.Float64()
		}
	case 1:
		if len(alive) > 1 {
			remove = alive[rng.IntN(len(alive))]
			alive = slices.DeleteFunc(alive, func(i int) bool { return i == remove })
		}
	}
	for q := range rng.IntN(4) {
		var nodes []int
		for _, i := range alive {
			if rng.IntN(2) == 0 {
				nodes = append(nodes, i)
			}
		}
		if len(nodes) == 0 {
			nodes = alive[:1]
		}
		dl := t + rng.IntN(w+2)
		units, err := p.Units(nil, nodes, t, dl)
		if err != nil {
			panic(err)
		}
		if remove >= 0 { // the numbering after the removal
			for k, r := range units {
				if r/w > remove {
					units[k] = r - w
				}
			}
		}
		j := Job{ID: t*16 + q - 1000, Arrival: t, Deadline: dl, Rho: 1 + 10*rng.Float64(), Units: units}
		a := 0.8 + 2.7*rng.Float64()
		for range units {
			j.XBar = append(j.XBar, 1+4*rng.Float64())
			j.Beta = append(j.Beta, 0.1+0.4*rng.Float64())
			j.Utility = append(j.Utility, lin(a+0.1*rng.Float64()))
		}
		jobs = append(jobs, j)
	}
	return remove, add, jobs
}

// rollStep applies slotInputs to p and decides slot t; it returns copies
// of the cancelled reservations, the decision and the added node.
func rollStep(t testing.TB, p *Policy, seed uint64, s int) (cancelled []Allocation, added int, dec Decision, jobs []Job) {
	t.Helper()
	remove, add, jobs := slotInputs(p, seed, s)
	added = -1
	var err error
	if remove >= 0 {
		cancelled, err = p.RemoveNode(remove, nil)
		require.NoError(t, err)
	}
	if add != nil {
		added, err = p.AddNode(add)
		require.NoError(t, err)
	}
	d, err := p.Decide(s, jobs)
	require.NoError(t, err)
	dec.Allocations = append([]Allocation(nil), d.Allocations...)
	dec.Outcomes = append([]Outcome(nil), d.Outcomes...)
	return cancelled, added, dec, jobs
}

// TestRollingClusterFeasible: over 300 slots with gaps, nodes joining and
// leaving, deadlines beyond the window and a 4-slot window, an
// independent ledger checks every decision against the cluster of its
// time: live node, unit of the job in [t, deadline] and in the window,
// x <= xbar, sum x <= rho, and per (node, slot) load <= capacity; a
// removed node's cancelled reservations are exactly its future ones, and
// the outcomes add up.
func TestRollingClusterFeasible(t *testing.T) {
	for k, set := range rollSettings {
		p, err := New(rollMesh(t, 3, 4, uint64(k)), set)
		require.NoError(t, err)
		w, _ := p.Window()
		tmpl := map[int][]float64{}
		for i := range 3 {
			tmpl[i] = slices.Clone(p.capacity[i*w : (i+1)*w])
		}
		type ns struct{ node, slot int }
		load := map[ns]float64{}
		resv := map[ns][]Allocation{}
		reasons := map[Reason]int{}
		prev := -1
		for _, s := range rollSlots(300) {
			remove, _, _ := slotInputs(p, 7, s)
			cancelled, added, dec, jobs := rollStep(t, p, 7, s)
			if remove >= 0 {
				var want []Allocation
				for key, as := range resv {
					if key.node == remove && key.slot > prev {
						want = append(want, as...)
						delete(resv, key)
						delete(load, key)
					}
				}
				sortAlloc := func(a, b Allocation) int {
					return cmpInts(a.Slot, b.Slot, a.Job, b.Job)
				}
				slices.SortFunc(want, sortAlloc)
				got := slices.Clone(cancelled)
				slices.SortFunc(got, sortAlloc)
				require.Equal(t, want, got, "cancelled reservations of node %d at slot %d", remove, s)
				// The removed node's reservations of the executed slot go
				// with it; the later nodes move down one index.
				shift := func(i int) int {
					if i > remove {
						return i - 1
					}
					return i
				}
				nt := map[int][]float64{}
				for i, c := range tmpl {
					if i != remove {
						nt[shift(i)] = c
					}
				}
				tmpl = nt
				nl, nr := map[ns]float64{}, map[ns][]Allocation{}
				for key, v := range load {
					if key.node != remove {
						nl[ns{shift(key.node), key.slot}] = v
					}
				}
				for key, as := range resv {
					if key.node == remove {
						continue
					}
					k2 := ns{shift(key.node), key.slot}
					for _, a := range as {
						a.Node = k2.node
						a.Unit = a.Node*w + a.Slot%w
						nr[k2] = append(nr[k2], a)
					}
				}
				load, resv = nl, nr
			}
			if added >= 0 {
				tmpl[added] = slices.Clone(p.capacity[added*w : (added+1)*w])
			}
			byID := map[int]*Job{}
			for n := range jobs {
				byID[jobs[n].ID] = &jobs[n]
			}
			served := map[int]float64{}
			for _, a := range dec.Allocations {
				j := byID[a.Job]
				require.NotNil(t, j)
				c, ok := tmpl[a.Node]
				require.True(t, ok, "allocation on node %d not in the cluster", a.Node)
				require.True(t, a.Slot >= s && a.Slot < s+w && a.Slot <= j.Deadline, "slot %d at %d", a.Slot, s)
				require.Equal(t, a.Node*w+a.Slot%w, a.Unit)
				i := slices.Index(j.Units, a.Unit)
				require.GreaterOrEqual(t, i, 0)
				require.True(t, a.X > 0 && a.X <= j.XBar[i]*(1+1e-9))
				served[a.Job] += a.X
				key := ns{a.Node, a.Slot}
				load[key] += a.X
				resv[key] = append(resv[key], a)
				require.LessOrEqual(t, load[key], c[a.Slot%w]*(1+1e-9)+1e-12, "node %d slot %d", a.Node, a.Slot)
			}
			require.Len(t, dec.Outcomes, len(jobs))
			for n, o := range dec.Outcomes {
				j := &jobs[n]
				require.Equal(t, j.ID, o.Job)
				require.LessOrEqual(t, served[j.ID], j.Rho*(1+1e-9))
				assert.InDelta(t, served[j.ID], o.Served, 1e-9*math.Max(1, o.Served))
				reasons[o.Reason]++
				if o.Reason == Allocated {
					require.Positive(t, o.Served)
				} else {
					require.Zero(t, o.Served, o.Reason.String())
				}
			}
			prev = s
		}
		t.Logf("%s %+v: outcomes %v", p.Name(), set.OutOfBounds, reasons)
		require.Positive(t, reasons[Allocated])
		if set.OutOfBounds == RejectOutOfBounds {
			require.Positive(t, reasons[AboveBounds]+reasons[BelowBounds])
		} else {
			require.Zero(t, reasons[AboveBounds]+reasons[BelowBounds])
		}
	}
}

func cmpInts(a1, b1, a2, b2 int) int {
	if a1 != b1 {
		return a1 - b1
	}
	return a2 - b2
}

// TestSnapshotContinuation: N slots, snapshot, restore into a policy
// freshly built by New on the current mesh (Policy.Mesh) and the same
// settings, M more slots: the
// decisions and cancelled reservations are bit-identical to those of the
// uninterrupted policy, for every setting, with nodes joining and leaving
// on both sides of the snapshot. JSON gives the same bytes.
func TestSnapshotContinuation(t *testing.T) {
	for k, set := range rollSettings {
		m := rollMesh(t, 3, 5, uint64(10+k))
		a, err := New(m, set)
		require.NoError(t, err)
		slots := rollSlots(120)
		for _, s := range slots[:60] {
			rollStep(t, a, 3, s)
		}
		data, err := a.MarshalBinary()
		require.NoError(t, err)
		js, err := a.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, data, js)
		stale, err := New(m, set)
		require.NoError(t, err)
		if !slices.Equal(a.Mesh().Capacity, m.Capacity) || a.NumNodes() != m.Nodes {
			require.Error(t, stale.UnmarshalBinary(data), "the mesh before the changes refuses the snapshot")
		}
		b, err := New(a.Mesh(), set)
		require.NoError(t, err)
		require.NoError(t, b.UnmarshalBinary(data))
		again, err := b.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, data, again, "restored state saves the same bytes")
		for _, s := range slots[60:] {
			ca, na, da, _ := rollStep(t, a, 3, s)
			cb, nb, db, _ := rollStep(t, b, 3, s)
			require.Equal(t, na, nb)
			require.Equal(t, allocBits(ca), allocBits(cb), "slot %d cancelled", s)
			require.Equal(t, allocBits(da.Allocations), allocBits(db.Allocations), "slot %d", s)
			require.Equal(t, da.Outcomes, db.Outcomes)
		}
		require.Equal(t, bitsOf(a.Usage()), bitsOf(b.Usage()))
	}
}

func allocBits(as []Allocation) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = fmt.Sprintf("%d/%d/%d/%d/%x", a.Job, a.Unit, a.Node, a.Slot, math.Float64bits(a.X))
	}
	return out
}

// TestSnapshotRejects: a snapshot restored into a policy on another mesh
// or other settings, truncated, altered or inconsistent is an error
// wrapping ErrSnapshot (and the internal/snapshot cause), and the policy
// keeps its state.
func TestSnapshotRejects(t *testing.T) {
	m := rollMesh(t, 3, 5, 1)
	set := rollSettings[0]
	a, err := New(m, set)
	require.NoError(t, err)
	for k, s := range rollSlots(300) {
		rollStep(t, a, 5, s)
		n := 0
		for _, l := range a.ledger {
			n += len(l)
		}
		if k > 20 && n > 3 {
			break
		}
	}
	data, err := a.MarshalBinary()
	require.NoError(t, err)

	other := rollMesh(t, 3, 5, 2)
	p, err := New(other, set)
	require.NoError(t, err)
	err = p.UnmarshalBinary(data)
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorIs(t, err, snapshot.ErrModel)
	set2 := set
	set2.V = 3.4
	p, err = New(m, set2)
	require.NoError(t, err)
	require.ErrorIs(t, p.UnmarshalBinary(data), snapshot.ErrModel)

	target, err := New(m, set)
	require.NoError(t, err)
	rollStep(t, target, 9, 0)
	before, err := target.MarshalBinary()
	require.NoError(t, err)
	check := func(name string, b []byte) {
		t.Helper()
		err := target.UnmarshalBinary(b)
		require.ErrorIs(t, err, ErrSnapshot, name)
		after, err2 := target.MarshalBinary()
		require.NoError(t, err2)
		require.Equal(t, string(before), string(after), "%s: policy changed", name)
	}
	for _, n := range []int{0, 1, len(data) / 2, len(data) - 1} {
		check(fmt.Sprintf("truncated at %d", n), data[:n])
	}
	s := string(data)
	for name, alter := range map[string][2]string{
		"version":  {`"version":1`, `"version":2`},
		"format":   {`msched/onsocmax.Policy`, `msched/onsocmax.Polic`},
		"nodes":    {`"nodes":`, `"nodes":1`},
		"now":      {`"now":`, `"now":-`},
		"x":        {`"x":`, `"x":-`},
		"extra":    {`"started":`, `"extra":1,"started":`},
		"capacity": {`"capacity":[`, `"capacity":[-1,`},
	} {
		require.Contains(t, s, alter[0], name)
		check(name, []byte(strings.Replace(s, alter[0], alter[1], 1)))
	}
	// A reservation above the capacity of its unit.
	var st policyState
	require.NoError(t, snapshot.Decode(data, snapshotFormat, snapshotVersion, a.model, &st))
	require.NotEmpty(t, st.Reservations)
	st.Reservations[0].X = 1e6
	bad, err := snapshot.Encode(snapshotFormat, snapshotVersion, a.model, st)
	require.NoError(t, err)
	check("overfull unit", bad)
	st.Reservations[0].X, st.Reservations[0].Slot = 1, st.Now+100
	bad, _ = snapshot.Encode(snapshotFormat, snapshotVersion, a.model, st)
	check("slot outside the window", bad)
	// A snapshot of a zero Policy or into one is an error, not a panic.
	_, err = (&Policy{}).MarshalBinary()
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorIs(t, (&Policy{}).UnmarshalBinary(data), ErrSnapshot)
}

// FuzzPolicySnapshot restores arbitrary bytes into a policy: never a
// panic; an error wraps ErrSnapshot and leaves the policy unchanged; an
// accepted state saves again to a snapshot that restores, and the policy
// keeps deciding feasibly.
func FuzzPolicySnapshot(f *testing.F) {
	m, err := bipartite.NewMesh(2, 3, []float64{4, 4, 0, 5, 5, 5})
	require.NoError(f, err)
	set := Settings{Iota: 1, V: 3.3}
	seedPol, err := New(m, set)
	require.NoError(f, err)
	for _, s := range []int{0, 1, 3} {
		rollStep(f, seedPol, 1, s)
	}
	data, err := seedPol.MarshalBinary()
	require.NoError(f, err)
	f.Add(data)
	f.Add(data[:len(data)/2])
	f.Add([]byte(`{"format":"msched/onsocmax.Policy","version":1,"model":"x","state":{}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := New(m, set)
		require.NoError(t, err)
		rollStep(t, p, 2, 0)
		before, err := p.MarshalBinary()
		require.NoError(t, err)
		if err := p.UnmarshalBinary(b); err != nil {
			require.ErrorIs(t, err, ErrSnapshot)
			after, _ := p.MarshalBinary()
			require.Equal(t, before, after)
			return
		}
		again, err := p.MarshalBinary()
		require.NoError(t, err)
		q, err := New(m, set)
		require.NoError(t, err)
		require.NoError(t, q.UnmarshalBinary(again))
		_, first := p.Window()
		s := first + 1
		if first > math.MaxInt/2 {
			return
		}
		_, _, jobs := slotInputs(p, 3, s)
		_, err = p.Decide(s, jobs)
		require.NoError(t, err)
	})
}

// TestBoundsRule: a job above V or below Iota is rejected with its
// reason under RejectOutOfBounds and served under AdmitOutOfBounds; a job
// on zero-capacity units gets NoCapacity; one with rho = 0 PricedOut.
func TestBoundsRule(t *testing.T) {
	m, err := bipartite.NewMesh(1, 2, []float64{10, 0})
	require.NoError(t, err)
	job := func(id int, a float64, unit int, rho float64) Job {
		return Job{ID: id, Deadline: 1, Rho: rho, Units: []int{unit}, XBar: []float64{5}, Beta: []float64{0}, Utility: []utility.Utility{lin(a)}}
	}
	jobs := []Job{job(1, 2, 0, 4), job(2, 5, 0, 4), job(3, 0.5, 0, 4), job(4, 2, 1, 4), job(5, 2, 0, 0)}
	for rule, want := range map[BoundsRule][]Reason{
		RejectOutOfBounds: {Allocated, AboveBounds, BelowBounds, NoCapacity, PricedOut},
		AdmitOutOfBounds:  {Allocated, Allocated, PricedOut, NoCapacity, PricedOut},
	} {
		p, err := New(m, Settings{Iota: 1, V: 3, OutOfBounds: rule})
		require.NoError(t, err)
		dec, err := p.Decide(0, jobs)
		require.NoError(t, err)
		var got []Reason
		for _, o := range dec.Outcomes {
			got = append(got, o.Reason)
		}
		assert.Equal(t, want, got, "rule %d", rule)
	}
	assert.Equal(t, "AboveBounds", AboveBounds.String())
	assert.Equal(t, "Reason(42)", Reason(42).String())
}

// TestSettingsValidate: every bad field is named, all at once.
func TestSettingsValidate(t *testing.T) {
	err := Settings{Iota: -1, V: 2, OutOfBounds: 7, MinUnit: math.NaN(), Solver: 9, ALM: ALMSettings{Decay: 3}}.Validate()
	require.ErrorIs(t, err, ErrSettings)
	require.ErrorIs(t, err, ErrBounds)
	for _, field := range []string{"Settings.Iota = -1", "Settings.OutOfBounds = 7", "Settings.MinUnit = NaN", "Settings.Solver = 9", "Decay = 3"} {
		assert.Contains(t, err.Error(), field)
	}
	_, err = New(nil, Settings{Iota: 1, V: 2})
	require.ErrorIs(t, err, ErrValue)
	_, err = New(rollMesh(t, 1, 1, 1), Settings{})
	require.NoError(t, err, "the zero value is the paper's setup")
	for _, s := range []Settings{{Iota: 1}, {V: 2}} {
		err = s.Validate()
		require.ErrorIs(t, err, ErrSettings, "%+v", s)
		require.ErrorIs(t, err, ErrBounds)
		assert.Contains(t, err.Error(), "set both")
	}
	require.NoError(t, Settings{Iota: 1, V: 1}.Validate())
}

// TestNodeOperations: errors leave the cluster unchanged; a removal
// renumbers the later nodes, an addition takes the next index; Units
// refuses unknown nodes.
func TestNodeOperations(t *testing.T) {
	p, err := New(rollMesh(t, 2, 3, 1), Settings{Iota: 1, V: 3})
	require.NoError(t, err)
	_, err = p.AddNode([]float64{1, 2})
	require.ErrorIs(t, err, ErrDimension)
	_, err = p.AddNode([]float64{1, math.NaN(), 1})
	require.ErrorIs(t, err, ErrValue)
	_, err = p.RemoveNode(5, nil)
	require.ErrorIs(t, err, ErrNode)
	require.Equal(t, 2, p.NumNodes())
	_, err = p.RemoveNode(0, nil)
	require.NoError(t, err)
	require.Equal(t, 1, p.NumNodes(), "node 1 is now node 0")
	_, err = p.RemoveNode(0, nil)
	require.ErrorIs(t, err, ErrNode, "the last node stays")
	require.Equal(t, 1, p.NumNodes())
	i, err := p.AddNode([]float64{1, 2, 3})
	require.NoError(t, err)
	assert.Equal(t, 1, i, "added at the end")
	i, err = p.AddNode([]float64{1, 2, 3})
	require.NoError(t, err)
	assert.Equal(t, 2, i)
	_, err = p.Units(nil, []int{3}, 0, 1)
	require.ErrorIs(t, err, ErrNode)
	_, err = p.Units(nil, []int{1, 1}, 0, 1)
	require.ErrorIs(t, err, ErrNode)
	u, err := p.Units(nil, []int{2, 0}, 4, 100)
	require.NoError(t, err)
	assert.Equal(t, []int{7, 8, 6, 1, 2, 0}, u) // slots 4, 5, 6 -> columns 1, 2, 0
	// Slots at the end of int: bounded by the window, no wrap-around.
	u, err = p.Units(nil, []int{1}, math.MaxInt-1, math.MaxInt)
	require.NoError(t, err)
	assert.Len(t, u, 2)
	_, err = p.Decide(math.MaxInt-1, nil)
	require.ErrorIs(t, err, ErrSlot)
}

// TestSnapshotAfterNodeReuse: a node removed after a Decide (its
// reservations of the executed slot dropped with it) and a node added
// with less capacity: the snapshot restores on the current mesh and
// continues bit for bit.
func TestSnapshotAfterNodeReuse(t *testing.T) {
	m, err := bipartite.NewMesh(2, 2, []float64{10, 10, 10, 10})
	require.NoError(t, err)
	set := Settings{Iota: 1, V: 3}
	p, err := New(m, set)
	require.NoError(t, err)
	j := Job{ID: 1, Deadline: 1, Rho: 20, Units: []int{0, 1, 2, 3}, XBar: []float64{9, 9, 9, 9},
		Beta: []float64{0, 0, 0, 0}, Utility: []utility.Utility{lin(2.5), lin(2.5), lin(2.5), lin(2.5)}}
	dec, err := p.Decide(0, []Job{j})
	require.NoError(t, err)
	require.Equal(t, Allocated, dec.Outcomes[0].Reason)
	cancelled, err := p.RemoveNode(0, nil)
	require.NoError(t, err)
	for _, a := range cancelled {
		assert.Equal(t, 1, a.Slot, "only the slot after the current one is cancelled")
	}
	i, err := p.AddNode([]float64{0.5, 0.5})
	require.NoError(t, err)
	require.Equal(t, 1, i)
	data, err := p.MarshalBinary()
	require.NoError(t, err)
	q, err := New(p.Mesh(), set) // the current cluster
	require.NoError(t, err)
	require.NoError(t, q.UnmarshalBinary(data))
	j2 := j
	j2.ID, j2.Arrival, j2.Deadline = 2, 1, 2
	j2.Units, err = p.Units(nil, []int{0, 1}, 1, 2)
	require.NoError(t, err)
	da, err := p.Decide(1, []Job{j2})
	require.NoError(t, err)
	wa := allocBits(da.Allocations)
	db, err := q.Decide(1, []Job{j2})
	require.NoError(t, err)
	require.Equal(t, wa, allocBits(db.Allocations))
}

// TestLogger: the logger receives one record per Decide and one per job
// that got nothing; nil logs nothing.
func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	l := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	m, err := bipartite.NewMesh(1, 1, []float64{10})
	require.NoError(t, err)
	p, err := New(m, Settings{Iota: 1, V: 3, Logger: l})
	require.NoError(t, err)
	_, err = p.Decide(0, []Job{oneUnitJob(1, 3), {ID: 2, Rho: 1, Units: []int{0}, XBar: []float64{1}, Beta: []float64{0}, Utility: []utility.Utility{lin(9)}}})
	require.NoError(t, err)
	out := buf.String()
	assert.Contains(t, out, "msg=decide family=onsocmax policy=OnSocMax slot=0")
	assert.Contains(t, out, "reason=AboveBounds")
	assert.Equal(t, 2, strings.Count(out, "\n"))
}

// TestMemoryFlatWithJobChurn runs 10^6 short jobs (2*10^4 with -short)
// through the policy on a rolling 4-node, 24-slot mesh, with a node
// leaving and joining every 1000 slots, and reports the live heap after a
// GC at a tenth of the run and at its end: the policy keeps no state per
// finished job, so the two agree within 64 KiB.
func TestMemoryFlatWithJobChurn(t *testing.T) {
	jobs := 1_000_000
	if testing.Short() {
		jobs = 20_000
	}
	m := rollMesh(t, 4, 24, 3)
	p, err := New(m, Settings{Iota: 1, V: 4})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 2))
	batch := make([]Job, 4)
	for q := range batch {
		batch[q] = Job{XBar: []float64{2, 2, 2, 2}, Beta: []float64{0.1, 0.1, 0.1, 0.1},
			Utility: []utility.Utility{lin(2), lin(2), lin(2), lin(2)}, Units: make([]int, 0, 4)}
	}
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	var early uint64
	id := 0
	for s := 0; id < jobs; s++ {
		if s%1000 == 999 {
			_, err := p.RemoveNode(1, nil)
			require.NoError(t, err)
			_, err = p.AddNode(m.Capacity[24:48])
			require.NoError(t, err)
		}
		for q := range batch {
			j := &batch[q]
			node := rng.IntN(4)
			j.ID, j.Arrival, j.Deadline, j.Rho = id, s, s+1, 1+2*rng.Float64()
			j.Units, err = p.Units(j.Units[:0], []int{node, (node + 1) % 4}, s, s+1)
			require.NoError(t, err)
			id++
		}
		_, err := p.Decide(s, batch)
		require.NoError(t, err)
		if id == jobs/10 {
			early = heap()
		}
	}
	end := heap()
	t.Logf("%d jobs: live heap %d B after %d jobs, %d B at the end", jobs, early, jobs/10, end)
	require.Less(t, int64(end)-int64(early), int64(64<<10))
}
