package baselines_test

import (
	"encoding"
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/stretchr/testify/require"
)

type esdpStateful interface {
	esdp.OnlinePolicy
	esdp.Learner
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	Rebuild(cl *esdp.Cluster, ports, servers []int) error
}

var esdpStatefulMakers = []struct {
	name string
	mk   func(cl *esdp.Cluster) (esdpStateful, error)
}{
	{"HSWF", func(cl *esdp.Cluster) (esdpStateful, error) { return baselines.NewHSWF(cl, baselines.HSWFSettings{}) }},
	{"HSWF-channel", func(cl *esdp.Cluster) (esdpStateful, error) {
		return baselines.NewHSWFChannel(cl, baselines.HSWFChannelSettings{})
	}},
	{"LCF", func(cl *esdp.Cluster) (esdpStateful, error) { return baselines.NewLCF(cl, baselines.LCFSettings{}) }},
	{"LWTF", func(cl *esdp.Cluster) (esdpStateful, error) { return baselines.NewLWTF(cl, baselines.LWTFSettings{}) }},
	{"CUCB", func(cl *esdp.Cluster) (esdpStateful, error) { return baselines.NewCUCB(cl, baselines.CUCBSettings{}) }},
	{"Thompson", func(cl *esdp.Cluster) (esdpStateful, error) {
		return baselines.NewThompson(cl, baselines.ThompsonSettings{Seed: 3, Stream: 4})
	}},
}

// esdpDrive runs slots [from, to) of in on p (arrivals and rewards from
// rand.NewPCG(seed, t)), checks every decision against in's cluster and
// returns the decisions.
func esdpDrive(t *testing.T, p esdpStateful, in *esdp.Instance, seed uint64, from, to int) [][]bool {
	t.Helper()
	var out [][]bool
	arrived := make([]bool, in.NumPorts())
	z := make([]float64, in.NumEdges())
	for s := from; s < to; s++ {
		rng := rand.New(rand.NewPCG(seed, uint64(s)))
		in.SampleArrivals(arrived, rng)
		in.SampleRewards(z, rng)
		x, err := p.Decide(s, arrived)
		require.NoError(t, err, "%s slot %d", p.Name(), s)
		require.NoError(t, in.Feasible(x, arrived), "%s slot %d", p.Name(), s)
		out = append(out, slices.Clone(x))
		require.NoError(t, p.Observe(s, esdp.Feedback{Chosen: slices.Clone(x), Reward: z}))
	}
	return out
}

// TestESDPBaselinesSnapshot: for every ESDP-family baseline, N slots,
// snapshot, restore into a fresh policy, M slots equal an uninterrupted
// run; other models, truncated and altered bytes are errors wrapping
// esdp.ErrSnapshot that leave the policy unchanged.
func TestESDPBaselinesSnapshot(t *testing.T) {
	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(31, 1)))
	require.NoError(t, err)
	other := in.Cluster.Clone()
	other.Capacity[0]++
	const N, M = 50, 30
	for _, m := range esdpStatefulMakers {
		ref, err := m.mk(&in.Cluster)
		require.NoError(t, err)
		want := esdpDrive(t, ref, in, 6, 0, N+M)

		a, _ := m.mk(&in.Cluster)
		esdpDrive(t, a, in, 6, 0, N)
		data, err := a.MarshalBinary()
		require.NoError(t, err)
		js, err := json.Marshal(a)
		require.NoError(t, err)
		require.JSONEq(t, string(data), string(js), m.name)
		b, _ := m.mk(&in.Cluster)
		require.NoError(t, b.UnmarshalBinary(data), m.name)
		require.Equal(t, want[N:], esdpDrive(t, b, in, 6, N, N+M), m.name)

		o, _ := m.mk(other)
		require.ErrorIs(t, o.UnmarshalBinary(data), esdp.ErrSnapshot, m.name)
		q, _ := m.mk(&in.Cluster)
		esdpDrive(t, q, in, 7, 0, 5)
		before, _ := q.MarshalBinary()
		for i := 0; i < len(data); i += 11 {
			require.ErrorIs(t, q.UnmarshalBinary(data[:i]), esdp.ErrSnapshot, "%s prefix %d", m.name, i)
		}
		for _, alt := range [][2]string{{`"count":[`, `"count":[-1,`}, {`"last_t":49`, `"last_t":-1`}, {`"stats"`, `"stats_"`}, {`"rng":"`, `"rng":"AA`}} {
			bad := strings.Replace(string(data), alt[0], alt[1], 1)
			if bad == string(data) {
				continue
			}
			require.ErrorIs(t, q.UnmarshalBinary([]byte(bad)), esdp.ErrSnapshot, "%s %v", m.name, alt)
		}
		now, _ := q.MarshalBinary()
		require.Equal(t, string(before), string(now), "%s changed by failed restores", m.name)
		// A snapshot of another baseline is refused.
		for _, n := range esdpStatefulMakers {
			if n.name != m.name {
				p, _ := n.mk(&in.Cluster)
				require.ErrorIs(t, p.UnmarshalBinary(data), esdp.ErrSnapshot, "%s into %s", m.name, n.name)
			}
		}
	}
}

// TestESDPBaselinesRebuild: a server leaves and another joins mid-run;
// every decision is feasible for the cluster of its slot.
func TestESDPBaselinesRebuild(t *testing.T) {
	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(32, 1)))
	require.NoError(t, err)
	// Server 0 leaves: the others shift down by one.
	var edges []bipartite.Edge
	for _, ed := range in.Graph.Edges() {
		if ed.Right != 0 {
			ed.Right--
			edges = append(edges, ed)
		}
	}
	// A new server joins, reachable from every port.
	R := in.Graph.NumRight() - 1
	for l := 0; l < in.NumPorts(); l++ {
		edges = append(edges, bipartite.Edge{Left: l, Right: R})
	}
	g, err := bipartite.NewGraph(in.NumPorts(), R+1, edges)
	require.NoError(t, err)
	servers := make([]int, R+1)
	for r := range servers {
		servers[r] = r + 1
	}
	servers[R] = -1
	E, K := g.NumEdges(), in.K
	next := &esdp.Instance{Cluster: esdp.Cluster{Graph: g, K: K, Demand: make([]int, E*K), Capacity: slices.Clone(in.Capacity), Cost: make([]float64, E)},
		Mean: make([]float64, E), Std: make([]float64, E), Arrival: slices.Clone(in.Arrival)}
	for e := 0; e < E; e++ {
		ed := g.Edge(e)
		oe, ok := -1, false
		if servers[ed.Right] >= 0 {
			oe, ok = in.Graph.EdgeID(ed.Left, servers[ed.Right])
		}
		if !ok {
			for k := 0; k < K; k++ {
				next.Demand[e*K+k] = 1
			}
			next.Mean[e], next.Std[e], next.Cost[e] = 0.9, 0.05, 0.1
			continue
		}
		copy(next.Demand[e*K:(e+1)*K], in.Demand[oe*K:(oe+1)*K])
		next.Mean[e], next.Std[e], next.Cost[e] = in.Mean[oe], in.Std[oe], in.Cost[oe]
	}
	require.NoError(t, next.Validate())
	for _, m := range esdpStatefulMakers {
		p, err := m.mk(&in.Cluster)
		require.NoError(t, err)
		esdpDrive(t, p, in, 8, 0, 30)
		require.Error(t, p.Rebuild(&next.Cluster, nil, []int{5}), m.name)
		require.NoError(t, p.Rebuild(&next.Cluster, nil, servers), m.name)
		esdpDrive(t, p, next, 8, 30, 60)
		require.NoError(t, p.Rebuild(&in.Cluster, nil, nil), m.name) // back, by index
		esdpDrive(t, p, in, 8, 60, 70)
	}
}

// FuzzESDPBaselinesUnmarshal: truncated or altered state gives an error
// wrapping esdp.ErrSnapshot, never a panic; a restored policy decides.
func FuzzESDPBaselinesUnmarshal(f *testing.F) {
	in, err := esdp.Generate(esdp.Config{Ports: 2, Servers: 3, K: 1, EdgeProb: 1, ArrivalProb: 1, DemandLo: 1, DemandHi: 1,
		MeanLo: 0.1, MeanHi: 1, CapLo: 2, CapHi: 2, Alpha: 0.5}, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		f.Fatal(err)
	}
	for i, m := range esdpStatefulMakers {
		p, _ := m.mk(&in.Cluster)
		for s := 0; s < 4; s++ {
			x, _ := p.Decide(s, []bool{true, true})
			p.Observe(s, esdp.Feedback{Chosen: slices.Clone(x), Reward: slices.Repeat([]float64{0.5}, in.NumEdges())})
		}
		data, _ := p.MarshalBinary()
		f.Add(uint8(i), data)
		f.Add(uint8(i), data[:len(data)-9])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		m := esdpStatefulMakers[int(which)%len(esdpStatefulMakers)]
		p, _ := m.mk(&in.Cluster)
		if err := p.UnmarshalBinary(data); err != nil {
			require.ErrorIs(t, err, esdp.ErrSnapshot)
			return
		}
		state, _ := p.MarshalBinary()
		var env struct {
			State struct {
				LastT int `json:"last_t"`
			} `json:"state"`
		}
		require.NoError(t, json.Unmarshal(state, &env))
		if env.State.LastT < 1<<40 {
			_, err := p.Decide(env.State.LastT+1, []bool{true, false})
			require.NoError(t, err)
		}
	})
}
