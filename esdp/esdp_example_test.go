package esdp_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// Three channels, one resource type of capacity 3; channel demands 2, 1, 1.
// P4(s) maximises Sigma2.x subject to the capacity and Upsilon.x >= s.
func ExampleOracle_SolveBudgeted() {
	p := &esdp.Budgeted{
		K:         1,
		Demand:    []int{2, 1, 1},
		Capacity:  []int{3},
		Upsilon:   []int{4, 1, 2},
		Sigma2:    []float64{1, 5, 3},
		MaxBudget: 7,
	}
	r, err := esdp.NewOracle(esdp.OracleSettings{}).SolveBudgeted(p)
	if err != nil {
		panic(err)
	}
	for s, v := range r.Value {
		fmt.Printf("s=%d V=%.4f x=%v\n", s, v, r.Solution(nil, s))
	}
	fmt.Printf("s* = %d, s* + sqrt(V) = %.4f\n", r.Best, r.BestIndex)
	// Output:
	// s=0 V=8.0000 x=[false true true]
	// s=1 V=8.0000 x=[false true true]
	// s=2 V=8.0000 x=[false true true]
	// s=3 V=8.0000 x=[false true true]
	// s=4 V=6.0000 x=[true true false]
	// s=5 V=6.0000 x=[true true false]
	// s=6 V=4.0000 x=[true false true]
	// s=7 V=-Inf x=[]
	// s* = 6, s* + sqrt(V) = 8.0000
}

// Algorithm2 is the paper's Algorithm 2 as written; it agrees with the
// fast oracle bit for bit.
func ExampleAlgorithm2() {
	p := &esdp.Budgeted{K: 1, Demand: []int{2, 1, 1}, Capacity: []int{3},
		Upsilon: []int{4, 1, 2}, Sigma2: []float64{1, 5, 3}, MaxBudget: 7}
	ref, _ := esdp.Algorithm2(p, esdp.OracleSettings{})
	fast, _ := esdp.SolveBudgeted(p, esdp.OracleSettings{})
	same := true
	for s := range ref.Value {
		same = same && ref.Value[s] == fast.Value[s]
	}
	fmt.Println(ref.Best, fast.Best, same)
	// Output: 6 6 true
}

// The omniscient oracle (6): the plain knapsack with the true means.
func ExampleOracle_SolveKnapsack() {
	p := &esdp.Knapsack{K: 2, Demand: []int{1, 2, 2, 1, 1, 1}, Capacity: []int{3, 3},
		Value: []float64{0.9, 0.8, 0.5}}
	r, _ := esdp.NewOracle(esdp.OracleSettings{}).SolveKnapsack(p)
	fmt.Printf("%.4f %v\n", r.Objective, r.X)
	// Output: 1.7000 [true true false]
}

// ESDP on a two-port, two-server cluster: it first explores the unplayed
// channels, then plays by the index of P3(t).
func ExampleNew() {
	g, _ := bipartite.NewGraph(2, 2, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 1, Right: 1}})
	cl := &esdp.Cluster{Graph: g, K: 1, Demand: []int{1, 1, 1}, Capacity: []int{2}, Cost: []float64{0, 0, 0}}
	p, err := esdp.New(cl, esdp.Settings{})
	if err != nil {
		panic(err)
	}
	means := []float64{0.9, 0.2, 0.6}
	for t := 0; t < 4; t++ {
		x, _ := p.Decide(t, []bool{true, true})
		fmt.Println(t, x, p.Last().Explore)
		p.Observe(t, esdp.Feedback{Chosen: x, Reward: means})
	}
	// Output:
	// 0 [false true true] true
	// 1 [true false true] true
	// 2 [true false true] false
	// 3 [true true false] false
}

// Run simulates the paper's default instance (Table 2: capacities in
// [1, 2] like the demands) for every policy and reports the exact regret
// against the omniscient oracle.
func ExampleRun() {
	in, _ := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	p, _ := esdp.New(&in.Cluster, esdp.Settings{})
	res, err := esdp.Run(in, []esdp.OnlinePolicy{p}, esdp.RunSettings{T: 50, Seed: 1})
	if err != nil {
		panic(err)
	}
	s := res.Series[0]
	fmt.Printf("|E|=%d capacity=%v\n", in.NumEdges(), in.Capacity)
	fmt.Printf("%s: welfare %.4f, expected %.4f, oracle %.4f, regret %.4f\n",
		s.Name, s.Total, s.TotalExpected, res.TotalOptimal, s.TotalRegret)
	// Output:
	// |E|=35 capacity=[1 1 2]
	// ESDP: welfare 23.8420, expected 24.6957, oracle 34.8918, regret 10.1961
}

// Branch and bound solves the plain knapsack without a table, so demands
// and capacities may be any size; Status says whether optimality is proven.
func ExampleOracle_SolveKnapsack_branchBound() {
	p := &esdp.Knapsack{K: 2,
		Demand:   []int{3, 1 << 40, 2, 1 << 40, 2, 1 << 41, 1, 3},
		Capacity: []int{5, 1 << 41},
		Value:    []float64{0.9, 0.8, 0.7, 0.4}}
	o := esdp.NewOracle(esdp.OracleSettings{Knapsack: esdp.KnapsackBranchBound})
	r, err := o.SolveKnapsack(p)
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Status, r.Method, r.X, r.Objective)
	// Output: Optimal branch-and-bound [true true false false] 1.7000000000000002
}
