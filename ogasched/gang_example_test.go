package ogasched_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
)

// Example_gang drives OGASched-gang as a scheduler would: two servers, a
// two-component job (both components needed) and a one-component job;
// Decide places whole jobs or nothing, Check verifies it independently,
// Observe learns on the relaxation.
func Example_gang() {
	g := bipartite.Complete(2, 2)
	// K = 2 (CPU, GPU); server 0 has 4 CPU, server 1 has 4 CPU and 2 GPU.
	capacity := []float64{4, 0, 4, 2}
	jobs := []bipartite.GangJob{
		{Demand: []float64{2, 1, 2, 1}}, // two workers, 2 CPU + 1 GPU each
		{Demand: []float64{3, 0}},       // one CPU task
	}
	m, err := bipartite.NewGangModel(g, 2, capacity, jobs)
	if err != nil {
		fmt.Println(err)
		return
	}
	pol, err := ogasched.NewGang(m, ogasched.GangSettings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pol.Close()
	arrivals := [][]float64{{1, 1}, {1, 0}, {0, 1}}
	for t, x := range arrivals {
		d, err := pol.Decide(t, x)
		if err != nil {
			fmt.Println(err)
			return
		}
		chk, _ := m.Check([]bool{x[0] > 0, x[1] > 0}, d.Server)
		reward, _, _ := ogasched.GangReward(pol.Relaxation(), m, ogasched.GangMinComponents, x, d.Server)
		fmt.Printf("t=%d servers %v served %d violations %d reward %.0f\n", t, d.Server, chk.Served, chk.Violations, reward)
		if err := pol.Observe(t, x); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// t=0 servers [1 1 0] served 2 violations 0 reward 9
	// t=1 servers [1 1 -1] served 1 violations 0 reward 6
	// t=2 servers [-1 -1 0] served 1 violations 0 reward 3
}

// A server leaves while OGASched-gang runs: the model's edit method builds
// the changed model and its mapping, ChangeCluster moves the policy in
// place (its settings are kept), and a snapshot taken afterwards restores
// into NewGang on the changed model with pol.Settings().
func ExampleGangPolicy_ChangeCluster() {
	g := bipartite.Complete(2, 3)
	m, _ := bipartite.NewGangModel(g, 1, []float64{4, 4, 4}, []bipartite.GangJob{
		{Demand: []float64{2, 2}}, // two components, both needed
		{Demand: []float64{3}},
	})
	pol, _ := ogasched.NewGang(m, ogasched.GangSettings{Seed: 1})
	defer pol.Close()
	for t := range 3 {
		pol.Decide(t, []float64{1, 1})
		pol.Observe(t, []float64{1, 1})
	}
	m2, mp, err := m.RemoveServer(0)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := pol.ChangeCluster(m2, mp); err != nil {
		fmt.Println(err)
		return
	}
	d, _ := pol.Decide(3, []float64{1, 1})
	chk, _ := m2.Check([]bool{true, true}, d.Server)
	fmt.Println("servers", m2.NumServers(), "placement", d.Server, "violations", chk.Violations)

	saved, _ := pol.MarshalBinary()
	restored, _ := ogasched.NewGang(m2, pol.Settings())
	defer restored.Close()
	fmt.Println("restored:", restored.UnmarshalBinary(saved) == nil)
	// Output:
	// servers 2 placement [0 0 1] violations 0
	// restored: true
}
