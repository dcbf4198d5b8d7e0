package ocorp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func qpObjective(q *SwitchQP, x []float64) float64 {
	m := len(q.Capacity)
	s := 0.0
	for j := range q.Cost {
		for i := 0; i < m; i++ {
			d := x[j*m+i] - q.Prev[j*m+i]
			s += q.Cost[j]*x[j*m+i] + q.Alpha*d*d
		}
	}
	return s
}

func randomQP(rng *rand.Rand, n, m int, costScale float64) *SwitchQP {
	q := &SwitchQP{Cost: make([]float64, n), Demand: make([]float64, n), Bound: make([]float64, n),
		Capacity: make([]float64, m), Prev: make([]float64, n*m), Alpha: []float64{0.1, 1, 10, 100}[rng.IntN(4)]}
	for j := 0; j < n; j++ {
		q.Cost[j] = (rng.Float64()*2 - 1.5) * costScale
		q.Demand[j] = float64(1 + rng.IntN(8))
		q.Bound[j] = []float64{1, 1, 0.5, rng.Float64()}[rng.IntN(4)]
		if rng.IntN(3) == 0 {
			i := rng.IntN(m)
			q.Prev[j*m+i] = rng.Float64() * q.Bound[j]
		}
	}
	for i := range q.Capacity {
		q.Capacity[i] = float64(rng.IntN(16))
	}
	if rng.IntN(2) == 0 {
		q.Block = make([]bool, n*m)
		for e := range q.Block {
			q.Block[e] = rng.IntN(5) == 0
		}
	}
	return q
}

// TestQPSatisfiesKKT checks the KKT conditions of the OCORP+ QP (32) at
// the solver's answer: primal feasibility, tau, nu >= 0, complementary
// slackness, and stationarity c_j + 2 alpha (x - xbar) + tau_j + d_j nu_i
// = 0 where x > 0 (>= 0 where x = 0), for unblocked pairs, with tolerance
// 1e-7 relative to the cost scale (loads within max(2e-7, 2 Floor) cores).
// It also checks that no random feasible
// point is better.
func TestQPSatisfiesKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var qs QPSolver
	for it := 0; it < 400; it++ {
		n, m := 1+rng.IntN(12), 1+rng.IntN(6)
		scale := []float64{1, 100, 1e5}[it%3]
		q := randomQP(rng, n, m, scale)
		var res QPResult
		if err := qs.Solve(&res, q, QPSettings{}); err != nil {
			t.Fatal(err)
		}
		if res.Status != Success {
			t.Fatalf("it %d: %v after %d sweeps, residual %v; qp %+v", it, res.Status, res.Sweeps, res.Residual, *q)
		}
		checkKKT(t, it, q, &res, scale)
		x := res.X
		// Random feasible points (scaled-down perturbations) are no better.
		best := qpObjective(q, x)
		y := make([]float64, n*m)
		for trial := 0; trial < 20; trial++ {
			for e := range y {
				y[e] = max(0, x[e]+(rng.Float64()-0.5)*0.2)
				if q.Block != nil && q.Block[e] {
					y[e] = 0
				}
			}
			f := 1.0
			for j := 0; j < n; j++ {
				s := 0.0
				for i := 0; i < m; i++ {
					s += y[j*m+i]
				}
				if s > q.Bound[j] {
					f = math.Min(f, q.Bound[j]/s)
				}
			}
			for i := 0; i < m; i++ {
				l := 0.0
				for j := 0; j < n; j++ {
					l += q.Demand[j] * y[j*m+i]
				}
				if l > q.Capacity[i] {
					f = math.Min(f, q.Capacity[i]/l)
				}
			}
			for e := range y {
				y[e] *= f
			}
			if v := qpObjective(q, y); v < best-1e-6*math.Max(1, math.Abs(best)) {
				t.Fatalf("it %d: feasible point with objective %v < solver's %v", it, v, best)
			}
		}
	}
}

// TestQPWarmStartConverges checks that a warm start from the previous
// multipliers reaches the same solution.
func TestQPWarmStartConverges(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var qs QPSolver
	q := randomQP(rng, 10, 4, 100)
	var cold, warm QPResult
	if err := qs.Solve(&cold, q, QPSettings{}); err != nil {
		t.Fatal(err)
	}
	warm.Tau = append([]float64(nil), cold.Tau...)
	warm.Nu = append([]float64(nil), cold.Nu...)
	if err := qs.Solve(&warm, q, QPSettings{}); err != nil {
		t.Fatal(err)
	}
	if warm.Sweeps > 2 {
		t.Fatalf("warm start took %d sweeps", warm.Sweeps)
	}
	for e := range cold.X {
		if math.Abs(cold.X[e]-warm.X[e]) > 1e-7 {
			t.Fatalf("x[%d]: %v vs %v", e, cold.X[e], warm.X[e])
		}
	}
}

func TestQPRejectsBadData(t *testing.T) {
	var qs QPSolver
	var res QPResult
	q := &SwitchQP{Cost: []float64{math.NaN()}, Demand: []float64{1}, Bound: []float64{1}, Capacity: []float64{1}, Prev: []float64{0}, Alpha: 1}
	if err := qs.Solve(&res, q, QPSettings{}); err == nil {
		t.Fatal("NaN cost accepted")
	}
	q.Cost[0], q.Alpha = 1, 0
	if err := qs.Solve(&res, q, QPSettings{}); err == nil {
		t.Fatal("alpha 0 accepted")
	}
}

// TestPlusAlphaZeroIsOCORP checks that alpha = 0 reproduces OCORP.
func TestPlusAlphaZeroIsOCORP(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	jobs, ms := randomInstance(rng, 20, 3, false)
	o, _ := New(ms, Settings{})
	p, _ := NewPlus(ms, PlusSettings{})
	a, err1 := runOne(jobs, ms, o, RunSettings{})
	b, err2 := runOne(jobs, ms, p, RunSettings{})
	if err1 != nil || err2 != nil || a.ExactLk != b.ExactLk || a.TotalPreemptions != b.TotalPreemptions {
		t.Fatalf("%v %v: %v vs %v", err1, err2, a.ExactLk, b.ExactLk)
	}
}

// TestSwitchingCostReducesPreemptions checks the purpose of OCORP+: with
// normalised costs a larger alpha gives fewer preemptions + migrations.
func TestSwitchingCostReducesPreemptions(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	jobs, ms := randomInstance(rng, 40, 3, false)
	var sw []int
	for _, a := range []float64{0, 10} {
		p, _ := NewPlus(ms, PlusSettings{Alpha: a, Normalize: true})
		r, err := runOne(jobs, ms, p, RunSettings{})
		if err != nil {
			t.Fatal(err)
		}
		sw = append(sw, r.TotalPreemptions+r.TotalMigrations)
	}
	t.Logf("preemptions+migrations: alpha 0: %d, alpha 10: %d", sw[0], sw[1])
	if sw[1] >= sw[0] {
		t.Fatalf("alpha 10 did not reduce switching: %v", sw)
	}
}

// checkKKT checks primal feasibility, the multipliers' signs,
// complementary slackness and stationarity of res for q.
func checkKKT(t *testing.T, it int, q *SwitchQP, res *QPResult, scale float64) {
	t.Helper()
	n, m := len(q.Cost), len(q.Capacity)
	x := res.X
	tol := 1e-7 * math.Max(1, scale)
	ftol := math.Max(1e-8, 1e-15*scale/q.Alpha) // the rows are projections of z of size scale/(2 alpha)
	ltol := math.Max(2e-7, 2*res.Floor)
	for j := 0; j < n; j++ {
		sum := 0.0
		for i := 0; i < m; i++ {
			v := x[j*m+i]
			if v < 0 {
				t.Fatalf("it %d: x[%d,%d] = %v < 0", it, j, i, v)
			}
			if q.Block != nil && q.Block[j*m+i] {
				if v != 0 {
					t.Fatalf("it %d: blocked x = %v", it, v)
				}
				continue
			}
			sum += v
			g := q.Cost[j] + 2*q.Alpha*(v-q.Prev[j*m+i]) + res.Tau[j] + q.Demand[j]*res.Nu[i]
			if (v > 0 && math.Abs(g) > tol) || (v == 0 && g < -tol) {
				t.Fatalf("it %d: stationarity at (%d,%d): x = %v gradient %v", it, j, i, v, g)
			}
		}
		if sum > q.Bound[j]+ftol || res.Tau[j] < 0 || (res.Tau[j] > 0 && math.Abs(sum-q.Bound[j]) > ftol) {
			t.Fatalf("it %d: job %d: sum %v bound %v tau %v", it, j, sum, q.Bound[j], res.Tau[j])
		}
	}
	for i := 0; i < m; i++ {
		load := 0.0
		for j := 0; j < n; j++ {
			load += q.Demand[j] * x[j*m+i]
		}
		if load > q.Capacity[i]+ltol || res.Nu[i] < 0 || (res.Nu[i] > 0 && math.Abs(load-q.Capacity[i]) > ltol) {
			t.Fatalf("it %d: machine %d: load %v capacity %v nu %v", it, i, load, q.Capacity[i], res.Nu[i])
		}
	}
}

// TestQPLargeKKT: bigger QPs (hundreds of rows, tens of machines, many
// binding rows), solved cold and then warm-started after the costs move,
// as OCORP+ does from slot to slot, meet the KKT conditions.
func TestQPLargeKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	var qs QPSolver
	iters := 30
	if testing.Short() {
		iters = 6
	}
	for it := 0; it < iters; it++ {
		n, m := 50+rng.IntN(250), 2+rng.IntN(30)
		scale := []float64{1, 100, 1e5}[it%3]
		q := randomQP(rng, n, m, scale)
		for i := range q.Capacity {
			q.Capacity[i] *= float64(1 + n/(4*m))
		}
		var res QPResult
		require.NoError(t, qs.Solve(&res, q, QPSettings{}))
		require.Equal(t, Success, res.Status, "it %d", it)
		checkKKT(t, it, q, &res, scale)
		for j := range q.Cost { // next slot: costs move, rates become xbar
			q.Cost[j] += (rng.Float64() - 0.5) * 0.2 * scale
			for i := 0; i < m; i++ {
				q.Prev[j*m+i] = res.X[j*m+i]
			}
		}
		require.NoError(t, qs.Solve(&res, q, QPSettings{}))
		require.Equal(t, Success, res.Status, "it %d warm", it)
		checkKKT(t, it, q, &res, scale)
	}
}
