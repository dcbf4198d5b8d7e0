package esdp_test

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// Example_embedding drives ESDP from the caller's own loop: the caller's
// arrivals and rewards, a restart that restores the learned state, and a
// server that leaves the cluster.
func Example_embedding() {
	// Two job types (ports) and three servers; one resource type (GPUs):
	// every channel needs 1 GPU, 2 GPUs in all.
	edges := []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}, {Left: 1, Right: 2}}
	g, _ := bipartite.NewGraph(2, 3, edges)
	cl := &esdp.Cluster{Graph: g, K: 1, Demand: []int{1, 1, 1, 1}, Capacity: []int{2}, Cost: make([]float64, 4)}
	p, err := esdp.New(cl, esdp.Settings{})
	if err != nil {
		panic(err)
	}
	// The caller's world: the reward of channel (port, server) when used.
	names := []string{"s0", "s1", "s2"}
	reward := func(l, r int) float64 { return []float64{0.2, 0.9, 0.5}[r] - 0.1*float64(l) }
	step := func(p *esdp.Policy, t int, arrived []bool) {
		x, err := p.Decide(t, arrived)
		if err != nil {
			panic(err)
		}
		cl := p.Cluster()
		z := make([]float64, len(x))
		var used []string
		for e, on := range x {
			if on {
				ed := cl.Graph.Edge(e)
				z[e] = reward(ed.Left, ed.Right)
				used = append(used, fmt.Sprintf("job%d->%s", ed.Left, names[ed.Right]))
			}
		}
		if err := p.Observe(t, esdp.Feedback{Chosen: x, Reward: z}); err != nil {
			panic(err)
		}
		fmt.Println(t, used)
	}
	for t := 0; t < 4; t++ {
		step(p, t, []bool{true, t%2 == 0})
	}

	// Restart: save the learned state, build a fresh policy on the same
	// cluster and settings, restore.
	state, _ := p.MarshalBinary()
	p, _ = esdp.New(cl, esdp.Settings{})
	if err := p.UnmarshalBinary(state); err != nil {
		panic(err)
	}
	step(p, 4, []bool{true, true})

	// Server 1 leaves: the new cluster has servers {0, 2}, renumbered 0, 1
	// (m.Servers = [0 2]: new server i was old server m.Servers[i]).
	cl2, m, err := cl.RemoveServer(1)
	if err != nil {
		panic(err)
	}
	if err := p.ChangeCluster(cl2, m); err != nil {
		panic(err)
	}
	names = []string{"s0", "s2"}
	reward = func(l, r int) float64 { return []float64{0.2, 0.5}[r] - 0.1*float64(l) }
	fmt.Println("plays of job1->s2 kept:", p.Count(1))
	step(p, 5, []bool{true, true})
	// Output:
	// 0 [job1->s1 job1->s2]
	// 1 [job0->s0 job0->s1]
	// 2 [job0->s1 job1->s1]
	// 3 [job0->s0 job0->s1]
	// 4 [job0->s1 job1->s2]
	// plays of job1->s2 kept: 2
	// 5 [job0->s0 job1->s2]
}

// The package example: generate the paper's default instance (Table 2),
// build ESDP, and decide and learn for three slots.
func Example() {
	rng := rand.New(rand.NewPCG(1, 1))
	in, err := esdp.Generate(esdp.DefaultConfig(), rng)
	if err != nil {
		panic(err)
	}
	p, err := esdp.New(&in.Cluster, esdp.Settings{})
	if err != nil {
		panic(err)
	}
	arrived := make([]bool, in.NumPorts())
	z := make([]float64, in.NumEdges())
	for t := 0; t < 3; t++ {
		in.SampleArrivals(arrived, rng)
		in.SampleRewards(z, rng)
		x, _ := p.Decide(t, arrived)
		welfare := 0.0
		for e, on := range x {
			if on {
				welfare += z[e]
			}
		}
		fmt.Printf("slot %d: %d channels, welfare %.3f, exploring %v\n", t, len(slices.DeleteFunc(slices.Clone(x), func(b bool) bool { return !b })), welfare, p.Last().Explore)
		if err := p.Observe(t, esdp.Feedback{Chosen: x, Reward: z}); err != nil {
			panic(err)
		}
	}
	// Output:
	// slot 0: 1 channels, welfare 0.128, exploring true
	// slot 1: 1 channels, welfare 1.000, exploring true
	// slot 2: 1 channels, welfare 0.397, exploring true
}
