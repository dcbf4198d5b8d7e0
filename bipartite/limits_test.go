package bipartite

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Hostile declared sizes must give ErrTooLarge (or ErrDimension/ErrEmpty)
// before anything is allocated: each case would allocate gigabytes, panic
// in makeslice or overflow int if it got that far.
func TestHostileSizesAreRejected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	huge := []int{DefaultMaxUnits + 1, 1e9, 1 << 40, math.MaxInt32, math.MaxInt64}
	for _, n := range huge {
		for _, tc := range []struct {
			name string
			f    func() error
			want error
		}{
			{"NewGraph left", func() error { _, err := NewGraph(n, 1, nil); return err }, ErrTooLarge},
			{"NewGraph right", func() error { _, err := NewGraph(1, n, nil); return err }, ErrTooLarge},
			{"Limits.Complete", func() error { _, err := (Limits{}).Complete(n, 2); return err }, ErrTooLarge},
			{"Bernoulli", func() error { _, err := Bernoulli(n, n, 0.5, rng); return err }, ErrTooLarge},
			{"Bernoulli p=0", func() error { _, err := Bernoulli(2, n, 0, rng); return err }, ErrTooLarge},
			{"RightRegular right", func() error { _, err := RightRegular(3, n, 2, rng); return err }, ErrTooLarge},
			{"RightRegular left", func() error { _, err := RightRegular(n, 3, 2, rng); return err }, ErrTooLarge},
			{"NewMesh slots", func() error { _, err := NewMesh(1, n, nil); return err }, ErrTooLarge},
			{"NewMesh both", func() error { _, err := NewMesh(n, n, nil); return err }, ErrTooLarge},
			{"DecodeGraph", func() error {
				_, err := (Limits{}).DecodeGraph(fmt.Appendf(nil, `{"version":1,"left":%d,"right":1,"edges":[]}`, n))
				return err
			}, ErrTooLarge},
		} {
			err := tc.f()
			require.ErrorIs(t, err, tc.want, "%s n=%d", tc.name, n)
			assert.Contains(t, err.Error(), "limit", "%s: the error names the limit", tc.name)
			assert.Contains(t, err.Error(), fmt.Sprint(n), "%s: the error names the value", tc.name)
		}
		assert.PanicsWithValue(t, fmt.Sprintf("bipartite: Complete: bipartite: size above limit: numLeft=%d, limit MaxVertices=%d", n, DefaultMaxVertices),
			func() { Complete(n, 1) }, "Complete panics, documented, before allocating")
	}
	// Products that fit each side but not MaxPairs/MaxEdges/MaxUnits.
	_, err := (Limits{}).Complete(1<<20, 1<<20)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = RightRegular(1<<20, 1<<20, 1<<10, rng)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = NewMesh(1<<13, 1<<14, nil)
	require.ErrorIs(t, err, ErrTooLarge)
	// A Mesh literal whose nodes × slots wraps around int to its capacity
	// length: 2^32 × (2^32+1) = 2^64 + 2^32 ≡ 2^32 (mod 2^64) ... and one that
	// wraps to 1.
	for _, m := range []*Mesh{
		{Nodes: 1 << 32, Slots: 1<<32 + 1, Capacity: nil},
		{Nodes: 3, Slots: -6148914691236517205, Capacity: []float64{1}}, // 3 × that ≡ 1
		{Nodes: 1, Slots: math.MaxInt, Capacity: []float64{1}},
	} {
		require.Error(t, m.Validate(), "%d×%d", m.Nodes, m.Slots)
		_, err := m.Available(nil, []int{0}, 0, math.MaxInt)
		require.Error(t, err, "Available on an invalid %d×%d mesh", m.Nodes, m.Slots)
	}
	require.ErrorIs(t, (*Mesh)(nil).Validate(), ErrNil)
	_, err = Bernoulli(2, 2, 0.5, nil)
	require.ErrorIs(t, err, ErrNil)
	_, err = RightRegular(2, 2, 1, nil)
	require.ErrorIs(t, err, ErrNil)
}

// Raising a limit lets a larger instance through; lowering one rejects a
// small one. Limits{} is the default policy.
func TestLimitsAreOverridable(t *testing.T) {
	assert.Equal(t, Limits{MaxVertices: DefaultMaxVertices, MaxEdges: DefaultMaxEdges, MaxPairs: DefaultMaxPairs, MaxUnits: DefaultMaxUnits, MaxComponents: DefaultMaxComponents}, DefaultLimits())
	small := Limits{MaxVertices: 4, MaxEdges: 5, MaxPairs: 6, MaxUnits: 7}
	_, err := small.NewGraph(5, 1, nil)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = small.NewGraph(3, 3, []Edge{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}})
	require.ErrorIs(t, err, ErrTooLarge)
	g, err := small.NewGraph(3, 3, []Edge{{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}})
	require.NoError(t, err)
	assert.Equal(t, 5, g.NumEdges())
	_, err = small.Complete(3, 3)
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = small.Bernoulli(3, 3, 0, rand.New(rand.NewPCG(1, 1)))
	require.ErrorIs(t, err, ErrTooLarge, "9 pairs > MaxPairs=6")
	_, err = small.Bernoulli(2, 3, 1, rand.New(rand.NewPCG(1, 1)))
	require.ErrorIs(t, err, ErrTooLarge, "6 edges drawn > MaxEdges=5")
	_, err = small.NewMesh(2, 4, make([]float64, 8))
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = small.NewMesh(1, 7, make([]float64, 7))
	require.NoError(t, err)
	_, err = small.DecodeGraph([]byte(`{"version":1,"left":5,"right":1,"edges":[]}`))
	require.ErrorIs(t, err, ErrTooLarge)
	big := Limits{MaxVertices: DefaultMaxVertices + 1}
	_, err = big.NewGraph(DefaultMaxVertices+1, 1, nil)
	require.NoError(t, err)
}

// Graph JSON: an edge must be a pair, fields must be known, and nothing but
// white space may follow the object.
func TestDecodeGraphRejectsMalformed(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want error
	}{
		{`{"version":1,"left":1,"right":1,"edges":[[]]}`, ErrDimension},
		{`{"version":1,"left":1,"right":1,"edges":[[0]]}`, ErrDimension},
		{`{"version":1,"left":1,"right":8,"edges":[[0,0,7]]}`, ErrDimension},
		{`{"version":1,"left":1,"right":1,"edges":[[0,0]]} x`, ErrSyntax},
		{`{"version":1,"left":1,"right":1,"edges":[[0,0]]}{}`, ErrSyntax},
		{`{"version":1,"left":1,"right":1,"edge":[[0,0]]}`, ErrSyntax},
		{`{"version":1,"left":1e9,"right":1,"edges":[]}`, ErrSyntax},
		{`{"version":1,"left":1000000000,"right":1,"edges":[]}`, ErrTooLarge},
		{`{"version":1,"left":9223372036854775807,"right":1,"edges":[]}`, ErrTooLarge},
		{`{"version":1,"left":9223372036854775808,"right":1,"edges":[]}`, ErrSyntax},
		{`{"version":1,"left":-1,"right":1,"edges":[]}`, ErrDimension},
		{`{"version":1,"left":1,"right":1,"edges":[[0,-1]]}`, ErrVertexRange},
		{`{"left":1,"right":1,"edges":[]}`, ErrVersion},
		{`null`, ErrVersion},
	} {
		_, err := (Limits{}).DecodeGraph([]byte(tc.in))
		require.ErrorIs(t, err, tc.want, tc.in)
		var g Graph
		require.Error(t, json.Unmarshal([]byte(tc.in), &g), tc.in)
	}
	g, err := (Limits{}).DecodeGraph([]byte(" {\"version\":1,\"left\":2,\"right\":1,\"edges\":[[1,0]]}\n\t"))
	require.NoError(t, err, "white space around the object is fine")
	assert.Equal(t, []Edge{{1, 0}}, g.Edges())
}

// rightRegularReference is the implementation before the limits work: it
// reset the permutation in O(numLeft) per right vertex. The O(d) undo must
// draw the same graph for the same seed.
func rightRegularReference(numLeft, numRight, d int, rng *rand.Rand) []Edge {
	perm := make([]int, numLeft)
	var edges []Edge
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
	slices.SortFunc(edges, cmpEdge)
	return edges
}

func TestRightRegularMatchesReference(t *testing.T) {
	for _, sz := range [][3]int{{1, 1, 1}, {10, 128, 3}, {7, 20, 7}, {50, 9, 49}} {
		g, err := RightRegular(sz[0], sz[1], sz[2], rand.New(rand.NewPCG(5, uint64(sz[0]))))
		require.NoError(t, err)
		want := rightRegularReference(sz[0], sz[1], sz[2], rand.New(rand.NewPCG(5, uint64(sz[0]))))
		require.Equal(t, want, g.Edges(), "%v", sz)
	}
	// Large sides, small degree: O(numLeft + d·numRight), not numLeft·numRight.
	g, err := RightRegular(1<<20, 1<<12, 2, rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	assert.Equal(t, 1<<13, g.NumEdges())
}

func TestMeshAvailableLongNodeLists(t *testing.T) {
	m, err := NewMesh(100, 3, make([]float64, 300))
	require.NoError(t, err)
	all := make([]int, 100)
	for i := range all {
		all[i] = 99 - i
	}
	got, err := m.Available(nil, all, 1, 1)
	require.NoError(t, err)
	require.Len(t, got, 100)
	all[50] = all[10]
	_, err = m.Available(nil, all, 1, 1)
	require.ErrorIs(t, err, ErrDuplicateEdge)
	_, err = m.Available(nil, make([]int, 101), 0, 0)
	require.ErrorIs(t, err, ErrDuplicateEdge)
	got, err = m.Available(nil, []int{0}, 0, math.MaxInt)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 1, 2}, got)
	got, err = m.Available(nil, []int{0}, math.MaxInt, math.MaxInt)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.True(t, strings.HasPrefix(ErrTooLarge.Error(), "bipartite: "))
}

// The edge decoder against strconv on every integer form.
func TestEdgePairParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want edgePair
		ok   bool
	}{
		{"[0,1]", edgePair{0, 1}, true},
		{" [ 12 ,\n 345 ] ", edgePair{12, 345}, true},
		{"[-1,-0]", edgePair{-1, 0}, true},
		{"[9223372036854775807,-9223372036854775808]", edgePair{math.MaxInt, math.MinInt}, true},
		{"[9223372036854775808,0]", edgePair{}, false},
		{"[0,-9223372036854775809]", edgePair{}, false},
		{"[99999999999999999999999,0]", edgePair{}, false},
		{"[1.0,2]", edgePair{}, false},
		{"[1e2,2]", edgePair{}, false},
		{`["1",2]`, edgePair{}, false},
		{"[[1,2],3]", edgePair{}, false},
		{"[]", edgePair{}, false},
		{"[ ]", edgePair{}, false},
		{"[0]", edgePair{}, false},
		{"[0,0,7]", edgePair{}, false},
		{"{}", edgePair{}, false},
		{"null", edgePair{}, false},
	} {
		var e edgePair
		err := e.UnmarshalJSON([]byte(tc.in))
		if tc.ok {
			require.NoError(t, err, tc.in)
			assert.Equal(t, tc.want, e, tc.in)
		} else {
			require.ErrorIs(t, err, ErrDimension, tc.in)
		}
	}
}

func TestDecodeGraphNullEdge(t *testing.T) {
	_, err := (Limits{}).DecodeGraph([]byte(`{"version":1,"left":1,"right":1,"edges":[null]}`))
	require.ErrorIs(t, err, ErrDimension)
}

// TestDecodeGraphStrictKeys: a key given twice (encoding/json keeps the
// last), spelled in another case or unknown is an error, not a silent
// reading (issue 12 class 6).
func TestDecodeGraphStrictKeys(t *testing.T) {
	for _, in := range []string{
		`{"version":1,"left":1,"left":5,"right":1,"edges":[[0,0]]}`,
		`{"VERSION":1,"LEFT":1,"RIGHT":1,"EDGES":[[0,0]]}`,
		`{"version":1,"left":1,"right":1,"edges":[[0,0]],"zz":1}`,
	} {
		_, err := Limits{}.DecodeGraph([]byte(in))
		if !errors.Is(err, ErrSyntax) {
			t.Errorf("%s: err = %v, want ErrSyntax", in, err)
		}
	}
}

// TestLimitsCeilings is issue 22 class 5: Limits at MaxInt with a
// 1e12-vertex graph tried to allocate terabytes. A field above its ceiling
// is now an error from Validate naming the field, the value and the
// ceiling, returned by every method of Limits before anything is
// allocated; the ceilings themselves are accepted.
func TestLimitsCeilings(t *testing.T) {
	huge := Limits{MaxVertices: math.MaxInt, MaxEdges: math.MaxInt, MaxPairs: math.MaxInt, MaxUnits: math.MaxInt}
	err := huge.Validate()
	require.ErrorIs(t, err, ErrTooLarge)
	for _, f := range []string{"MaxVertices", "MaxEdges", "MaxPairs", "MaxUnits"} {
		require.ErrorContains(t, err, "Limits."+f+" = 9223372036854775807 above its ceiling")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for name, run := range map[string]func(Limits) error{
		"NewGraph":     func(l Limits) error { _, err := l.NewGraph(1e12, 1e12, nil); return err },
		"Complete":     func(l Limits) error { _, err := l.Complete(1e12, 2); return err },
		"Bernoulli":    func(l Limits) error { _, err := l.Bernoulli(1e12, 1e12, 1, rng); return err },
		"RightRegular": func(l Limits) error { _, err := l.RightRegular(1e12, 1e12, 1e6, rng); return err },
		"DecodeGraph": func(l Limits) error {
			_, err := l.DecodeGraph([]byte(`{"version":1,"left":1000000000000,"right":1000000000000,"edges":[]}`))
			return err
		},
		"NewMesh":      func(l Limits) error { _, err := l.NewMesh(1e12, 1e12, nil); return err },
		"ValidateMesh": func(l Limits) error { return l.ValidateMesh(&Mesh{Nodes: 1e12, Slots: 1}) },
	} {
		for _, f := range []string{"MaxVertices", "MaxEdges", "MaxPairs", "MaxUnits"} {
			var l Limits
			switch f {
			case "MaxVertices":
				l.MaxVertices = CeilingMaxVertices + 1
			case "MaxEdges":
				l.MaxEdges = math.MaxInt
			case "MaxPairs":
				l.MaxPairs = math.MaxInt
			case "MaxUnits":
				l.MaxUnits = CeilingMaxUnits + 1
			}
			err := run(l)
			require.ErrorIs(t, err, ErrTooLarge, "%s %s", name, f)
			require.ErrorContains(t, err, "Limits."+f, "%s %s", name, f)
		}
	}
	atCeiling := Limits{MaxVertices: CeilingMaxVertices, MaxEdges: CeilingMaxEdges, MaxPairs: CeilingMaxPairs, MaxUnits: CeilingMaxUnits}
	require.NoError(t, atCeiling.Validate())
	g, err := atCeiling.Complete(3, 4)
	require.NoError(t, err)
	require.Equal(t, 12, g.NumEdges())
	// A 1e12-vertex graph at the ceilings is refused by size, not built.
	_, err = atCeiling.NewGraph(1e12, 1e12, nil)
	require.ErrorIs(t, err, ErrTooLarge)
}
