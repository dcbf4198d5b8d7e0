package ogasched_test

import (
	"fmt"

	"github.com/msched/msched/ogasched"
)

func ExampleBestFixed() {
	// Port 0 has a job in three slots, port 1 in one: both share the node's
	// capacity 2, port 0 gets more of it: 3/(y0+1) - 1/(3-y0) = 0.4 (KKT).
	p := tiny()
	tr := &ogasched.Trace{Ports: 2, Arrivals: [][]float64{{1, 0}, {1, 1}, {1, 0}}}
	res, err := ogasched.BestFixed(p, tr, ogasched.BestFixedSettings{Tol: 1e-9})
	if err != nil {
		panic(err)
	}
	fmt.Printf("y* = %.3f\n", res.Y)
	fmt.Printf("sum_t q(x(t), y*) = %.4f, converged %v, gap <= 1e-9: %v\n", res.Value, res.Converged, res.Gap() <= 1e-9)
	// Output:
	// y* = [1.641 0.359]
	// sum_t q(x(t), y*) = 2.1638, converged true, gap <= 1e-9: true
}
