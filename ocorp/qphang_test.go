package ocorp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestQPHugeDemandWithPrevReturns: issue 30. Demand {1e200, 2} with a
// previous rate of 1 ran for more than 60 s (the bracketing loops kept
// doubling once the load was NaN or infinite); 1e100 returned. Every
// extreme demand, with and without a previous rate, must return within
// the guard with a typed status.
func TestQPHugeDemandWithPrevReturns(t *testing.T) {
	var qs QPSolver
	for _, d := range []float64{1e100, 1e154, 1e155, 1e200, 1e300, math.MaxFloat64} {
		for _, prev := range [][]float64{{1, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {1e300, 0, 0, 1}} {
			for _, cost := range [][]float64{{-1, -1}, {1, -1}, {-1e10, 0}} {
				q := SwitchQP{Cost: cost, Demand: []float64{d, 2}, Bound: []float64{1, 1},
					Capacity: []float64{1, 1}, Prev: prev, Alpha: 1}
				name := fmt.Sprintf("demand %g prev %v cost %v", d, prev, cost)
				var res QPResult
				err := solveWithin(t, 10*time.Second, &qs, &res, &q, QPSettings{})
				require.NotEqual(t, NotTerminated, res.Status, name)
				if err != nil {
					require.ErrorIs(t, err, ErrNotConverged, name)
					require.Equal(t, Failure, res.Status, name)
					continue
				}
				// A returned x satisfies the job constraints exactly.
				for j := range 2 {
					s := 0.0
					for i := range 2 {
						v := res.X[j*2+i]
						require.False(t, v < 0 || math.IsNaN(v), "%s: x[%d][%d] = %v", name, j, i, v)
						s += v
					}
					require.LessOrEqual(t, s, q.Bound[j]*(1+1e-12), name)
				}
			}
		}
	}
}

// TestQPExtremeRandomReturns: random problems whose demands, previous
// rates, costs, capacities and bounds are drawn from 1e-300 to 1e308 and
// 0, each solved under the 10 s guard: every loop of the solver is
// bounded whatever the magnitudes.
func TestQPExtremeRandomReturns(t *testing.T) {
	rng := rand.New(rand.NewPCG(30, 1))
	mag := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.MaxFloat64 / float64(1+rng.IntN(4))
		default:
			return math.Pow(10, float64(rng.IntN(617)-308))
		}
	}
	iters := 400
	if testing.Short() {
		iters = 100
	}
	var qs QPSolver
	for it := range iters {
		n, m := 1+rng.IntN(3), 1+rng.IntN(3)
		q := SwitchQP{Cost: make([]float64, n), Demand: make([]float64, n), Bound: make([]float64, n),
			Capacity: make([]float64, m), Prev: make([]float64, n*m), Alpha: math.Max(mag(), 1e-300)}
		for j := range n {
			q.Cost[j] = mag() * float64(rng.IntN(3)-1)
			q.Demand[j] = math.Max(mag(), 1e-300)
			q.Bound[j] = mag()
		}
		for i := range m {
			q.Capacity[i] = mag()
		}
		for e := range q.Prev {
			q.Prev[e] = mag()
		}
		var res QPResult
		err := solveWithin(t, 10*time.Second, &qs, &res, &q, QPSettings{})
		require.NotEqual(t, NotTerminated, res.Status, "it %d: %+v", it, q)
		if err != nil {
			require.ErrorIs(t, err, ErrNotConverged, "it %d", it)
		}
	}
}
