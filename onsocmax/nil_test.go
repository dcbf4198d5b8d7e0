package onsocmax

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// TestNilInstanceIsAnError: every exported entry point that takes an
// instance or a P3 returns an error wrapping ErrValue on nil instead of
// dereferencing it (issue 12 class 7).
func TestNilInstanceIsAnError(t *testing.T) {
	require.NotPanics(t, func() {
		var in *Instance
		require.ErrorIs(t, in.Validate(), ErrValue)
		require.ErrorIs(t, in.CheckFeasible(nil, 0), ErrValue)
		_, _, err := in.MarginalBounds(1)
		require.ErrorIs(t, err, ErrValue)
		_, _, err = OfflineLP(nil)
		require.ErrorIs(t, err, ErrValue)
		_, _, err = OfflineFlow(nil)
		require.ErrorIs(t, err, ErrValue)
		_, err = OfflineConcave(nil, nil)
		require.ErrorIs(t, err, ErrValue)
		var s FlowSolver
		_, err = s.Solve(nil, nil)
		require.ErrorIs(t, err, ErrValue)
		_, err = WaterFill(nil, nil, nil, nil)
		require.ErrorIs(t, err, ErrValue)
		_, err = Run(nil, nil, RunSettings{})
		require.Error(t, err)
	})
}

// TestHugeJobValuesRejected: beta 1e308 used to pass and make every
// welfare +Inf; Rho, XBar and Beta are bounded by MaxValue.
func TestHugeJobValuesRejected(t *testing.T) {
	mesh, err := bipartite.NewMesh(1, 1, []float64{5})
	require.NoError(t, err)
	u := utility.Utility{Kind: utility.Linear, A: 1}
	ok := Job{ID: 1, Rho: 3, Units: []int{0}, XBar: []float64{2}, Beta: []float64{0.3}, Utility: []utility.Utility{u}}
	require.NoError(t, ok.Validate(mesh))
	for _, mut := range []func(*Job){
		func(j *Job) { j.Beta = []float64{1e308} },
		func(j *Job) { j.XBar = []float64{1e16} },
		func(j *Job) { j.Rho = 1e300 },
	} {
		j := ok
		mut(&j)
		err := j.Validate(mesh)
		require.ErrorIs(t, err, ErrValue)
		require.Contains(t, err.Error(), "MaxValue")
	}
}
