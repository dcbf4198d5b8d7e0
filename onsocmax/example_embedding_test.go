package onsocmax_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// Example_embedding drives OnSocMax from a scheduler's own loop: its own
// arrivals slot after slot past the mesh's 4 slots (the window rolls), a
// node that leaves (its reservations come back to be placed again), a
// restart that restores the saved usage levels, and a job whose value is
// above the declared bounds.
func Example_embedding() {
	// 3 nodes; the capacity of a slot repeats every W = 4 slots.
	mesh, _ := bipartite.NewMesh(3, 4, []float64{
		8, 8, 8, 8,
		8, 8, 8, 8,
		4, 4, 4, 4,
	})
	settings := onsocmax.Settings{Iota: 1, V: 4} // the operator's bounds of eq. (8)
	pol, err := onsocmax.New(mesh, settings)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The scheduler's own arrivals: job id, value a per unit of work,
	// workload, nodes, slots it may run (now .. now+span).
	arrivals := func(t int) (jobs []onsocmax.Job) {
		for k := range 2 {
			id, a := 10*t+k, 1.5+float64(k)
			if t == 4 && k == 1 {
				a = 9 // above V: rejected with a reason
			}
			n := pol.NumNodes() // nodes are numbered 0 .. n-1
			units, _ := pol.Units(nil, []int{k % n, (k + 1) % n}, t, t+2)
			j := onsocmax.Job{ID: id, Arrival: t, Deadline: t + 2, Rho: 10, Units: units}
			for range units {
				j.XBar = append(j.XBar, 3)
				j.Beta = append(j.Beta, 0.2)
				j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: a})
			}
			jobs = append(jobs, j)
		}
		return jobs
	}
	var saved []byte
	for t := range 6 {
		if t == 2 {
			// Node 1 leaves: build the changed mesh, collect what it
			// cancels, change the policy in place (node 2 becomes 1).
			mesh, mapping, _ := onsocmax.RemoveNode(pol.Mesh(), 1)
			cancelled, _ := pol.Reservations(nil, 1)
			if err := pol.ChangeCluster(mesh, mapping); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Printf("node 1 leaves: %d reservations cancelled, %d nodes left\n", len(cancelled), pol.NumNodes())
		}
		if t == 3 { // restart: save, rebuild on the current model, restore
			saved, _ = pol.MarshalBinary()
			current := pol.Mesh() // the 2 nodes left
			pol, _ = onsocmax.New(current, settings)
			if err := pol.UnmarshalBinary(saved); err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println("restarted from", len(saved), "bytes")
		}
		dec, err := pol.Decide(t, arrivals(t))
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, o := range dec.Outcomes {
			fmt.Printf("slot %d: job %d %v %.2f\n", t, o.Job, o.Reason, o.Served)
		}
		// dec is reused by the next call: copy what you keep.
	}
	// Output:
	// slot 0: job 0 Allocated 10.00
	// slot 0: job 1 Allocated 10.00
	// slot 1: job 10 Allocated 10.00
	// slot 1: job 11 Allocated 10.00
	// node 1 leaves: 6 reservations cancelled, 2 nodes left
	// slot 2: job 20 Allocated 9.83
	// slot 2: job 21 Allocated 8.24
	// restarted from 1054 bytes
	// slot 3: job 30 Allocated 5.61
	// slot 3: job 31 Allocated 4.45
	// slot 4: job 40 Allocated 5.61
	// slot 4: job 41 AboveBounds 0.00
	// slot 5: job 50 Allocated 7.78
	// slot 5: job 51 Allocated 6.74
}
