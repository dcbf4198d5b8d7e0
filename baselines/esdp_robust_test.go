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
		c, err := baselines.NewCUCB(&in.Cluster, baselines.CUCBSettings{})
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

// TestESDPBaselinesNilAndBadFeedback is issue 12 classes 6-7 for the ESDP
// baselines: nil clusters are errors, and feedback for an edge the decision
// did not choose (or for another slot) is an error that changes nothing.
func TestESDPBaselinesNilAndBadFeedback(t *testing.T) {
	_, err := baselines.NewHSWF(nil, baselines.HSWFSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)
	_, err = baselines.NewLCF(nil, baselines.LCFSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)
	_, err = baselines.NewLWTF(nil, baselines.LWTFSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)
	_, err = baselines.NewCUCB(nil, baselines.CUCBSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)
	_, err = baselines.NewThompson(nil, baselines.ThompsonSettings{Seed: 1, Stream: 1})
	require.ErrorIs(t, err, esdp.ErrDimension)
	_, err = baselines.NewHSWF(&esdp.Cluster{}, baselines.HSWFSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)

	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(2, 1)))
	require.NoError(t, err)
	arrived := make([]bool, in.NumPorts())
	for l := range arrived {
		arrived[l] = true
	}
	type meaner interface{ Mean(e int) float64 }
	for _, p := range esdpPolicies(t, &in.Cluster, 1) {
		l := p.(bipartite.Learner[esdp.Feedback])
		x, err := p.Decide(0, arrived)
		require.NoError(t, err)
		un := -1
		for e, on := range x {
			if !on {
				un = e
				break
			}
		}
		require.GreaterOrEqual(t, un, 0)
		fb := esdp.Feedback{Chosen: append([]bool(nil), x...), Reward: make([]float64, len(x))}
		for e := range fb.Reward {
			fb.Reward[e] = 0.75
		}
		fb.Chosen[un] = true
		before := make([]float64, len(x))
		for e := range before {
			before[e] = p.(meaner).Mean(e)
		}
		err = l.Observe(0, fb)
		require.ErrorIs(t, err, esdp.ErrValue, p.Name())
		require.Contains(t, err.Error(), "edge", p.Name())
		fb.Chosen[un] = false
		require.ErrorIs(t, l.Observe(3, fb), esdp.ErrSlot, p.Name())
		for e := range before {
			require.Equal(t, before[e], p.(meaner).Mean(e), "%s changed by rejected feedback", p.Name())
		}
		require.NoError(t, l.Observe(0, fb), p.Name())
	}
}

// TestESDPBaselinesExtremeSlots: slot math.MaxInt decides or errors, never
// panics; bad arrival lengths are errors.
func TestESDPBaselinesExtremeSlots(t *testing.T) {
	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(4, 1)))
	require.NoError(t, err)
	arrived := make([]bool, in.NumPorts())
	for l := range arrived {
		arrived[l] = true
	}
	for _, p := range esdpPolicies(t, &in.Cluster, 1) {
		x, err := p.Decide(int(^uint(0)>>1), arrived)
		if err == nil {
			require.NoError(t, in.Feasible(x, arrived), p.Name())
		}
		_, err = p.Decide(0, arrived[:1])
		require.ErrorIs(t, err, esdp.ErrDimension, p.Name())
	}
}
