package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// randomPackKnapsack draws a small gang knapsack for the packing tests:
// 1-4 jobs of 1-3 components, 1-4 servers, one or two resources,
// decimal demands and capacities (so that demands sum exactly to a
// capacity: 0.3 + 0.2 + 0.5 = 1), positive values; with equal, every
// server has the same capacities.
func randomPackKnapsack(t testing.TB, rng *rand.Rand, equal bool) *GangKnapsack {
	dem := []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.7, 1}
	caps := []float64{0.5, 0.7, 1, 1.2, 1.5}
	for {
		L, R, K := 1+rng.IntN(4), 1+rng.IntN(4), 1+rng.IntN(2)
		var edges []bipartite.Edge
		for l := 0; l < L; l++ {
			for r := 0; r < R; r++ {
				if equal || rng.Float64() < 0.8 {
					edges = append(edges, bipartite.Edge{Left: l, Right: r})
				}
			}
		}
		g, err := bipartite.NewGraph(L, R, edges)
		require.NoError(t, err)
		capv := make([]float64, R*K)
		for i := range capv {
			capv[i] = caps[rng.IntN(len(caps))]
			if equal && i >= K {
				capv[i] = capv[i%K]
			}
		}
		jobs, total := randomGangJobs(L, K,
			func() int { return 1 + rng.IntN(3) },
			func() float64 { return dem[rng.IntN(len(dem))] },
			func(q int) int { return q })
		if total > 8 {
			continue
		}
		ch := newTestChannels(t, g, K, capv, jobs)
		val := make([]float64, ch.Len())
		for i := range val {
			val[i] = 0.1 + rng.Float64()
		}
		return &GangKnapsack{Channels: ch, Value: val}
	}
}

// packFeasible reports whether the components of the jobs in want can
// all be placed at once, by enumerating every assignment of each to a
// fitting channel (loads summed in component order, bipartite.Fits).
func packFeasible(p *GangKnapsack, want []bool) bool {
	m := p.Channels.Model()
	K := m.K()
	var comps []int
	for c := 0; c < m.NumComponents(); c++ {
		if want[m.Job(c)] {
			comps = append(comps, c)
		}
	}
	at := make([]int, len(comps))
	load := make([]float64, m.NumServers()*K)
	var rec func(j int) bool
	rec = func(j int) bool {
		if j == len(comps) {
			clear(load)
			for x, c := range comps {
				for k, d := range m.Demand(c) {
					load[at[x]*K+k] += d
				}
			}
			for r := 0; r < m.NumServers(); r++ {
				for k, cp := range m.Capacity(r) {
					if !bipartite.Fits(load[r*K+k], cp) {
						return false
					}
				}
			}
			return true
		}
		lo, hi := p.Channels.Range(comps[j])
		for i := lo; i < hi; i++ {
			if !p.Channels.Fits(i) {
				continue
			}
			at[j] = p.Channels.Server(i)
			if rec(j + 1) {
				return true
			}
		}
		return false
	}
	return rec(0)
}

// TestGangPackBruteForce: packSet (bin completion with its prunings:
// maximal sets only, the slack bound, the failed-state memo and the
// one-resource projections) against enumeration on small instances
// whose decimal demands often sum exactly to a capacity: every packing
// it returns places exactly the set's components and passes
// GangModel.Check, and when its search was complete (no node limit, no
// candidate set cut) it finds a packing if and only if one exists.
func TestGangPackBruteForce(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 4000
	}
	feasible, infeasible, cut := 0, 0, 0
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 2911))
		p := randomPackKnapsack(t, rng, false)
		m := p.Channels.Model()
		C, J := m.NumComponents(), m.NumJobs()
		o := GangOracle{Settings: GangOracleSettings{MaxNodes: 1, Iterations: 1}}
		x := make([]int, C)
		_, err := o.Solve(x, p) // sizes the scratch and sets capv
		require.NoError(t, err)
		s := gangSolve{o: &o, ch: p.Channels, p: p, K: m.K()}
		for c := range o.inc[:C] {
			o.inc[c] = -1
		}
		ps := &o.pack
		ps.want = make([]bool, J)
		for l := range ps.want {
			ps.want[l] = rng.IntN(10) < 7
		}
		s.packPrepare()
		val, _, ok := s.packSet()
		want := packFeasible(p, ps.want)
		if ok {
			y := o.chosen[:C]
			all := make([]bool, J)
			for l := range all {
				all[l] = true
			}
			chk, err := m.Check(all, y)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, "instance %d: %v", it, chk.First)
			v := 0.0
			for c, r := range y {
				require.Equal(t, ps.want[m.Job(c)], r >= 0, "instance %d: component %d", it, c)
				if r >= 0 {
					i, _ := p.Channels.Channel(c, r)
					v += p.Value[i]
				}
			}
			require.InDelta(t, v, val, 1e-9, "instance %d", it)
			require.True(t, want, "instance %d: packed what enumeration cannot", it)
		}
		if ps.partial || ps.stop {
			cut++
			continue
		}
		require.Equal(t, want, ok, "instance %d: complete search", it)
		if want {
			feasible++
		} else {
			infeasible++
		}
	}
	t.Logf("%d instances: %d packable, %d not, %d with a cut search", n, feasible, infeasible, cut)
	require.Greater(t, feasible, n/4)
	require.Greater(t, infeasible, n/20)
}

// TestGangPolishServersBruteForce: on servers of equal capacities,
// polishServers moves whole contents to the best permutation of the
// servers (enumerated), keeps the placement feasible and its value
// reported; polishWide keeps it feasible and never lowers its value.
func TestGangPolishServersBruteForce(t *testing.T) {
	n := 5000
	if testing.Short() {
		n = 1000
	}
	improved, wide := 0, 0
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 2912))
		p := randomPackKnapsack(t, rng, true)
		m := p.Channels.Model()
		C, R := m.NumComponents(), m.NumServers()
		p.Arrived = make([]bool, m.NumJobs())
		for l := range p.Arrived {
			p.Arrived[l] = true
		}
		o := GangOracle{Settings: GangOracleSettings{MaxNodes: 1, Iterations: 1}}
		x := make([]int, C)
		_, err := o.Solve(x, p)
		require.NoError(t, err)
		// a random feasible placement of whole jobs
		for try := 0; try < 30; try++ {
			y := make([]int, C)
			for l := 0; l < m.NumJobs(); l++ {
				lo, hi := m.Components(l)
				on := rng.IntN(3) > 0
				for c := lo; c < hi; c++ {
					y[c] = -1
					if clo, chi := p.Channels.Range(c); on && chi > clo {
						y[c] = p.Channels.Server(clo + rng.IntN(chi-clo))
					}
				}
			}
			if chk, err := m.Check(p.Arrived, y); err == nil && chk.Violations == 0 {
				x = y
				break
			}
		}
		before := gangValue(t, p, x)
		// brute force: every permutation of the servers' contents
		perm := make([]int, R)
		for r := range perm {
			perm[r] = r
		}
		best := math.Inf(-1)
		permute(perm, func() {
			v := 0.0
			for c, r := range x {
				if r < 0 {
					continue
				}
				i, ok := p.Channels.Channel(c, perm[r])
				if !ok || !p.Channels.Fits(i) {
					return
				}
				v += p.Value[i]
			}
			best = max(best, v)
		})
		s := gangSolve{o: &o, ch: p.Channels, p: p, K: m.K()}
		copy(o.inc, x)
		s.incVal = before
		s.tol = 1e-12 * max(1, math.Abs(before))
		gained := s.polishServers()
		after := gangValue(t, p, o.inc[:C])
		require.InDelta(t, after, s.incVal, 1e-9, "instance %d", it)
		require.InDelta(t, best, after, 1e-9, "instance %d: the best permutation", it)
		require.Equal(t, gained, after > before+s.tol, "instance %d", it)
		if gained {
			improved++
		}
		v0 := s.incVal
		if s.polishWide() {
			wide++
		}
		after = gangValue(t, p, o.inc[:C]) // feasible
		require.InDelta(t, after, s.incVal, 1e-9, "instance %d", it)
		require.GreaterOrEqual(t, after, v0-1e-12, "instance %d", it)
	}
	t.Logf("%d placements: polishServers improved %d, polishWide then %d", n, improved, wide)
	require.Greater(t, improved, n/20)
}

// newTestChannels builds the gang model of graph g and its channels.
func newTestChannels(t testing.TB, g *bipartite.Graph, K int, capv []float64, jobs []bipartite.GangJob) *GangChannels {
	m, err := bipartite.NewGangModel(g, K, capv, jobs)
	require.NoError(t, err)
	ch, err := NewGangChannels(m)
	require.NoError(t, err)
	return ch
}
