package esdp_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// Example_gang drives ESDP-gang from a scheduler's loop: a training job
// type with two workers that must start together, and an inference job
// type with two replicas of which one suffices, on three GPU servers.
func Example_gang() {
	// Job type 0 (training) may run on servers 0-2, job type 1 (inference)
	// on servers 1-2. K = 1 resource (GPUs); servers have 2, 1 and 1 GPUs.
	g, _ := bipartite.NewGraph(2, 3, []bipartite.Edge{
		{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2},
		{Left: 1, Right: 1}, {Left: 1, Right: 2},
	})
	model, err := bipartite.NewGangModel(g, 1, []float64{2, 1, 1}, []bipartite.GangJob{
		{Demand: []float64{1, 1}},         // two workers of 1 GPU, both needed (Min 0 = all)
		{Demand: []float64{1, 1}, Min: 1}, // two replicas, at least one
	})
	if err != nil {
		panic(err)
	}
	p, err := esdp.NewGang(model, esdp.GangSettings{})
	if err != nil {
		panic(err)
	}
	// The scheduler's world: the (unknown) reward of a component on a
	// server; server 0 is the best for training, server 2 for inference.
	reward := func(c, r int) float64 {
		if model.Job(c) == 0 {
			return []float64{0.9, 0.4, 0.3}[r]
		}
		return []float64{0, 0.2, 0.8}[r]
	}
	arrived := []bool{true, true}
	fb := esdp.GangFeedback{Server: make([]int, model.NumComponents()), Reward: make([]float64, model.NumComponents())}
	for t := 0; t < 40; t++ {
		x, err := p.Decide(t, arrived) // server per component, -1 = not placed
		if err != nil {
			panic(err)
		}
		// Start the placed components (here: every placement succeeds) and
		// report their rewards.
		for c, r := range x {
			fb.Server[c], fb.Reward[c] = r, 0
			if r >= 0 {
				fb.Reward[c] = reward(c, r)
			}
		}
		if t < 3 || t == 39 {
			fmt.Printf("slot %d: %v explore=%v\n", t, x, p.Last().Explore)
		}
		if err := p.Observe(t, fb); err != nil {
			panic(err)
		}
	}
	// Output:
	// slot 0: [0 0 1 2] explore=true
	// slot 1: [0 0 2 1] explore=true
	// slot 2: [1 2 -1 -1] explore=true
	// slot 39: [0 0 1 2] explore=false
}

func ExampleGangOracle_Solve() {
	// One job type with three 1-GPU workers of which two are needed, on
	// two servers with 1 GPU each; a second job type with one 2-GPU
	// component that fits server 0 only if nothing else is there.
	g, _ := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 0}})
	model, _ := bipartite.NewGangModel(g, 1, []float64{2, 1}, []bipartite.GangJob{
		{Demand: []float64{1, 1, 1}, Min: 2},
		{Demand: []float64{2}},
	})
	ch, _ := esdp.NewGangChannels(model)
	// Values per channel, in GangChannels order: components 0-2 on servers
	// 0 and 1, then component 3 on server 0.
	value := []float64{0.5, 0.4, 0.5, 0.4, 0.5, 0.4, 1.2}
	var o esdp.GangOracle // GangAuto
	x := make([]int, model.NumComponents())
	r, err := o.Solve(x, &esdp.GangKnapsack{Channels: ch, Value: value})
	if err != nil {
		panic(err)
	}
	fmt.Println(x, r.Status, r.Value, r.Gap)
	// Output: [0 0 1 -1] Optimal 1.4 0
}
