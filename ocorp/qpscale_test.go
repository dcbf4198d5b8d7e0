package ocorp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// solveWithin runs qs.Solve in a goroutine and fails the test if it does
// not return within d (issue 22 class 2: the QP hung on extreme numbers).
func solveWithin(t *testing.T, d time.Duration, qs *QPSolver, res *QPResult, q *SwitchQP, s QPSettings) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- qs.Solve(res, q, s) }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("QPSolver.Solve did not return within %v", d)
		return nil
	}
}

// TestQPExtremeCostsKKT: costs up to 1e300 in magnitude (1e17 and 1e40
// hung before issue 22) are solved in scaled prices, and the answer meets
// the KKT conditions of (32) with the alpha the solver reports
// (QPResult.Alpha, raised when max|c|/(2 alpha) > QPMaxCostRatio), with a
// stationarity tolerance relative to the cost scale.
func TestQPExtremeCostsKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	var qs QPSolver
	for it := 0; it < 60; it++ {
		scale := []float64{1e10, 1e15, 1e17, 1e40, 1e100, 1e300}[it%6]
		q := randomQP(rng, 1+rng.IntN(12), 1+rng.IntN(6), scale)
		var res QPResult
		require.NoError(t, solveWithin(t, 10*time.Second, &qs, &res, q, QPSettings{}), "it %d", it)
		require.Equal(t, Success, res.Status, "it %d scale %g", it, scale)
		require.GreaterOrEqual(t, res.Alpha, q.Alpha)
		require.GreaterOrEqual(t, res.Alpha, slices.Max(absAll(q.Cost))/(2*QPMaxCostRatio)*(1-1e-15))
		qe := *q
		qe.Alpha = res.Alpha
		checkKKT(t, it, &qe, &res, scale)
	}
}

func absAll(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Abs(x)
	}
	return out
}

// TestQPScaleInvariant: multiplying costs and alpha by 2^k leaves the
// rates unchanged and multiplies the prices by 2^k; the solver's scaling
// (which divides by a power of two above 2^32) makes that hold for huge k
// up to the solver's tolerance.
func TestQPScaleInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 3))
	var qs QPSolver
	for it := 0; it < 40; it++ {
		q := randomQP(rng, 1+rng.IntN(10), 1+rng.IntN(5), 1)
		var ref QPResult
		require.NoError(t, qs.Solve(&ref, q, QPSettings{}))
		require.Equal(t, Success, ref.Status)
		for _, k := range []int{40, 200, 900} {
			f := math.Ldexp(1, k)
			qk := *q
			qk.Cost = make([]float64, len(q.Cost))
			for j, c := range q.Cost {
				qk.Cost[j] = c * f
			}
			qk.Alpha = q.Alpha * f
			var res QPResult
			require.NoError(t, solveWithin(t, 10*time.Second, &qs, &res, &qk, QPSettings{}))
			require.Equal(t, Success, res.Status, "it %d k %d", it, k)
			for e := range ref.X {
				require.InDelta(t, ref.X[e], res.X[e], 1e-6, "it %d k %d x[%d]", it, k, e)
			}
			require.Equal(t, qk.Alpha, res.Alpha)
		}
	}
}

// TestQPExtremeInputsReturn: the inputs of issue 22 class 2 (a subnormal
// alpha, demands of 1e300, costs of -1e40, huge previous rates, huge warm
// starts) all return promptly with a typed status, never hang; a NaN or
// infinite warm start is ignored.
func TestQPExtremeInputsReturn(t *testing.T) {
	base := func() SwitchQP {
		return SwitchQP{Cost: []float64{-1, -1, -2}, Demand: []float64{1, 2, 3}, Bound: []float64{1, 1, 1},
			Capacity: []float64{2, 3}, Prev: []float64{0.5, 0, 0, 1, 0.2, 0.3}, Alpha: 10}
	}
	cases := map[string]func(*SwitchQP){
		"cost -1e40":      func(q *SwitchQP) { q.Cost[0] = -1e40 },
		"cost -1e17":      func(q *SwitchQP) { q.Cost[1] = -1e17 },
		"cost -MaxFloat":  func(q *SwitchQP) { q.Cost[1] = -math.MaxFloat64 },
		"subnormal alpha": func(q *SwitchQP) { q.Alpha = 5e-324 },
		"max alpha":       func(q *SwitchQP) { q.Alpha = math.MaxFloat64 },
		"demand 1e300":    func(q *SwitchQP) { q.Demand[0], q.Demand[2] = 1e300, 1e300 },
		"demand 5e-324":   func(q *SwitchQP) { q.Demand[0] = 5e-324 },
		"prev 1e300":      func(q *SwitchQP) { q.Prev[0] = 1e300 },
		"capacity 1e300":  func(q *SwitchQP) { q.Capacity[0] = 1e300 },
	}
	var qs QPSolver
	for name, mod := range cases {
		q := base()
		mod(&q)
		for _, warm := range [][]float64{nil, {1e300, 1e300}, {math.NaN(), math.Inf(1)}} {
			var res QPResult
			if warm != nil {
				res.Nu = slices.Clone(warm)
			}
			start := time.Now()
			err := solveWithin(t, 10*time.Second, &qs, &res, &q, QPSettings{})
			require.NotEqual(t, NotTerminated, res.Status, name)
			if err != nil {
				require.ErrorIs(t, err, ErrNotConverged, name)
				require.Equal(t, Failure, res.Status, name)
			}
			require.Equal(t, res.Status == Success, res.Status.Err() == nil)
			t.Logf("%s warm %v: %v after %d sweeps, residual %g floor %g, %v", name, warm, res.Status, res.Sweeps, res.Residual, res.Floor, time.Since(start))
		}
	}
}

// runPlusFrom runs OCORP+ (alpha = 10, literal costs) for slots
// base..base+slots-1 on a fixed stream of jobs arriving from base, and
// returns the per-slot QP results and the total time of the Decide calls.
func runPlusFrom(t *testing.T, base, slots int) ([]QPResult, time.Duration) {
	t.Helper()
	ms := Cluster(8)
	p, err := NewPlus(ms, PlusSettings{Alpha: 10})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(17, 0))
	var jobs []ActiveJob
	next := 0
	var out []QPResult
	var spent time.Duration
	for s := 0; s < slots; s++ {
		for range rng.IntN(4) {
			c := []int{1, 2, 4, 8, 16}[rng.IntN(5)]
			p := 1 + rng.IntN(20)
			jobs = append(jobs, ActiveJob{ID: next, Job: Job{Arrival: base + s, Cores: c, Memory: c, Processing: p}, Remaining: int64(c * p)})
			next++
		}
		obs := Obs{Jobs: jobs}
		start := time.Now()
		dec, err := p.Decide(base+s, obs)
		spent += time.Since(start)
		require.NoError(t, err, "slot %d", base+s)
		r := *p.LastQP()
		r.X, r.Tau, r.Nu = nil, nil, nil
		out = append(out, r)
		got := make(map[int]int64)
		for _, pl := range dec.Placements {
			if pl.Admit {
				got[pl.Job] += int64(pl.Cores)
			}
		}
		w := 0
		for _, a := range jobs {
			a.Remaining -= got[a.ID]
			if a.Remaining > 0 {
				jobs[w] = a
				w++
			}
		}
		jobs = jobs[:w]
	}
	return out, spent
}

// TestPlusSlotNumbering: OCORP+ with alpha = 10 on the same job stream
// numbered from 0, 1e7, Unix seconds (1.7e9), Unix nanoseconds (1.7e18)
// and near MaxInt. Before issue 22 the second Decide from 1e7 on never
// returned (mu(t) = t^2.5 drives the costs to 1e23 and beyond). Every
// slot's QP now ends in Success with a residual within max(Tol, Floor),
// and Floor stays below a hundredth of a core.
func TestPlusSlotNumbering(t *testing.T) {
	slots := 200
	if testing.Short() {
		slots = 60
	}
	for _, base := range []int{0, 1e7, 1_700_000_000, 1_700_000_000_000_000_000, math.MaxInt - 1000} {
		res, spent := runPlusFrom(t, base, slots)
		worst, floor, sweeps, alpha := 0.0, 0.0, 0, 0.0
		for s, r := range res {
			require.Equal(t, Success, r.Status, "base %d slot %d", base, s)
			require.LessOrEqual(t, r.Residual, math.Max(1e-7, r.Floor), "base %d slot %d", base, s)
			require.Less(t, r.Floor, 1e-2, "base %d slot %d", base, s)
			worst, floor, sweeps, alpha = max(worst, r.Residual), max(floor, r.Floor), max(sweeps, r.Sweeps), max(alpha, r.Alpha)
		}
		t.Logf("slots from %d: %d slots, %v per slot, KKT residual max %.3g cores (floor max %.3g), sweeps max %d, alpha used max %.3g",
			base, slots, spent/time.Duration(slots), worst, floor, sweeps, alpha)
	}
}

// TestKnapsackCeiling is issue 22 class 5: KnapsackDP{MaxCells: MaxInt}
// with weights near 2^39 sized its table in terabytes. Validate reports a
// MaxCells above CeilingKnapsackCells, and Solve stays within the ceiling
// (here: it coarsens the weights instead of allocating n * 2^39 cells) and
// returns a feasible choice.
func TestKnapsackCeiling(t *testing.T) {
	ks := KnapsackDP{MaxCells: math.MaxInt}
	err := ks.Validate()
	require.ErrorIs(t, err, ErrSettings)
	require.ErrorContains(t, err, "KnapsackDP.MaxCells = 9223372036854775807 above its ceiling")
	require.NoError(t, (&KnapsackDP{MaxCells: CeilingKnapsackCells}).Validate())
	ks.MaxCells = 1 << 20 // the ceiling itself would allocate 4 GiB in a test; the clamp is the same code path
	weight := []int{1<<39 + 1, 1<<39 + 3, 1<<38 + 7}
	value := []float64{3, 2, 2}
	dst := make([]bool, 3)
	v := ks.Solve(dst, value, weight, 1<<40)
	sum := 0
	for k, in := range dst {
		if in {
			sum += weight[k]
		}
	}
	require.LessOrEqual(t, sum, 1<<40)
	require.Greater(t, v, 0.0)
	require.LessOrEqual(t, len(ks.keep), 1<<20)
}

// TestRunAndQPLimitCeilings is issue 22 class 5: the time budgets of Run
// and the QP have ceilings; MaxInt is an error naming the field.
func TestRunAndQPLimitCeilings(t *testing.T) {
	ms := Cluster(1)
	jobs := []Job{{Cores: 1, Processing: 1}}
	for _, s := range []RunSettings{{MaxBusySlots: math.MaxInt}, {MaxWork: math.MaxInt64}} {
		_, err := Run(&Instance{Jobs: jobs, Machines: ms}, []OnlinePolicy{mustPol(New(ms, Settings{}))}, s)
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, "CeilingMaxBusySlots")
	}
	_, err := NewPlus(ms, PlusSettings{Alpha: 1, QP: QPSettings{MaxSweeps: math.MaxInt}})
	require.ErrorIs(t, err, ErrSettings)
	require.ErrorContains(t, err, "MaxQPSweeps")
	var qs QPSolver
	var res QPResult
	q := &SwitchQP{Cost: []float64{-1}, Demand: []float64{1}, Bound: []float64{1}, Capacity: []float64{1}, Prev: []float64{0}, Alpha: 1}
	require.ErrorIs(t, qs.Solve(&res, q, QPSettings{MaxSweeps: math.MaxInt}), ErrSettings)
	require.ErrorIs(t, qs.Solve(&res, q, QPSettings{Tol: math.NaN()}), ErrSettings)
	require.NoError(t, qs.Solve(&res, q, QPSettings{MaxSweeps: MaxQPSweeps}))
}
