package ogasched_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/ogasched"
)

// Example_readme is the ten-line program of the README: build a problem
// and the policy, then decide before each slot's arrivals and learn from
// them.
func Example_readme() {
	p, _ := ogasched.Generate(ogasched.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	pol, _ := ogasched.New(p, ogasched.Settings{})
	x := make([]float64, p.NumPorts()) // x[l] = 1: a job arrived at port l
	for t := range 4 {
		for l := range x {
			x[l] = float64((t + l) % 2)
		}
		y, _ := pol.Decide(t, nil) // y[e*K+k], chosen before x(t) is known
		fmt.Printf("slot %d: reward %.1f\n", t, p.Reward(x, y))
		pol.Observe(t, x) // learn from the arrivals
	}
	// Output:
	// slot 0: reward 0.0
	// slot 1: reward 0.0
	// slot 2: reward 497.4
	// slot 3: reward 418.6
}
