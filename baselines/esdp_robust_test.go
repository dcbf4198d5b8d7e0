package baselines_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// TestCUCBLeavesExplorationWithInfeasibleChannel is issue 11.7 for CUCB:
// on Table 2 instances (c in [1, 2]) most channels never fit, and CUCB must
// leave its exploration branch after finitely many slots.
func TestCUCBLeavesExplorationWithInfeasibleChannel(t *testing.T) {
	for seed := uint64(1); seed <= 5; seed++ {
		cfg := esdp.DefaultConfig()
		cfg.CapacityRule = esdp.CapacityTable2
		in, err := esdp.Generate(cfg, rand.New(rand.NewPCG(seed, 1)))
		require.NoError(t, err)
		c, err := baselines.NewCUCB(&in.Cluster, esdp.Settings{})
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 9))
		arrived := make([]bool, in.NumPorts())
		z := make([]float64, in.NumEdges())
		last := -1
		for s := 0; s < 400; s++ {
			in.SampleArrivals(arrived, rng)
			in.SampleRewards(z, rng)
			x, err := c.Decide(s, arrived)
			require.NoError(t, err)
			require.NoError(t, in.Feasible(x, arrived))
			if c.Exploring() {
				last = s
			}
			require.NoError(t, c.Observe(s, esdp.Feedback{Chosen: x, Reward: z}))
		}
		t.Logf("seed %d: last exploration slot %d", seed, last)
		require.Less(t, last, 200, "seed %d: CUCB still exploring at slot %d", seed, last)
	}
}

// TestESDPBaselinesHugeDemands: first fit never wraps around when the
// demands are near math.MaxInt (two such channels never fit together).
func TestESDPBaselinesHugeDemands(t *testing.T) {
	const M = int(^uint(0) >> 1)
	g, err := bipartite.NewGraph(2, 1, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}})
	require.NoError(t, err)
	cl := &esdp.Cluster{Graph: g, K: 1, Demand: []int{M, M}, Capacity: []int{M}, Cost: []float64{0, 0}}
	for _, p := range esdpPolicies(t, cl, 1) {
		x, err := p.Decide(0, []bool{true, true})
		require.NoError(t, err, p.Name())
		require.NoError(t, cl.Feasible(x, []bool{true, true}), p.Name())
	}
}
