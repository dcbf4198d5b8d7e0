package ogasched

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
)

// smallGang draws a small contended gang instance.
func smallGang(t testing.TB, seed uint64, jobs, servers int) *GangInstance {
	t.Helper()
	cfg := DefaultGangConfig()
	cfg.Config.Ports, cfg.Config.Nodes, cfg.Config.EdgeProb = jobs, servers, 0.6
	cfg.Config.Contention = 20
	in, err := GenerateGang(cfg, rand.New(rand.NewPCG(seed, 7)))
	require.NoError(t, err)
	return in
}

func arrivals(rng *rand.Rand, jobs int, rho float64) []float64 {
	x := make([]float64, jobs)
	for l := range x {
		if rng.Float64() < rho {
			x[l] = 1
		}
	}
	return x
}

func arrived(x []float64) []bool {
	a := make([]bool, len(x))
	for l, v := range x {
		a[l] = v > 0
	}
	return a
}

// TestGangFeasibleEverySlot: every placement of OGASched-gang passes the
// independent verifier, on many random instances and arrival sequences.
func TestGangFeasibleEverySlot(t *testing.T) {
	served := 0
	for seed := uint64(1); seed <= 30; seed++ {
		in := smallGang(t, seed, 2+int(seed%7), 3+int(seed%11))
		s := in.Settings()
		s.Seed = seed
		pol, err := NewGang(in.Model, s)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 1))
		for slot := 0; slot < 60; slot++ {
			x := arrivals(rng, in.Model.NumJobs(), 0.7)
			d, err := pol.Decide(slot, x)
			require.NoError(t, err)
			chk, err := in.Model.Check(arrived(x), d.Server)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, "seed %d slot %d: %s", seed, slot, chk.First)
			served += chk.Served
			_, n, err := GangReward(pol.Relaxation(), in.Model, GangMinComponents, x, d.Server)
			require.NoError(t, err)
			require.Equal(t, chk.Served, n)
			require.NoError(t, pol.Observe(slot, x))
		}
		pol.Close()
	}
	require.Positive(t, served)
}

// TestGangRewardIsRelaxationAtIntegralPoints: the gang reward of a placement
// equals the relaxation's reward (7)-(8) at y_{c,r} = a_c [c on r] with the
// component arrivals, for placements that are all-or-nothing.
func TestGangRewardIsRelaxationAtIntegralPoints(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		in := smallGang(t, seed, 4, 6)
		m := in.Model
		p, err := GangRelaxation(m, in.Settings())
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 3))
		x := arrivals(rng, m.NumJobs(), 0.8)
		server := make([]int, m.NumComponents())
		y := make([]float64, p.Dim())
		K := m.K()
		for l := 0; l < m.NumJobs(); l++ {
			lo, hi := m.Components(l)
			whole := rng.IntN(2) == 0
			for c := lo; c < hi; c++ {
				server[c] = -1
				if !whole || x[l] == 0 {
					continue
				}
				rs := m.Graph().LeftNeighbors(l)
				r := rs[rng.IntN(len(rs))]
				server[c] = r
				e, ok := p.Graph.EdgeID(c, r)
				require.True(t, ok)
				copy(y[e*K:(e+1)*K], m.Demand(c))
			}
		}
		got, _, err := GangReward(p, m, GangMinComponents, x, server)
		require.NoError(t, err)
		xc := GangArrivals(make([]float64, m.NumComponents()), m, x)
		want := p.Reward(xc, y)
		assert.InDelta(t, want, got, 1e-9*(1+math.Abs(want)), "seed %d", seed)
	}
}

// TestGangRoundingExactOnIntegralPoints: when y(t) is itself a gang
// placement (each component's whole demand on one server, jointly within
// capacity), the rounding keeps every component of it whose job arrived on
// its server (and may place further arrived jobs in the capacity left).
func TestGangRoundingExactOnIntegralPoints(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		in := smallGang(t, seed, 3, 5)
		m := in.Model
		K := m.K()
		rng := rand.New(rand.NewPCG(seed, 5))
		// A feasible integral placement: first fit in a random server order.
		load := make([]float64, m.NumServers()*K)
		want := slices.Repeat([]int{-1}, m.NumComponents())
		for l := 0; l < m.NumJobs(); l++ {
			lo, hi := m.Components(l)
			rs := slices.Clone(m.Graph().LeftNeighbors(l))
			rng.Shuffle(len(rs), func(i, j int) { rs[i], rs[j] = rs[j], rs[i] })
			ok := true
			for c := lo; c < hi && ok; c++ {
				ok = false
				for _, r := range rs {
					if bipartite.FitsAdd(load[r*K:(r+1)*K], m.Demand(c), m.Capacity(r)) {
						for k, a := range m.Demand(c) {
							load[r*K+k] += a
						}
						want[c], ok = r, true
						break
					}
				}
			}
			if !ok {
				for c := lo; c < hi; c++ {
					if r := want[c]; r >= 0 {
						for k, a := range m.Demand(c) {
							load[r*K+k] -= a
						}
						want[c] = -1
					}
				}
			}
		}
		s := in.Settings()
		p, err := GangRelaxation(m, s)
		require.NoError(t, err)
		init := make([]float64, p.Dim())
		for c, r := range want {
			if r >= 0 {
				e, _ := p.Graph.EdgeID(c, r)
				copy(init[e*K:], m.Demand(c))
			}
		}
		s.Init = init
		pol, err := NewGang(m, s)
		require.NoError(t, err)
		x := arrivals(rng, m.NumJobs(), 0.7)
		d, err := pol.Decide(0, x)
		require.NoError(t, err)
		for c, r := range want {
			switch {
			case x[m.Job(c)] == 0:
				require.Equal(t, -1, d.Server[c], "seed %d component %d of a job that did not arrive", seed, c)
			case r >= 0:
				require.Equal(t, r, d.Server[c], "seed %d component %d", seed, c)
			}
		}
		pol.Close()
	}
}

// TestGangBoundAboveFixedPlacements: the relaxation's certified bound is
// above the total reward of every fixed placement (here: random
// all-or-nothing placements replayed over the arrivals) and above
// OGASched-gang's fractional total minus nothing: it is an upper bound on
// the relaxation's value at every fixed point.
func TestGangBoundAboveFixedPlacements(t *testing.T) {
	for seed := uint64(1); seed <= 8; seed++ {
		in := smallGang(t, seed, 3, 4)
		m := in.Model
		p, err := GangRelaxation(m, in.Settings())
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 9))
		var xs [][]float64
		for range 40 {
			xs = append(xs, arrivals(rng, m.NumJobs(), 0.6))
		}
		bf, err := GangBestFixed(p, m, xs, BestFixedSettings{})
		require.NoError(t, err)
		require.True(t, bf.Converged)
		for range 50 {
			server := make([]int, m.NumComponents())
			for c := range server {
				rs := m.Graph().LeftNeighbors(m.Job(c))
				server[c] = rs[rng.IntN(len(rs))]
			}
			all := make([]bool, m.NumJobs())
			for l := range all {
				all[l] = true
			}
			if chk, _ := m.Check(all, server); chk.Violations > 0 {
				continue
			}
			total := 0.0
			for _, x := range xs {
				v, _, err := GangReward(p, m, GangMinComponents, x, server)
				require.NoError(t, err)
				total += v
			}
			require.LessOrEqual(t, total, bf.Bound*(1+1e-9)+1e-9)
		}
	}
}

func TestGangDeterministicAndSeeded(t *testing.T) {
	in := smallGang(t, 3, 8, 6)
	run := func(seed uint64) [][]int {
		s := in.Settings()
		s.Seed = seed
		pol, err := NewGang(in.Model, s)
		require.NoError(t, err)
		defer pol.Close()
		rng := rand.New(rand.NewPCG(1, 1))
		var out [][]int
		for slot := range 30 {
			x := arrivals(rng, in.Model.NumJobs(), 0.8)
			d, err := pol.Decide(slot, x)
			require.NoError(t, err)
			out = append(out, slices.Clone(d.Server))
			require.NoError(t, pol.Observe(slot, x))
		}
		return out
	}
	require.Equal(t, run(5), run(5))
}

func TestGangLiteralReadingHalfPlaces(t *testing.T) {
	// One job of two components, one server that fits only one.
	g, err := bipartite.NewGraph(1, 1, []bipartite.Edge{{Left: 0, Right: 0}})
	require.NoError(t, err)
	m, err := bipartite.NewGangModel(g, 1, []float64{1}, []bipartite.GangJob{{Demand: []float64{1, 1}}})
	require.NoError(t, err)
	for _, rd := range []GangReading{GangMinComponents, GangLiteralPositive} {
		pol, err := NewGang(m, GangSettings{Reading: rd})
		require.NoError(t, err)
		d, err := pol.Decide(0, []float64{1})
		require.NoError(t, err)
		chk, err := m.Check([]bool{true}, d.Server)
		require.NoError(t, err)
		v, n, err := GangReward(pol.Relaxation(), m, rd, []float64{1}, d.Server)
		require.NoError(t, err)
		if rd == GangMinComponents {
			assert.Equal(t, []int{-1, -1}, d.Server)
			assert.Zero(t, chk.Violations)
			assert.Zero(t, v)
		} else {
			assert.Equal(t, []int{0, -1}, d.Server)
			assert.Equal(t, 1, chk.Violations)
			assert.Equal(t, 1, n)
			assert.InDelta(t, 1.0, v, 1e-12) // f(y) = y, beta = 0
		}
		pol.Close()
	}
}

func TestGangHostileInput(t *testing.T) {
	in := smallGang(t, 1, 3, 4)
	_, err := NewGang(nil, GangSettings{})
	require.ErrorIs(t, err, ErrDimension)
	_, err = NewGang(in.Model, GangSettings{Reading: 7, Workers: -1, Beta: []float64{math.NaN()}})
	require.ErrorIs(t, err, ErrSettings)
	_, err = NewGang(in.Model, GangSettings{Beta: []float64{0.1}})
	require.ErrorIs(t, err, ErrDimension)
	pol, err := NewGang(in.Model, in.Settings())
	require.NoError(t, err)
	defer pol.Close()
	J := in.Model.NumJobs()
	_, err = pol.Decide(0, make([]float64, J+1))
	require.ErrorIs(t, err, ErrDimension)
	bad := make([]float64, J)
	bad[0] = math.NaN()
	_, err = pol.Decide(0, bad)
	require.ErrorIs(t, err, ErrValue)
	_, err = pol.Decide(-1, make([]float64, J))
	require.ErrorIs(t, err, ErrSlot)
	require.ErrorIs(t, pol.Observe(0, make([]float64, J)), ErrSlot)
	_, err = pol.Decide(3, make([]float64, J))
	require.NoError(t, err)
	_, err = pol.Decide(3, make([]float64, J))
	require.ErrorIs(t, err, ErrSlot)
	require.ErrorIs(t, pol.Observe(2, make([]float64, J)), ErrSlot)
	require.NoError(t, pol.Observe(3, make([]float64, J)))
	require.ErrorIs(t, pol.Observe(3, make([]float64, J)), ErrSlot)
	_, _, err = GangReward(nil, in.Model, 0, nil, nil)
	require.ErrorIs(t, err, ErrDimension)
	_, err = GangBestFixed(pol.Relaxation(), in.Model, [][]float64{{1}}, BestFixedSettings{})
	require.ErrorIs(t, err, ErrDimension)
}

func TestGangSnapshotRoundTrip(t *testing.T) {
	in := smallGang(t, 2, 5, 6)
	s := in.Settings()
	s.Seed = 9
	a, err := NewGang(in.Model, s)
	require.NoError(t, err)
	defer a.Close()
	rng := rand.New(rand.NewPCG(2, 2))
	for slot := range 20 {
		x := arrivals(rng, in.Model.NumJobs(), 0.7)
		_, err := a.Decide(slot, x)
		require.NoError(t, err)
		require.NoError(t, a.Observe(slot, x))
	}
	snap, err := a.MarshalBinary()
	require.NoError(t, err)
	b, err := NewGang(in.Model, s)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, b.UnmarshalBinary(snap))
	for slot := 20; slot < 30; slot++ {
		x := arrivals(rng, in.Model.NumJobs(), 0.7)
		da, err := a.Decide(slot, x)
		require.NoError(t, err)
		db, err := b.Decide(slot, x)
		require.NoError(t, err)
		require.Equal(t, da.Server, db.Server)
		require.Equal(t, da.Y, db.Y)
		require.NoError(t, a.Observe(slot, x))
		require.NoError(t, b.Observe(slot, x))
	}
	// Another seed is another model; altered bytes are corrupt.
	s2 := s
	s2.Seed = 10
	c, err := NewGang(in.Model, s2)
	require.NoError(t, err)
	defer c.Close()
	require.ErrorIs(t, c.UnmarshalBinary(snap), ErrSnapshot)
	require.ErrorIs(t, b.UnmarshalBinary(snap[:len(snap)/2]), ErrSnapshot)
	// A feasible-looking but infeasible y (semantic check).
	bigY := slices.Clone(a.Y())
	for i := range bigY {
		bigY[i] = 1e9
	}
	st := policyState{Decided: 1, Y: bigY}
	st.Check = st.sum()
	bad, err := encodeGangState(a, st)
	require.NoError(t, err)
	err = c.UnmarshalBinary(bad)
	require.Error(t, err)
	err = a.UnmarshalBinary(bad)
	require.ErrorIs(t, err, ErrSnapshot)
}

func TestGangRebuildRemoveServer(t *testing.T) {
	in := smallGang(t, 4, 4, 6)
	m := in.Model
	pol, err := NewGang(m, in.Settings())
	require.NoError(t, err)
	defer pol.Close()
	rng := rand.New(rand.NewPCG(4, 4))
	for slot := range 10 {
		x := arrivals(rng, m.NumJobs(), 0.7)
		_, err := pol.Decide(slot, x)
		require.NoError(t, err)
		require.NoError(t, pol.Observe(slot, x))
	}
	// Drop server 0; keep jobs.
	var edges []bipartite.Edge
	for _, e := range m.Graph().Edges() {
		if e.Right > 0 {
			edges = append(edges, bipartite.Edge{Left: e.Left, Right: e.Right - 1})
		}
	}
	for l := 0; l < m.NumJobs(); l++ {
		if m.Graph().LeftDegree(l) == 1 && m.Graph().LeftNeighbors(l)[0] == 0 {
			edges = append(edges, bipartite.Edge{Left: l, Right: 0})
		}
	}
	R := m.NumServers() - 1
	g, err := bipartite.NewGraph(m.NumJobs(), R, edges)
	require.NoError(t, err)
	K := m.K()
	capacity := make([]float64, 0, R*K)
	for r := 1; r <= R; r++ {
		capacity = append(capacity, m.Capacity(r)...)
	}
	jobs := make([]bipartite.GangJob, m.NumJobs())
	for l := range jobs {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			jobs[l].Demand = append(jobs[l].Demand, m.Demand(c)...)
		}
		jobs[l].Min = m.Min(l)
	}
	m2, err := bipartite.NewGangModel(g, K, capacity, jobs)
	require.NoError(t, err)
	s2 := in.Settings()
	s2.Utility = in.Utility[1:]
	servers := make([]int, R)
	for r := range servers {
		servers[r] = r + 1
	}
	jm := make([]int, m.NumJobs())
	for l := range jm {
		jm[l] = l
	}
	n, err := pol.rebuild(m2, s2, bipartite.GangMapping{Jobs: jm, Servers: servers})
	require.NoError(t, err)
	defer n.Close()
	require.NoError(t, n.Relaxation().Feasible(n.Y(), 1e-9))
	_, err = n.Decide(9, make([]float64, m.NumJobs()))
	require.ErrorIs(t, err, ErrSlot) // the slot counters carried over
	for slot := 10; slot < 20; slot++ {
		x := arrivals(rng, m2.NumJobs(), 0.7)
		d, err := n.Decide(slot, x)
		require.NoError(t, err)
		chk, err := m2.Check(arrived(x), d.Server)
		require.NoError(t, err)
		require.Zero(t, chk.Violations, chk.First)
		require.NoError(t, n.Observe(slot, x))
	}
	_, err = pol.rebuild(m2, s2, bipartite.GangMapping{Jobs: jm, Servers: servers[:1]})
	require.Error(t, err)
	require.True(t, errors.Is(err, ErrDimension) || errors.Is(err, ErrValue))
	// ChangeCluster: in place, unchanged on error, and a snapshot taken
	// afterwards restores into NewGang on the new model.
	// The settings are not passed again: Utility follows the servers.
	require.Error(t, pol.ChangeCluster(m2, bipartite.GangMapping{Jobs: jm, Servers: servers[:1]}))
	require.Equal(t, m, pol.Model())
	require.NoError(t, pol.ChangeCluster(m2, bipartite.GangMapping{Jobs: jm, Servers: servers}))
	require.Equal(t, s2.Utility, pol.Settings().Utility)
	require.Equal(t, m2, pol.Model())
	require.NoError(t, pol.Relaxation().Feasible(pol.Y(), 1e-9))
	_, err = pol.Decide(9, make([]float64, m2.NumJobs()))
	require.ErrorIs(t, err, ErrSlot)
	snap, err := pol.MarshalBinary()
	require.NoError(t, err)
	fresh, err := NewGang(m2, s2)
	require.NoError(t, err)
	defer fresh.Close()
	require.NoError(t, fresh.UnmarshalBinary(snap))
}

func TestGangZeroAllocsPerSlot(t *testing.T) {
	in := smallGang(t, 5, 10, 30)
	pol, err := NewGang(in.Model, in.Settings())
	require.NoError(t, err)
	defer pol.Close()
	rng := rand.New(rand.NewPCG(5, 5))
	xs := make([][]float64, 8)
	for i := range xs {
		xs[i] = arrivals(rng, in.Model.NumJobs(), 0.7)
	}
	slot := 0
	allocs := testing.AllocsPerRun(50, func() {
		x := xs[slot%len(xs)]
		if _, err := pol.Decide(slot, x); err != nil {
			t.Fatal(err)
		}
		if err := pol.Observe(slot, x); err != nil {
			t.Fatal(err)
		}
		slot++
	})
	require.Zero(t, allocs)
}

// encodeGangState encodes st as o's snapshot (tests of the semantic checks).
func encodeGangState(o *GangPolicy, st policyState) ([]byte, error) {
	return snapshot.Encode(gangFormat, gangVersion, o.model, st)
}

// TestGangJobBoundAboveEveryPolicy: the per-job bound is above the total of
// OGASched-gang and of random feasible placements chosen after seeing x(t),
// and equals the brute-force best single-job placement when one job type
// arrives alone on an uncontended cluster.
func TestGangJobBoundAboveEveryPolicy(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		in := smallGang(t, seed, 4, 5)
		m := in.Model
		pol, err := NewGang(m, in.Settings())
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 13))
		var xs [][]float64
		for range 30 {
			xs = append(xs, arrivals(rng, m.NumJobs(), 0.7))
		}
		res, err := RunGang(pol.Relaxation(), m, xs, []GangOnlinePolicy{pol})
		require.NoError(t, err)
		ub, err := GangJobBound(pol.Relaxation(), m, xs)
		require.NoError(t, err)
		require.LessOrEqual(t, res.Series[0].Total, ub*(1+1e-12))
		require.Zero(t, res.Series[0].Violations)
		pol.Close()
		// Brute force for each job alone: every assignment of its
		// components to servers (or none), feasible for its own load.
		for l := 0; l < m.NumJobs(); l++ {
			x := make([]float64, m.NumJobs())
			x[l] = 1
			ub, err := GangJobBound(pol.Relaxation(), m, [][]float64{x})
			require.NoError(t, err)
			lo, hi := m.Components(l)
			if hi-lo > 4 {
				continue
			}
			rs := m.Graph().LeftNeighbors(l)
			server := slices.Repeat([]int{-1}, m.NumComponents())
			best := 0.0
			var rec func(c int)
			rec = func(c int) {
				if c == hi {
					chk, _ := m.Check(arrived(x), server)
					if chk.Violations == 0 {
						v, _, _ := GangReward(pol.Relaxation(), m, GangMinComponents, x, server)
						best = max(best, v)
					}
					return
				}
				server[c] = -1
				rec(c + 1)
				for _, r := range rs {
					server[c] = r
					rec(c + 1)
				}
				server[c] = -1
			}
			rec(lo)
			require.GreaterOrEqual(t, ub*(1+1e-12)+1e-12, best, "seed %d job %d", seed, l)
		}
	}
}
