package bipartite

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAccessorsOutOfRange is issue 22 class 4: every raw accessor with an
// out-of-range index panics with a message naming the accessor, the index
// and the range (documented, like a slice index), never with a bare
// runtime error; EdgeID, the checking lookup, reports false.
func TestAccessorsOutOfRange(t *testing.T) {
	g := Complete(3, 2)
	m, err := NewMesh(2, 3, make([]float64, 6))
	require.NoError(t, err)
	calls := map[string]func(i int){
		"Edge":           func(i int) { g.Edge(i) },
		"LeftRange":      func(i int) { g.LeftRange(i) },
		"LeftEdges":      func(i int) { g.LeftEdges(i) },
		"RightEdges":     func(i int) { g.RightEdges(i) },
		"LeftNeighbors":  func(i int) { g.LeftNeighbors(i) },
		"RightNeighbors": func(i int) { g.RightNeighbors(i) },
		"LeftDegree":     func(i int) { g.LeftDegree(i) },
		"RightDegree":    func(i int) { g.RightDegree(i) },
		"NodeSlot":       func(i int) { m.NodeSlot(i) },
	}
	for name, f := range calls {
		for _, i := range []int{-1, 6, 1 << 40, math.MaxInt, math.MinInt} {
			func() {
				defer func() {
					r := recover()
					require.NotNil(t, r, "%s(%d) did not panic", name, i)
					msg, ok := r.(string)
					require.True(t, ok, "%s(%d) panicked with %T %v, want the package's message", name, i, r, r)
					require.True(t, strings.HasPrefix(msg, "bipartite: "+name+"("), msg)
					require.Contains(t, msg, fmt.Sprint(i))
				}()
				f(i)
			}()
		}
	}
	for _, lr := range [][2]int{{-1, 0}, {0, -1}, {3, 0}, {0, 2}, {math.MaxInt, math.MaxInt}} {
		_, ok := g.EdgeID(lr[0], lr[1])
		require.False(t, ok)
	}
	// In range, the accessors agree with each other.
	for l := 0; l < g.NumLeft(); l++ {
		lo, hi := g.LeftRange(l)
		require.Equal(t, hi-lo, g.LeftDegree(l))
		require.Len(t, g.LeftNeighbors(l), g.LeftDegree(l))
	}
	for r := 0; r < g.NumRight(); r++ {
		require.Len(t, g.RightEdges(r), g.RightDegree(r))
		require.Len(t, g.RightNeighbors(r), g.RightDegree(r))
	}
}
