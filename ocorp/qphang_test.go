package ocorp

import (
	"fmt"
	"math"
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
