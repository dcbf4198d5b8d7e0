package ogasched

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/msched/msched/utility"
)

// totals returns X = sum_t x(t).
func totals(tr *Trace) []float64 {
	X := make([]float64, tr.Ports)
	for _, x := range tr.Arrivals {
		for l, v := range x {
			X[l] += v
		}
	}
	return X
}

// lpOptimum solves max_y q(X, y) for linear utilities as a linear program
// with gonum's simplex, independently of BestFixed: variables y (|E| K),
// s_l (the penalty of port l) and one slack per inequality, all >= 0;
// rows beta_k sum_{r in R_l} y - s_l + slack = 0, y + slack = a_l^k,
// sum_{l in L_r} y + slack = c_r^k.
func lpOptimum(t *testing.T, p *Problem, X []float64) float64 {
	g, K := p.Graph, p.K
	n, L := p.Dim(), p.NumPorts()
	rows := L*K + n + p.NumNodes()*K
	cols := n + L + rows
	A := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		for k := 0; k < K; k++ {
			u := p.Utility[ed.Right][k]
			require.Equal(t, utility.Linear, u.Kind)
			c[e*K+k] = -X[ed.Left] * u.A
		}
	}
	for l := 0; l < L; l++ {
		c[n+l] = X[l]
	}
	row := 0
	slack := n + L
	for l := 0; l < L; l++ {
		lo, hi := g.LeftRange(l)
		for k := 0; k < K; k++ {
			for e := lo; e < hi; e++ {
				A.Set(row, e*K+k, p.Beta[k])
			}
			A.Set(row, n+l, -1)
			A.Set(row, slack, 1)
			row, slack = row+1, slack+1
		}
	}
	for e := 0; e < g.NumEdges(); e++ {
		for k := 0; k < K; k++ {
			A.Set(row, e*K+k, 1)
			A.Set(row, slack, 1)
			b[row] = p.Demand[g.Edge(e).Left][k]
			row, slack = row+1, slack+1
		}
	}
	for r := 0; r < p.NumNodes(); r++ {
		for k := 0; k < K; k++ {
			for _, e := range g.RightEdges(r) {
				A.Set(row, e*K+k, 1)
			}
			A.Set(row, slack, 1)
			b[row] = p.Capacity[r][k]
			row, slack = row+1, slack+1
		}
	}
	opt, _, err := lp.Simplex(c, A, b, 1e-10, nil)
	require.NoError(t, err)
	return -opt
}

func TestBestFixedMatchesLPOnLinearUtilities(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	trials := 30
	if testing.Short() {
		trials = 8
	}
	for trial := 0; trial < trials; trial++ {
		p := randomProblem(t, 2+rng.IntN(3), 2+rng.IntN(4), 1+rng.IntN(3), []utility.Kind{utility.Linear}, rng)
		tr, err := BernoulliTrace(p.NumPorts(), 20, 0.6, rng)
		require.NoError(t, err)
		X := totals(tr)
		want := lpOptimum(t, p, X)
		res, err := BestFixed(p, tr, BestFixedSettings{Tol: 1e-7})
		require.NoError(t, err)
		require.True(t, res.Converged, "trial %d: gap %v after %d iterations", trial, res.Gap(), res.Iterations)
		require.NoError(t, p.Feasible(res.Y, 1e-9))
		scale := math.Max(1, math.Abs(want))
		require.InDelta(t, p.Reward(X, res.Y), res.Value, 1e-9*scale)
		require.LessOrEqual(t, res.Value, want+1e-7*scale, "trial %d: value above the LP optimum", trial)
		require.GreaterOrEqual(t, res.Bound, want-1e-7*scale, "trial %d: bound below the LP optimum", trial)
		require.InDelta(t, want, res.Value, 2e-7*scale, "trial %d", trial)
	}
}

func TestBestFixedConcaveAgainstSlowAscent(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	trials := 6
	if testing.Short() {
		trials = 2
	}
	for trial := 0; trial < trials; trial++ {
		p := randomProblem(t, 3, 4, 2, allKinds, rng)
		tr, err := BernoulliTrace(p.NumPorts(), 50, 0.7, rng)
		require.NoError(t, err)
		X := totals(tr)
		res, err := BestFixed(p, tr, BestFixedSettings{Tol: 1e-7})
		require.NoError(t, err)
		require.True(t, res.Converged, "gap %v", res.Gap())
		require.NoError(t, p.Feasible(res.Y, 1e-9))
		// The independent slow ascent (bisection projection) cannot beat
		// the certified bound, and BestFixed must be at least as good.
		_, slow := offlineOptimum(p, tr, 5000)
		scale := math.Max(1, math.Abs(slow))
		require.LessOrEqual(t, slow, res.Bound+1e-9*scale)
		require.GreaterOrEqual(t, res.Value, slow-1e-6*scale)
		// Nor can random feasible points.
		y := make([]float64, p.Dim())
		for i := 0; i < 300; i++ {
			for j := range y {
				y[j] = 3 * rng.Float64()
			}
			projectSlow(p, y)
			require.LessOrEqual(t, p.Reward(X, y), res.Bound+1e-9*scale)
		}
		// First-order optimality: no feasible ascent direction from Y.
		// Along y(s) = Pi(Y + s grad) the reward must not increase by more
		// than the certified gap.
		grad := p.Gradient(nil, X, res.Y)
		for _, s := range []float64{1e-4, 1e-2, 1} {
			z := append([]float64(nil), res.Y...)
			for j := range z {
				z[j] += s * grad[j] / math.Max(1, floatsMaxAbs(X))
			}
			projectSlow(p, z)
			require.LessOrEqual(t, p.Reward(X, z), res.Bound+1e-9*scale)
		}
	}
}

func floatsMaxAbs(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

func TestBestFixedDefaultInstance(t *testing.T) {
	if testing.Short() {
		t.Skip("Table II instance, about 1 s")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	p, err := Generate(DefaultConfig(), rng)
	require.NoError(t, err)
	tr, err := BernoulliTrace(p.NumPorts(), 2000, 0.7, rng)
	require.NoError(t, err)
	res, err := BestFixed(p, tr, BestFixedSettings{})
	require.NoError(t, err)
	require.True(t, res.Converged, "gap %v", res.Gap())
	require.NoError(t, p.Feasible(res.Y, 1e-9))
	// The regret of the default policy is positive and below the bound (39)
	// (which assumes the constant step, so this is a sanity check).
	res2 := runSteps(t, p, tr, Settings{Horizon: 2000})
	regret := res.Bound - res2[0].Total
	require.Greater(t, regret, 0.0)
	require.Less(t, regret, p.RegretBound(2000))
}

func TestBestFixedEdgeCases(t *testing.T) {
	p := handProblem(t)
	_, err := BestFixed(nil, &Trace{Ports: 2}, BestFixedSettings{})
	require.ErrorIs(t, err, ErrDimension)
	_, err = BestFixed(p, nil, BestFixedSettings{})
	require.ErrorIs(t, err, ErrDimension)
	_, err = BestFixed(p, &Trace{Ports: 3}, BestFixedSettings{})
	require.ErrorIs(t, err, ErrDimension)
	_, err = BestFixed(p, &Trace{Ports: 2, Arrivals: [][]float64{{math.NaN(), 0}}}, BestFixedSettings{})
	require.ErrorIs(t, err, ErrValue)
	for _, s := range []BestFixedSettings{{Tol: -1}, {Tol: 1}, {Tol: math.NaN()}, {MaxIter: -1}, {MaxIter: math.MaxInt}, {Workers: -1}, {Workers: MaxWorkers + 1}} {
		_, err = BestFixed(p, &Trace{Ports: 2}, s)
		require.ErrorIs(t, err, ErrSettings, "%+v", s)
	}
	// No arrivals: y* = 0 with value and bound 0.
	res, err := BestFixed(p, &Trace{Ports: 2, Arrivals: [][]float64{{0, 0}}}, BestFixedSettings{})
	require.NoError(t, err)
	require.True(t, res.Converged)
	require.Equal(t, 0.0, res.Value)
	// An iteration limit of 1 still returns a feasible point and a valid
	// (possibly loose) certificate.
	res, err = BestFixed(p, &Trace{Ports: 2, Arrivals: [][]float64{{1, 1}}}, BestFixedSettings{MaxIter: 1, Tol: 1e-12})
	require.NoError(t, err)
	require.NoError(t, p.Feasible(res.Y, 1e-12))
	require.GreaterOrEqual(t, res.Bound, res.Value)
}

// Same input, same output bit for bit, whatever the projection workers
// (BestFixed has no randomness).
func TestBestFixedDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	cfg := DefaultConfig()
	cfg.Nodes = 512
	p, err := Generate(cfg, rng)
	require.NoError(t, err)
	require.Greater(t, p.Dim(), 4096) // the Projector's parallel threshold
	tr, err := BernoulliTrace(p.NumPorts(), 40, 0.7, rng)
	require.NoError(t, err)
	a, err := BestFixed(p, tr, BestFixedSettings{MaxIter: 200})
	require.NoError(t, err)
	for _, w := range []int{0, 1, 2, 3} {
		b, err := BestFixed(p, tr, BestFixedSettings{MaxIter: 200, Workers: w})
		require.NoError(t, err)
		require.Equal(t, a, b, "workers %d", w)
	}
}
