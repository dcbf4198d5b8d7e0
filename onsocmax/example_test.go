package onsocmax_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// Example draws a day of paper 001's setup, builds OnSocMax with the
// bounds of eq. (8) taken from the instance, and decides its first three
// slots.
func Example() {
	in, _ := onsocmax.Generate(onsocmax.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	iota, v, _ := in.MarginalBounds(0)
	pol, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: iota, V: v})
	if err != nil {
		fmt.Println(err)
		return
	}
	next := 0
	for t := range 3 {
		lo := next
		for next < len(in.Jobs) && in.Jobs[next].Arrival == t {
			next++
		}
		dec, err := pol.Decide(t, in.Jobs[lo:next])
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, o := range dec.Outcomes {
			fmt.Printf("slot %d: job %d %v %.2f\n", t, o.Job, o.Reason, o.Served)
		}
	}
	// Output:
	// slot 0: job 0 Allocated 17.66
	// slot 2: job 1 Allocated 21.92
	// slot 2: job 2 Allocated 21.87
	// slot 2: job 3 Allocated 18.39
	// slot 2: job 4 Allocated 18.27
}

// ExampleSettings_Validate: every invalid field is named at once.
func ExampleSettings_Validate() {
	err := onsocmax.Settings{Iota: 2, V: 1, Solver: 7}.Validate()
	fmt.Println(err)
	// Output:
	// onsocmax: invalid settings: Settings.Iota = 2, Settings.V = 1: onsocmax: invalid marginal-welfare bounds: v = 1, want finite v >= iota = 2
	// onsocmax: invalid settings: Settings.Solver = 7
}

// ExampleWindowSlot: on a window of W = 4 slots, a job arriving at slot 9
// names node 2's slot 11 as unit 2*4 + 11%4 = 11.
func ExampleWindowSlot() {
	node, slot := onsocmax.WindowSlot(11, 9, 4)
	fmt.Println(node, slot)
	// Output:
	// 2 11
}

// ExamplePolicy_ChangeCluster: node 0 leaves (its reservations in the
// slots after the current one come back, to be placed again) and a node
// joins; the edit functions build the changed mesh and its Mapping, and
// the policy changes in place.
func ExamplePolicy_ChangeCluster() {
	mesh, _ := bipartite.NewMesh(2, 3, []float64{5, 5, 5, 5, 5, 5})
	pol, _ := onsocmax.New(mesh, onsocmax.Settings{Iota: 1, V: 3})
	units, _ := pol.Units(nil, []int{0, 1}, 0, 2)
	j := onsocmax.Job{ID: 42, Deadline: 2, Rho: 12, Units: units}
	for range units {
		j.XBar = append(j.XBar, 2)
		j.Beta = append(j.Beta, 0)
		j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 2})
	}
	pol.Decide(0, []onsocmax.Job{j})

	smaller, m, _ := onsocmax.RemoveNode(pol.Mesh(), 0)
	cancelled, _ := pol.Reservations(nil, 0)
	if err := pol.ChangeCluster(smaller, m); err != nil {
		fmt.Println(err)
		return
	}
	for _, a := range cancelled {
		fmt.Printf("job %d: %.0f on node %d slot %d\n", a.Job, a.X, a.Node, a.Slot)
	}
	fmt.Println("mapping", m.Nodes, "usage", pol.Usage())

	larger, m, _ := onsocmax.AddNode(pol.Mesh(), []float64{8, 8, 8})
	if err := pol.ChangeCluster(larger, m); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("mapping", m.Nodes, "usage", pol.Usage())
	// Output:
	// job 42: 2 on node 0 slot 1
	// job 42: 2 on node 0 slot 2
	// mapping [1] usage [2 2 2]
	// mapping [0 -1] usage [2 2 2 0 0 0]
}

// ExampleStatus_Err: only the early stops are errors.
func ExampleStatus_Err() {
	for _, s := range []onsocmax.Status{onsocmax.NotTerminated, onsocmax.Success, onsocmax.IterationLimit} {
		fmt.Println(s, s.Err())
	}
	// Output:
	// NotTerminated <nil>
	// Success <nil>
	// IterationLimit onsocmax: iteration limit reached: status IterationLimit
}

// ExampleConfig_MarginalBounds: the bounds of eq. (8) that every job of a
// generator's configuration satisfies, from its documented ranges alone.
// The zero Settings take those of the paper's three utilities.
func ExampleConfig_MarginalBounds() {
	c := onsocmax.DefaultConfig() // linear utilities only
	iota, v, _ := c.MarginalBounds(0)
	fmt.Printf("linear: iota %.4f, v %.4f\n", iota, v)
	mesh, _ := bipartite.NewMesh(1, 1, []float64{20})
	pol, _ := onsocmax.New(mesh, onsocmax.Settings{})
	pr := pol.Pricing()
	fmt.Printf("Settings{}: iota %.4f, v %.4f, alpha %.2f\n", pr.Iota, pr.V, pr.Alpha)
	// Output:
	// linear: iota 1.0031, v 3.0625
	// Settings{}: iota 0.0746, v 15.0625, alpha 6.65
}
