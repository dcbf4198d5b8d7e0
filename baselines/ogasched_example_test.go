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
	pol, err := baselines.NewDRF(ogaExample(), baselines.DRFSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [1 3 1 1]
}

func ExampleNewFairness() {
	pol, err := baselines.NewFairness(ogaExample(), baselines.FairnessSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [1.5 3 0.5 1]
}

func ExampleNewBinPacking() {
	// Fractional reading: port 0 (index order) takes min(3, 2) on node 0
	// and 3 on node 1; port 1 gets what is left, 0 and 1.
	pol, err := baselines.NewBinPacking(ogaExample(), baselines.BinPackingSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [2 3 0 1]
}

func ExampleNewSpreading() {
	// Fractional SPREADING visits the least allocated node first; under the
	// per-edge caps (5) that cannot change what a port gets, so it equals
	// BINPACKING.
	pol, err := baselines.NewSpreading(ogaExample(), baselines.BinPackingSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [2 3 0 1]
}

func ExampleNewBinPackingPod() {
	// Whole pods: port 0's pod (3 units) fits only node 1; port 1's pod
	// scores 1/2 on both nodes and takes node 0 (tie by index).
	pol, err := baselines.NewBinPackingPod(ogaExample(), baselines.BinPackingSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{1, 1})
	fmt.Println(y)
	// Output: [0 3 1 0]
}

func ExampleNewSpreadingPod() {
	// Only port 1 has a job. Its pod would fill node 0 to 1/2 and node 1
	// to 1/8: LeastAllocated picks node 1.
	pol, err := baselines.NewSpreadingPod(ogaExample(), baselines.BinPackingSettings{})
	if err != nil {
		panic(err)
	}
	y, _ := pol.Decide(0, []float64{0, 1})
	fmt.Println(y)
	// Output: [0 0 0 1]
}

func ExampleNewOGASchedBaseline() {
	for _, name := range []string{"DRF", "SPREADING-pod", "LOTTERY"} {
		pol, err := baselines.NewOGASchedBaseline(name, ogaExample())
		if err != nil {
			fmt.Println(err)
			continue
		}
		y, _ := pol.Decide(0, []float64{1, 1})
		fmt.Println(pol.Name(), y)
	}
	// Output:
	// DRF [1 3 1 1]
	// SPREADING-pod [0 3 1 0]
	// ogasched: invalid settings: baselines: unknown OGASched baseline "LOTTERY" (want one of [DRF FAIRNESS BINPACKING SPREADING BINPACKING-pod SPREADING-pod])
}
