package ocorp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireSameBits fails unless a and b hold the same float64 bit patterns.
func requireSameBits(t *testing.T, a, b []float64, msg string) {
	t.Helper()
	require.Len(t, b, len(a), msg)
	for e := range a {
		if math.Float64bits(a[e]) != math.Float64bits(b[e]) {
			require.Failf(t, "bits differ", "%s: [%d] %v (%#x) vs %v (%#x)", msg, e, a[e], math.Float64bits(a[e]), b[e], math.Float64bits(b[e]))
		}
	}
}

// requireSameResult fails unless two QP results are bit for bit equal.
func requireSameResult(t *testing.T, want, got *QPResult, msg string) {
	t.Helper()
	requireSameBits(t, want.X, got.X, msg+": X")
	requireSameBits(t, want.Tau, got.Tau, msg+": Tau")
	requireSameBits(t, want.Nu, got.Nu, msg+": Nu")
	requireSameBits(t, []float64{want.Residual, want.Floor}, []float64{got.Residual, got.Floor}, msg+": Residual, Floor")
	require.Equal(t, want.Sweeps, got.Sweeps, msg+": Sweeps")
	require.Equal(t, want.Status, got.Status, msg+": Status")
}

// solveWorkers solves q cold (or warm from warm's Tau and Nu, if not nil)
// with Workers = 1, 2, 3 and 7 and requires bit-identical results; it
// returns the serial one.
func solveWorkers(t *testing.T, qs *QPSolver, q *SwitchQP, warm *QPResult, name string) *QPResult {
	t.Helper()
	var ref *QPResult
	for _, w := range []int{1, 2, 3, 7} {
		res := &QPResult{}
		if warm != nil {
			res.Tau = append([]float64(nil), warm.Tau...)
			res.Nu = append([]float64(nil), warm.Nu...)
		}
		require.NoError(t, qs.Solve(res, q, QPSettings{Workers: w}), "%s workers=%d", name, w)
		if ref == nil {
			ref = res
			continue
		}
		requireSameResult(t, ref, res, fmt.Sprintf("%s workers=%d", name, w))
	}
	return ref
}

// nextSlotQP returns q with its costs moved and the rates x as xbar, as
// OCORP+ warm-starts one slot from the previous.
func nextSlotQP(rng *rand.Rand, q *SwitchQP, x []float64, scale float64) *SwitchQP {
	q2 := *q
	q2.Cost = make([]float64, len(q.Cost))
	for j, c := range q.Cost {
		q2.Cost[j] = c + (rng.Float64()-0.5)*0.2*scale
	}
	q2.Prev = append([]float64(nil), x...)
	return &q2
}

// TestQPWorkersBitIdentical: the solution, the multipliers and the
// solver's statistics (sweeps, residual, Floor, status) are bit for bit
// the same for Workers = 1, 2, 3 and 7, cold and warm-started, on random
// QPs of every shape: rows not divisible by the workers, fewer rows than
// workers, one machine, fewer machines than workers. The solver's
// threshold is lowered to one cell so that small QPs are split too, and
// the line searches' blocks to 20 cells so that they have many; the
// solutions meet the KKT conditions (checkKKT).
func TestQPWorkersBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 5))
	qs := QPSolver{minCells: 1, blockCells: 20} // reused across solves: workers live per solve
	shapes := []struct{ n, m int }{{1, 1}, {2, 5}, {5, 1}, {6, 3}, {13, 7}, {29, 2}, {64, 9}, {101, 13}, {3, 40}}
	for it := 0; it < 60; it++ {
		var n, m int
		if it < len(shapes) {
			n, m = shapes[it].n, shapes[it].m
		} else {
			n, m = 1+rng.IntN(80), 1+rng.IntN(12)
		}
		scale := []float64{1, 100, 1e5}[it%3]
		name := fmt.Sprintf("it %d n=%d m=%d scale=%g", it, n, m, scale)
		q := randomQP(rng, n, m, scale)
		for i := range q.Capacity { // some machines binding, some slack
			q.Capacity[i] *= float64(1 + n/(4*m))
		}
		cold := solveWorkers(t, &qs, q, nil, name)
		require.Equal(t, Success, cold.Status, name)
		checkKKT(t, it, q, cold, scale)
		q2 := nextSlotQP(rng, q, cold.X, scale)
		warm := solveWorkers(t, &qs, q2, cold, name+" warm")
		require.Equal(t, Success, warm.Status, name+" warm")
		checkKKT(t, it, q2, warm, scale)
	}
}

// TestQPWorkersBitIdenticalLarge: the same above the real threshold
// QPParallelCells, with an uneven split of rows and machines and with one
// machine.
func TestQPWorkersBitIdenticalLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("about 2 s")
	}
	rng := rand.New(rand.NewPCG(15, 6))
	var qs QPSolver
	for it, sh := range []struct{ n, m int }{{331, 101}, {40001, 1}} {
		require.GreaterOrEqual(t, sh.n*sh.m, QPParallelCells)
		name := fmt.Sprintf("n=%d m=%d", sh.n, sh.m)
		q := randomQP(rng, sh.n, sh.m, 100)
		for i := range q.Capacity {
			q.Capacity[i] *= float64(1 + sh.n/(4*sh.m))
		}
		cold := solveWorkers(t, &qs, q, nil, name)
		require.Equal(t, Success, cold.Status, name)
		checkKKT(t, it, q, cold, 100)
	}
}

// TestQPWorkersRejected: a worker count below 0 or above MaxQPWorkers is
// an error wrapping ErrSettings that names the field, the value and the
// limit, from PlusSettings.Validate, NewPlus and QPSolver.Solve; the
// limits themselves are accepted.
func TestQPWorkersRejected(t *testing.T) {
	q := &SwitchQP{Cost: []float64{-1}, Demand: []float64{1}, Bound: []float64{1}, Capacity: []float64{1}, Prev: []float64{0}, Alpha: 1}
	for _, w := range []int{-1, math.MinInt, MaxQPWorkers + 1, math.MaxInt} {
		err := PlusSettings{QP: QPSettings{Workers: w}}.Validate()
		require.ErrorIs(t, err, ErrSettings, "workers %d", w)
		assert.Contains(t, err.Error(), fmt.Sprintf("QP.Workers = %d", w))
		assert.Contains(t, err.Error(), fmt.Sprintf("MaxQPWorkers = %d", MaxQPWorkers))
		_, err = NewPlus(snapMachines, PlusSettings{Alpha: 1, QP: QPSettings{Workers: w}})
		require.ErrorIs(t, err, ErrSettings, "workers %d", w)
		var qs QPSolver
		var res QPResult
		err = qs.Solve(&res, q, QPSettings{Workers: w})
		require.ErrorIs(t, err, ErrSettings, "workers %d", w)
		assert.Contains(t, err.Error(), fmt.Sprintf("Workers = %d", w))
		assert.Equal(t, NotTerminated, res.Status)
	}
	for _, w := range []int{0, 1, MaxQPWorkers} {
		require.NoError(t, PlusSettings{QP: QPSettings{Workers: w}}.Validate(), "workers %d", w)
		var qs QPSolver
		var res QPResult
		require.NoError(t, qs.Solve(&res, q, QPSettings{Workers: w}), "workers %d", w)
		assert.Equal(t, Success, res.Status)
	}
}

// TestPlusWorkersSameRun: OCORP+ runs a random instance to the same
// series and the same final state whatever QP.Workers (the solver's
// threshold and blocks lowered so that its small QPs are split).
func TestPlusWorkersSameRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 7))
	jobs, ms := randomInstance(rng, 60, 4, true)
	var ref *Series
	var refState []byte
	for _, w := range []int{1, 2, 3, 7} {
		p := mustPlus(NewPlus(ms, PlusSettings{Alpha: 10, Normalize: true, QP: QPSettings{Workers: w}}))
		p.solver.minCells, p.solver.blockCells = 1, 20
		s, err := runOne(jobs, ms, p, RunSettings{})
		require.NoError(t, err, "workers %d", w)
		s.Wall = 0 // the only field that may differ
		state, err := p.MarshalBinary()
		require.NoError(t, err)
		if ref == nil {
			ref, refState = s, state
			continue
		}
		require.Equal(t, ref, s, "workers %d", w)
		require.Equal(t, string(refState), string(state), "workers %d", w)
	}
}
