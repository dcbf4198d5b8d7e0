package baselines_test

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
)

// ExampleNewGangFirstFit places gang jobs all or nothing, as the
// coscheduling plugin does: job 0 (two components of 3 CPU, both needed)
// fits only across both servers; job 1 then finds no room and is left
// whole.
func ExampleNewGangFirstFit() {
	g := bipartite.Complete(2, 2)
	m, err := bipartite.NewGangModel(g, 1, []float64{4, 4}, []bipartite.GangJob{
		{Demand: []float64{3, 3}},
		{Demand: []float64{2, 2}, Min: 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ff, err := baselines.NewGangFirstFit(m, baselines.GangFirstFitSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	d, err := ff.Decide(0, []float64{1, 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	chk, _ := m.Check([]bool{true, true}, d.Server)
	fmt.Println(d.Server, "served", chk.Served, "violations", chk.Violations)
	// Output:
	// [0 1 -1 -1] served 1 violations 0
}
