package ogasched

// This file is the only one that calls the msched policy APIs (ogasched and
// baselines); when their API changes (issue 13), only it needs adapting.

import (
	"fmt"
	"math"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	core "github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// PolicyOGASched and PolicyDRF name the learners an engine can run.
const (
	PolicyOGASched = "OGASched"
	PolicyDRF      = "DRF"
)

// learner is what the engine needs of a policy: y(t) for the next slot from
// what it saw up to the previous one.
type learner interface {
	// next takes the arrivals x of the finished slot step (the step-th slot
	// with arrivals since the start) and returns y for the next slot, owned
	// by the learner until the next call.
	next(step int, x []float64) ([]float64, error)
	// state returns the decision to carry over to a rebuilt or restored
	// learner (y in the flat layout y[e*K+k]).
	state() []float64
	close()
}

// buildProblem returns the OGASched problem of the ports (demands in units)
// and nodes (capacities in units): an edge wherever one pod of the port
// fits the node when empty, every f_r^k of the given kind and coefficient,
// every beta_k = beta.
func buildProblem(demand, capacity [][]float64, kind utility.Kind, coef, beta float64, K int) (*core.Problem, error) {
	var edges []bipartite.Edge
	for l, d := range demand {
		for r, c := range capacity {
			fits := true
			for k := range K {
				if d[k] > c[k] {
					fits = false
					break
				}
			}
			if fits {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
			}
		}
	}
	g, err := bipartite.NewGraph(len(demand), len(capacity), edges)
	if err != nil {
		return nil, err
	}
	u, err := utility.New(kind, coef)
	if err != nil {
		return nil, err
	}
	util := make([][]utility.Utility, len(capacity))
	for r := range util {
		util[r] = make([]utility.Utility, K)
		for k := range util[r] {
			util[r][k] = u
		}
	}
	b := make([]float64, K)
	for k := range b {
		b[k] = beta
	}
	return core.NewProblem(g, demand, capacity, util, b)
}

// newLearner returns the named policy for p, starting from init (flat
// layout; nil = zero). OGASched's step is the anytime theory step (53),
// whose only state besides y is the slot count the engine keeps, so y and
// that count restore it exactly. When core.Policy gains
// encoding.BinaryMarshaler (issue 13), restore can use it instead.
func newLearner(name string, p *core.Problem, init []float64) (learner, error) {
	switch name {
	case PolicyOGASched:
		pol, err := core.New(p, core.Settings{Init: init})
		if err != nil {
			return nil, err
		}
		return &ogaLearner{p: pol, zero: make([]float64, p.NumPorts()), decided: -1}, nil
	case PolicyDRF:
		d, err := baselines.NewDRF(p, baselines.DRFSettings{})
		if err != nil {
			return nil, err
		}
		return &baseLearner{d: d, y: make([]float64, p.Dim())}, nil
	}
	return nil, fmt.Errorf("unknown policy %q", name)
}

type ogaLearner struct {
	p       *core.Policy
	zero    []float64
	decided int // the latest slot given to Decide, -1 before the first
}

// next observes the arrivals x of slot step and returns y(step+1).
// ogasched needs Observe(t) to follow Decide(t) (the slot convention of
// issue 13), so a learner built mid-run (after a restart or a rebuild)
// first decides the slot it is about to observe; Decide does not move y.
func (o *ogaLearner) next(step int, x []float64) ([]float64, error) {
	if o.decided != step {
		if _, err := o.p.Decide(step, o.zero); err != nil {
			return nil, err
		}
		o.decided = step
	}
	if err := o.p.Observe(step, x); err != nil {
		return nil, err
	}
	y, err := o.p.Decide(step+1, o.zero)
	if err != nil {
		return nil, err
	}
	o.decided = step + 1
	return y, nil
}

func (o *ogaLearner) state() []float64 { return o.p.Y() }
func (o *ogaLearner) close()           { o.p.Close() }

// baseLearner runs a baseline that allocates after seeing the arrivals: the
// next slot's y is its allocation for the finished slot's arrivals.
type baseLearner struct {
	d *baselines.DRF
	y []float64
}

func (b *baseLearner) next(step int, x []float64) ([]float64, error) {
	y, err := b.d.Decide(step, x)
	if err != nil {
		return nil, err
	}
	copy(b.y, y)
	return b.y, nil
}

func (b *baseLearner) state() []float64 { return b.y }
func (b *baseLearner) close()           {}

// finite reports whether every value of v is finite.
func finite(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
