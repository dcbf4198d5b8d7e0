package onsocmax_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/msched/msched/onsocmax"
)

// ExampleFlowSolver solves the offline optimum of several days with one
// solver, whose buffers are reused.
func ExampleFlowSolver() {
	var s onsocmax.FlowSolver
	for seed := uint64(1); seed <= 3; seed++ {
		in, _ := onsocmax.Generate(onsocmax.DefaultConfig(), rand.New(rand.NewPCG(seed, 1)))
		x := make([][]float64, len(in.Jobs))
		for n := range in.Jobs {
			x[n] = make([]float64, len(in.Jobs[n].Units))
		}
		res, err := s.Solve(x, in)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("day %d: OPT %.4f (%v), feasible: %v\n", seed, res.Value, res.Status, in.CheckFeasible(x, 1e-9) == nil)
	}
	// Output:
	// day 1: OPT 1037.5610 (Success), feasible: true
	// day 2: OPT 944.7516 (Success), feasible: true
	// day 3: OPT 969.9266 (Success), feasible: true
}

func ExampleReadInstance() {
	const doc = `{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[5,5]},
	 "jobs":[{"id":0,"arrival":0,"deadline":1,"rho":4,"units":[0,1],"xbar":[4,4],
	          "beta":[0.2,0.1],"utility":[{"kind":"linear","a":1.5},{"kind":"linear","a":1}]}]}`
	in, err := onsocmax.ReadInstance(strings.NewReader(doc))
	fmt.Println(len(in.Jobs), err)
	_, err = onsocmax.ReadInstance(strings.NewReader(doc + " trailing"))
	fmt.Println(err != nil)
	_, err = onsocmax.ReadInstance(strings.NewReader(`{"version":1,"mesh":{"nodes":4294967296,"slots":4294967296,"capacity":[]},"jobs":[]}`))
	fmt.Println(err)
	// Output:
	// 1 <nil>
	// true
	// onsocmax: problem too large: mesh nodes 4294967296 x slots 4294967296 > MaxUnits = 16777216
}
