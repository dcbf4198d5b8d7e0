package main

import (
	"fmt"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/trace"
)

// runESDP maps the trace with trace.ESDP (8 most frequent shapes, 40
// sampled servers, 4 servers per type, arrival rates from creation times)
// and runs ESDP against HSWF, LCF, LWTF, CUCB and Thompson sampling for
// T = 2000 slots with exact regret against the omniscient oracle.
func runESDP(tr *trace.Trace, o options) (*familyReport, error) {
	inst, err := trace.ESDP(tr, trace.ESDPSettings{Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	in := inst.Instance
	cl := &in.Cluster
	e, err := esdp.New(cl, esdp.Settings{})
	if err != nil {
		return nil, err
	}
	h, err := baselines.NewHSWF(cl, baselines.HSWFSettings{})
	if err != nil {
		return nil, err
	}
	l, err := baselines.NewLCF(cl, baselines.LCFSettings{})
	if err != nil {
		return nil, err
	}
	w, err := baselines.NewLWTF(cl, baselines.LWTFSettings{})
	if err != nil {
		return nil, err
	}
	c, err := baselines.NewCUCB(cl, baselines.CUCBSettings{})
	if err != nil {
		return nil, err
	}
	th, err := baselines.NewThompson(cl, baselines.ThompsonSettings{Seed: o.Seed, Stream: 2})
	if err != nil {
		return nil, err
	}
	const T = 2000
	res, err := esdp.Run(in, []esdp.OnlinePolicy{e, h, l, w, c, th}, esdp.RunSettings{T: T, Seed: o.Seed, Workers: o.Workers})
	if err != nil {
		return nil, err
	}
	r := &familyReport{Experiment: "esdp", Params: map[string]any{"ports": in.NumPorts(), "servers": in.Graph.NumRight(), "edges": in.NumEdges(),
		"K": in.K, "capacity": in.Capacity, "arrival": in.Arrival, "T": T, "seed": o.Seed},
		head:   []string{"policy", "accumulated welfare", "expected", "ESDP/policy", "cumulative regret"},
		series: map[string][]float64{}, ylabel: "cumulative regret"}
	r.intro = []string{
		fmt.Sprintf("%d job types x %d sampled servers, %d channels, K = 3 demand levels, capacities %v, T = %d;",
			in.NumPorts(), in.Graph.NumRight(), in.NumEdges(), in.Capacity, T),
		fmt.Sprintf("arrival probabilities from the trace %v; valuations and costs drawn as in Table 2 (seed %d).", fmtProbs(in.Arrival), o.Seed),
		fmt.Sprintf("omniscient oracle: expected welfare %.2f", res.TotalOptimal),
	}
	ref := res.Series[0].Total
	for _, s := range res.Series {
		r.Results = append(r.Results, result{s.Name, s.Total, s.Total / T})
		r.rows = append(r.rows, []string{s.Name, ftoa(s.Total, 2), ftoa(s.TotalExpected, 2), ftoa(ref/s.Total, 4), ftoa(s.TotalRegret, 2)})
		cum := make([]float64, T)
		acc := 0.0
		for t, v := range s.Regret {
			acc += v
			cum[t] = acc
		}
		r.series[s.Name] = cum
		r.order = append(r.order, s.Name)
	}
	return r, nil
}

func fmtProbs(p []float64) string {
	s := "["
	for i, v := range p {
		if i > 0 {
			s += " "
		}
		s += ftoa(v, 2)
	}
	return s + "]"
}
