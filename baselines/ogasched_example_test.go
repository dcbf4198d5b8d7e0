package baselines_test

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// ogaExample: ports 0 and 1 both connect to nodes 0 and 1; K = 1; port 0
// asks 3 units per node, port 1 asks 1; node capacities 2 and 8.
func ogaExample() *ogasched.Problem {
	u, _ := utility.New(utility.Log, 1)
	p, err := ogasched.NewProblem(bipartite.Complete(2, 2), [][]float64{{3}, {1}}, [][]float64{{2}, {8}},
		[][]utility.Utility{{u}, {u}}, []float64{0.5})
	if err != nil {
		panic(err)
	}
	return p
}

func ExampleNewDRF() {
	// y is indexed by edge (0,0), (0,1), (1,0), (1,1).
	y, _ := baselines.NewDRF(ogaExample()).Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [1 3 1 1]
}

func ExampleNewFairness() {
	y, _ := baselines.NewFairness(ogaExample()).Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [1.5 3 0.5 1]
}

func ExampleNewBinPacking() {
	y, _ := baselines.NewBinPacking(ogaExample()).Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [0 3 1 0]
}

func ExampleNewSpreading() {
	// Only port 1 has a job. Its pod would fill node 0 to 1/2 and node 1
	// to 1/8: LeastAllocated picks node 1.
	y, _ := baselines.NewSpreading(ogaExample()).Decide(0, []float64{0, 1})
	fmt.Println(y)
	// Output: [0 0 0 1]
}
