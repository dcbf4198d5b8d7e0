package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// TestGangSwapEject: job B's one component (demand 10, value 3) fits
// only server 0, which job A (two components of 5, Min 2, value 1 each)
// fills; servers 1 and 2 have room 5 each. No chain inserts B (ejecting
// one component of A leaves 5), so insertComp clears server 0 and places
// A's components again, one on each of the other servers: the value goes
// from 2 to 3 + 0.5 + 0.5 = 4 with A still served.
func TestGangSwapEject(t *testing.T) {
	g, err := bipartite.NewGraph(2, 3, []bipartite.Edge{
		{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2},
		{Left: 1, Right: 0},
	})
	require.NoError(t, err)
	jobs := []bipartite.GangJob{
		{Demand: []float64{5, 5}, Min: 2}, // A: components 0, 1
		{Demand: []float64{10}, Min: 1},   // B: component 2
	}
	ch := newTestChannels(t, g, 1, []float64{10, 5, 5}, jobs)
	val := make([]float64, ch.Len())
	set := func(c, r int, v float64) {
		i, ok := ch.Channel(c, r)
		require.True(t, ok)
		val[i] = v
	}
	for c := 0; c < 2; c++ {
		set(c, 0, 1)
		set(c, 1, 0.5)
		set(c, 2, 0.5)
	}
	set(2, 0, 3)
	p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
	s, before := chainSolve(t, p, []int{0, 0, -1})
	require.Equal(t, 2.0, before)
	require.False(t, s.chains(), "no exchange keeping the served jobs gains")
	require.True(t, s.swapJobs())
	x := s.o.inc[:3]
	require.Equal(t, 0, x[2])
	require.ElementsMatch(t, []int{1, 2}, x[:2])
	require.InDelta(t, 4.0, s.incVal, 1e-12)
	require.InDelta(t, 4.0, gangValue(t, p, x), 1e-12)
	require.False(t, s.swapJobs(), "a second call finds nothing")
}

// TestGangSwapReplace: one server, room for one job; the served job A
// (value 1) gives way to the unserved B (value 2), whose component needs
// all the room (no insertion without removing A).
func TestGangSwapReplace(t *testing.T) {
	g, err := bipartite.NewGraph(2, 1, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 1, Right: 0}})
	require.NoError(t, err)
	jobs := []bipartite.GangJob{{Demand: []float64{0.7, 0.3}, Min: 2}, {Demand: []float64{1}, Min: 1}}
	ch := newTestChannels(t, g, 1, []float64{1}, jobs)
	val := []float64{0.5, 0.5, 2}
	p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
	s, before := chainSolve(t, p, []int{0, 0, -1})
	require.Equal(t, 1.0, before)
	require.True(t, s.swapJobs())
	require.Equal(t, []int{-1, -1, 0}, s.o.inc[:3])
	require.InDelta(t, 2.0, s.incVal, 1e-12)
}

// TestGangSwapRandom: on random instances (integer and decimal demands,
// tight capacities) and a random feasible placement of each, swapJobs
// called until it finds nothing keeps the placement feasible under
// GangModel.Check, never lowers the value and reports the value it
// reaches. With one-component jobs it must also find every swap that
// needs no other move: no served job s and unserved job u such that u's
// component fits where s's leaves room (or fits already) and gains.
func TestGangSwapRandom(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 800
	}
	swapped := 0
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 83))
		single := it%2 == 0
		L, R, K := 2+rng.IntN(6), 1+rng.IntN(4), 1+rng.IntN(2)
		g := randomGangGraph(t, rng, L, R, 0.8)
		capv := make([]float64, R*K)
		for i := range capv {
			capv[i] = []float64{1, 2, 3, 0.7, 1.1}[rng.IntN(5)]
		}
		jobs := make([]bipartite.GangJob, L)
		for l := range jobs {
			q := 1
			if !single {
				q = 1 + rng.IntN(4)
			}
			d := make([]float64, q*K)
			for i := range d {
				d[i] = []float64{1, 2, 0.1, 0.3, 0.4, 0.2}[rng.IntN(6)]
			}
			jobs[l] = bipartite.GangJob{Demand: d, Min: rng.IntN(q + 1)}
		}
		ch := newTestChannels(t, g, K, capv, jobs)
		m := ch.Model()
		C := m.NumComponents()
		val := make([]float64, ch.Len())
		for i := range val {
			val[i] = rng.Float64()
		}
		p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
		x := randomGangPlacement(t, rng, p, false)
		s, before := chainSolve(t, p, x)
		for range 1000 {
			if !s.swapJobs() {
				if s.swapDone() {
					break
				}
				continue
			}
			swapped++
			y := s.o.inc[:C]
			chk, err := m.Check(p.Arrived, y)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, "instance %d: infeasible", it)
			after := gangValue(t, p, y)
			require.InDelta(t, after, s.incVal, 1e-9, "instance %d: reported value", it)
			require.Greater(t, after, before, "instance %d", it)
			before = after
		}
		require.True(t, s.swapDone(), "instance %d: no fixed point", it)
		require.False(t, s.swapJobs(), "instance %d: no fixed point", it)
		if !single {
			continue
		}
		// every direct swap found
		y := append([]int(nil), s.o.inc[:C]...)
		for u := 0; u < L; u++ {
			if y[u] >= 0 {
				continue
			}
			for rm := -1; rm < L; rm++ {
				if rm >= 0 && y[rm] < 0 {
					continue
				}
				z := append([]int(nil), y...)
				if rm >= 0 {
					z[rm] = -1
				}
				clo, chi := ch.Range(u)
				for i := clo; i < chi; i++ {
					z[u] = ch.Server(i)
					chk, err := m.Check(p.Arrived, z)
					require.NoError(t, err)
					if chk.Violations == 0 && m.Min(u) > 0 {
						require.LessOrEqual(t, gangValue(t, p, z), s.incVal+1e-9,
							"instance %d: job %d in place of %d on server %d gains", it, u, rm, z[u])
					}
				}
			}
		}
	}
	t.Logf("%d swaps in %d instances", swapped, n)
	require.Greater(t, swapped, n/20)
}

// BenchmarkGangSwapJobs measures one call of swapJobs that finds nothing
// (up to swapTrials pairs tried and undone), on the synthetic
// 312-component model at a placement no swap improves, 90 % of its jobs
// arrived so that some are unserved.
func BenchmarkGangSwapJobs(b *testing.B) {
	p, rng := syntheticGangKnapsack(b)
	m := p.Channels.Model()
	for l := range p.Arrived {
		p.Arrived[l] = rng.IntN(10) > 0
	}
	x := make([]int, m.NumComponents())
	var o GangOracle
	_, err := o.Solve(x, p)
	require.NoError(b, err)
	s, _ := chainSolve(b, p, x)
	for range 1000 {
		if !s.swapJobs() && s.swapDone() {
			break
		}
	}
	require.True(b, s.swapDone())
	b.ReportAllocs()
	for b.Loop() {
		s.o.swap.at = math.NaN() // every pair to try again
		if s.swapJobs() {
			b.Fatal("a swap gained at a fixed point")
		}
	}
	b.ReportMetric(float64(len(s.o.swap.pairs)), "pairs")
}
