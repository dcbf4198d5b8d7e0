package ogasched

import "math"

// Diameter returns the bound (51) on diam(Y): sqrt(2 sum_k abar^k sum_r c_r^k)
// with abar^k = max_l a_l^k.
func (p *Problem) Diameter() float64 {
	s := 0.0
	for k := 0; k < p.K; k++ {
		abar := 0.0
		for _, a := range p.Demand {
			abar = math.Max(abar, a[k])
		}
		c := 0.0
		for _, cr := range p.Capacity {
			c += cr[k]
		}
		s += abar * c
	}
	return math.Sqrt(2 * s)
}

// GradBound returns the bound (48) on max ||grad q|| for x in {0,1}^L:
// sqrt(sum_l sum_{r in R_l} (beta*^2 + K varpi_r*^2)) with varpi_r* =
// max_k (f_r^k)'(0) (13). It is +Inf if some f_r^k has an unbounded
// derivative at 0 (e.g. Sqrt).
func (p *Problem) GradBound() float64 {
	bstar := 0.0
	for _, b := range p.Beta {
		bstar = math.Max(bstar, b)
	}
	g := p.Graph
	s := 0.0
	for e := 0; e < g.NumEdges(); e++ {
		w := 0.0
		for _, u := range p.Utility[g.Edge(e).Right] {
			w = math.Max(w, u.DerivBound())
		}
		s += bstar*bstar + float64(p.K)*w*w
	}
	return math.Sqrt(s)
}

// HG returns H_G of eq. (52), Diameter() * GradBound().
func (p *Problem) HG() float64 { return p.Diameter() * p.GradBound() }

// RegretBound returns the bound (39), H_G * sqrt(T), which holds for the
// constant step eta = diam/(G sqrt T) and x in {0,1}^L.
func (p *Problem) RegretBound(T int) float64 { return p.HG() * math.Sqrt(float64(T)) }

// RegretBoundStep returns the bound (42) for an arbitrary constant step eta:
// diam^2/(2 eta) + eta T G^2 / 2, with diam (51) and G (48).
func (p *Problem) RegretBoundStep(T int, eta float64) float64 {
	d, g := p.Diameter(), p.GradBound()
	return d*d/(2*eta) + eta*float64(T)*g*g/2
}
