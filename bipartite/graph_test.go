package bipartite

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// checkCSR compares every accessor of g against the adjacency matrix built
// directly from the edge list.
func checkCSR(t *testing.T, g *Graph, want []Edge) {
	t.Helper()
	adj := make(map[Edge]bool, len(want))
	for _, e := range want {
		adj[e] = true
	}
	if g.NumEdges() != len(adj) {
		t.Fatalf("NumEdges=%d, want %d", g.NumEdges(), len(adj))
	}
	seen := 0
	for l := 0; l < g.NumLeft(); l++ {
		lo, hi := g.LeftRange(l)
		ids := g.LeftEdges(l)
		if len(ids) != hi-lo || len(g.LeftNeighbors(l)) != hi-lo || g.LeftDegree(l) != hi-lo {
			t.Fatalf("left %d: inconsistent lengths", l)
		}
		prev := -1
		for i, id := range ids {
			e := g.Edge(id)
			if id != lo+i || e.Left != l || e.Right <= prev || g.LeftNeighbors(l)[i] != e.Right || !adj[e] {
				t.Fatalf("left %d: bad edge id %d = %v", l, id, e)
			}
			prev = e.Right
			seen++
		}
	}
	if seen != len(adj) {
		t.Fatalf("left CSR covers %d edges, want %d", seen, len(adj))
	}
	seen = 0
	for r := 0; r < g.NumRight(); r++ {
		prev := -1
		for i, id := range g.RightEdges(r) {
			e := g.Edge(id)
			if e.Right != r || e.Left <= prev || g.RightNeighbors(r)[i] != e.Left {
				t.Fatalf("right %d: bad edge id %d = %v", r, id, e)
			}
			prev = e.Left
			seen++
		}
		if g.RightDegree(r) != len(g.RightEdges(r)) {
			t.Fatalf("right %d: degree mismatch", r)
		}
	}
	if seen != len(adj) {
		t.Fatalf("right CSR covers %d edges, want %d", seen, len(adj))
	}
	for l := -1; l <= g.NumLeft(); l++ {
		for r := -1; r <= g.NumRight(); r++ {
			id, ok := g.EdgeID(l, r)
			if ok != adj[Edge{l, r}] {
				t.Fatalf("EdgeID(%d,%d) ok=%v, want %v", l, r, ok, !ok)
			}
			if ok && g.Edge(id) != (Edge{l, r}) {
				t.Fatalf("EdgeID(%d,%d)=%d is edge %v", l, r, id, g.Edge(id))
			}
		}
	}
}

func TestGraphCSRMatchesAdjacency(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for trial := 0; trial < 300; trial++ {
		nl, nr := 1+rng.IntN(12), 1+rng.IntN(12)
		var edges []Edge
		for l := 0; l < nl; l++ {
			for r := 0; r < nr; r++ {
				if rng.Float64() < 0.4 {
					edges = append(edges, Edge{l, r})
				}
			}
		}
		rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
		g, err := NewGraph(nl, nr, edges)
		if err != nil {
			t.Fatal(err)
		}
		checkCSR(t, g, edges)
	}
}

func TestNewGraphRejectsBadInput(t *testing.T) {
	for _, tc := range []struct {
		name   string
		nl, nr int
		edges  []Edge
		want   error
	}{
		{"negative size", -1, 2, nil, ErrDimension},
		{"no left", 0, 2, nil, ErrEmpty},
		{"no right", 2, 0, nil, ErrEmpty},
		{"left out of range", 2, 2, []Edge{{2, 0}}, ErrVertexRange},
		{"negative right", 2, 2, []Edge{{0, -1}}, ErrVertexRange},
		{"duplicate", 2, 2, []Edge{{0, 1}, {1, 1}, {0, 1}}, ErrDuplicateEdge},
	} {
		_, err := NewGraph(tc.nl, tc.nr, tc.edges)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: err=%v, want %v", tc.name, err, tc.want)
		}
	}
}

func TestGeneratorsAreDeterministicAndShaped(t *testing.T) {
	g := Complete(3, 4)
	if g.NumEdges() != 12 {
		t.Fatalf("complete: %d edges", g.NumEdges())
	}
	checkCSR(t, g, g.Edges())

	b1, err := Bernoulli(10, 40, 0.1, rand.New(rand.NewPCG(7, 7)))
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := Bernoulli(10, 40, 0.1, rand.New(rand.NewPCG(7, 7)))
	if !slices.Equal(b1.Edges(), b2.Edges()) {
		t.Fatal("Bernoulli not deterministic for a seed")
	}
	checkCSR(t, b1, b1.Edges())
	// Mean edge count over many draws is p*|L||R| within 4 standard errors.
	rng := rand.New(rand.NewPCG(1, 2))
	total := 0
	const draws = 200
	for i := 0; i < draws; i++ {
		g, _ := Bernoulli(10, 40, 0.1, rng)
		total += g.NumEdges()
	}
	mean, sd := float64(total)/draws, 6.0 // sqrt(400*0.1*0.9)=6
	if d := mean - 40; d*d > 16*sd*sd/draws {
		t.Fatalf("Bernoulli mean edges %v, want 40", mean)
	}
	if _, err := Bernoulli(2, 2, 1.5, rng); !errors.Is(err, ErrProbability) {
		t.Fatalf("p=1.5: %v", err)
	}

	rr, err := RightRegular(10, 128, 3, rand.New(rand.NewPCG(3, 3)))
	if err != nil {
		t.Fatal(err)
	}
	for r := 0; r < rr.NumRight(); r++ {
		if rr.RightDegree(r) != 3 {
			t.Fatalf("right %d degree %d, want 3", r, rr.RightDegree(r))
		}
	}
	checkCSR(t, rr, rr.Edges())
	if _, err := RightRegular(3, 3, 4, rng); !errors.Is(err, ErrDimension) {
		t.Fatalf("d>|L|: %v", err)
	}
}

func TestGraphJSONRoundTrip(t *testing.T) {
	g, _ := Bernoulli(5, 7, 0.5, rand.New(rand.NewPCG(1, 1)))
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var h Graph
	if err := json.Unmarshal(b, &h); err != nil {
		t.Fatal(err)
	}
	if h.NumLeft() != 5 || h.NumRight() != 7 || !slices.Equal(g.Edges(), h.Edges()) {
		t.Fatal("round trip changed the graph")
	}
	checkCSR(t, &h, h.Edges())
	for _, bad := range []string{
		`{"version":2,"left":1,"right":1,"edges":[]}`,
		`{"version":1,"left":1,"right":1,"edges":[[0,1]]}`,
		`{"version":1,"left":2,"right":1,"edges":[[0,0],[0,0]]}`,
		`{"version":1,"left":0,"right":1}`,
		`[1,2]`,
	} {
		if err := json.Unmarshal([]byte(bad), &h); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func FuzzGraphUnmarshal(f *testing.F) {
	f.Add([]byte(`{"version":1,"left":2,"right":3,"edges":[[0,0],[1,2]]}`))
	f.Add([]byte(`{"version":1,"left":1,"right":1,"edges":[[0,0],[0,0]]}`))
	f.Add([]byte(`{"version":1,"left":-1,"right":1,"edges":[]}`))
	f.Add([]byte(`{"version":1,"left":1000000000,"right":1,"edges":[]}`))
	f.Add([]byte(`{"version":1,"left":9223372036854775807,"right":2,"edges":[[0,1]]}`))
	f.Add([]byte(`{"version":1,"left":1,"right":8,"edges":[[0,0,7],[0],[]]}`))
	f.Add([]byte(`{"version":1,"left":1,"right":1,"edges":[[0,0]]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var g Graph
		if err := json.Unmarshal(b, &g); err != nil {
			return
		}
		if g.NumLeft() > DefaultMaxVertices || g.NumRight() > DefaultMaxVertices || g.NumEdges() > DefaultMaxEdges {
			t.Fatalf("decoded a graph above the limits: %d×%d, %d edges", g.NumLeft(), g.NumRight(), g.NumEdges())
		}
		// Reference: encoding/json into [][]int; every edge must have been
		// a pair of exactly these integers.
		var ref struct{ Edges [][]int }
		if err := json.Unmarshal(b, &ref); err != nil || len(ref.Edges) != g.NumEdges() {
			t.Fatalf("reference decode: %v, %d edges vs %d", err, len(ref.Edges), g.NumEdges())
		}
		want := make([]Edge, 0, len(ref.Edges))
		for _, e := range ref.Edges {
			if len(e) != 2 {
				t.Fatalf("accepted edge %v", e)
			}
			want = append(want, Edge{e[0], e[1]})
		}
		slices.SortFunc(want, cmpEdge)
		if !slices.Equal(want, g.Edges()) {
			t.Fatalf("edges %v, reference %v", g.Edges(), want)
		}
		if g.NumLeft() > 64 || g.NumRight() > 64 {
			return
		}
		checkCSR(t, &g, g.Edges())
	})
}

func TestMeshAvailableMatchesDefinition(t *testing.T) {
	caps := make([]float64, 4*6)
	for i := range caps {
		caps[i] = 20
	}
	m, err := NewMesh(4, 6, caps)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		nodes       []int
		arr, dl     int
		wantNumUnit int
	}{
		{[]int{0, 2}, 1, 3, 6},
		{[]int{3}, 4, 100, 2}, // clipped to slot 5
		{[]int{1}, 7, 9, 0},   // after the horizon
		{nil, 0, 5, 0},
	} {
		got, err := m.Available(nil, tc.nodes, tc.arr, tc.dl)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != tc.wantNumUnit {
			t.Fatalf("%v: %d units, want %d", tc, len(got), tc.wantNumUnit)
		}
		for _, r := range got {
			i, s := m.NodeSlot(r)
			if m.Unit(i, s) != r || !slices.Contains(tc.nodes, i) || s < tc.arr || s > tc.dl {
				t.Fatalf("%v: unit %d=(%d,%d) outside R_n", tc, r, i, s)
			}
		}
	}
	if _, err := m.Available(nil, []int{4}, 0, 1); !errors.Is(err, ErrVertexRange) {
		t.Fatalf("node out of range: %v", err)
	}
	if _, err := m.Available(nil, []int{1, 1}, 0, 1); !errors.Is(err, ErrDuplicateEdge) {
		t.Fatalf("repeated node: %v", err)
	}
	if _, err := m.Available(nil, []int{1}, 3, 2); !errors.Is(err, ErrInterval) {
		t.Fatalf("deadline<arrival: %v", err)
	}
	caps[5] = -1
	if _, err := NewMesh(4, 6, caps); !errors.Is(err, ErrCapacity) {
		t.Fatalf("negative capacity: %v", err)
	}
	if _, err := NewMesh(4, 5, caps); !errors.Is(err, ErrDimension) {
		t.Fatalf("wrong length: %v", err)
	}
}

func benchmarkEdgeID(b *testing.B, n int) {
	g := Complete(n, n)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, ok := g.EdgeID(i%n, (i*7)%n); !ok {
			b.Fatal("missing edge")
		}
	}
}

func BenchmarkEdgeIDSmall(b *testing.B)  { benchmarkEdgeID(b, 10) }
func BenchmarkEdgeIDMedium(b *testing.B) { benchmarkEdgeID(b, 128) }
func BenchmarkEdgeIDLarge(b *testing.B)  { benchmarkEdgeID(b, 1024) }

func BenchmarkBernoulliDefault(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Bernoulli(100, 1024, 0.5, rng); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzNewMesh checks that no declared mesh size panics, overflows or
// allocates more than the limits allow, and that Available stays inside the
// mesh for any interval.
func FuzzNewMesh(f *testing.F) {
	f.Add(2, 3, 0, 5)
	f.Add(1<<32, 1<<32+1, 0, math.MaxInt)
	f.Fuzz(func(t *testing.T, nodes, slots, arrival, deadline int) {
		err := DefaultLimits().CheckMesh(nodes, slots)
		if err != nil || nodes*slots > 1<<12 {
			// Never allocate a capacity slice from a hostile size: a wrong
			// length must be rejected without looking at the entries.
			if _, err2 := NewMesh(nodes, slots, make([]float64, 7)); err2 == nil && !(nodes*slots == 7) {
				t.Fatalf("NewMesh(%d, %d) with 7 capacities: no error", nodes, slots)
			}
			return
		}
		m, err := NewMesh(nodes, slots, make([]float64, nodes*slots))
		if err != nil {
			t.Fatal(err)
		}
		units, err := m.Available(nil, []int{nodes - 1, 0}, arrival, deadline)
		if err != nil {
			return
		}
		if len(units) > 2*slots {
			t.Fatalf("%d units for 2 nodes of %d slots", len(units), slots)
		}
		for _, r := range units {
			if r < 0 || r >= m.NumUnits() {
				t.Fatalf("unit %d outside [0,%d)", r, m.NumUnits())
			}
		}
	})
}
