package exrun

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/ocorp"
)

// OCORP returns one series per policy, in order, pointing at the run's
// results, and passes errors through.
func TestOCORP(t *testing.T) {
	ms := ocorp.Cluster(2)
	jobs := []ocorp.Job{{Arrival: 0, Cores: 1, Processing: 3}, {Arrival: 1, Cores: 2, Processing: 2}}
	a, err := baselines.NewSRPT(ms, baselines.PrioritySettings{})
	require.NoError(t, err)
	b, err := baselines.NewSRPT(ms, baselines.PrioritySettings{})
	require.NoError(t, err)
	out, err := OCORP(jobs, ms, []ocorp.OnlinePolicy{a, b}, ocorp.RunSettings{}, 2)
	require.NoError(t, err)
	require.Len(t, out, 2)
	require.Equal(t, out[0].Flowtime, out[1].Flowtime)
	require.Equal(t, []int{3, 2}, out[0].Flowtime) // nothing competes: f_j = p_j
	_, err = OCORP(jobs, ms, []ocorp.OnlinePolicy{nil}, ocorp.RunSettings{}, 1)
	require.Error(t, err)
}
