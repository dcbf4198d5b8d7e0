// Package exrun holds the simulation glue the examples share, so that each
// example's main file keeps only its own experiment.
package exrun

import "github.com/msched/msched/ocorp"

// OCORP runs pols through ocorp.Run on jobs and machines ms with s (its
// Workers set to workers) and returns pointers to their series, in the
// order of pols.
func OCORP(jobs []ocorp.Job, ms []ocorp.Machine, pols []ocorp.OnlinePolicy, s ocorp.RunSettings, workers int) ([]*ocorp.Series, error) {
	s.Workers = workers
	res, err := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, pols, s)
	if err != nil {
		return nil, err
	}
	out := make([]*ocorp.Series, len(res.Series))
	for i := range res.Series {
		out[i] = &res.Series[i]
	}
	return out, nil
}
