package esdp

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGangRunDefault(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	p, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	res, err := RunGang(in, []GangOnlinePolicy{p}, RunSettings{T: 20, Seed: 1})
	require.NoError(t, err)
	require.Zero(t, res.Violations[0])
	s := res.Series[0]
	t.Logf("opt %.1f  esdp-gang %.1f  regret %.1f  wall %v", res.TotalOptimal, s.TotalExpected, s.TotalRegret, s.Wall)
	for tt, r := range s.Regret {
		require.GreaterOrEqual(t, r+res.OptimalBound[tt]-res.Optimal[tt], -1e-9, "slot %d", tt)
	}
}
