package bipartite_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
)

// A gang job type with three components of which two must start together,
// checked against two servers.
func ExampleGangModel_Check() {
	g, _ := bipartite.NewGraph(1, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}})
	m, err := bipartite.NewGangModel(g, 1, []float64{1, 1}, []bipartite.GangJob{
		{Demand: []float64{1, 1, 1}, Min: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, server := range [][]int{{0, 1, -1}, {0, -1, -1}, {0, 0, -1}} {
		c, _ := m.Check([]bool{true}, server)
		fmt.Printf("%v: served %d, violations %d", server, c.Served, c.Violations)
		if c.First != "" {
			fmt.Print(" (", c.First, ")")
		}
		fmt.Println()
	}
	// Output:
	// [0 1 -1]: served 1, violations 0
	// [0 -1 -1]: served 0, violations 1 (job 0 half-placed: 1 of its 2 required components)
	// [0 0 -1]: served 1, violations 1 (server 0 resource 0 loaded 2, capacity 1)
}

// A server leaves a gang cluster: RemoveServer builds the changed model
// and the GangMapping that every gang policy's ChangeCluster takes.
func ExampleGangModel_RemoveServer() {
	g, _ := bipartite.NewGraph(2, 3, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 2}})
	m, _ := bipartite.NewGangModel(g, 1, []float64{2, 3, 4}, []bipartite.GangJob{
		{Demand: []float64{1, 1}}, {Demand: []float64{2}},
	})
	changed, mp, err := m.RemoveServer(1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("servers", changed.NumServers(), "edges", changed.Graph().NumEdges())
	fmt.Println("new server -> old server:", mp.Servers, "job types:", mp.Jobs)
	fmt.Println("capacity of new server 1:", changed.Capacity(1))
	// Output:
	// servers 2 edges 2
	// new server -> old server: [0 2] job types: [0 1]
	// capacity of new server 1: [4]
}
