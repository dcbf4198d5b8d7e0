package main

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/trace"
)

// runOGASched maps the trace with trace.OGASched (10 most frequent pod
// shapes as ports, 128 sampled nodes, 2000 slots, Table II utilities) and
// runs OGASched with the theory step (53) against the four baselines
// (fractional BINPACKING and SPREADING), with y* as the reference row.
func runOGASched(tr *trace.Trace, o options) (*familyReport, error) {
	opt := trace.OGASchedSettings{Seed: o.Seed}
	inst, err := trace.OGASched(tr, opt)
	if err != nil {
		return nil, err
	}
	p := inst.Problem
	T := len(inst.Arrivals.Arrivals)
	// Default step: the theory step (53) for this instance and horizon.
	oga, err := ogasched.New(p, ogasched.Settings{Workers: max(1, o.Workers), Horizon: T})
	if err != nil {
		return nil, err
	}
	defer oga.Close()
	pols := []ogasched.OnlinePolicy{oga}
	for _, name := range []string{"DRF", "FAIRNESS", "BINPACKING", "SPREADING"} {
		b, err := baselines.NewOGASchedBaseline(name, p)
		if err != nil {
			return nil, err
		}
		pols = append(pols, b)
	}
	res, err := ogasched.Run(p, inst.Arrivals, pols, ogasched.RunSettings{Workers: o.Workers, CheckTol: 1e-9})
	if err != nil {
		return nil, err
	}
	series := res.Series
	r := &familyReport{Experiment: "ogasched", Params: map[string]any{"ports": p.NumPorts(), "nodes": p.NumNodes(), "K": p.K,
		"T": T, "edges": p.Graph.NumEdges(), "slot_seconds": inst.SlotSeconds, "pods_covered": inst.Covered, "seed": o.Seed},
		head:   []string{"policy", "cumulative reward", "average reward", "OGASched/policy"},
		series: map[string][]float64{}, ylabel: "cumulative reward"}
	r.intro = []string{
		fmt.Sprintf("%d job types (pod shapes) x %d sampled nodes, %d edges (fit and GPU model), K = 3 (cores, 4 GiB, GPUs), T = %d slots of %.0f s;",
			p.NumPorts(), p.NumNodes(), p.Graph.NumEdges(), T, inst.SlotSeconds),
		fmt.Sprintf("the types cover %d of %d pods; utilities and beta drawn as in Table II (seed %d).", inst.Covered, inst.Total, o.Seed),
		"OGASched decides before it sees the slot's arrivals; the baselines see them first.",
	}
	// y* of (10) in hindsight, the regret's comparator (ogasched.BestFixed).
	best, err := ogasched.BestFixed(p, inst.Arrivals, ogasched.BestFixedSettings{Tol: 1e-6})
	if err != nil {
		return nil, err
	}
	r.intro = append(r.intro, fmt.Sprintf("Best fixed allocation y* in hindsight (ogasched.BestFixed, relative gap %.0e): %s per slot.",
		best.Gap(), ftoa(best.Value/float64(T), 4)))
	og := series[0].Total
	for _, s := range series {
		r.Results = append(r.Results, result{s.Name, s.Total, s.Total / float64(T)})
		r.rows = append(r.rows, []string{s.Name, ftoa(s.Total, 2), ftoa(s.Total/float64(T), 4), ftoa(og/s.Total, 4)})
		cum := make([]float64, T)
		c := 0.0
		for t, v := range s.Reward {
			c += v
			cum[t] = c
		}
		r.series[s.Name] = cum
		r.order = append(r.order, s.Name)
	}
	r.Results = append(r.Results, result{"best fixed y*", best.Value, best.Value / float64(T)})
	r.rows = append(r.rows, []string{"best fixed y* (hindsight)", ftoa(best.Value, 2), ftoa(best.Value/float64(T), 4), ftoa(og/best.Value, 4)})
	return r, nil
}
