package esdp_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/dlrmslots"
	"github.com/msched/msched/trace"
)

// dlrmSlots returns the gang knapsacks of the DLRM trace at its size, as
// trace.DLRMGangInstance maps it with its defaults (156 apps, up to 8
// components each, 1 223 in all; 32 CN + 16 HN servers; K = 6; every app
// on every server: 58 704 channels): the median slot (by the number of
// apps arriving, among the slots with an arrival: 8 apps), the busiest
// (39 apps) and every app arrived. Values are uniform in [0.1, 1], seeded
// (the trace has no rewards), as in scripts/gangbench (both from internal/dlrmslots). It skips when the
// trace is absent.
func dlrmSlots(tb testing.TB) *dlrmslots.Slots {
	dir, err := trace.DefaultDLRMDir()
	if err != nil {
		tb.Skipf("DLRM trace not found: %v", err)
	}
	sl, err := dlrmslots.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	return sl
}

// solveDLRMSlot solves the DLRM trace's slot (among sl.Every) with
// GangExact and a time limit far away, so that the node budget ends the
// time-limited phase (reproducible), and checks the placement: feasible,
// under its certified bound, the clock not reached.
func solveDLRMSlot(t *testing.T, sl *dlrmslots.Slots, slot int, nodes int64) esdp.GangKnapsackResult {
	t.Helper()
	var p *esdp.GangKnapsack
	for i, s := range sl.Every {
		if s == slot {
			p = sl.EveryKnapsacks[i]
		}
	}
	require.NotNil(t, p, "slot %d", slot)
	return solveTimedAtBudget(t, p, nodes, "slot "+strconv.Itoa(slot))
}

// solveTimedAtBudget is solveDLRMSlot's solve and checks, for any
// knapsack; name labels the log line.
func solveTimedAtBudget(t *testing.T, p *esdp.GangKnapsack, nodes int64, name string) esdp.GangKnapsackResult {
	t.Helper()
	return solveTimedAtBudgetShare(t, p, nodes, 0, name)
}

// solveTimedAtBudgetShare is solveTimedAtBudget with a BoundShare.
func solveTimedAtBudgetShare(t *testing.T, p *esdp.GangKnapsack, nodes int64, share float64, name string) esdp.GangKnapsackResult {
	t.Helper()
	m := p.Channels.Model()
	x := make([]int, m.NumComponents())
	o := esdp.GangOracle{Settings: esdp.GangOracleSettings{Method: esdp.GangExact, MaxNodes: nodes, TimeLimit: time.Hour, BoundShare: share}}
	t0 := time.Now()
	r, err := o.Solve(x, p)
	require.NoError(t, err)
	require.False(t, r.TimeLimited)
	chk, err := m.Check(p.Arrived, x)
	require.NoError(t, err)
	require.Zero(t, chk.Violations, chk.First)
	require.LessOrEqual(t, r.Value, r.Bound)
	t.Logf("%s: %.5f (bound %.5f), %d apps served, %d nodes, %v", name, r.Value, r.Bound, r.Served, r.Nodes, time.Since(t0))
	return r
}

// BenchmarkGangOracleDLRM measures one gang knapsack of the DLRM trace at
// its size (dlrmSlots), per slot and method; relgap is the certified gap
// over the value. GangExact runs at most 2^12 nodes here (its default
// 2^20 takes tens of seconds with every app arrived): see
// scripts/gangbench for the defaults against HiGHS.
func BenchmarkGangOracleDLRM(b *testing.B) {
	sl := dlrmSlots(b)
	names, ps := sl.Names, sl.Knapsacks
	for i, p := range ps {
		x := make([]int, p.Channels.Model().NumComponents())
		for _, set := range []esdp.GangOracleSettings{
			{Method: esdp.GangScalable},
			{Method: esdp.GangAuto},
			{Method: esdp.GangExact, MaxNodes: 1 << 12},
		} {
			b.Run("slot="+names[i]+"/"+set.Method.String(), func(b *testing.B) {
				o := esdp.GangOracle{Settings: set}
				r, err := o.Solve(x, p) // warm the buffers
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if r, err = o.Solve(x, p); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(r.Gap/r.Value, "relgap")
				b.ReportMetric(r.Value, "value")
				b.ReportMetric(float64(r.Nodes), "nodes")
			})
		}
	}
}
