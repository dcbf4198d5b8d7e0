package ogasched_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// Example drives OGASched from the caller's own loop: the caller's own
// cluster and arrivals, a restart that restores the learned state from a
// snapshot, and a node that leaves mid-run.
func Example() {
	// The cluster: 2 job types (ports) x 3 nodes, K = 2 resource types
	// (CPU, GPU). Port 0 runs on nodes 0 and 1, port 1 on nodes 1 and 2.
	g, _ := bipartite.NewGraph(2, 3, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}, {Left: 1, Right: 2}})
	logU, _ := utility.New(utility.Log, 1)
	util := [][]utility.Utility{{logU, logU}, {logU, logU}, {logU, logU}}
	p, err := ogasched.NewProblem(g,
		[][]float64{{4, 1}, {2, 2}},         // demand a_l^k per job type
		[][]float64{{4, 2}, {4, 2}, {2, 1}}, // capacity c_r^k per node
		util, []float64{0.3, 0.5})           // overhead beta_k
	if err != nil {
		panic(err)
	}
	pol, err := ogasched.New(p, ogasched.Settings{Horizon: 30})
	if err != nil {
		panic(err)
	}
	arrivals := func(t, ports int) []float64 { // the caller's own arrivals
		x := make([]float64, ports)
		for l := range x {
			if (t+l)%3 != 0 {
				x[l] = 1
			}
		}
		return x
	}
	var saved []byte
	total := 0.0
	for t := 0; t < 30; t++ {
		switch t {
		case 10: // the scheduler restarts: save, rebuild, restore
			if saved, err = pol.MarshalBinary(); err != nil {
				panic(err)
			}
			pol.Close()
			if pol, err = ogasched.New(p, ogasched.Settings{Horizon: 30}); err != nil {
				panic(err)
			}
			if err := pol.UnmarshalBinary(saved); err != nil {
				panic(err)
			}
		case 20: // node 2 leaves; y of the other edges carries over
			q, m, err := p.RemoveNode(2)
			if err != nil {
				panic(err)
			}
			if err := pol.ChangeCluster(q, m); err != nil { // in place
				panic(err)
			}
			p = q
		}
		x := arrivals(t, p.NumPorts())
		y, err := pol.Decide(t, x) // y(t), owned by pol until its next call
		if err != nil {
			panic(err)
		}
		if err := p.Feasible(y, 1e-9); err != nil {
			panic(err)
		}
		total += p.Reward(x, y)
		if t%10 == 9 {
			fmt.Printf("slots %2d-%2d: %d edges, reward so far %.3f\n", t-9, t, p.Graph.NumEdges(), total)
		}
		if err := pol.Observe(t, x); err != nil { // x(t) revealed: learn
			panic(err)
		}
	}
	pol.Close()
	// Output:
	// slots  0- 9: 4 edges, reward so far 23.760
	// slots 10-19: 4 edges, reward so far 56.235
	// slots 20-29: 3 edges, reward so far 78.573
}
