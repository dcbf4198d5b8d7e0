package bipartite

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Complete returns the complete bipartite graph K_{numLeft,numRight}. It
// panics if a size is not positive.
func Complete(numLeft, numRight int) *Graph {
	if numLeft <= 0 || numRight <= 0 {
		panic("bipartite: Complete needs positive sizes")
	}
	edges := make([]Edge, 0, numLeft*numRight)
	for l := 0; l < numLeft; l++ {
		for r := 0; r < numRight; r++ {
			edges = append(edges, Edge{l, r})
		}
	}
	return build(numLeft, numRight, edges)
}

// Bernoulli returns a random graph in which each of the numLeft×numRight
// pairs is an edge independently with probability p (the Erdős–Rényi
// bipartite model used by papers 000 and 002). Pairs are drawn in (l, r)
// order, one Float64 each, so the graph depends only on the state of rng.
// Vertices may be isolated.
func Bernoulli(numLeft, numRight int, p float64, rng *rand.Rand) (*Graph, error) {
	if numLeft <= 0 || numRight <= 0 {
		return nil, fmt.Errorf("%w: numLeft=%d numRight=%d", ErrEmpty, numLeft, numRight)
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("%w: p=%v", ErrProbability, p)
	}
	edges := make([]Edge, 0, int(math.Ceil(p*float64(numLeft*numRight))))
	for l := 0; l < numLeft; l++ {
		for r := 0; r < numRight; r++ {
			if rng.Float64() < p {
				edges = append(edges, Edge{l, r})
			}
		}
	}
	return build(numLeft, numRight, edges), nil
}

// RightRegular returns a random graph in which every right vertex is
// adjacent to exactly d distinct left vertices chosen uniformly at random
// (a partial Fisher–Yates shuffle per right vertex), 1 <= d <= numLeft.
func RightRegular(numLeft, numRight, d int, rng *rand.Rand) (*Graph, error) {
	if numLeft <= 0 || numRight <= 0 {
		return nil, fmt.Errorf("%w: numLeft=%d numRight=%d", ErrEmpty, numLeft, numRight)
	}
	if d < 1 || d > numLeft {
		return nil, fmt.Errorf("%w: degree d=%d, want [1,%d]", ErrDimension, d, numLeft)
	}
	perm := make([]int, numLeft)
	edges := make([]Edge, 0, d*numRight)
	for r := 0; r < numRight; r++ {
		for i := range perm {
			perm[i] = i
		}
		for i := 0; i < d; i++ {
			j := i + rng.IntN(numLeft-i)
			perm[i], perm[j] = perm[j], perm[i]
			edges = append(edges, Edge{perm[i], r})
		}
	}
	g, err := NewGraph(numLeft, numRight, edges)
	if err != nil {
		panic("bipartite: internal error: " + err.Error())
	}
	return g, nil
}
