package baselines_test

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// esdpExample: ports 0 and 1; port 0 reaches servers 0 and 1, port 1
// reaches server 1; one resource type of capacity 2, unit demands; supply
// costs 0.3, 0.1, 0.2. Edges are (0,0), (0,1), (1,1).
func esdpExample() *esdp.Cluster {
	g, _ := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}})
	return &esdp.Cluster{Graph: g, K: 1, Demand: []int{1, 1, 1}, Capacity: []int{2}, Cost: []float64{0.3, 0.1, 0.2}}
}

// learned warm-starts a policy (Warm) with one slot of rewards 0.2, 0.3, 0.9 on every edge.
var learned = esdp.Feedback{Chosen: []bool{true, true, true}, Reward: []float64{0.2, 0.3, 0.9}}

func ExampleNewHSWF() {
	h, _ := baselines.NewHSWF(esdpExample(), baselines.HSWFSettings{})
	h.Warm(learned)
	// Port 1's estimated welfare 0.9 beats port 0's 0.2 + 0.3, so port 1
	// goes first, then port 0's better edge (0,1).
	x, _ := h.Decide(1, []bool{true, true})
	fmt.Println(x)
	// Output: [false true true]
}

func ExampleNewHSWFChannel() {
	rewards := esdp.Feedback{Chosen: []bool{true, true, true}, Reward: []float64{0.5, 0.5, 0.9}}
	h, _ := baselines.NewHSWFChannel(esdpExample(), baselines.HSWFChannelSettings{})
	h.Warm(rewards)
	p, _ := baselines.NewHSWF(esdpExample())
	p.Warm(rewards)
	// Channels one by one: (1,1) at 0.9, then (0,0) at 0.5 (tie with (0,1)
	// by index). HSWF ranks port 0 first (0.5 + 0.5 > 0.9) and fills it.
	x, _ := h.Decide(1, []bool{true, true})
	y, _ := p.Decide(1, []bool{true, true})
	fmt.Println(x, y)
	// Output: [true false true] [true true false]
}

func ExampleNewLCF() {
	c, _ := baselines.NewLCF(esdpExample(), baselines.LCFSettings{})
	x, _ := c.Decide(0, []bool{true, true})
	fmt.Println(x) // the two cheapest channels: costs 0.1 and 0.2
	// Output: [false true true]
}

func ExampleNewLWTF() {
	w, _ := baselines.NewLWTF(esdpExample(), baselines.LWTFSettings{})
	w.Warm(learned)
	x, _ := w.Decide(1, []bool{true, false}) // only port 0 has a job
	fmt.Println(x, w.Wait(0), w.Wait(1))
	// Output: [true true false] 0 0
}

func ExampleNewCUCB() {
	c, _ := baselines.NewCUCB(esdpExample(), baselines.CUCBSettings{})
	for t := 0; t < 3; t++ {
		x, _ := c.Decide(t, []bool{true, true})
		fmt.Println(t, x)
		c.Observe(t, esdp.Feedback{Chosen: x, Reward: learned.Reward})
	}
	// Output:
	// 0 [false true true]
	// 1 [true false true]
	// 2 [false true true]
}

func ExampleNewThompson() {
	th, _ := baselines.NewThompson(esdpExample(), baselines.ThompsonSettings{Seed: 1, Stream: 1})
	picks := make([]int, 3)
	for t := 0; t < 200; t++ {
		x, _ := th.Decide(t, []bool{true, true})
		for e, on := range x {
			if on {
				picks[e]++
			}
		}
		th.Observe(t, esdp.Feedback{Chosen: x, Reward: learned.Reward})
	}
	fmt.Println(picks) // (1,1) nearly always, (0,1) more often than (0,0)
	// Output: [44 159 197]
}

func ExampleNewGangHSWF() {
	// Two job types on two servers of 2 GPUs each (K = 1): job type 0 has
	// three 1-GPU workers, all needed; job type 1 two 1-GPU replicas, one
	// needed. Servers: 2 + 2 GPUs, so both cannot be served whole.
	g, _ := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 0}, {Left: 1, Right: 1}})
	m, _ := bipartite.NewGangModel(g, 1, []float64{2, 2}, []bipartite.GangJob{
		{Demand: []float64{1, 1, 1}},
		{Demand: []float64{1, 1}, Min: 1},
	})
	h, _ := baselines.NewGangHSWF(m, baselines.GangHSWFSettings{})
	// Job type 0 goes first (ties by index): its three workers take three
	// GPUs; job type 1 gets one replica on the last GPU, which is enough.
	x, _ := h.Decide(0, []bool{true, true})
	fmt.Println(x)
	// Output: [0 0 1 1 -1]
}

func ExampleNewGangLCF() {
	// Job type 0 needs 2 GPUs per worker, job type 1 one: LCF serves the
	// cheaper job type 1 first (unit cost 0.5 per GPU by default).
	g, _ := bipartite.NewGraph(2, 1, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}})
	m, _ := bipartite.NewGangModel(g, 1, []float64{2}, []bipartite.GangJob{
		{Demand: []float64{2}},
		{Demand: []float64{1}},
	})
	c, _ := baselines.NewGangLCF(m, baselines.GangLCFSettings{})
	x, _ := c.Decide(0, []bool{true, true})
	fmt.Println(x, c.Cost(0), c.Cost(1))
	// Output: [-1 0] 1 0.5
}

func ExampleNewGangLWTF() {
	// One server with one GPU, two job types of one 1-GPU component: LWTF
	// alternates, serving the job type that has waited longer.
	g, _ := bipartite.NewGraph(2, 1, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}})
	m, _ := bipartite.NewGangModel(g, 1, []float64{1}, []bipartite.GangJob{{Demand: []float64{1}}, {Demand: []float64{1}}})
	w, _ := baselines.NewGangLWTF(m, baselines.GangLWTFSettings{})
	for t := 0; t < 3; t++ {
		x, _ := w.Decide(t, []bool{true, true})
		fmt.Println(x)
	}
	// Output:
	// [0 -1]
	// [-1 0]
	// [0 -1]
}
