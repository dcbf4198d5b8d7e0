package bipartite

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/internal/checked"
)

// Complete returns the complete bipartite graph K_{numLeft,numRight}. It
// panics if a size is not positive or the graph exceeds the default Limits
// (checked before allocating); Limits.Complete returns an error instead.
func Complete(numLeft, numRight int) *Graph {
	if numLeft <= 0 || numRight <= 0 {
		panic("bipartite: Complete needs positive sizes")
	}
	g, err := Limits{}.Complete(numLeft, numRight)
	if err != nil {
		panic("bipartite: Complete: " + err.Error())
	}
	return g
}

// Complete returns the complete bipartite graph K_{numLeft,numRight}, or an
// error wrapping ErrEmpty for a non-positive size and ErrTooLarge when
// numLeft×numRight exceeds lim.MaxEdges or lim.MaxPairs.
func (lim Limits) Complete(numLeft, numRight int) (*Graph, error) {
	if err := lim.CheckGraph(numLeft, numRight, 0); err != nil {
		return nil, err
	}
	if err := lim.checkPairs(numLeft, numRight); err != nil {
		return nil, err
	}
	m := numLeft * numRight // no overflow: checkPairs passed
	if err := lim.CheckGraph(numLeft, numRight, m); err != nil {
		return nil, err
	}
	edges := make([]Edge, 0, m)
	for l := 0; l < numLeft; l++ {
		for r := 0; r < numRight; r++ {
			edges = append(edges, Edge{l, r})
		}
	}
	return build(numLeft, numRight, edges), nil
}

// Bernoulli returns a random graph in which each of the numLeft×numRight
// pairs is an edge independently with probability p (the Erdős–Rényi
// bipartite model used by papers 000 and 002). Pairs are drawn in (l, r)
// order, one Float64 each, so the graph depends only on the state of rng.
// Vertices may be isolated. Sizes are bounded by the default Limits.
func Bernoulli(numLeft, numRight int, p float64, rng *rand.Rand) (*Graph, error) {
	return Limits{}.Bernoulli(numLeft, numRight, p, rng)
}

// Bernoulli is the package-level Bernoulli with the limits lim:
// numLeft×numRight is bounded by lim.MaxPairs before the first draw, and
// drawing more than lim.MaxEdges edges returns an error wrapping
// ErrTooLarge.
func (lim Limits) Bernoulli(numLeft, numRight int, p float64, rng *rand.Rand) (*Graph, error) {
	if numLeft <= 0 || numRight <= 0 {
		return nil, fmt.Errorf("%w: numLeft=%d numRight=%d", ErrEmpty, numLeft, numRight)
	}
	if !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("%w: p=%v", ErrProbability, p)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: rng is a nil *rand.Rand", ErrNil)
	}
	if err := lim.CheckGraph(numLeft, numRight, 0); err != nil {
		return nil, err
	}
	if err := lim.checkPairs(numLeft, numRight); err != nil {
		return nil, err
	}
	lim = lim.withDefaults()
	want := min(math.Ceil(p*float64(numLeft)*float64(numRight)), float64(lim.MaxEdges))
	edges := make([]Edge, 0, int(want))
	for l := 0; l < numLeft; l++ {
		for r := 0; r < numRight; r++ {
			if rng.Float64() < p {
				if len(edges) == lim.MaxEdges {
					return nil, fmt.Errorf("%w: Bernoulli(%d, %d, %v) drew more than MaxEdges=%d edges", ErrTooLarge, numLeft, numRight, p, lim.MaxEdges)
				}
				edges = append(edges, Edge{l, r})
			}
		}
	}
	return build(numLeft, numRight, edges), nil
}

// RightRegular returns a random graph in which every right vertex is
// adjacent to exactly d distinct left vertices chosen uniformly at random
// (a partial Fisher–Yates shuffle per right vertex), 1 <= d <= numLeft.
// Sizes are bounded by the default Limits; the work is O(numLeft + d·numRight).
func RightRegular(numLeft, numRight, d int, rng *rand.Rand) (*Graph, error) {
	return Limits{}.RightRegular(numLeft, numRight, d, rng)
}

// RightRegular is the package-level RightRegular with the limits lim: the
// d·numRight edges are bounded by lim.MaxEdges before anything is
// allocated.
func (lim Limits) RightRegular(numLeft, numRight, d int, rng *rand.Rand) (*Graph, error) {
	if numLeft <= 0 || numRight <= 0 {
		return nil, fmt.Errorf("%w: numLeft=%d numRight=%d", ErrEmpty, numLeft, numRight)
	}
	if d < 1 || d > numLeft {
		return nil, fmt.Errorf("%w: degree d=%d, want [1,%d]", ErrDimension, d, numLeft)
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: rng is a nil *rand.Rand", ErrNil)
	}
	if err := lim.CheckGraph(numLeft, numRight, 0); err != nil {
		return nil, err
	}
	lim = lim.withDefaults()
	if !checked.Within(lim.MaxEdges, d, numRight) {
		return nil, fmt.Errorf("%w: d×numRight=%d×%d edges, limit MaxEdges=%d", ErrTooLarge, d, numRight, lim.MaxEdges)
	}
	perm := make([]int, numLeft)
	for i := range perm {
		perm[i] = i
	}
	swaps := make([]int, d)
	edges := make([]Edge, 0, d*numRight)
	for r := 0; r < numRight; r++ {
		for i := 0; i < d; i++ {
			j := i + rng.IntN(numLeft-i)
			swaps[i] = j
			perm[i], perm[j] = perm[j], perm[i]
			edges = append(edges, Edge{perm[i], r})
		}
		// Undo the swaps in reverse so that perm is the identity again
		// (the draw for each right vertex starts from it) in O(d), not
		// O(numLeft), per right vertex.
		for i := d - 1; i >= 0; i-- {
			j := swaps[i]
			perm[i], perm[j] = perm[j], perm[i]
		}
	}
	g, err := lim.NewGraph(numLeft, numRight, edges)
	if err != nil {
		panic("bipartite: internal error: " + err.Error())
	}
	return g, nil
}
