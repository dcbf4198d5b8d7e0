package esdp_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/esdp"
)

// TestGangRepackDLRM: the time-limited phase's repacking and reselection
// on the DLRM trace, at a node budget (reproducible, the clock far).
// Slot 594 (19 apps whose components fill the CN CPU to 1 020 of 1 024
// when all are served): the job neighbourhoods and the second starts
// serve 18 (138.59; HiGHS proves 145.66 with 19), repacking every
// served app with the 19th serves all 19 (at 2^23 nodes: 2^22 before
// the core neighbourhoods, which take nodes from the improvement steps
// that bring the packing above 145). Slot 394 (23 apps): the
// packing of all 23 takes 784 315 nodes (22 apps served with the packing
// search at 2^18 nodes). Every app arrived: the
// incumbent serves 34 apps (261.67), and no single app can be added;
// reselection packs sets chosen on the aggregate capacities and serves
// 35 (HiGHS: 267.07-267.41 in 120 s). Skipped with -short or without
// the trace.
func TestGangRepackDLRM(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds per slot")
	}
	sl := dlrmSlots(t)
	var p594, p394 *esdp.GangKnapsack
	for i, s := range sl.Every {
		switch s {
		case 594:
			p594 = sl.EveryKnapsacks[i]
		case 394:
			p394 = sl.EveryKnapsacks[i]
		}
	}
	require.NotNil(t, p594)
	require.NotNil(t, p394)
	for _, c := range []struct {
		name    string
		p       *esdp.GangKnapsack
		nodes   int64
		served  int
		atLeast float64
	}{
		{"slot 594", p594, 1 << 23, 19, 145},
		{"slot 394", p394, 1 << 22, 23, 174},
		{"every app", sl.Knapsacks[2], 1 << 23, 35, 265},
	} {
		r := solveTimedAtBudget(t, c.p, c.nodes, c.name)
		require.Equal(t, c.served, r.Served, c.name)
		require.GreaterOrEqual(t, r.Value, c.atLeast, c.name)
	}
}
