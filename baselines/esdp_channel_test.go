package baselines_test

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/esdp"
)

// TestHSWFChannelReference compares HSWF-channel with a reference written
// from its definition (channels of arrived ports by v^ descending, ties by
// index, every one that fits) on random instances and learned means.
func TestHSWFChannelReference(t *testing.T) {
	for seed := range uint64(40) {
		cfg := esdp.DefaultConfig()
		if seed%2 == 1 {
			cfg.CapacityRule = esdp.CapacityAlpha
		}
		in, err := esdp.Generate(cfg, rand.New(rand.NewPCG(seed, 26)))
		require.NoError(t, err)
		cl := &in.Cluster
		h, err := baselines.NewHSWFChannel(cl, baselines.HSWFChannelSettings{})
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 27))
		E := cl.NumEdges()
		fb := esdp.Feedback{Chosen: make([]bool, E), Reward: make([]float64, E)}
		for e := range E {
			fb.Chosen[e] = rng.IntN(4) > 0
			fb.Reward[e] = float64(rng.IntN(5)) / 4 // ties on purpose
		}
		require.NoError(t, h.Warm(fb))
		arrived := make([]bool, cl.NumPorts())
		for l := range arrived {
			arrived[l] = rng.IntN(3) > 0
		}
		x, err := h.Decide(0, arrived)
		require.NoError(t, err)
		var edges []int
		for e := range E {
			if arrived[cl.Graph.Edge(e).Left] {
				edges = append(edges, e)
			}
		}
		slices.SortStableFunc(edges, func(a, b int) int { return cmp.Compare(h.Mean(b), h.Mean(a)) })
		want := make([]bool, E)
		use := make([]int, cl.K)
	next:
		for _, e := range edges {
			for k := range use {
				if use[k]+cl.Demand[e*cl.K+k] > cl.Capacity[k] {
					continue next
				}
			}
			for k := range use {
				use[k] += cl.Demand[e*cl.K+k]
			}
			want[e] = true
		}
		require.Equal(t, want, x, "seed %d", seed)
	}
}
