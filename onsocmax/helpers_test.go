package onsocmax

import "github.com/msched/msched/bipartite"

func newMeshOne(c float64) (*bipartite.Mesh, error) { return bipartite.NewMesh(1, 1, []float64{c}) }

// newPolicyP is New with the bounds of pr (tests written for the former
// NewPolicy(mesh, pricing, *settings)).
func newPolicyP(m *bipartite.Mesh, pr Pricing, s *Settings) (*Policy, error) {
	var set Settings
	if s != nil {
		set = *s
	}
	set.Iota, set.V = pr.Iota, pr.V
	return New(m, set)
}

// runOne runs one policy through Run and returns its series.
func runOne(in *Instance, pol OnlinePolicy) (*Series, error) {
	var pols []OnlinePolicy
	if pol != nil {
		pols = []OnlinePolicy{pol}
	} else {
		pols = []OnlinePolicy{nil}
	}
	res, err := Run(in, pols, RunSettings{})
	if err != nil {
		return nil, err
	}
	return &res.Series[0], nil
}
