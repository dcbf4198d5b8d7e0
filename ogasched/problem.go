package ogasched

import (
	"fmt"
	"math"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/utility"
)

// Problem is one OGASched instance: the bipartite graph of ports (left,
// job types l) and computing instances (right, nodes r), K resource types,
// per-port demands a_l^k (5), per-node capacities c_r^k (6), separable
// utilities f_r^k (12) and overhead coefficients beta_k in [0,1] (7).
//
// Decisions y are flat: y[e*K+k] = y_(l,r)^k for edge e = (l,r) of Graph.
// A Problem is read-only after NewProblem and safe for concurrent use.
type Problem struct {
	Graph    *bipartite.Graph
	K        int
	Demand   [][]float64         // Demand[l][k] = a_l^k >= 0
	Capacity [][]float64         // Capacity[r][k] = c_r^k >= 0
	Utility  [][]utility.Utility // Utility[r][k] = f_r^k
	Beta     []float64           // Beta[k] = beta_k in [0,1]
}

// NewProblem validates and returns a Problem. The slices are retained, not
// copied; do not modify them afterwards.
//
// It returns an error wrapping ErrDimension or ErrValue, naming the field,
// the index, the value and the limit, for: a nil graph; K = len(beta) of 0
// or above MaxK; a decision dimension |E| K above MaxDim; mismatched slice
// lengths; a NaN, infinite, negative or above MaxValue demand or capacity; a
// beta outside [0,1]; an invalid utility; and a utility whose derivative
// bound f'(0) (13) is infinite or above MaxValue. The last rule rejects
// utility.Sqrt (f'(0) = +Inf: the gradient (30) at y = 0 is infinite and the
// regret bound (48) does not exist; poly, a sqrt(y+1) - a, is the paper's
// finite-slope variant) and huge coefficients such as linear a = 1e308 or
// reciprocal a = 1e-200 (f'(0) = 1/a^2 = +Inf), whose gradient steps
// overflow.
func NewProblem(g *bipartite.Graph, demand, capacity [][]float64, util [][]utility.Utility, beta []float64) (*Problem, error) {
	p := &Problem{Graph: g, K: len(beta), Demand: demand, Capacity: capacity, Utility: util, Beta: beta}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// validate checks everything NewProblem promises; New and BestFixed call it
// too, so that a Problem built as a struct literal cannot make them panic.
func (p *Problem) validate() error {
	g, beta := p.Graph, p.Beta
	if g == nil {
		return fmt.Errorf("%w: nil graph", ErrDimension)
	}
	K := len(beta)
	if K == 0 {
		return fmt.Errorf("%w: no resource types (len(beta) = 0)", ErrDimension)
	}
	if p.K != K {
		return fmt.Errorf("%w: K = %d but len(beta) = %d", ErrDimension, p.K, K)
	}
	if K > MaxK {
		return fmt.Errorf("%w: K = %d resource types, limit %d", ErrDimension, K, MaxK)
	}
	if !checked.Within(MaxDim, g.NumEdges(), K) {
		return fmt.Errorf("%w: dimension |E| K = %d x %d above the limit %d", ErrDimension, g.NumEdges(), K, MaxDim)
	}
	for k, b := range beta {
		if math.IsNaN(b) || b < 0 || b > 1 {
			return fmt.Errorf("%w: beta[%d] = %v outside [0,1]", ErrValue, k, b)
		}
	}
	demand, capacity, util := p.Demand, p.Capacity, p.Utility
	if len(demand) != g.NumLeft() {
		return fmt.Errorf("%w: len(demand) = %d, want %d ports", ErrDimension, len(demand), g.NumLeft())
	}
	for l, a := range demand {
		if len(a) != K {
			return fmt.Errorf("%w: len(demand[%d]) = %d, want K = %d", ErrDimension, l, len(a), K)
		}
		for k, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return fmt.Errorf("%w: demand[%d][%d] = %v, want finite in [0, %g]", ErrValue, l, k, v, MaxValue)
			}
		}
	}
	if len(capacity) != g.NumRight() {
		return fmt.Errorf("%w: len(capacity) = %d, want %d nodes", ErrDimension, len(capacity), g.NumRight())
	}
	for r, c := range capacity {
		if len(c) != K {
			return fmt.Errorf("%w: len(capacity[%d]) = %d, want K = %d", ErrDimension, r, len(c), K)
		}
		for k, v := range c {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return fmt.Errorf("%w: capacity[%d][%d] = %v, want finite in [0, %g]", ErrValue, r, k, v, MaxValue)
			}
		}
	}
	if len(util) != g.NumRight() {
		return fmt.Errorf("%w: len(utility) = %d, want %d nodes", ErrDimension, len(util), g.NumRight())
	}
	for r, us := range util {
		if len(us) != K {
			return fmt.Errorf("%w: len(utility[%d]) = %d, want K = %d", ErrDimension, r, len(us), K)
		}
		for k, u := range us {
			if err := u.Validate(); err != nil {
				return fmt.Errorf("%w: utility[%d][%d]: %w", ErrValue, r, k, err)
			}
			if d := u.DerivBound(); !(d <= MaxValue) {
				why := "the gradient steps would overflow"
				if u.Kind == utility.Sqrt {
					why = "sqrt has an infinite derivative at 0, so the gradient (30) at y = 0 and the bound (48) are infinite; use poly (a sqrt(y+1) - a)"
				}
				return fmt.Errorf("%w: utility[%d][%d] = %v: f'(0) = %v above the limit %g: %s", ErrValue, r, k, u, d, MaxValue, why)
			}
		}
	}
	return nil
}

// NumPorts returns |L|.
func (p *Problem) NumPorts() int { return p.Graph.NumLeft() }

// NumNodes returns |R|.
func (p *Problem) NumNodes() int { return p.Graph.NumRight() }

// Dim returns the length of a decision vector, NumEdges*K.
func (p *Problem) Dim() int { return p.Graph.NumEdges() * p.K }

func (p *Problem) checkLens(x, y []float64) {
	if len(x) != p.NumPorts() {
		panic(panicLenX)
	}
	if len(y) != p.Dim() {
		panic(panicLenY)
	}
}

// dominant returns k* of eq. (27) for port l (smallest index on ties) and the
// overhead beta_{k*} * sum_{r in R_l} y_(l,r)^{k*}.
func (p *Problem) dominant(l int, y []float64) (kstar int, over float64) {
	lo, hi := p.Graph.LeftRange(l)
	K := p.K
	over = math.Inf(-1)
	for k := 0; k < K; k++ {
		s := 0.0
		for e := lo; e < hi; e++ {
			s += y[e*K+k]
		}
		if v := p.Beta[k] * s; v > over {
			over, kstar = v, k
		}
	}
	return kstar, over
}

// RewardParts returns the gain sum_l x_l sum_k sum_{r in R_l} f_r^k(y_(l,r)^k)
// and the penalty sum_l x_l max_k beta_k sum_{r in R_l} y_(l,r)^k of eq.
// (7)-(8) under the separable setup (12); the reward is gain - penalty.
// x_l >= 0 is the number of jobs of port l in the slot (0/1 in the paper).
// It panics if len(x) != NumPorts or len(y) != Dim.
func (p *Problem) RewardParts(x, y []float64) (gain, penalty float64) {
	p.checkLens(x, y)
	g, K := p.Graph, p.K
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		lo, hi := g.LeftRange(l)
		gl := 0.0
		for e := lo; e < hi; e++ {
			us := p.Utility[g.Edge(e).Right]
			for k, v := range y[e*K : e*K+K] {
				if v != 0 { // f(0) = 0 exactly for every kind: skipping is bit-identical
					gl += us[k].Value(v)
				}
			}
		}
		_, over := p.dominant(l, y)
		gain += xl * gl
		penalty += xl * over
	}
	return gain, penalty
}

// Reward returns q(x, y) of eq. (8).
func (p *Problem) Reward(x, y []float64) float64 {
	g, pen := p.RewardParts(x, y)
	return g - pen
}

// Gradient stores the (super)gradient (30) of q(x, .) at y in dst and returns
// it: x_l((f_r^k)'(y_(l,r)^k) - beta_k [k = k*_l]). On a tie in (27) the
// smallest k is taken, which gives a supergradient. If dst is nil a new
// slice is allocated. It panics on mismatched lengths.
func (p *Problem) Gradient(dst, x, y []float64) []float64 {
	p.checkLens(x, y)
	if dst == nil {
		dst = make([]float64, len(y))
	} else if len(dst) != len(y) {
		panic(panicLenY)
	}
	g, K := p.Graph, p.K
	for l, xl := range x {
		lo, hi := g.LeftRange(l)
		if xl == 0 {
			clear(dst[lo*K : hi*K])
			continue
		}
		kstar, _ := p.dominant(l, y)
		for e := lo; e < hi; e++ {
			us := p.Utility[g.Edge(e).Right]
			for k := 0; k < K; k++ {
				d := us[k].Deriv(y[e*K+k])
				if k == kstar {
					d -= p.Beta[k]
				}
				dst[e*K+k] = xl * d
			}
		}
	}
	return dst
}

// Feasible reports whether y satisfies (5) and (6) within tol and returns an
// error naming the first violated constraint.
func (p *Problem) Feasible(y []float64, tol float64) error {
	if len(y) != p.Dim() {
		return fmt.Errorf("%w: len(y) = %d, want %d", ErrDimension, len(y), p.Dim())
	}
	g, K := p.Graph, p.K
	for e := 0; e < g.NumEdges(); e++ {
		l := g.Edge(e).Left
		for k := 0; k < K; k++ {
			v := y[e*K+k]
			if math.IsNaN(v) || v < -tol || v > p.Demand[l][k]+tol {
				return fmt.Errorf("%w: (5) violated: y[edge %d=(%d,%d)][k=%d] = %v, demand %v", ErrValue, e, l, g.Edge(e).Right, k, v, p.Demand[l][k])
			}
		}
	}
	for r := 0; r < g.NumRight(); r++ {
		for k := 0; k < K; k++ {
			s := 0.0
			for _, e := range g.RightEdges(r) {
				s += y[e*K+k]
			}
			if s > p.Capacity[r][k]+tol {
				return fmt.Errorf("%w: (6) violated at node %d type %d: sum %v > capacity %v", ErrValue, r, k, s, p.Capacity[r][k])
			}
		}
	}
	return nil
}

// scale returns the largest demand or capacity, at least 1: the unit of the
// feasibility tolerance of a restored snapshot.
func (p *Problem) scale() float64 {
	s := 1.0
	for _, rows := range [2][][]float64{p.Demand, p.Capacity} {
		for _, row := range rows {
			for _, v := range row {
				s = math.Max(s, v)
			}
		}
	}
	return s
}
