package ocorp_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/ocorp"
)

// Generate a few jobs, build OCORP on two machines and run three slots of
// a caller's loop: observe the arrived unfinished jobs, decide, do the work.
func Example() {
	cfg := ocorp.DefaultConfig()
	cfg.Jobs, cfg.Horizon = 6, 30 // six jobs in the first 30 s
	secs, _ := ocorp.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	jobs, _ := ocorp.Discretize(nil, secs, 10) // 10 s slots
	ms := []ocorp.Machine{{Cores: 16, Memory: 64}, {Cores: 8, Memory: 32}}
	p, err := ocorp.New(ms, ocorp.Settings{Fill: true})
	if err != nil {
		panic(err)
	}
	remaining := make([]int64, len(jobs))
	for j, jb := range jobs {
		remaining[j] = jb.Volume()
	}
	for t := range 3 {
		var obs ocorp.Obs
		for j, jb := range jobs {
			if jb.Arrival <= t && remaining[j] > 0 {
				obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: j, Job: jb, Remaining: remaining[j]})
			}
		}
		d, err := p.Decide(t, obs)
		if err != nil {
			panic(err)
		}
		fmt.Printf("slot %d: %d jobs waiting,", t, len(obs.Jobs))
		for _, pl := range d.Placements {
			fmt.Printf(" job %d: %d cores on machine %d;", pl.Job, pl.Cores, pl.Machine)
			remaining[pl.Job] -= min(remaining[pl.Job], int64(pl.Cores))
		}
		fmt.Println()
	}
	// Output:
	// slot 0: 2 jobs waiting, job 1: 2 cores on machine 0; job 0: 1 cores on machine 0;
	// slot 1: 3 jobs waiting, job 2: 4 cores on machine 0; job 1: 2 cores on machine 0; job 0: 1 cores on machine 0;
	// slot 2: 5 jobs waiting, job 2: 4 cores on machine 0; job 3: 4 cores on machine 0; job 5: 2 cores on machine 0; job 4: 2 cores on machine 0; job 0: 1 cores on machine 0;
}

// Example_embedding drives OCORP+M from a scheduler's own loop: its own
// arrivals and job IDs, a restart in the middle (the state is saved and
// restored into a fresh policy), and a machine that leaves, whose jobs the
// policy places elsewhere from the next slot.
func Example_embedding() {
	machines := []ocorp.Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 4, Memory: 8}}
	type job struct {
		spec      ocorp.Job
		remaining int64
	}
	live := map[int]*job{} // by the scheduler's own IDs
	arrive := func(t, id, cores, proc int) {
		live[id] = &job{ocorp.Job{Arrival: t, Cores: cores, Memory: cores, Processing: proc}, int64(cores * proc)}
	}
	observe := func() ocorp.Obs {
		var obs ocorp.Obs
		for _, id := range []int{1001, 1002, 1003, 1004, 1005} { // a fixed order: decisions are deterministic
			if j, ok := live[id]; ok {
				obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: id, Job: j.spec, Remaining: j.remaining})
			}
		}
		return obs
	}
	slot := func(p *ocorp.M, t int) {
		d, err := p.Decide(t, observe())
		if err != nil {
			panic(err)
		}
		fmt.Printf("t=%d:", t)
		for _, pl := range d.Placements { // pl.Job is our ID, pl.Machine an index into p.Machines()
			fmt.Printf(" %d->m%d(%d)", pl.Job, pl.Machine, pl.Cores)
			j := live[pl.Job]
			if j.remaining -= min(j.remaining, int64(pl.Cores)); j.remaining == 0 {
				delete(live, pl.Job)
			}
		}
		fmt.Println()
	}

	p, _ := ocorp.NewM(machines, ocorp.Settings{Fill: true})
	arrive(0, 1001, 4, 3)
	arrive(0, 1002, 8, 2)
	slot(p, 0)
	arrive(1, 1003, 2, 4)
	slot(p, 1)

	// Restart: save the learned state, build a fresh policy on the same
	// machines, restore, go on as if nothing happened.
	saved, _ := p.MarshalBinary()
	p, _ = ocorp.NewM(machines, ocorp.Settings{Fill: true})
	if err := p.UnmarshalBinary(saved); err != nil {
		panic(err)
	}
	arrive(2, 1004, 4, 2)
	slot(p, 2)

	// Machine 0 leaves: its jobs are preempted and requeued (they stay in
	// our observation); the machines after it move down one index.
	if err := p.RemoveMachine(0); err != nil {
		panic(err)
	}
	fmt.Println("machines now:", p.Machines())
	arrive(4, 1005, 1, 1)
	slot(p, 4) // slot 3 skipped: nothing ran in it
	slot(p, 5)
	fmt.Println("left:", len(live))
	// Output:
	// t=0: 1002->m0(8) 1001->m1(4)
	// t=1: 1002->m0(8) 1001->m1(4) 1003->m2(2)
	// t=2: 1004->m0(4) 1001->m0(4) 1003->m1(2)
	// machines now: [{4 8} {4 8}]
	// t=4: 1004->m0(4) 1003->m1(2) 1005->m1(1)
	// t=5: 1003->m0(2)
	// left: 0
}
