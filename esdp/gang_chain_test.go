package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// chainSolve returns a gangSolve of p at the incumbent x (the oracle's
// scratch sized by a solve first), every arrived job active.
func chainSolve(t testing.TB, p *GangKnapsack, x []int) (*gangSolve, float64) {
	t.Helper()
	m := p.Channels.Model()
	o := &GangOracle{Settings: GangOracleSettings{MaxNodes: 1, Iterations: 1}}
	_, err := o.Solve(make([]int, m.NumComponents()), p)
	require.NoError(t, err)
	s := &gangSolve{o: o, ch: p.Channels, p: p, K: m.K()}
	for l := 0; l < m.NumJobs(); l++ {
		if p.Arrived == nil || p.Arrived[l] {
			s.active = append(s.active, l)
		}
	}
	o.grow(p.Channels)
	for r := 0; r < m.NumServers(); r++ {
		for k, c := range m.Capacity(r) {
			o.capv[r*s.K+k] = bipartite.FitLimit(c)
		}
	}
	copy(o.inc, x)
	v := gangValue(t, p, x)
	s.incVal, s.tol = v, 1e-12*max(1, math.Abs(v))
	return s, v
}

// TestGangChainsCycle: three full servers, each component preferring the
// next server. No component can move alone and every swap of two
// gains nothing; the cyclic exchange gains 3.
func TestGangChainsCycle(t *testing.T) {
	g, err := bipartite.NewGraph(3, 3, []bipartite.Edge{
		{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2},
		{Left: 1, Right: 0}, {Left: 1, Right: 1}, {Left: 1, Right: 2},
		{Left: 2, Right: 0}, {Left: 2, Right: 1}, {Left: 2, Right: 2},
	})
	require.NoError(t, err)
	jobs := []bipartite.GangJob{{Demand: []float64{1}, Min: 1}, {Demand: []float64{1}, Min: 1}, {Demand: []float64{1}, Min: 1}}
	ch := newTestChannels(t, g, 1, []float64{1, 1, 1}, jobs)
	// job l's component: value 1 on server l, 2 on l+1, 0 on l+2
	val := make([]float64, ch.Len())
	for c := 0; c < 3; c++ {
		for r := 0; r < 3; r++ {
			i, ok := ch.Channel(c, r)
			require.True(t, ok)
			val[i] = []float64{1, 2, 0}[(r-c+3)%3]
		}
	}
	p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
	s, before := chainSolve(t, p, []int{0, 1, 2})
	require.Equal(t, 3.0, before)
	require.True(t, s.chains())
	after := gangValue(t, p, s.o.inc[:3])
	require.Equal(t, []int{1, 2, 0}, s.o.inc[:3])
	require.Equal(t, 6.0, after)
	require.InDelta(t, after, s.incVal, 1e-12)
	require.False(t, s.chains(), "a second call finds nothing")
}

// TestGangChainsPath: a component is added to a served job by a path
// exchange ending in a drop: the unplaced component c (value 5 on server
// 0) ejects a (value 1 there), which moves to server 1 ejecting b (a
// component beyond its job's minimum, value 2), which is dropped: gain
// 5 - 1 + 1.5 - 2 = 3.5. A second exchange brings b back in place of
// component 0.
func TestGangChainsPath(t *testing.T) {
	g, err := bipartite.NewGraph(3, 2, []bipartite.Edge{
		{Left: 0, Right: 0}, {Left: 0, Right: 1},
		{Left: 1, Right: 0}, {Left: 1, Right: 1},
		{Left: 2, Right: 0}, {Left: 2, Right: 1},
	})
	require.NoError(t, err)
	jobs := []bipartite.GangJob{
		{Demand: []float64{1, 1}, Min: 1}, // job 0: components 0 (placed, server 1), 1 (c, unplaced)
		{Demand: []float64{1}, Min: 1},    // job 1: component 2 (a, server 0)
		{Demand: []float64{1, 1}, Min: 1}, // job 2: components 3 (b, server 1), 4 (server 1)
	}
	ch := newTestChannels(t, g, 1, []float64{1, 3}, jobs)
	val := make([]float64, ch.Len())
	set := func(c, r int, v float64) {
		i, ok := ch.Channel(c, r)
		require.True(t, ok)
		val[i] = v
	}
	set(0, 0, 0.1)
	set(0, 1, 1)
	set(1, 0, 5)
	set(1, 1, 0.1)
	set(2, 0, 1)
	set(2, 1, 1.5)
	set(3, 0, 0.1)
	set(3, 1, 2)
	set(4, 0, 0.1)
	set(4, 1, 3)
	p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
	x := []int{1, -1, 0, 1, 1}
	s, before := chainSolve(t, p, x)
	require.InDelta(t, 7.0, before, 1e-12)
	require.True(t, s.chainPass())
	require.Equal(t, []int{1, 0, 1, -1, 1}, s.o.inc[:5])
	after := gangValue(t, p, s.o.inc[:5])
	require.InDelta(t, 10.5, after, 1e-12)
	require.InDelta(t, after, s.incVal, 1e-12)
	// then b comes back in place of component 0, dropped (job 0 keeps c):
	// the optimum among placements serving the same jobs
	require.True(t, s.chains())
	require.Equal(t, []int{-1, 0, 1, 1, 1}, s.o.inc[:5])
	require.InDelta(t, 11.5, s.incVal, 1e-12)
}

// TestGangChainsRandom: on random instances (integer demands, tight
// capacities) and a random feasible placement of each, chains keeps the
// placement feasible under GangModel.Check, serves the same jobs, never
// lowers the value, reports the value it reaches, stops at a fixed point,
// and ends at a placement no single move improves: no component of a
// served job moved to (or added on) a server that fits it, and none
// dropped from a job above its minimum, gains (every such move checked
// by Check and the values).
func TestGangChainsRandom(t *testing.T) {
	improved, n := 0, 4000
	if testing.Short() {
		n = 1000
	}
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 79))
		L, R, K := 2+rng.IntN(5), 2+rng.IntN(5), 1+rng.IntN(2)
		g := randomGangGraph(t, rng, L, R, 0.8)
		capv := make([]float64, R*K)
		for i := range capv {
			capv[i] = float64(2 + rng.IntN(3))
		}
		jobs := make([]bipartite.GangJob, L)
		for l := range jobs {
			q := 1 + rng.IntN(4)
			d := make([]float64, q*K)
			for i := range d {
				d[i] = float64(1 + rng.IntN(2))
			}
			jobs[l] = bipartite.GangJob{Demand: d, Min: rng.IntN(q + 1)}
		}
		ch := newTestChannels(t, g, K, capv, jobs)
		m := ch.Model()
		C := m.NumComponents()
		val := make([]float64, ch.Len())
		for i := range val {
			val[i] = -0.2 + rng.Float64()
		}
		p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
		x := randomGangPlacement(t, rng, p, true)
		s, before := chainSolve(t, p, x)
		gained := s.chains()
		y := s.o.inc[:C]
		after := gangValue(t, p, y)
		require.InDelta(t, after, s.incVal, 1e-9, "instance %d: reported value", it)
		require.GreaterOrEqual(t, after, before-1e-12, "instance %d", it)
		require.Equal(t, gained, after > before+1e-12, "instance %d", it)
		for l := 0; l < L; l++ {
			lo, hi := m.Components(l)
			was, is := false, false
			for c := lo; c < hi; c++ {
				was = was || x[c] >= 0
				is = is || y[c] >= 0
			}
			require.Equal(t, was, is, "instance %d: job %d served before and not after, or back", it, l)
		}
		require.False(t, s.chains(), "instance %d: not a fixed point", it)
		// no single move gains
		z := append([]int(nil), y...)
		try := func(what string, c, r int) {
			old := z[c]
			z[c] = r
			defer func() { z[c] = old }()
			chk, err := m.Check(p.Arrived, z)
			require.NoError(t, err)
			if chk.Violations > 0 {
				return
			}
			v := 0.0
			for c, r := range z {
				if r >= 0 {
					i, _ := ch.Channel(c, r)
					v += val[i]
				}
			}
			require.LessOrEqual(t, v, after+1e-9, "instance %d: %s component %d to %d gains", it, what, c, r)
		}
		for c := 0; c < C; c++ {
			l := m.Job(c)
			lo, hi := m.Components(l)
			n := 0
			for d := lo; d < hi; d++ {
				if y[d] >= 0 {
					n++
				}
			}
			if n == 0 {
				continue // unserved: serving it is not a move of chains
			}
			clo, chi := ch.Range(c)
			for i := clo; i < chi; i++ {
				if r := ch.Server(i); r != y[c] {
					try("moving", c, r)
				}
			}
			if y[c] >= 0 && n > m.Min(l) {
				try("dropping", c, -1)
			}
		}
		if gained {
			improved++
		}
	}
	t.Logf("chains improved %d of %d placements", improved, n)
	require.Greater(t, improved, n/10)
}

// randomGangPlacement returns a random feasible placement of p: jobs in
// random order, each component on a random fitting server (with skip,
// one in five left out first), a job kept when it fits with at least
// Min components (checked by GangModel.Check).
func randomGangPlacement(t testing.TB, rng *rand.Rand, p *GangKnapsack, skip bool) []int {
	t.Helper()
	ch := p.Channels
	m := ch.Model()
	x := make([]int, m.NumComponents())
	for c := range x {
		x[c] = -1
	}
	for _, l := range rng.Perm(m.NumJobs()) {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			if skip && rng.IntN(5) == 0 {
				continue
			}
			clo, chi := ch.Range(c)
			if chi > clo {
				x[c] = ch.Server(clo + rng.IntN(chi-clo))
				if chk, err := m.Check(p.Arrived, x); err != nil || chk.Violations > 0 {
					x[c] = -1
				}
			}
		}
		if chk, err := m.Check(p.Arrived, x); err != nil || chk.Violations > 0 {
			for c := lo; c < hi; c++ {
				x[c] = -1
			}
		}
	}
	return x
}

// randomGangGraph returns a random bipartite graph of L jobs and R
// servers, each edge present with probability p.
func randomGangGraph(t testing.TB, rng *rand.Rand, L, R int, p float64) *bipartite.Graph {
	t.Helper()
	var edges []bipartite.Edge
	for l := 0; l < L; l++ {
		for r := 0; r < R; r++ {
			if rng.Float64() < p {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
			}
		}
	}
	g, err := bipartite.NewGraph(L, R, edges)
	require.NoError(t, err)
	return g
}

// randomGangJobs returns L jobs of K resources: each draws its number of
// components (comps), then each demand (demand), then its minimum
// (min(q)), in that order; and their total number of components.
func randomGangJobs(L, K int, comps func() int, demand func() float64, min func(q int) int) ([]bipartite.GangJob, int) {
	jobs := make([]bipartite.GangJob, L)
	total := 0
	for l := range jobs {
		q := comps()
		total += q
		d := make([]float64, q*K)
		for i := range d {
			d[i] = demand()
		}
		jobs[l] = bipartite.GangJob{Demand: d, Min: min(q)}
	}
	return jobs, total
}

// syntheticGangKnapsack is the knapsack of the synthetic 312-component,
// 192-server model (dlrmGangModel), channel values uniform in
// [0.1, 1], every job arrived, and its value source for more draws.
func syntheticGangKnapsack(tb testing.TB) (*GangKnapsack, *rand.Rand) {
	m := dlrmGangModel(tb, 1, 1)
	ch, err := NewGangChannels(m)
	require.NoError(tb, err)
	rng := rand.New(rand.NewPCG(5, 5))
	val := make([]float64, ch.Len())
	for i := range val {
		val[i] = 0.1 + 0.9*rng.Float64()
	}
	return &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}, rng
}

func allArrived(ch *GangChannels) []bool {
	a := make([]bool, ch.Model().NumJobs())
	for l := range a {
		a[l] = true
	}
	return a
}

// BenchmarkGangChainPass: one pass of the ejection chains that finds no
// gaining exchange (the whole search, nothing applied) on dlrmGangModel's
// 312 components and 192 servers (every job arrived, values in [0.1, 1],
// the placement GangAuto's, then chains to a fixed point).
func BenchmarkGangChainPass(b *testing.B) {
	p, _ := syntheticGangKnapsack(b)
	m := p.Channels.Model()
	x := make([]int, m.NumComponents())
	var o GangOracle
	_, err := o.Solve(x, p)
	require.NoError(b, err)
	s, _ := chainSolve(b, p, x)
	s.chains()
	b.ReportAllocs()
	for b.Loop() {
		if s.chainPass() {
			b.Fatal("a pass gained at a fixed point")
		}
	}
}
