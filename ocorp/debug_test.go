//go:build mscheddebug

package ocorp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDebugAssertionTrips: the debug build's check panics on a decision
// that breaks (4b) (the invariant check is live, not dead code).
func TestDebugAssertionTrips(t *testing.T) {
	ms := []Machine{{Cores: 2, Memory: 4}}
	obs := Obs{Jobs: []ActiveJob{{ID: 7, Job: Job{Cores: 4, Memory: 1, Processing: 1}, Remaining: 4}}}
	require.Panics(t, func() {
		mustBeFeasible("test", ms, obs, Decision{Placements: []Placement{{Job: 7, Machine: 0, Cores: 3, Admit: true}}})
	})
	require.NotPanics(t, func() {
		mustBeFeasible("test", ms, obs, Decision{Placements: []Placement{{Job: 7, Machine: 0, Cores: 2, Admit: true}}})
	})
}
