package esdp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestGangJobTreeBruteForce checks the job tree (gang_jobtree.go) against
// exhaustive enumeration: GangExact with the tree right after the probes
// (testTree, no first search), from the improved incumbent and from the
// rounding's (testNoImprove), with the enumerated decomposition and
// without it (testClassLD), on contended instances
// (contendedGangKnapsack) and on instances built to sum exactly
// (exactSumKnapsack). Every solve must be Optimal at the enumerated
// optimum with a bound at least it; the tree must branch on some of
// them and prove the incumbent optimal on some. An unsound fixing or
// pruning fails the comparison: fixing jobs at 0.3 above the incumbent,
// pruning a node at 0.3 above it, or skipping the leaves' searches each
// do.
func TestGangJobTreeBruteForce(t *testing.T) {
	n := 5000 / gangTestScale
	if testing.Short() {
		n = 200
	}
	oracles := []*GangOracle{
		{Settings: GangOracleSettings{Method: GangExact}, testTree: true},
		{Settings: GangOracleSettings{Method: GangExact}, testTree: true, testNoImprove: true},
		{Settings: GangOracleSettings{Method: GangExact}, testTree: true, testNoImprove: true, testClassLD: true},
	}
	var deep *GangKnapsack // an instance on which oracle 1's tree branched
	branched := make([]int, len(oracles))
	proved := make([]int, len(oracles))
	requireExactBruteForce(t, rand.New(rand.NewPCG(37, 11)), 2*n, oracles, func(k int, o *GangOracle, p *GangKnapsack, _ float64) {
		if o.tree.nodes > 1 {
			branched[k]++
			if k == 1 && deep == nil {
				deep = p
			}
		}
		if o.tree.proved {
			proved[k]++
		}
		for l, f := range o.forceIn {
			require.False(t, f, "oracle %d: job %d still forced after the solve", k, l)
		}
	})
	t.Logf("%d instances: the tree branched on %d, %d, %d and proved the incumbent optimal on %d, %d, %d (improved incumbent; rounding's; rounding's without the enumerated decomposition)",
		2*n, branched[0], branched[1], branched[2], proved[0], proved[1], proved[2])
	// the tree allocates nothing once its buffers have grown
	require.NotNil(t, deep)
	x := make([]int, deep.Channels.Model().NumComponents())
	require.Zero(t, testing.AllocsPerRun(3, func() { _, _ = oracles[1].Solve(x, deep) }))
	for k := range oracles {
		require.Greater(t, branched[k], n/20, "the tree branches too rarely for the test to check it (oracle %d)", k)
		require.Greater(t, proved[k], n/10, "the tree proves too rarely for the test to check it (oracle %d)", k)
	}
}

// TestGangJobTreeFits checks the tree's memory bound: three multiplier
// vectors (one float64 per server and resource) per level, the levels
// bounded by the active jobs and treeMaxNodes, within treeMaxFloats.
func TestGangJobTreeFits(t *testing.T) {
	o := &GangOracle{}
	s := &gangSolve{o: o}
	s.active = make([]int, 200) // more jobs than treeMaxNodes: 65 levels
	require.Equal(t, treeMaxNodes+1, s.treeLevels())
	o.bestMu = make([]float64, treeMaxFloats/(3*(treeMaxNodes+1)))
	require.True(t, s.treeFits())
	o.bestMu = make([]float64, treeMaxFloats/(3*(treeMaxNodes+1))+1)
	require.False(t, s.treeFits(), "servers × resources %d", len(o.bestMu))
	s.active = s.active[:3] // 4 levels
	require.Equal(t, 4, s.treeLevels())
	require.True(t, s.treeFits())
}
