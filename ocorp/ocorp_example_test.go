package ocorp_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/msched/msched/ocorp"
)

// Two jobs on one 4-core machine: the fractional-flowtime weight (5), the
// Gamma of (27) and the long-term constraint (7).
func ExampleWeight() {
	j := ocorp.Job{Arrival: 0, Cores: 2, Processing: 3}
	// Slots are 0-based: slot 0 is the paper's slot 1.
	fmt.Printf("w(0) = %.4f, w(2) = %.4f\n", ocorp.Weight(j, 0, 2), ocorp.Weight(j, 2, 2))
	g, _ := ocorp.Gamma([]ocorp.Job{j, {Arrival: 2, Cores: 4, Processing: 1}}, []ocorp.Machine{{Cores: 4}})
	fmt.Printf("Gamma = %.4f, g_j at rate 1 = %.4f\n", g, ocorp.LongTerm(j, g, 1))
	// Output:
	// w(0) = 3.3333, w(2) = 6.0000
	// Gamma = 10.0000, g_j at rate 1 = -0.7000
}

// Example 1 of the paper: the fair scheduler's rates give job 3 a
// fractional flowtime of 7 1/6 (k = 1) against its exact flowtime 6.
func ExampleFractionalFlowtime() {
	y := []float64{1. / 3, 1. / 3, 1. / 3, 0.5, 0.5, 1}
	fmt.Printf("%.4f\n", ocorp.FractionalFlowtime(ocorp.Job{Cores: 1, Processing: 3}, y, 1))
	// Output: 7.1667
}

func ExampleReadJobsCSV() {
	in := "arrival,cores,memory,processing\n0,2,4,30\n15,1,2,600\n20,x,1,10\n"
	_, err := ocorp.ReadJobsCSV(strings.NewReader(in))
	fmt.Println(err)
	jobs, _ := ocorp.ReadJobsCSV(strings.NewReader(in[:strings.LastIndex(in[:len(in)-1], "\n")+1]))
	slots, _ := ocorp.Discretize(nil, jobs, 10)
	fmt.Println(jobs, slots)
	// Output:
	// ocorp: invalid value: line 4: cores = "x" is not an integer
	// [{0 2 4 30} {15 1 2 600}] [{0 2 4 3} {1 1 2 60}]
}

func ExampleReadJobsJSON() {
	in := `{"version":1,"jobs":[{"arrival":0,"cores":2,"memory":4,"processing":30}]}`
	jobs, err := ocorp.ReadJobsJSON(strings.NewReader(in))
	fmt.Println(jobs, err)
	_, err = ocorp.ReadJobsJSON(strings.NewReader(`{"version":1,"jobs":[{"arrival":0,"cores":0,"memory":0,"processing":1}]}`))
	fmt.Println(err)
	// Output:
	// [{0 2 4 30}] <nil>
	// job 0: ocorp: invalid value: cores 0
}

// obs1 is one slot with three unfinished jobs, used by the policy examples.
var obs1 = ocorp.Obs{Jobs: []ocorp.ActiveJob{
	{ID: 0, Job: ocorp.Job{Arrival: 0, Cores: 2, Memory: 6, Processing: 4}, Remaining: 8},
	{ID: 1, Job: ocorp.Job{Arrival: 0, Cores: 3, Memory: 6, Processing: 1}, Remaining: 3},
	{ID: 2, Job: ocorp.Job{Arrival: 1, Cores: 1, Memory: 2, Processing: 6}, Remaining: 6},
}}

func show(d ocorp.Decision) {
	for _, p := range d.Placements {
		fmt.Printf(" job %d: %d cores on machine %d;", p.Job, p.Cores, p.Machine)
	}
	fmt.Println()
}

// OCORP on a 4-core and a 2-core machine, CPU only, with
// lambda_j = 20 in a job's first slot: in slot 1 (the paper's slot 2)
// every coefficient w_j - lambda_j is negative, the jobs take their cores
// in omega order (job 2, 0, 1) and are packed largest first; the update
// (10) with mu = (t+1)^2.5 lowers lambda by mu (1 - p_j/(Gamma - a_j)) for
// each served job (job 1 reaches 0 in slot 2, so it will wait in slot 3).
func ExampleNew() {
	ms := []ocorp.Machine{{Cores: 4}, {Cores: 2}}
	p, _ := ocorp.New(ms, ocorp.Settings{Gamma: 20, InitLambda: 20})
	cpu := ocorp.Obs{Jobs: append([]ocorp.ActiveJob(nil), obs1.Jobs...)}
	for k := range cpu.Jobs {
		cpu.Jobs[k].Memory = 0
	}
	for t := 1; t <= 2; t++ {
		d, _ := p.Decide(t, cpu)
		fmt.Printf("slot %d:", t)
		show(d)
		fmt.Printf("  lambda = %.4f %.4f %.4f\n", p.Lambda(0), p.Lambda(1), p.Lambda(2))
	}
	// Output:
	// slot 1: job 1: 3 cores on machine 0; job 2: 1 cores on machine 0; job 0: 2 cores on machine 1;
	//   lambda = 15.4745 14.6260 16.1295
	// slot 2: job 1: 3 cores on machine 0; job 2: 1 cores on machine 0; job 0: 2 cores on machine 1;
	//   lambda = 3.0038 0.0000 5.4637
}

// OCORP+M with memory: the x step packs ignoring memory, the knapsack on
// each machine keeps the most valuable jobs that fit, and freed cores go
// to jobs that fit elsewhere.
func ExampleNewM() {
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}, {Cores: 2, Memory: 4}}
	p, _ := ocorp.NewM(ms, ocorp.Settings{Gamma: 20, InitLambda: 1000})
	d, _ := p.Decide(1, obs1)
	show(d)
	// Output: job 1: 3 cores on machine 0; job 2: 1 cores on machine 0;
}

// OCORP+ with switching weight alpha = 1 and normalised costs: the QP
// splits jobs 0 and 1 over both machines in slot 1, and in slot 2 the
// switching cost keeps every job where it was.
func ExampleNewPlus() {
	ms := []ocorp.Machine{{Cores: 4}, {Cores: 2}}
	p, _ := ocorp.NewPlus(ms, ocorp.PlusSettings{Base: ocorp.Settings{Gamma: 20, InitLambda: 1000}, Alpha: 1, Normalize: true})
	cpu := ocorp.Obs{Jobs: append([]ocorp.ActiveJob(nil), obs1.Jobs...)}
	for k := range cpu.Jobs {
		cpu.Jobs[k].Memory = 0
	}
	for t := 1; t <= 2; t++ {
		d, _ := p.Decide(t, cpu)
		fmt.Printf("slot %d (%v after %d sweeps):", t, p.LastQP().Status, p.LastQP().Sweeps)
		show(d)
	}
	// Output:
	// slot 1 (Success after 1 sweeps): job 2: 1 cores on machine 0; job 0: 1 cores on machine 0; job 0: 1 cores on machine 1; job 1: 2 cores on machine 0; job 1: 1 cores on machine 1;
	// slot 2 (Success after 1 sweeps): job 0: 1 cores on machine 0; job 0: 1 cores on machine 1; job 1: 2 cores on machine 0; job 1: 1 cores on machine 1; job 2: 1 cores on machine 0;
}

// The transient scheduler: smallest volume p_j d_j first (job 1, then
// job 2, then job 0), min(1, p_j(t)) of a rate each (Lemma 2 with min).
func ExampleNewTransient() {
	p, _ := ocorp.NewTransient([]ocorp.Machine{{Cores: 4, Memory: 16}, {Cores: 2, Memory: 8}}, ocorp.PrioritySettings{})
	d, _ := p.Decide(1, obs1)
	show(d)
	// Output: job 1: 3 cores on machine 0; job 2: 1 cores on machine 0; job 0: 2 cores on machine 1;
}

func ExampleKnapsackDP() {
	var ks ocorp.KnapsackDP
	z := make([]bool, 4)
	v := ks.Solve(z, []float64{6, 10, 12, 1}, []int{1, 2, 3, 0}, 5)
	fmt.Println(v, z, ks.Exact)
	// Output: 23 [false true true true] true
}

// A 2-job, 2-machine switching QP: job 0 ran on machine 0 last slot.
func ExampleQPSolver() {
	q := &ocorp.SwitchQP{
		Cost: []float64{-1, -2}, Demand: []float64{2, 2}, Bound: []float64{1, 1},
		Capacity: []float64{2, 2}, Prev: []float64{1, 0, 0, 0}, Alpha: 1,
	}
	var qs ocorp.QPSolver
	var res ocorp.QPResult
	qs.Solve(&res, q, ocorp.QPSettings{})
	fmt.Printf("%v x = [%.4f %.4f; %.4f %.4f] nu = [%.4f %.4f]\n", res.Status, res.X[0], res.X[1], res.X[2], res.X[3], res.Nu[0], res.Nu[1])
	// Output: Success x = [0.7500 0.2500; 0.2500 0.7500] nu = [0.5000 0.0000]
}

func ExamplePacker() {
	pk, _ := ocorp.NewPacker([]ocorp.Machine{{Cores: 4}, {Cores: 3}})
	jobs := []ocorp.ActiveJob{
		{ID: 0, Job: ocorp.Job{Cores: 3, Processing: 1}, Remaining: 3},
		{ID: 1, Job: ocorp.Job{Cores: 2, Processing: 1}, Remaining: 2},
		{ID: 2, Job: ocorp.Job{Cores: 2, Processing: 1}, Remaining: 2},
	}
	_ = pk.Reset(jobs)
	pk.Pack([]int{0, 1, 2}, []int{3, 2, 2}, false)
	fmt.Println(pk.Placements())
	// Output: [{0 0 3 true} {1 1 2 true} {2 0 1 true} {2 1 1 true}]
}

// Run on a generated workload: every decision is checked against
// (4b)-(4f); the result has per-job and per-slot metrics.
func ExampleRun() {
	cfg := ocorp.DefaultConfig()
	cfg.Jobs, cfg.Horizon = 200, 3600
	sec, _ := ocorp.Generate(cfg, rand.New(rand.NewPCG(1, 1)))
	jobs, _ := ocorp.Discretize(nil, sec, 10)
	ms := ocorp.Cluster(2)
	m, _ := ocorp.NewM(ms, ocorp.Settings{})
	svf, _ := ocorp.NewTransient(ms, ocorp.PrioritySettings{})
	res, err := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, []ocorp.OnlinePolicy{m, svf}, ocorp.RunSettings{Workers: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Series {
		fmt.Printf("%s: l2 exact %.1f fractional %.1f bound %.1f makespan %d preemptions %d\n",
			r.Policy, r.ExactLk, r.FractionalLk, r.LowerBoundLk, r.Makespan, r.TotalPreemptions)
	}
	// Output:
	// OCORP+M: l2 exact 5350.4 fractional 4089.5 bound 2663.5 makespan 4509 preemptions 7365
	// Transient-SVF: l2 exact 2663.5 fractional 3076.2 bound 2663.5 makespan 2265 preemptions 0
}

func ExampleRunMapReduce() {
	jobs := []ocorp.MapReduceJob{
		{Arrival: 0, MapTasks: 4, MapCores: 1, MapTime: 2, ReduceTasks: 1, ReduceCores: 2, ReduceTime: 3},
		{Arrival: 1, MapTasks: 2, MapCores: 2, MapTime: 1, ReduceTasks: 2, ReduceCores: 1, ReduceTime: 1},
	}
	p, _ := ocorp.NewTransient([]ocorp.Machine{{Cores: 4}}, ocorp.PrioritySettings{})
	r, _ := ocorp.RunMapReduce(jobs, []ocorp.Machine{{Cores: 4}}, p, ocorp.RunSettings{})
	fmt.Println(r.JobFlowtime, r.LowerBound)
	// Output: [7 2] [5 2]
}

func ExampleTheoryStep() {
	s, _ := ocorp.NewTheoryStep(1000, 2, 0.5)
	fmt.Printf("%.4f %.4f\n", s.Mu(0), ocorp.ExperimentStep{K: 2}.Mu(3))
	// Output: 31622.7766 32.0000
}

func ExampleNewChecker() {
	ms := []ocorp.Machine{{Cores: 2, Memory: 4}}
	c, _ := ocorp.NewChecker(ms)
	fmt.Println(c.Check(obs1, ocorp.Decision{Placements: []ocorp.Placement{{Job: 1, Machine: 0, Cores: 3, Admit: true}}}))
	// Output: ocorp: infeasible decision: (4b) machine 0 uses 3 cores > C_i = 2
}

// ExampleUnfitError shows a scheduler loop that drops a job whose memory
// fits no machine instead of waiting for it forever.
func ExampleUnfitError() {
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}}
	pol, _ := ocorp.New(ms, ocorp.Settings{Fill: true})
	obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{
		{ID: 1 << 40, Job: ocorp.Job{Cores: 2, Memory: 4, Processing: 1}, Remaining: 2},
		{ID: -3, Job: ocorp.Job{Cores: 1, Memory: 16, Processing: 1}, Remaining: 1},
	}}
	d, err := pol.Decide(1, obs)
	var unfit *ocorp.UnfitError
	if errors.As(err, &unfit) {
		fmt.Println("dropping job", unfit.ID, "memory", unfit.Memory, "max", unfit.MaxMemory)
		obs.Jobs = append(obs.Jobs[:unfit.Index], obs.Jobs[unfit.Index+1:]...)
		d, err = pol.Decide(1, obs)
	}
	fmt.Println(d.Placements, err, pol.Live())
	// Output:
	// dropping job -3 memory 16 max 8
	// [{1099511627776 0 2 true}] <nil> 1
}

// ExampleTestableConfig draws the busier workload on which the paper's
// claimed reductions can be tested and compares SVF with the lower bound.
func ExampleTestableConfig() {
	ms := ocorp.Cluster(3)
	cfg := ocorp.TestableConfig(400, ocorp.TotalCores(ms))
	secs, _ := ocorp.Generate(cfg, rand.New(rand.NewPCG(1, 4)))
	jobs, _ := ocorp.Discretize(nil, secs, 10)
	svf, _ := ocorp.NewTransient(ms, ocorp.PrioritySettings{})
	res, _ := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, []ocorp.OnlinePolicy{svf}, ocorp.RunSettings{NoSeries: true})
	r := res.Series[0]
	fmt.Printf("%d jobs, %d bursts, SVF l2 flowtime %.2fx the lower bound\n", len(jobs), cfg.Bursts, r.ExactLk/r.LowerBoundLk)
	// Output:
	// 400 jobs, 4 bursts, SVF l2 flowtime 2.47x the lower bound
}

// FirstFit on the machines of ExamplePacker: job 0 (3 cores) whole on the
// 4-core machine, job 1 (2 cores) whole on the 3-core one, job 2 waits
// (1 core left on each machine).
func ExamplePacker_FirstFit() {
	pk, _ := ocorp.NewPacker([]ocorp.Machine{{Cores: 4}, {Cores: 3}})
	jobs := []ocorp.ActiveJob{
		{ID: 0, Job: ocorp.Job{Cores: 3, Processing: 1}, Remaining: 3},
		{ID: 1, Job: ocorp.Job{Cores: 2, Processing: 1}, Remaining: 2},
		{ID: 2, Job: ocorp.Job{Cores: 2, Processing: 1}, Remaining: 2},
	}
	_ = pk.Reset(jobs)
	pk.FirstFit([]int{0, 1, 2}, []int{3, 2, 2})
	fmt.Println(pk.Placements())
	// Output: [{0 0 3 true} {1 1 2 true}]
}

// OCORP+M with the server-aware packing on ExampleNewM's slot: in omega
// order (jobs 2, 0, 1) each job goes whole to the first machine with its
// cores and memory free; job 1 (3 cores, memory 6) then fits nowhere and
// waits. The paper's packing (ExampleNewM) runs jobs 1 and 2 instead.
func ExampleNewM_firstFit() {
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}, {Cores: 2, Memory: 4}}
	p, _ := ocorp.NewM(ms, ocorp.Settings{Gamma: 20, InitLambda: 1000, Packing: ocorp.PackFirstFit})
	d, _ := p.Decide(1, obs1)
	show(d)
	// Output: job 2: 1 cores on machine 0; job 0: 2 cores on machine 0;
}
