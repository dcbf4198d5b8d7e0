package main

import (
	"errors"
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/trace"
)

// runOnSocMax maps the busiest day of the trace with trace.OnSocMax (10
// sampled nodes x 24 hourly slots, core-hours) and runs OnSocMax,
// MAX-FIRST and EQUAL-SHARE against the offline optimum of P1.
func runOnSocMax(tr *trace.Trace, o options) (*familyReport, error) {
	return onSocMaxAt(tr, o, 1, "onsocmax")
}

// runOnSocMaxCongested is runOnSocMax with every node's capacity scaled by
// 0.1: the trace's busiest day uses a sixth of the sampled capacity, so the
// policies only differ under congestion.
func runOnSocMaxCongested(tr *trace.Trace, o options) (*familyReport, error) {
	return onSocMaxAt(tr, o, 0.1, "onsocmax-congested")
}

func onSocMaxAt(tr *trace.Trace, o options, scale float64, name string) (*familyReport, error) {
	inst, err := trace.OnSocMax(tr, trace.OnSocMaxSettings{Seed: o.Seed, CapacityScale: scale})
	if err != nil {
		return nil, err
	}
	in := inst.Instance
	pricing, err := in.Pricing(0)
	if err != nil {
		return nil, err
	}
	osm, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: pricing.Iota, V: pricing.V})
	if err != nil {
		return nil, err
	}
	mf, err := baselines.NewMaxFirst(in.Mesh, baselines.MaxFirstSettings{})
	if err != nil {
		return nil, err
	}
	es, err := baselines.NewEqualShare(in.Mesh, baselines.EqualShareSettings{})
	if err != nil {
		return nil, err
	}
	pols := []onsocmax.OnlinePolicy{osm, mf, es}
	opt, _, err := onsocmax.OfflineFlow(in)
	gap := 0.0
	if errors.Is(err, onsocmax.ErrUnsupported) {
		res, err2 := onsocmax.OfflineConcave(in, nil)
		if err2 != nil {
			return nil, err2
		}
		opt, err, gap = res.Lower, nil, res.Gap()
	}
	if err != nil {
		return nil, fmt.Errorf("offline optimum: %w", err)
	}
	work := 0.0
	for _, j := range in.Jobs {
		work += j.Rho
	}
	capTotal := 0.0
	for r := range in.Mesh.NumUnits() {
		capTotal += in.Mesh.Capacity[r]
	}
	r := &familyReport{Experiment: name, Params: map[string]any{"capacity_scale": scale, "nodes": in.Mesh.Nodes, "slots": in.Mesh.Slots, "jobs": len(in.Jobs),
		"day": inst.Day, "alpha": pricing.Alpha, "seed": o.Seed},
		head: []string{"policy", "social welfare", "served (core-h)", "OPT/policy"}}
	r.intro = []string{
		fmt.Sprintf("window %d (busiest day): %d jobs on %d sampled nodes x %d hourly slots; workload %.1f core-hours against capacity %.1f (node cores x %.1f);",
			inst.Day, len(in.Jobs), in.Mesh.Nodes, in.Mesh.Slots, work, capTotal, scale),
		fmt.Sprintf("linear utilities a ~ U[1,3], beta ~ U[0.1,0.5] (seed %d); competitive ratio bound alpha = %.4f.", o.Seed, pricing.Alpha),
	}
	res, err := onsocmax.Run(in, pols, onsocmax.RunSettings{})
	if err != nil {
		return nil, err
	}
	for _, out := range res.Series {
		r.Results = append(r.Results, result{out.Policy, out.Welfare, out.Welfare / float64(len(in.Jobs))})
		r.rows = append(r.rows, []string{out.Policy, ftoa(out.Welfare, 2), ftoa(out.Served, 1), ftoa(opt/out.Welfare, 4)})
	}
	r.Results = append(r.Results, result{"OPT (offline)", opt, opt / float64(len(in.Jobs))})
	label := "OPT (offline, exact)"
	if gap > 0 {
		label = fmt.Sprintf("OPT (offline, gap %.2g)", gap)
	}
	r.rows = append(r.rows, []string{label, ftoa(opt, 2), "", "1.0000"})
	return r, nil
}
