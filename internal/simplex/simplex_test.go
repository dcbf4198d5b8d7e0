package simplex

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"
)

// problem is a test LP in the package's form.
type problem struct {
	m, n   int
	A      [][]float64 // m x n, dense
	b      []float64
	c      []float64
	lo, up []float64
}

func (pr *problem) build() *LP {
	p := New(pr.b)
	for j := 0; j < pr.n; j++ {
		rows, vals := pr.column(j)
		p.AddColumn(pr.c[j], pr.lo[j], pr.up[j], rows, vals)
	}
	return p
}

// column returns column j's nonzeros.
func (pr *problem) column(j int) (rows []int, vals []float64) {
	for i := 0; i < pr.m; i++ {
		if pr.A[i][j] != 0 {
			rows = append(rows, i)
			vals = append(vals, pr.A[i][j])
		}
	}
	return rows, vals
}

// gonumSolve solves the problem with gonum's lp.Simplex in standard form:
// x = lo + x', rows A x' + s = b - A lo (negated when negative), and
// x'_j + t_j = up_j - lo_j for the finite upper bounds.
func gonumSolve(pr *problem) (float64, error) {
	f, err := gonumSolveCost(pr, pr.c)
	if errors.Is(err, lp.ErrUnbounded) {
		// gonum reports some infeasible problems unbounded: the problem
		// with no objective tells them apart
		if _, err0 := gonumSolveCost(pr, make([]float64, pr.n)); err0 != nil {
			return 0, err0
		}
	}
	return f, err
}

func gonumSolveCost(pr *problem, cost []float64) (float64, error) {
	var ups []int
	for j := 0; j < pr.n; j++ {
		if !math.IsInf(pr.up[j], 1) {
			ups = append(ups, j)
		}
	}
	rows := pr.m + len(ups)
	cols := pr.n + pr.m + len(ups)
	A := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	shift := 0.0
	for j := 0; j < pr.n; j++ {
		c[j] = -cost[j]
		shift += cost[j] * pr.lo[j]
	}
	for i := 0; i < pr.m; i++ {
		rhs := pr.b[i]
		for j := 0; j < pr.n; j++ {
			rhs -= pr.A[i][j] * pr.lo[j]
		}
		sg := 1.0
		if rhs < 0 {
			sg = -1
		}
		for j := 0; j < pr.n; j++ {
			A.Set(i, j, sg*pr.A[i][j])
		}
		A.Set(i, pr.n+i, sg)
		b[i] = sg * rhs
	}
	for t, j := range ups {
		A.Set(pr.m+t, j, 1)
		A.Set(pr.m+t, pr.n+pr.m+t, 1)
		b[pr.m+t] = pr.up[j] - pr.lo[j]
	}
	f, _, err := lp.Simplex(c, A, b, 1e-10, nil)
	return -f + shift, err
}

func randProblem(rng *rand.Rand) *problem {
	m, n := 1+rng.IntN(8), 1+rng.IntN(10)
	pr := &problem{m: m, n: n, b: make([]float64, m), c: make([]float64, n), lo: make([]float64, n), up: make([]float64, n)}
	pr.A = make([][]float64, m)
	for i := range pr.A {
		pr.A[i] = make([]float64, n)
		for j := range pr.A[i] {
			if rng.Float64() < 0.5 {
				pr.A[i][j] = float64(rng.IntN(7) - 2) // degenerate ties: small integers
			}
		}
		if i == 0 {
			// no zero column (gonum's lp.Simplex rejects them)
			for j := range pr.A[i] {
				if pr.A[i][j] == 0 {
					pr.A[i][j] = 1
				}
			}
		}
		pr.b[i] = float64(rng.IntN(9) - 1)
		if rng.Float64() < 0.3 {
			pr.b[i] = rng.Float64()*6 - 1
		}
	}
	for j := 0; j < n; j++ {
		pr.c[j] = float64(rng.IntN(9) - 3)
		if rng.Float64() < 0.3 {
			pr.c[j] = rng.NormFloat64()
		}
		if rng.Float64() < 0.3 {
			pr.lo[j] = float64(rng.IntN(3))
		}
		pr.up[j] = math.Inf(1)
		if rng.Float64() < 0.6 {
			pr.up[j] = pr.lo[j] + float64(rng.IntN(4))
		}
	}
	return pr
}

// requireKKT checks an optimal basis against the optimality conditions of
// max c'x, A x <= b, lo <= x <= up: primal feasibility, pi >= 0, the
// reduced costs' signs at the bounds and complementary slackness.
func requireKKT(t *testing.T, pr *problem, p *LP) {
	t.Helper()
	x, pi := p.X(nil), p.Duals(nil)
	const tol = 1e-7
	for i := 0; i < pr.m; i++ {
		ax := 0.0
		for j := 0; j < pr.n; j++ {
			ax += pr.A[i][j] * x[j]
		}
		require.LessOrEqual(t, ax, pr.b[i]+tol, "row %d", i)
		require.GreaterOrEqual(t, pi[i], -tol, "dual %d", i)
		require.InDelta(t, 0, pi[i]*(pr.b[i]-ax), tol*max(1, math.Abs(pi[i])), "complementary slackness, row %d", i)
	}
	for j := 0; j < pr.n; j++ {
		require.GreaterOrEqual(t, x[j], pr.lo[j]-tol)
		require.LessOrEqual(t, x[j], pr.up[j]+tol)
		d := pr.c[j]
		for i := 0; i < pr.m; i++ {
			d -= pi[i] * pr.A[i][j]
		}
		if x[j] > pr.lo[j]+tol {
			require.GreaterOrEqual(t, d, -tol, "column %d above its lower bound", j)
		}
		if x[j] < pr.up[j]-tol {
			require.LessOrEqual(t, d, tol, "column %d below its upper bound", j)
		}
	}
	z := 0.0
	for j := range x {
		z += pr.c[j] * x[j]
	}
	require.InDelta(t, z, p.Objective(), 1e-9*max(1, math.Abs(z)))
}

// TestAgainstGonum compares every status and optimum with gonum's
// lp.Simplex on random small LPs with integer ties (degenerate), lower
// and upper bounds and negative right-hand sides (phase 1), and checks
// the KKT conditions of every optimum; every other instance inverts its
// basis anew after each pivot, so that the inversion is checked on every
// basis the method meets.
func TestAgainstGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n := 4000
	if testing.Short() {
		n = 800
	}
	var opt, inf, unb int
	for it := 0; it < n; it++ {
		pr := randProblem(rng)
		p := pr.build()
		p.reinvertEach = it%2 == 1 // the inversion after every pivot
		st := p.Solve(10000)
		want, err := gonumSolve(pr)
		switch {
		case err == nil:
			require.Equal(t, Optimal, st, "instance %d: %+v", it, pr)
			require.InDelta(t, want, p.Objective(), 1e-7*max(1, math.Abs(want)), "instance %d", it)
			requireKKT(t, pr, p)
			opt++
		case errors.Is(err, lp.ErrInfeasible):
			require.Equal(t, Infeasible, st, "instance %d", it)
			inf++
		case errors.Is(err, lp.ErrUnbounded):
			require.Equal(t, Unbounded, st, "instance %d", it)
			unb++
		default:
			t.Logf("instance %d: gonum: %v (skipped)", it, err)
		}
	}
	t.Logf("%d optimal, %d infeasible, %d unbounded", opt, inf, unb)
	require.Greater(t, opt, n/4)
	require.Greater(t, inf, 0)
	require.Greater(t, unb, 0)
}

// TestWarmStart adds columns and changes bounds between solves, and
// checks each result against a cold solve of the same LP.
func TestWarmStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for it := 0; it < 500; it++ {
		pr := randProblem(rng)
		// nonnegative b and bounded columns: column generation's shape
		for i := range pr.b {
			pr.b[i] = math.Abs(pr.b[i]) + 1
		}
		full := *pr
		k := 1 + rng.IntN(pr.n)
		pr.n = k
		p := pr.build()
		p.Solve(10000)
		for j := k; j < full.n; j++ {
			rows, vals := full.column(j)
			p.AddColumn(full.c[j], full.lo[j], full.up[j], rows, vals)
			pr.n = j + 1
			st := p.Solve(10000)
			cold := pr.build()
			require.Equal(t, cold.Solve(10000), st, "instance %d", it)
			if st == Optimal {
				require.InDelta(t, cold.Objective(), p.Objective(), 1e-7*max(1, math.Abs(p.Objective())))
				requireKKT(t, pr, p)
			}
		}
		// fix a column at a bound, as a dive does
		j := rng.IntN(full.n)
		v := full.lo[j] + float64(rng.IntN(2))
		if v > full.up[j] {
			v = full.up[j]
		}
		pr.lo[j], pr.up[j] = v, v
		p.SetBounds(j, v, v)
		st := p.Solve(10000)
		cold := pr.build()
		require.Equal(t, cold.Solve(10000), st, "instance %d fixed", it)
		if st == Optimal {
			require.InDelta(t, cold.Objective(), p.Objective(), 1e-7*max(1, math.Abs(p.Objective())))
			requireKKT(t, pr, p)
		}
	}
}

// TestAssignment solves the LP of random assignment problems (n x n,
// integral optimum, highly degenerate) and compares it with the
// optimum by enumeration of permutations.
func TestAssignment(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for it := 0; it < 200; it++ {
		n := 2 + rng.IntN(5)
		w := make([][]float64, n)
		for i := range w {
			w[i] = make([]float64, n)
			for j := range w[i] {
				w[i][j] = float64(rng.IntN(4))
			}
		}
		b := make([]float64, 2*n)
		for i := range b {
			b[i] = 1
		}
		p := New(b)
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				p.AddColumn(w[i][j], 0, math.Inf(1), []int{i, n + j}, []float64{1, 1})
			}
		}
		require.Equal(t, Optimal, p.Solve(10000))
		best := 0.0
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		var rec func(k int, v float64)
		rec = func(k int, v float64) {
			if k == n {
				best = max(best, v)
				return
			}
			for i := k; i < n; i++ {
				perm[k], perm[i] = perm[i], perm[k]
				rec(k+1, v+max(0, w[k][perm[k]]))
				perm[k], perm[i] = perm[i], perm[k]
			}
		}
		rec(0, 0)
		require.InDelta(t, best, p.Objective(), 1e-9, "instance %d", it)
	}
}

func TestIterationLimit(t *testing.T) {
	p := New([]float64{4, 6})
	p.AddColumn(3, 0, math.Inf(1), []int{0, 1}, []float64{1, 2})
	p.AddColumn(2, 0, 1, []int{0, 1}, []float64{1, 1})
	require.Equal(t, IterationLimit, p.Solve(0))
	require.Equal(t, Optimal, p.Solve(100))
	require.InDelta(t, 3*2.5+2*1, p.Objective(), 1e-12)
	require.Equal(t, "Optimal", Optimal.String())
}

func TestPanics(t *testing.T) {
	require.Panics(t, func() { New([]float64{math.NaN()}) })
	p := New([]float64{1})
	require.Panics(t, func() { p.AddColumn(1, 0, 1, []int{1}, []float64{1}) })
	require.Panics(t, func() { p.AddColumn(1, 1, 0, []int{0}, []float64{1}) })
	require.Panics(t, func() { p.AddColumn(math.Inf(1), 0, 1, []int{0}, []float64{1}) })
	require.Panics(t, func() { p.AddColumn(1, 0, 1, []int{0}, []float64{math.NaN()}) })
	require.Panics(t, func() { p.AddColumn(1, math.Inf(-1), 1, []int{0}, []float64{1}) })
}

// TestDive fixes fractional columns at 1 one after another, as the gang
// oracle's dive does (the basis primal infeasible, dual feasible: the
// dual simplex), then frees a column (primal simplex again), and checks
// every solve against a cold solve of the same LP and the KKT
// conditions; the dual simplex must have run.
func TestDive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	duals := 0
	for it := 0; it < 400; it++ {
		// a set-packing master: rows of capacity 1 (servers) and 0
		// (components less their job's y), columns of a server and a
		// few components
		S, C := 2+rng.IntN(4), 2+rng.IntN(6)
		pr := &problem{m: S + C}
		pr.A = make([][]float64, S+C)
		pr.b = make([]float64, S+C)
		for i := 0; i < S; i++ {
			pr.b[i] = 1
		}
		addCol := func(col []float64, c, lo, up float64) {
			for i := range pr.A {
				pr.A[i] = append(pr.A[i], col[i])
			}
			pr.c, pr.lo, pr.up = append(pr.c, c), append(pr.lo, lo), append(pr.up, up)
			pr.n++
		}
		// y: one per component here, bounded by 1
		for c := 0; c < C; c++ {
			col := make([]float64, S+C)
			col[S+c] = -1
			addCol(col, 0, 0, 1)
		}
		for k := 0; k < 4*S; k++ {
			col := make([]float64, S+C)
			col[rng.IntN(S)] = 1
			v := 0.0
			for c := 0; c < C; c++ {
				if rng.Float64() < 0.4 {
					col[S+c] = 1
					v += rng.Float64()
				}
			}
			addCol(col, v, 0, math.Inf(1))
		}
		p := pr.build()
		p.reinvertEach = it%2 == 1
		require.Equal(t, Optimal, p.Solve(10000))
		for step := 0; step < 4; step++ {
			x := p.X(nil)
			j := -1
			for k := C; k < pr.n; k++ {
				if x[k] > 1e-6 && x[k] < 1-1e-6 && (j < 0 || x[k] > x[j]) {
					j = k
				}
			}
			if j < 0 {
				break
			}
			pr.lo[j], pr.up[j] = 1, 1
			p.SetBounds(j, 1, 1)
			if p.ready && p.dirty && !p.refresh() && p.dualFeasible() {
				duals++
				p.dirty = true // refresh cleared it; Solve checks again
			}
			st := p.Solve(10000)
			cold := pr.build()
			require.Equal(t, cold.Solve(10000), st, "instance %d step %d", it, step)
			if st != Optimal {
				break
			}
			require.InDelta(t, cold.Objective(), p.Objective(), 1e-7*max(1, math.Abs(p.Objective())))
			requireKKT(t, pr, p)
		}
		// free the first column again
		j := C
		pr.lo[j], pr.up[j] = 0, math.Inf(1)
		p.SetBounds(j, 0, math.Inf(1))
		st := p.Solve(10000)
		cold := pr.build()
		require.Equal(t, cold.Solve(10000), st)
		if st == Optimal {
			require.InDelta(t, cold.Objective(), p.Objective(), 1e-7*max(1, math.Abs(p.Objective())))
			requireKKT(t, pr, p)
		}
	}
	t.Logf("%d dual simplex solves", duals)
	require.Greater(t, duals, 100)
}

// TestBland runs the comparison with gonum with Bland's rule from the
// first pivot (the rule the simplex switches to after stallMax
// degenerate pivots), so that its pricing and ratio test are checked
// on every instance, not only on the rare stalls.
func TestBland(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	n := 2000
	if testing.Short() {
		n = 400
	}
	for it := 0; it < n; it++ {
		pr := randProblem(rng)
		p := pr.build()
		p.blandAlways = true
		st := p.Solve(100000)
		want, err := gonumSolve(pr)
		switch {
		case err == nil:
			require.Equal(t, Optimal, st, "instance %d", it)
			require.InDelta(t, want, p.Objective(), 1e-7*max(1, math.Abs(want)), "instance %d", it)
			requireKKT(t, pr, p)
		case errors.Is(err, lp.ErrInfeasible):
			require.Equal(t, Infeasible, st, "instance %d", it)
		case errors.Is(err, lp.ErrUnbounded):
			require.Equal(t, Unbounded, st, "instance %d", it)
		}
	}
}

// TestCycling is Chvátal's example (Linear Programming, 1983, p. 31),
// which cycles under Dantzig's rule with the textbook ratio test's
// smallest-subscript tie-break, solved with both pricing rules and
// checked against gonum.
func TestCycling(t *testing.T) {
	inf := math.Inf(1)
	pr := &problem{m: 3, n: 4,
		A: [][]float64{
			{0.5, -5.5, -2.5, 9},
			{0.5, -1.5, -0.5, 1},
			{1, 0, 0, 0},
		},
		b:  []float64{0, 0, 1},
		c:  []float64{10, -57, -9, -24},
		lo: []float64{0, 0, 0, 0},
		up: []float64{inf, inf, inf, inf},
	}
	want, err := gonumSolve(pr)
	require.NoError(t, err)
	require.InDelta(t, 1, want, 1e-9)
	for _, bland := range []bool{false, true} {
		p := pr.build()
		p.blandAlways = bland
		require.Equal(t, Optimal, p.Solve(1000))
		require.InDelta(t, want, p.Objective(), 1e-12)
		requireKKT(t, pr, p)
	}
}
