package baselines_test

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// socExample: one node, one slot of capacity 6; job 0 (a = 1) and job 1
// (a = 3) each want up to 4.
func socExample() (*bipartite.Mesh, []onsocmax.Job) {
	m, _ := bipartite.NewMesh(1, 1, []float64{6})
	job := func(id int, a float64) onsocmax.Job {
		u, _ := utility.New(utility.Linear, a)
		return onsocmax.Job{ID: id, Rho: 4, Units: []int{0}, XBar: []float64{4}, Beta: []float64{0.3}, Utility: []utility.Utility{u}}
	}
	return m, []onsocmax.Job{job(0, 1), job(1, 3)}
}

func ExampleNewMaxFirst() {
	m, jobs := socExample()
	p, _ := baselines.NewMaxFirst(m, baselines.MaxFirstSettings{})
	dec, _ := p.Decide(0, jobs)
	for _, a := range dec.Allocations {
		fmt.Printf("job %d unit %d x %.4f\n", a.Job, a.Unit, a.X)
	}
	// Slot 0 was decided: slot 0 again is out of order.
	_, err := p.Decide(0, nil)
	fmt.Println("error:", err)
	_, err = baselines.NewMaxFirst(nil, baselines.MaxFirstSettings{})
	fmt.Println("error:", err)
	// Output:
	// job 1 unit 0 x 4.0000
	// job 0 unit 0 x 2.0000
	// error: baselines: onsocmax: slot out of order: Decide at slot 0 after slot 0 (started true)
	// error: baselines: onsocmax: invalid value: nil mesh
}

func ExampleNewEqualShare() {
	m, jobs := socExample()
	p, _ := baselines.NewEqualShare(m, baselines.EqualShareSettings{})
	_, err := p.Decide(0, []onsocmax.Job{jobs[0], jobs[0]})
	fmt.Println("error:", err)
	dec, _ := p.Decide(0, jobs)
	for _, a := range dec.Allocations {
		fmt.Printf("job %d unit %d x %.4f\n", a.Job, a.Unit, a.X)
	}
	// Output:
	// error: baselines: onsocmax: duplicate job id: job index 1 has id 0, already active or earlier in the batch
	// job 0 unit 0 x 3.0000
	// job 1 unit 0 x 3.0000
}

// ExampleMaxFirst_Units builds a job's units in the window numbering
// node*W + slot%W without an onsocmax.Policy: two nodes, a window of W = 3
// slots, a job arriving at slot 4 with deadline 5 on both nodes.
func ExampleMaxFirst_Units() {
	m, _ := bipartite.NewMesh(2, 3, []float64{4, 4, 4, 2, 2, 2})
	p, _ := baselines.NewMaxFirst(m, baselines.MaxFirstSettings{})
	units, _ := p.Units(nil, []int{0, 1}, 4, 5)
	fmt.Println(units)
	_, err := p.Units(nil, []int{2}, 4, 5)
	fmt.Println("error:", err)
	// Output:
	// [1 2 4 5]
	// error: onsocmax: invalid node: baselines: nodes[0] = 2, mesh has 2
}
