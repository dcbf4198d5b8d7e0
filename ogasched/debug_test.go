//go:build mscheddebug

package ogasched

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// TestDebugAssertionTrips: in a debug build, a kept decision that breaks
// (6) makes the next Decide panic (the invariant check is live, not dead
// code).
func TestDebugAssertionTrips(t *testing.T) {
	g := bipartite.Complete(2, 1)
	u := mustU(t, utility.Linear, 1)
	p, err := NewProblem(g, [][]float64{{2}, {2}}, [][]float64{{2}}, [][]utility.Utility{{u}}, []float64{0.5})
	require.NoError(t, err)
	pol, err := New(p, Settings{})
	require.NoError(t, err)
	defer pol.Close()
	_, err = pol.Decide(0, []float64{1, 1})
	require.NoError(t, err)
	pol.y[0], pol.y[1] = 1.5, 1.5 // sum 3 > capacity 2
	require.PanicsWithValue(t, "ogasched: Decide: infeasible decision: ogasched: invalid value: (6) violated at node 0 type 0: sum 3 > capacity 2 + FeasibilityTol * 2", func() {
		_, _ = pol.Decide(1, []float64{1, 1})
	})
}
