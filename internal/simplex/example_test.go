package simplex_test

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/simplex"
)

// Two rows, x0 + x1 <= 4 and 2 x0 + x1 <= 6, x1 <= 1: the optimum of
// 3 x0 + 2 x1 is at x0 = 2.5, x1 = 1. A third column then enters and the
// solve continues from the basis.
func Example() {
	p := simplex.New([]float64{4, 6})
	p.AddColumn(3, 0, math.Inf(1), []int{0, 1}, []float64{1, 2})
	p.AddColumn(2, 0, 1, []int{0, 1}, []float64{1, 1})
	fmt.Println(p.Solve(100), p.Objective(), p.X(nil), p.Duals(nil))
	p.AddColumn(1, 0, math.Inf(1), []int{0}, []float64{1})
	fmt.Println(p.Solve(100), p.Objective(), p.X(nil))
	// Output:
	// Optimal 9.5 [2.5 1] [0 1.5]
	// Optimal 10 [2.5 1 0.5]
}
