package main

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/examples/internal/exrun"
	"github.com/msched/msched/ocorp"
	"github.com/msched/msched/trace"
)

// ocorpMachines is the number of nodes sampled for the OCORP run: the
// trace's pods keep about 200 cores busy on average, so a handful of
// nodes gives the moderate-to-heavy load of the paper's experiments.
const ocorpMachines = 8

// runOCORP maps the trace with trace.OCORP (10-minute slots, every
// scheduled pod, ocorpMachines sampled nodes) and runs OCORP+M (cores and
// memory) and its work-conserving -fill variant against SRPT, SRVF, SVF,
// SRF and Tetris, and OCORP (and -fill) on the
// CPU-only projection of the same jobs.
func runOCORP(tr *trace.Trace, o options) (*familyReport, error) {
	inst, err := trace.OCORP(tr, trace.OCORPSettings{Machines: ocorpMachines, Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	ms, jobs := inst.Machines, inst.Jobs
	m2, err := ocorp.NewM(ms, ocorp.Settings{})
	if err != nil {
		return nil, err
	}
	m2f, err := ocorp.NewM(ms, ocorp.Settings{Fill: true})
	if err != nil {
		return nil, err
	}
	pols2 := append([]ocorp.OnlinePolicy{m2, m2f}, ocorpBaselines(ms)...)
	res2, err := exrun.OCORP(jobs, ms, pols2, ocorp.RunSettings{}, o.Workers)
	if err != nil {
		return nil, fmt.Errorf("2-D: %w", err)
	}
	m1, err := ocorp.New(ms, ocorp.Settings{})
	if err != nil {
		return nil, err
	}
	m1f, err := ocorp.New(ms, ocorp.Settings{Fill: true})
	if err != nil {
		return nil, err
	}
	cpu := ocorp.CPUOnly(jobs)
	pols1 := append([]ocorp.OnlinePolicy{m1, m1f}, ocorpBaselines(ms)...)
	res1, err := exrun.OCORP(cpu, ms, pols1, ocorp.RunSettings{}, o.Workers)
	if err != nil {
		return nil, fmt.Errorf("1-D: %w", err)
	}
	cores := 0
	for _, m := range ms {
		cores += m.Cores
	}
	r := &familyReport{Experiment: "ocorp", Params: map[string]any{"jobs": len(jobs), "machines": len(ms), "cores": cores,
		"slot_seconds": 600, "skipped_unscheduled": inst.Skipped, "seed": o.Seed},
		head:   []string{"setting", "policy", "l2 flowtime", "l2 / lower bound", "fractional l2", "makespan", "mean wait", "max wait", "preemptions", "migrations", "OCORP reduction"},
		series: map[string][]float64{}, ylabel: "unfinished volume (core-slots)"}
	r.intro = []string{
		fmt.Sprintf("%d scheduled pods (%d never scheduled and %d too large for every sampled node skipped) as jobs on %d sampled nodes (%d cores), 10-minute slots; lower bound on l2 flowtime %.0f.",
			len(jobs), inst.Skipped, inst.Unfit, len(ms), cores, res2[0].LowerBoundLk),
		"2-D: cores and memory (4 GiB units), OCORP+M; 1-D: cores only, OCORP. -fill: work-conserving variant (idle cores go to the remaining jobs).",
		"Reduction = 1 - OCORP/policy in l2 flowtime (the paper's policy, not -fill).",
	}
	add := func(setting string, rs []*ocorp.Series) {
		ref := rs[0].ExactLk
		for _, x := range rs {
			mw, xw := 0.0, 0
			for _, w := range x.Waiting {
				mw += float64(w)
				xw = max(xw, w)
			}
			mw /= float64(len(x.Waiting))
			name := setting + " " + x.Policy
			r.Results = append(r.Results, result{name, x.ExactLk, mw})
			r.rows = append(r.rows, []string{setting, x.Policy, ftoa(x.ExactLk, 0), ftoa(x.ExactLk/x.LowerBoundLk, 3), ftoa(x.FractionalLk, 0), fmt.Sprint(x.Makespan),
				ftoa(mw, 1), fmt.Sprint(xw), fmt.Sprint(x.TotalPreemptions), fmt.Sprint(x.TotalMigrations), ftoa(100*(1-ref/x.ExactLk), 1) + "%"})
			if len(x.Unfinished) > 0 {
				u := make([]float64, len(x.Unfinished))
				for t, v := range x.Unfinished {
					u[t] = float64(v)
				}
				r.series[name] = u
				r.order = append(r.order, name)
			}
		}
	}
	add("2-D", res2)
	add("1-D", res1)
	// The series must have one length for the CSV: pad to the longest.
	n := 0
	for _, s := range r.series {
		n = max(n, len(s))
	}
	for k, s := range r.series {
		for len(s) < n {
			s = append(s, 0)
		}
		r.series[k] = s
	}
	return r, nil
}

func ocorpBaselines(ms []ocorp.Machine) []ocorp.OnlinePolicy {
	srpt, _ := baselines.NewSRPT(ms, baselines.PrioritySettings{})
	srvf, _ := baselines.NewSRVF(ms, baselines.PrioritySettings{})
	svf, _ := baselines.NewSVF(ms, baselines.PrioritySettings{})
	srf, _ := baselines.NewSRF(ms, baselines.PrioritySettings{})
	tet, _ := baselines.NewTetris(ms, baselines.TetrisSettings{})
	return []ocorp.OnlinePolicy{srpt, srvf, svf, srf, tet}
}
