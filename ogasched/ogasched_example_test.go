package ogasched_test

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// tiny builds 2 ports x 1 node, K = 1: both ports want 2 units of a node
// with capacity 2 and utility ln(y+1); beta = 0.2.
func tiny() *ogasched.Problem {
	u, _ := utility.New(utility.Log, 1)
	p, err := ogasched.NewProblem(bipartite.Complete(2, 1),
		[][]float64{{2}, {2}}, [][]float64{{2}}, [][]utility.Utility{{u}}, []float64{0.2})
	if err != nil {
		panic(err)
	}
	return p
}

func ExampleProblem_Reward() {
	p := tiny()
	y := []float64{1, 1} // y[e*K+k]: edge 0 = (0,0), edge 1 = (1,0)
	// Port 0 has a job, port 1 not: q = ln 2 - 0.2*1.
	fmt.Printf("%.4f\n", p.Reward([]float64{1, 0}, y))
	fmt.Printf("%.4f\n", p.Gradient(nil, []float64{1, 0}, y))
	// Output:
	// 0.4931
	// [0.3000 0.0000]
}

func ExampleNew() {
	p := tiny()
	pol, err := ogasched.New(p, ogasched.Settings{Step: ogasched.Constant(1)})
	if err != nil {
		panic(err)
	}
	defer pol.Close()
	x := []float64{1, 0}
	for t := 0; t < 3; t++ {
		y, _ := pol.Decide(t, x) // y(t) is fixed before x(t) is revealed
		fmt.Printf("t=%d y=%.4f q=%.4f\n", t, y, p.Reward(x, y))
		if err := pol.Observe(t, x); err != nil { // gradient step to y(t+1)
			panic(err)
		}
	}
	// Output:
	// t=0 y=[0.0000 0.0000] q=0.0000
	// t=1 y=[0.8000 0.0000] q=0.4278
	// t=2 y=[1.1556 0.0000] q=0.5369
}

func ExampleRun() {
	rng := rand.New(rand.NewPCG(1, 1))
	cfg := ogasched.DefaultConfig()
	cfg.Ports, cfg.Nodes = 3, 8
	p, err := ogasched.Generate(cfg, rng)
	if err != nil {
		panic(err)
	}
	tr, err := ogasched.BernoulliTrace(p.NumPorts(), 50, 0.7, rng)
	if err != nil {
		panic(err)
	}
	pol, err := ogasched.New(p, ogasched.Settings{Step: p.OptimalConstant(50)})
	if err != nil {
		panic(err)
	}
	defer pol.Close()
	res, err := ogasched.Run(p, tr, []ogasched.OnlinePolicy{pol}, ogasched.RunSettings{CheckTol: 1e-9})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Series[0].Name, len(res.Series[0].Reward), res.Series[0].Total > 0)
	// Output:
	// OGASched 50 true
}

func ExampleProblem_RegretBound() {
	p := tiny()
	// (51): diam = sqrt(2*2*2) = 2.8284; (48): G = sqrt(2*(0.04+1)) = 1.4422.
	fmt.Printf("diam %.4f G %.4f bound(T=100) %.4f\n", p.Diameter(), p.GradBound(), p.RegretBound(100))
	// Output:
	// diam 2.8284 G 1.4422 bound(T=100) 40.7922
}

func ExampleExpand() {
	p := tiny()
	q, _ := ogasched.Expand(p, []int{2, 1}) // up to 2 jobs of port 0, 1 of port 1
	x, _ := ogasched.ExpandArrivals(make([]float64, 3), []int{1, 1}, []int{2, 1})
	fmt.Println(q.NumPorts(), x)
	// Output:
	// 3 [1 0 1]
}

func ExamplePolicy_MarshalBinary() {
	p := tiny()
	pol, _ := ogasched.New(p, ogasched.Settings{Step: ogasched.Constant(1)})
	defer pol.Close()
	x := []float64{1, 0}
	for t := 0; t < 2; t++ {
		pol.Decide(t, x)
		pol.Observe(t, x)
	}
	saved, _ := pol.MarshalBinary()
	// After a restart: New on the same problem and settings, then restore.
	restored, _ := ogasched.New(p, ogasched.Settings{Step: ogasched.Constant(1)})
	defer restored.Close()
	if err := restored.UnmarshalBinary(saved); err != nil {
		panic(err)
	}
	y, _ := restored.Decide(2, x)
	fmt.Printf("y(2) = %.4f\n", y)
	// Another step is another model: the snapshot is refused.
	other, _ := ogasched.New(p, ogasched.Settings{})
	defer other.Close()
	fmt.Println(errors.Is(other.UnmarshalBinary(saved), ogasched.ErrSnapshot))
	// Output:
	// y(2) = [1.1556 0.0000]
	// true
}

func ExamplePolicy_ChangeCluster() {
	p := tiny() // 2 ports, 1 node
	pol, _ := ogasched.New(p, ogasched.Settings{Step: ogasched.Constant(1)})
	defer pol.Close()
	x := []float64{1, 1}
	for t := 0; t < 3; t++ {
		pol.Decide(t, x)
		pol.Observe(t, x)
	}
	// A second node joins, serving port 1 only.
	u, _ := utility.New(utility.Log, 1)
	q, m, err := p.AddNode([]float64{1}, []utility.Utility{u}, []int{1})
	if err != nil {
		panic(err)
	}
	before := append([]float64(nil), pol.Y()...)
	if err := pol.ChangeCluster(q, m); err != nil { // in place
		panic(err)
	}
	y, _ := pol.Decide(3, x) // edges (0,0), (1,0), (1,1): y of (1,1) starts at 0
	fmt.Printf("before %.4f\nafter  %.4f\n", before, y)
	// Output:
	// before [1.0000 1.0000]
	// after  [1.0000 1.0000 0.0000]
}
