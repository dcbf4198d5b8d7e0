package baselines_test

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/ocorp"
)

// exampleObs: one 4-core machine, jobs A (d=2, p=3, 1 slot left), B (d=1,
// p=4 untouched) and C (d=3, p=1).
var (
	exampleMachines = []ocorp.Machine{{Cores: 4, Memory: 16}}
	exampleObs      = ocorp.Obs{Jobs: []ocorp.ActiveJob{
		{ID: 0, Job: ocorp.Job{Cores: 2, Memory: 4, Processing: 3}, Remaining: 2},
		{ID: 1, Job: ocorp.Job{Cores: 1, Memory: 2, Processing: 4}, Remaining: 4},
		{ID: 2, Job: ocorp.Job{Cores: 3, Memory: 8, Processing: 1}, Remaining: 3},
	}}
)

func show(p ocorp.OnlinePolicy) {
	d, err := p.Decide(0, exampleObs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s:", p.Name())
	for _, pl := range d.Placements {
		fmt.Printf(" job %d gets %d cores;", pl.Job, pl.Cores)
	}
	fmt.Println()
}

func ExampleNewSRPT() {
	p, _ := baselines.NewSRPT(exampleMachines, baselines.PrioritySettings{})
	show(p)
	// Output: SRPT: job 0 gets 2 cores; job 2 gets 2 cores;
}

func ExampleNewSRVF() {
	p, _ := baselines.NewSRVF(exampleMachines, baselines.PrioritySettings{})
	show(p)
	// Output: SRVF: job 0 gets 2 cores; job 2 gets 2 cores;
}

func ExampleNewSVF() {
	p, _ := baselines.NewSVF(exampleMachines, baselines.PrioritySettings{})
	show(p)
	// Output: SVF: job 2 gets 3 cores; job 1 gets 1 cores;
}

func ExampleNewSRF() {
	p, _ := baselines.NewSRF(exampleMachines, baselines.PrioritySettings{})
	show(p)
	// Output: SRF: job 0 gets 2 cores; job 1 gets 1 cores; job 2 gets 1 cores;
}

func ExampleNewTetris() {
	p, _ := baselines.NewTetris(exampleMachines, baselines.TetrisSettings{})
	show(p)
	// Output: Tetris: job 2 gets 3 cores; job 1 gets 1 cores;
}

// The server-aware SRPT on two 4-core servers with 16 and 4 memory, in
// SRPT order: job 0 (2 cores, memory 4) goes to server 0; job 2 (3
// cores, memory 8) fits only server 0, which has 2 cores left, so it
// waits; job 1 (1 core, memory 2) is backfilled on server 0.
func ExampleNewFirstFit() {
	ms := []ocorp.Machine{{Cores: 4, Memory: 16}, {Cores: 4, Memory: 4}}
	p, _ := baselines.NewFirstFit(ms, baselines.FirstFitSettings{Order: baselines.OrderSRPT})
	d, _ := p.Decide(0, exampleObs)
	fmt.Printf("%s:", p.Name())
	for _, pl := range d.Placements {
		fmt.Printf(" job %d gets %d cores on server %d;", pl.Job, pl.Cores, pl.Machine)
	}
	fmt.Println()
	// Output: FirstFit-SRPT: job 0 gets 2 cores on server 0; job 1 gets 1 cores on server 0;
}
