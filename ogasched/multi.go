package ogasched

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
)

// Expand builds the problem of Section III-D (multiple job arrivals): port l
// is replaced by J[l] copies (l,1..J[l]) with the same neighbours and
// demands, so each of up to J[l] simultaneous jobs gets its own allocation.
// Port indices of the result are ordered by l then j. Use ExpandArrivals to
// turn counts x_l(t) in N into the expanded 0/1 arrivals 1{j <= x_l(t)}.
//
// Without expansion, a count x_l(t) > 1 passed to Reward/Policy scales the
// port's reward (7) by x_l(t): all x_l(t) jobs share one allocation.
func Expand(p *Problem, J []int) (*Problem, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil problem", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if len(J) != p.NumPorts() {
		return nil, fmt.Errorf("%w: len(J) = %d, want %d", ErrDimension, len(J), p.NumPorts())
	}
	g := p.Graph
	ports, nedges := 0, 0
	for l, jl := range J {
		if jl < 0 {
			return nil, fmt.Errorf("%w: J[%d] = %d, want >= 0", ErrValue, l, jl)
		}
		var ok1, ok2, ok3 bool
		var de int
		ports, ok1 = checked.Add(ports, jl)
		de, ok2 = checked.Mul(jl, g.LeftDegree(l))
		nedges, ok3 = checked.Add(nedges, de)
		if !ok1 || !ok2 || !ok3 || ports > MaxDim || !checked.Within(MaxDim, nedges, p.K) {
			return nil, fmt.Errorf("%w: J[%d] = %d: the expanded problem has more than %d ports or dimension above %d", ErrValue, l, jl, MaxDim, MaxDim)
		}
	}
	edges := make([]bipartite.Edge, 0, nedges)
	demand := make([][]float64, 0, ports)
	port := 0
	for l, jl := range J {
		for j := 0; j < jl; j++ {
			for _, r := range g.LeftNeighbors(l) {
				edges = append(edges, bipartite.Edge{Left: port, Right: r})
			}
			demand = append(demand, p.Demand[l])
			port++
		}
	}
	ng, err := bipartite.NewGraph(port, g.NumRight(), edges)
	if err != nil {
		return nil, fmt.Errorf("%w: expanded graph: %w", ErrDimension, err)
	}
	return NewProblem(ng, demand, p.Capacity, p.Utility, p.Beta)
}

// ExpandArrivals writes 1{j <= x[l]} for the expanded ports of Expand(p, J)
// into dst (len sum J) and returns it. Counts above J[l] are an error.
func ExpandArrivals(dst []float64, x []int, J []int) ([]float64, error) {
	if len(x) != len(J) {
		return nil, fmt.Errorf("%w: len(x) = %d, len(J) = %d", ErrDimension, len(x), len(J))
	}
	i := 0
	for l, jl := range J {
		if x[l] < 0 || x[l] > jl {
			return nil, fmt.Errorf("%w: x[%d] = %d outside [0,%d]", ErrValue, l, x[l], jl)
		}
		for j := 0; j < jl; j++ {
			if i >= len(dst) {
				return nil, fmt.Errorf("%w: len(dst) = %d too short", ErrDimension, len(dst))
			}
			dst[i] = 0
			if j < x[l] {
				dst[i] = 1
			}
			i++
		}
	}
	if i != len(dst) {
		return nil, fmt.Errorf("%w: len(dst) = %d, want %d", ErrDimension, len(dst), i)
	}
	return dst, nil
}
