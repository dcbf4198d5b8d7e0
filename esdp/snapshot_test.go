package esdp

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// driveSlots runs slots [from, to) of in on p with arrivals and rewards drawn
// from rand.NewPCG(seed, t) and returns the decisions; if observeLast is
// false the last decision gets no Observe (a snapshot then carries it).
func driveSlots(t *testing.T, p *Policy, in *Instance, seed uint64, from, to int, observeLast bool) [][]bool {
	t.Helper()
	var out [][]bool
	arrived := make([]bool, in.NumPorts())
	z := make([]float64, in.NumEdges())
	for s := from; s < to; s++ {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		in.SampleArrivals(arrived, rng)
		in.SampleRewards(z, rng)
		x, err := p.Decide(s, arrived)
		require.NoError(t, err, "slot %d", s)
		require.NoError(t, p.cl.Feasible(x, arrived), "slot %d", s)
		out = append(out, slices.Clone(x))
		if s < to-1 || observeLast {
			require.NoError(t, p.Observe(s, Feedback{Chosen: slices.Clone(x), Reward: z}))
		}
	}
	return out
}

// TestSnapshotContinuesBitIdentical: N slots, snapshot, restore into a
// fresh policy built by New on the same model, M more slots: the decisions
// equal those of an uninterrupted run, also when the snapshot is taken
// between a Decide and its Observe.
func TestSnapshotContinuesBitIdentical(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(21, 1)))
	require.NoError(t, err)
	const N, M, seed = 60, 40, 5
	for _, pending := range []bool{false, true} {
		for _, set := range []Settings{{}, {SolveThenZero: true, G: GLog}} {
			ref, err := New(&in.Cluster, set)
			require.NoError(t, err)
			want := driveSlots(t, ref, in, seed, 0, N+M, true)

			a, err := New(&in.Cluster, set)
			require.NoError(t, err)
			driveSlots(t, a, in, seed, 0, N, !pending)
			data, err := a.MarshalBinary()
			require.NoError(t, err)
			js, err := json.Marshal(a)
			require.NoError(t, err)
			require.JSONEq(t, string(data), string(js), "MarshalJSON and MarshalBinary differ")

			b, err := New(&in.Cluster, set)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(js, b))
			from := N
			if pending { // the restored policy accepts the pending feedback
				rng := rand.New(rand.NewPCG(seed, uint64(N-1)))
				arrived := make([]bool, in.NumPorts())
				z := make([]float64, in.NumEdges())
				in.SampleArrivals(arrived, rng)
				in.SampleRewards(z, rng)
				require.NoError(t, b.Observe(N-1, Feedback{Chosen: want[N-1], Reward: z}))
			}
			got := driveSlots(t, b, in, seed, from, N+M, true)
			require.Equal(t, want[N:], got, "pending=%v settings=%+v", pending, set)
		}
	}
}

// TestSnapshotRejects: another model, other settings, truncated or altered
// bytes give an error wrapping ErrSnapshot and leave the policy unchanged.
func TestSnapshotRejects(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(22, 1)))
	require.NoError(t, err)
	p, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	driveSlots(t, p, in, 3, 0, 30, true)
	data, err := p.MarshalBinary()
	require.NoError(t, err)

	q, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	driveSlots(t, q, in, 4, 0, 7, true)
	before, err := q.MarshalBinary()
	require.NoError(t, err)
	unchanged := func() {
		t.Helper()
		now, err := q.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, string(before), string(now), "a failed restore changed the policy")
	}

	other := in.Cluster.Clone()
	other.Capacity[0]++
	o, err := New(other, Settings{})
	require.NoError(t, err)
	require.ErrorIs(t, o.UnmarshalBinary(data), ErrSnapshot)
	g, err := New(&in.Cluster, Settings{G: GLog})
	require.NoError(t, err)
	require.ErrorIs(t, g.UnmarshalBinary(data), ErrSnapshot)

	for i := 0; i < len(data); i += 7 {
		require.ErrorIs(t, q.UnmarshalBinary(data[:i]), ErrSnapshot, "prefix %d", i)
		unchanged()
	}
	var env map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &env))
	for _, state := range []string{
		`{"stats":{"count":[-1],"sum":[0]},"started":true,"last_t":29,"pending":null}`,
		`{"stats":{"count":[],"sum":[]},"started":true,"last_t":29,"pending":null}`,
		`{"started":true,"last_t":29,"pending":null}`,
		`{"stats":` + statsOf(t, p, 0, 2) + `,"started":true,"last_t":-4,"pending":null}`,
		`{"stats":` + statsOf(t, p, 0, 2) + `,"started":true,"last_t":29,"pending":[5,5]}`,
		`{"stats":` + statsOf(t, p, 0, 2) + `,"started":true,"last_t":29,"pending":[999999]}`,
		`{"stats":` + statsOf(t, p, 0, 2) + `,"started":false,"last_t":0,"pending":[1]}`,
		`{"stats":` + statsOf(t, p, 0, 1e9) + `,"started":true,"last_t":29,"pending":null}`,
	} {
		env["state"] = json.RawMessage(state)
		alt, err := json.Marshal(env)
		require.NoError(t, err)
		require.ErrorIs(t, q.UnmarshalBinary(alt), ErrSnapshot, state)
		unchanged()
	}
}

// statsOf returns p's statistics as JSON with the sum of edge e set to v.
func statsOf(t *testing.T, p *Policy, e int, v float64) string {
	st := p.Stats()
	st.sum[e] = v
	b, err := json.Marshal(st)
	require.NoError(t, err)
	return string(b)
}

// TestClusterChangedAfterNew: New copies the cluster, so editing the
// caller's Capacity does not silently change decisions.
func TestClusterChangedAfterNew(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(23, 1)))
	require.NoError(t, err)
	ref, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	want := driveSlots(t, ref, in, 8, 0, 30, true)
	cl := in.Cluster.Clone()
	p, err := New(cl, Settings{})
	require.NoError(t, err)
	for k := range cl.Capacity {
		cl.Capacity[k] = 0
	}
	got := driveSlots(t, p, in, 8, 0, 30, true)
	require.Equal(t, want, got)
}

// TestRebuildNodesLeaveAndJoin: servers and ports leave and join while the
// policy runs; every decision is feasible for the cluster of its slot, and
// the statistics of the channels that remain are carried over.
func TestRebuildNodesLeaveAndJoin(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(24, 1)))
	require.NoError(t, err)
	p, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	driveSlots(t, p, in, 9, 0, 40, true)
	slot := 40
	cur := in
	rng := rand.New(rand.NewPCG(24, 2))
	for step := 0; step < 6; step++ {
		var next *Instance
		var ports, servers []int
		switch step % 3 {
		case 0: // a server leaves
			next, servers = dropServer(t, cur, rng.IntN(cur.Graph.NumRight()))
		case 1: // a server joins, connected to every port
			next = addServer(t, cur, rng)
		case 2: // a port leaves and a capacity shrinks
			next, ports = dropPort(t, cur, rng.IntN(cur.NumPorts()))
			next.Capacity[0] = max(1, next.Capacity[0]-1)
		}
		old := p.Stats()
		oldG := p.cl.Graph
		require.NoError(t, p.Rebuild(&next.Cluster, ports, servers))
		require.Equal(t, next.NumEdges(), p.Stats().Len())
		for e := 0; e < next.NumEdges(); e++ {
			ed := next.Graph.Edge(e)
			l, r := ed.Left, ed.Right
			if ports != nil {
				l = ports[l]
			}
			if servers != nil {
				r = servers[r]
			}
			if oe, ok := oldG.EdgeID(l, r); ok && l >= 0 && r >= 0 {
				require.Equal(t, old.Count(oe), p.Count(e), "edge %d carried from %d", e, oe)
			} else {
				require.Zero(t, p.Count(e), "new edge %d", e)
			}
		}
		_, err := p.Decide(slot-1, make([]bool, next.NumPorts()))
		require.ErrorIs(t, err, ErrSlot, "slots keep increasing across Rebuild")
		driveSlots(t, p, next, 9, slot, slot+15, true) // drive checks feasibility
		slot += 15
		cur = next
	}
	require.Error(t, p.Rebuild(&cur.Cluster, []int{-2}, nil))
	require.Error(t, p.Rebuild(nil, nil, nil))
}

func rebuildInstance(t *testing.T, in *Instance, g *bipartite.Graph, edgeOf func(e int) int, ports []int) *Instance {
	t.Helper()
	K, E := in.K, g.NumEdges()
	out := &Instance{Cluster: Cluster{Graph: g, K: K, Demand: make([]int, E*K), Capacity: slices.Clone(in.Capacity), Cost: make([]float64, E)},
		Mean: make([]float64, E), Std: make([]float64, E), Arrival: make([]float64, g.NumLeft())}
	for e := 0; e < E; e++ {
		oe := edgeOf(e)
		if oe < 0 {
			for k := 0; k < K; k++ {
				out.Demand[e*K+k] = 1
			}
			out.Mean[e], out.Std[e], out.Cost[e] = 0.5, 0.1, 0.5
			continue
		}
		copy(out.Demand[e*K:(e+1)*K], in.Demand[oe*K:(oe+1)*K])
		out.Mean[e], out.Std[e], out.Cost[e] = in.Mean[oe], in.Std[oe], in.Cost[oe]
	}
	for l := range out.Arrival {
		out.Arrival[l] = 0.9
		if ports != nil {
			out.Arrival[l] = in.Arrival[ports[l]]
		}
	}
	require.NoError(t, out.Validate())
	return out
}

func dropServer(t *testing.T, in *Instance, r int) (*Instance, []int) {
	var edges []bipartite.Edge
	for _, ed := range in.Graph.Edges() {
		if ed.Right != r {
			if ed.Right > r {
				ed.Right--
			}
			edges = append(edges, ed)
		}
	}
	g, err := bipartite.NewGraph(in.NumPorts(), in.Graph.NumRight()-1, edges)
	require.NoError(t, err)
	servers := make([]int, g.NumRight())
	for i := range servers {
		servers[i] = i
		if i >= r {
			servers[i] = i + 1
		}
	}
	return rebuildInstance(t, in, g, func(e int) int {
		ed := g.Edge(e)
		oe, _ := in.Graph.EdgeID(ed.Left, servers[ed.Right])
		return oe
	}, nil), servers
}

func addServer(t *testing.T, in *Instance, rng *rand.Rand) *Instance {
	edges := in.Graph.Edges()
	R := in.Graph.NumRight()
	for l := 0; l < in.NumPorts(); l++ {
		edges = append(edges, bipartite.Edge{Left: l, Right: R})
	}
	g, err := bipartite.NewGraph(in.NumPorts(), R+1, edges)
	require.NoError(t, err)
	return rebuildInstance(t, in, g, func(e int) int {
		ed := g.Edge(e)
		if ed.Right == R {
			return -1
		}
		oe, _ := in.Graph.EdgeID(ed.Left, ed.Right)
		return oe
	}, nil)
}

func dropPort(t *testing.T, in *Instance, l int) (*Instance, []int) {
	var edges []bipartite.Edge
	for _, ed := range in.Graph.Edges() {
		if ed.Left != l {
			if ed.Left > l {
				ed.Left--
			}
			edges = append(edges, ed)
		}
	}
	g, err := bipartite.NewGraph(in.NumPorts()-1, in.Graph.NumRight(), edges)
	require.NoError(t, err)
	ports := make([]int, g.NumLeft())
	for i := range ports {
		ports[i] = i
		if i >= l {
			ports[i] = i + 1
		}
	}
	return rebuildInstance(t, in, g, func(e int) int {
		ed := g.Edge(e)
		oe, _ := in.Graph.EdgeID(ports[ed.Left], ed.Right)
		return oe
	}, ports), ports
}

// FuzzPolicyUnmarshal: truncated or altered state gives an error, never a
// panic, and a state that restores leaves a policy that decides.
func FuzzPolicyUnmarshal(f *testing.F) {
	in, err := Generate(Config{Ports: 2, Servers: 3, K: 1, EdgeProb: 1, ArrivalProb: 1, DemandLo: 1, DemandHi: 1,
		MeanLo: 0.1, MeanHi: 1, CapLo: 2, CapHi: 2, Alpha: 0.5}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		f.Fatal(err)
	}
	p, _ := New(&in.Cluster, Settings{})
	arrived := []bool{true, true}
	for s := 0; s < 5; s++ {
		x, _ := p.Decide(s, arrived)
		p.Observe(s, Feedback{Chosen: slices.Clone(x), Reward: slices.Repeat([]float64{0.5}, in.NumEdges())})
	}
	data, _ := p.MarshalBinary()
	f.Add(data)
	p.Decide(5, arrived)
	data, _ = p.MarshalBinary()
	f.Add(data)
	for _, alt := range [][2]string{{`"count":[`, `"count":[-1,`}, {`"pending":[`, `"pending":[99,`}, {`"last_t":5`, `"last_t":-5`}, {`"sum":[`, `"sum":[1e308,`}} {
		f.Add([]byte(strings.Replace(string(data), alt[0], alt[1], 1)))
	}
	f.Add(data[:len(data)/2])
	f.Fuzz(func(t *testing.T, data []byte) {
		q, _ := New(&in.Cluster, Settings{})
		if err := q.UnmarshalBinary(data); err != nil {
			require.ErrorIs(t, err, ErrSnapshot)
			return
		}
		if q.started && q.lastT >= 1<<40 {
			return
		}
		t0 := 0
		if q.started {
			t0 = q.lastT + 1
		}
		_, err := q.Decide(t0, arrived)
		require.NoError(t, err)
	})
}

// TestStatsSaturate: n_e stops at MaxCount (its mean is kept), so that a
// state at the ceiling still accepts feedback, and a count above it is
// refused on decoding.
func TestStatsSaturate(t *testing.T) {
	st := NewStats(2)
	st.count[0], st.sum[0] = MaxCount, MaxCount/2
	st.count[1] = MaxCount - 1
	require.NoError(t, st.Observe(Feedback{Chosen: []bool{true, true}, Reward: []float64{1, 1}}))
	require.Equal(t, MaxCount, st.Count(0))
	require.Equal(t, 0.5, st.Mean(0))
	require.Equal(t, MaxCount, st.Count(1))
	b, err := st.MarshalJSON()
	require.NoError(t, err)
	var back Stats
	require.NoError(t, back.UnmarshalJSON(b))
	require.ErrorIs(t, back.UnmarshalJSON([]byte(`{"count":[9007199254740993],"sum":[0]}`)), ErrValue)
}
