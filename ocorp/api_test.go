package ocorp

import (
	"bytes"
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSettingsValidateJoinsEveryProblem: one error per bad field, each
// naming it and wrapping ErrSettings; constructors return it.
func TestSettingsValidateJoinsEveryProblem(t *testing.T) {
	require.NoError(t, Settings{}.Validate(), "the zero value is the paper's setup")
	require.NoError(t, PlusSettings{}.Validate())
	err := Settings{K: 0.5, Gamma: math.NaN(), InitLambda: -1}.Validate()
	require.ErrorIs(t, err, ErrSettings)
	for _, field := range []string{"K = 0.5", "Gamma = NaN", "InitLambda = -1"} {
		assert.Contains(t, err.Error(), field)
	}
	err = PlusSettings{Base: Settings{K: math.Inf(1)}, Alpha: -2, QP: QPSettings{Tol: math.NaN(), MaxSweeps: -1}}.Validate()
	for _, field := range []string{"K = +Inf", "Alpha = -2", "QP.Tol = NaN", "QP.MaxSweeps = -1"} {
		assert.Contains(t, err.Error(), field)
	}
	_, err = New(snapMachines, Settings{K: -1})
	require.ErrorIs(t, err, ErrSettings)
	_, err = NewPlus(snapMachines, PlusSettings{Alpha: math.NaN()})
	require.ErrorIs(t, err, ErrSettings)
	_, err = New(nil, Settings{})
	require.ErrorIs(t, err, ErrEmpty, "no machines is an error, not a panic")
	err = Config{}.Validate()
	require.ErrorIs(t, err, ErrSettings)
	assert.Contains(t, err.Error(), "Jobs = 0")
	assert.NotContains(t, err.Error(), "{", "no struct printed")
}

// TestSlotRules: slots are 0-based and strictly increasing for every
// policy; a rejected call leaves the policy as it was.
func TestSlotRules(t *testing.T) {
	obs := Obs{Jobs: []ActiveJob{{ID: 9, Job: Job{Arrival: 0, Cores: 2, Processing: 3}, Remaining: 6}}}
	for name, mk := range statefulCtors() {
		p, _ := mk(snapMachines)
		_, err := p.Decide(-1, obs)
		require.ErrorIs(t, err, ErrSlot, name)
		_, err = p.Decide(0, obs)
		require.NoError(t, err, "%s: slot 0 is the first slot", name)
		before, _ := p.MarshalBinary()
		_, err = p.Decide(0, obs)
		require.ErrorIs(t, err, ErrSlot, name)
		bad := Obs{Jobs: []ActiveJob{obs.Jobs[0], obs.Jobs[0]}}
		_, err = p.Decide(1, bad)
		require.ErrorIs(t, err, ErrValue, "%s: duplicate id", name)
		_, err = p.Decide(1, Obs{Jobs: []ActiveJob{{ID: 1, Job: Job{Arrival: 2, Cores: 1, Processing: 1}, Remaining: 1}}})
		require.Error(t, err, "%s: a job arriving after the slot", name)
		after, _ := p.MarshalBinary()
		require.Equal(t, string(before), string(after), "%s: unchanged by rejected calls", name)
		_, err = p.Decide(7, obs) // a gap
		require.NoError(t, err, name)
	}
}

// TestStatusZeroValue: an empty QPResult claims nothing.
func TestStatusZeroValue(t *testing.T) {
	var r QPResult
	assert.Equal(t, NotTerminated, r.Status)
	assert.Equal(t, "NotTerminated", r.Status.String())
	require.ErrorIs(t, r.Status.Err(), ErrNotConverged)
	require.NoError(t, Success.Err())
	require.ErrorIs(t, IterationLimit.Err(), ErrNotConverged)
	assert.Equal(t, "Status(42)", Status(42).String())
}

// TestQPContext: a done context stops the solver between sweeps.
func TestQPContext(t *testing.T) {
	q := &SwitchQP{Cost: []float64{-5, -4, -3}, Demand: []float64{2, 2, 2}, Bound: []float64{1, 1, 1},
		Capacity: []float64{3, 1}, Prev: make([]float64, 6), Alpha: 1e-6}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var qs QPSolver
	var res QPResult
	err := qs.SolveContext(ctx, &res, q, QPSettings{Tol: 1e-300})
	if err != nil { // converged in one sweep is also fine
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, err, ErrNotConverged)
		assert.Equal(t, Canceled, res.Status)
	} else {
		assert.Equal(t, Success, res.Status)
	}
	require.NoError(t, qs.Solve(&res, q, QPSettings{}))
	assert.Equal(t, Success, res.Status)
}

// TestLogger: a Logger gets one record per slot; nil logs nothing.
func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, _ := NewPlus(snapMachines, PlusSettings{Alpha: 1, Base: Settings{Logger: log}})
	w := newWorld(1, snapMachines)
	for range 3 {
		w.step(t, p)
	}
	assert.Equal(t, 3, strings.Count(buf.String(), "msg=decide family=ocorp policy="), buf.String())
	assert.Contains(t, buf.String(), "qp=")
}

// TestPlusTooLargeLeavesPolicy: the QP size bound is checked before any
// state changes.
func TestPlusTooLargeLeavesPolicy(t *testing.T) {
	ms := make([]Machine, 1<<12)
	for i := range ms {
		ms[i] = Machine{Cores: 1}
	}
	p, err := NewPlus(ms, PlusSettings{Alpha: 1})
	require.NoError(t, err)
	obs := Obs{Jobs: make([]ActiveJob, MaxQPCells/len(ms)+1)}
	for k := range obs.Jobs {
		obs.Jobs[k] = ActiveJob{ID: k, Job: Job{Cores: 1, Processing: 1}, Remaining: 1}
	}
	before, _ := p.MarshalBinary()
	_, err = p.Decide(0, obs)
	require.ErrorIs(t, err, ErrTooLarge)
	after, _ := p.MarshalBinary()
	require.Equal(t, before, after)
}
