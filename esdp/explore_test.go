package esdp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

// infeasibleChannelInstance has c = [2, 1] (Table 2 bounds capacities in
// [1, 2] like the demands) and three channels, one of which needs 2 units of
// type 1 and so never fits.
func infeasibleChannelInstance(t testing.TB) *Instance {
	t.Helper()
	g, err := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}})
	require.NoError(t, err)
	in := &Instance{Cluster: Cluster{Graph: g, K: 2, Demand: []int{1, 1, 1, 2, 1, 1}, Capacity: []int{2, 1}, Cost: []float64{0, 0, 0}},
		Mean: []float64{0.5, 0.9, 0.3}, Std: []float64{0.1, 0.1, 0.1}, Arrival: []float64{1, 1}}
	require.NoError(t, in.Validate())
	return in
}

// TestPlayable checks Cluster.Playable against the definition.
func TestPlayable(t *testing.T) {
	in := infeasibleChannelInstance(t)
	require.True(t, in.Playable(0))
	require.False(t, in.Playable(1))
	require.True(t, in.Playable(2))
}

// TestPolicyLeavesExplorationWithInfeasibleChannel is issue 11.7: a channel
// whose demand exceeds the capacity can never be played; ESDP must not stay
// in its exploration branch waiting for it.
func TestPolicyLeavesExplorationWithInfeasibleChannel(t *testing.T) {
	in := infeasibleChannelInstance(t)
	for _, stz := range []bool{false, true} {
		p, err := New(&in.Cluster, Settings{SolveThenZero: stz})
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(1, 2))
		arrived := make([]bool, in.NumPorts())
		z := make([]float64, in.NumEdges())
		last := -1
		for s := 0; s < 200; s++ {
			in.SampleArrivals(arrived, rng)
			in.SampleRewards(z, rng)
			x, err := p.Decide(s, arrived)
			require.NoError(t, err)
			require.NoError(t, in.Feasible(x, arrived))
			require.False(t, x[1], "slot %d: the infeasible channel was chosen", s)
			if p.Last().Explore {
				last = s
			}
			require.NoError(t, p.Observe(s, Feedback{Chosen: x, Reward: z}))
		}
		// Two playable channels on two ports that always have a job: both
		// are played within the first two slots.
		require.Less(t, last, 2, "SolveThenZero=%v: still exploring at slot %d", stz, last)
		require.Zero(t, p.Count(1))
	}
}

// TestGeneratedTable2LeavesExploration: on Table 2 instances (c in [1,2],
// demands in [1,2]) many channels never fit; ESDP leaves exploration after
// finitely many slots on every seed.
func TestGeneratedTable2LeavesExploration(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := DefaultConfig()
		cfg.CapacityRule = CapacityTable2
		in, err := Generate(cfg, rand.New(rand.NewPCG(seed, 1)))
		require.NoError(t, err)
		infeasible := 0
		for e := 0; e < in.NumEdges(); e++ {
			if !in.Playable(e) {
				infeasible++
			}
		}
		p, err := New(&in.Cluster, Settings{})
		require.NoError(t, err)
		explored, last := 0, -1
		pol := &exploreCounter{Policy: p, count: &explored, last: &last}
		_, err = Run(in, []OnlinePolicy{pol}, RunSettings{T: 400, Seed: seed})
		require.NoError(t, err)
		t.Logf("seed %d: |E| = %d, %d channels never fit, capacity %v, %d slots explored, last at %d", seed, in.NumEdges(), infeasible, in.Capacity, explored, last)
		require.Less(t, last, 200, "seed %d: still exploring at slot %d", seed, last)
	}
}

type exploreCounter struct {
	*Policy
	count, last *int
}

func (c *exploreCounter) Decide(t int, arrived []bool) ([]bool, error) {
	x, err := c.Policy.Decide(t, arrived)
	if c.Policy.Last().Explore {
		*c.count++
		*c.last = t
	}
	return x, err
}
