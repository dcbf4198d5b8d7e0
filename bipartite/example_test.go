package bipartite_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
)

// Two ports and three servers:
//
//	port 0 ── server 0
//	port 0 ── server 2
//	port 1 ── server 2
func ExampleNewGraph() {
	g, err := bipartite.NewGraph(2, 3, []bipartite.Edge{{1, 2}, {0, 2}, {0, 0}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for id := 0; id < g.NumEdges(); id++ {
		fmt.Println("edge", id, g.Edge(id))
	}
	fmt.Println("R_0 =", g.LeftNeighbors(0), "L_2 =", g.RightNeighbors(2))
	id, ok := g.EdgeID(1, 2)
	fmt.Println("(1,2) is edge", id, ok)
	_, err = bipartite.NewGraph(2, 3, []bipartite.Edge{{0, 3}})
	fmt.Println(err)
	// Output:
	// edge 0 {0 0}
	// edge 1 {0 2}
	// edge 2 {1 2}
	// R_0 = [0 2] L_2 = [0 1]
	// (1,2) is edge 2 true
	// bipartite: vertex out of range: edge 0 has right vertex 3, want [0,3)
}

func ExampleGraph_MarshalJSON() {
	g := bipartite.Complete(1, 2)
	b, _ := json.Marshal(g)
	fmt.Println(string(b))
	// Output:
	// {"version":1,"left":1,"right":2,"edges":[[0,0],[0,1]]}
}

func ExampleRightRegular() {
	g, _ := bipartite.RightRegular(10, 128, 3, rand.New(rand.NewPCG(1, 1)))
	fmt.Println(g.NumEdges(), g.RightDegree(0), g.RightDegree(127))
	// Output:
	// 384 3 3
}

func ExampleMesh_Available() {
	// 3 nodes × 4 hourly slots, every unit with capacity 20.
	caps := make([]float64, 12)
	for i := range caps {
		caps[i] = 20
	}
	m, _ := bipartite.NewMesh(3, 4, caps)
	// A job arriving in slot 1 with deadline 2 that may run on nodes 0 and 2.
	rn, _ := m.Available(nil, []int{0, 2}, 1, 2)
	for _, r := range rn {
		node, slot := m.NodeSlot(r)
		fmt.Printf("unit %d = (node %d, slot %d)\n", r, node, slot)
	}
	// Output:
	// unit 1 = (node 0, slot 1)
	// unit 2 = (node 0, slot 2)
	// unit 9 = (node 2, slot 1)
	// unit 10 = (node 2, slot 2)
}

// A declared size is checked before anything is allocated; Limits raises a
// bound where a user needs more.
func ExampleLimits() {
	_, err := bipartite.NewGraph(1_000_000_000, 2, nil)
	fmt.Println(err)
	var g bipartite.Graph
	err = json.Unmarshal([]byte(`{"version":1,"left":1,"right":8,"edges":[[0,0,7]]}`), &g)
	fmt.Println(err)
	small := bipartite.Limits{MaxEdges: 2} // other fields keep their defaults
	_, err = small.Complete(2, 2)
	fmt.Println(err)
	// Output:
	// bipartite: size above limit: numLeft=1000000000, limit MaxVertices=16777216
	// bipartite: decoding graph: bipartite: bad dimension: edge [0,0,7] has more than 2 entries, want a pair [left, right]
	// bipartite: size above limit: numEdges=4, limit MaxEdges=2
}

// ExampleFits shows the library's capacity rule: a load fits a capacity c
// when it is at most c + CapacityTol·c, so decimal demands that sum
// exactly to c fit, whatever their float64 rounding.
func ExampleFits() {
	load := 0.0
	for _, a := range []float64{0.1, 0.2} {
		load += a
	}
	fmt.Println(load, load <= 0.3, bipartite.Fits(load, 0.3))
	fmt.Println(bipartite.Fits(0.3+0.1, 0.3))
	fmt.Println(bipartite.FitsAdd([]float64{0.5, 1}, []float64{0.5, 0.5}, []float64{1, 1}))
	// Output:
	// 0.30000000000000004 false true
	// false
	// false
}
