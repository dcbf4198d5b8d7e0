package esdp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/msched/msched/bipartite"
	"github.com/stretchr/testify/require"
)

// TestGangLDClassesMatch: on random instances whose servers have few
// patterns (so both forms can be built), the class form of the server
// side has the enumeration's value at random multipliers (some
// negative), server by server, and the channels it marks form a
// pattern: on the server, one per component, fitting the capacities
// (with ldSlack), of that value. The instances repeat demand vectors
// (drawn from a few) so that classes hold several components.
func TestGangLDClassesMatch(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	built := 0
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 97))
		p := randomGangKnapsack(t, rng, 5, 3, 3)
		m := p.Channels.Model()
		x := make([]int, m.NumComponents())
		for c := range x {
			x[c] = -1
		}
		s, _ := chainSolve(t, p, x)
		if !s.ldBuild() {
			continue
		}
		require.True(t, s.ldBuildClasses(), "instance %d", it)
		built++
		ld := &s.o.ld
		N, R, K := s.ch.Len(), m.NumServers(), m.K()
		lam := make([]float64, N)
		z := make([]int8, N)
		for range 5 {
			for i := range lam {
				lam[i] = rng.Float64()*2 - 0.5
			}
			for r := 0; r < R; r++ {
				// the enumeration's best pattern of server r alone
				want := 0.0
				for q := ld.srvStart[r]; q < ld.srvStart[r+1]; q++ {
					v := 0.0
					for _, i := range ld.patChan[ld.patStart[q]:ld.patStart[q+1]] {
						v += lam[i]
					}
					want = max(want, v)
				}
				// the class form on server r alone
				clear(z)
				got := s.ldcServer(r, lam, z, nil)
				require.InDelta(t, want, got, 1e-9, "instance %d server %d", it, r)
				var marked []int
				for i, b := range z {
					if b != 0 {
						marked = append(marked, i)
					}
				}
				load := make([]float64, K)
				v := 0.0
				seen := map[int]bool{}
				for _, i := range marked {
					require.Equal(t, r, s.ch.Server(i), "instance %d", it)
					c := s.ch.Component(i)
					require.False(t, seen[c], "instance %d: component %d twice", it, c)
					seen[c] = true
					for k, a := range m.Demand(c) {
						load[k] += a
					}
					v += lam[i]
				}
				for k, c := range m.Capacity(r) {
					require.LessOrEqual(t, load[k], ldSlack(c), "instance %d server %d resource %d", it, r, k)
				}
				require.InDelta(t, got, v, 1e-9, "instance %d server %d: marked pattern", it, r)
				// beside a preload (dwFix's B_r(a_c)): each class's
				// demand, against the enumerated patterns that fit with it
				cs := &s.o.ldc
				for g := cs.grpStart[r]; g < cs.grpStart[r+1]; g++ {
					a := m.Demand(cs.gdem[g])
					want := 0.0
					for q := ld.srvStart[r]; q < ld.srvStart[r+1]; q++ {
						load := append([]float64(nil), a...)
						v := 0.0
						for _, i := range ld.patChan[ld.patStart[q]:ld.patStart[q+1]] {
							v += lam[i]
							for k, x := range m.Demand(s.ch.Component(i)) {
								load[k] += x
							}
						}
						fits := true
						for k, c := range m.Capacity(r) {
							fits = fits && load[k] <= ldSlack(c)
						}
						if fits {
							want = max(want, v)
						}
					}
					got := s.ldcServer(r, lam, nil, a)
					require.InDelta(t, want, got, 1e-9, "instance %d server %d class %d: beside its demand", it, r, g)
				}
			}
			// and in all, as ldServers
			ld.cls = false
			for i := range z {
				z[i] = 0
			}
			want := s.ldServers(lam, z)
			ld.cls = true
			got := s.ldServers(lam, z)
			require.InDelta(t, want, got, 1e-9, "instance %d", it)
		}
		ld.cls = false
	}
	t.Logf("%d of %d instances compared", built, n)
	require.Greater(t, built, n/2)
}

// TestGangLDClassesBound: the bound of the class form (its subgradient
// run to the end) is at least the enumerated optimum, on random
// instances with repeated demand vectors (TestGangLDClassesDLRM checks
// it inside a timed solve).
func TestGangLDClassesBound(t *testing.T) {
	n := 2000
	if testing.Short() {
		n = 400
	}
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 101))
		p := randomGangKnapsack(t, rng, 4, 3, 3)
		m := p.Channels.Model()
		x := make([]int, m.NumComponents())
		o := &GangOracle{Settings: GangOracleSettings{Method: GangExact, Iterations: 4, MaxNodes: 1}}
		_, err := o.Solve(x, p)
		require.NoError(t, err)
		s := &gangSolve{o: o, ch: p.Channels, p: p, K: m.K()}
		for l := 0; l < m.NumJobs(); l++ {
			if (p.Arrived == nil || p.Arrived[l]) && o.phi0[l] > 0 {
				s.active = append(s.active, l)
			}
		}
		if len(s.active) == 0 {
			continue
		}
		copy(o.inc, x)
		s.incVal = gangValue(t, p, x)
		s.tol = 1e-12
		s.ldBuild() // lambda, x, z
		require.True(t, s.ldBuildClasses())
		b := s.ldRoot()
		o.ld.cls = false
		want := bruteGang(t, p)
		require.GreaterOrEqual(t, b, want-1e-9, "instance %d", it)
	}
}

// TestGangOracleBoundShareSettings: BoundShare outside 0..MaxGangBoundShare
// (NaN included) is an ErrSettings naming the field, the value and the
// limit, from Validate, Solve and NewGang; the policy's fingerprint
// covers it when set.
func TestGangOracleBoundShareSettings(t *testing.T) {
	p := mediumGangKnapsack(t, 1, 4)
	m := p.Channels.Model()
	for _, v := range []float64{-0.1, 0.51, math.NaN(), math.Inf(1)} {
		set := GangOracleSettings{Method: GangExact, TimeLimit: time.Second, BoundShare: v}
		err := set.Validate()
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, fmt.Sprintf("GangOracleSettings.BoundShare = %v, want 0..MaxGangBoundShare = 0.5", v))
		o := GangOracle{Settings: set}
		_, err = o.Solve(make([]int, m.NumComponents()), p)
		require.ErrorIs(t, err, ErrSettings)
		_, err = NewGang(m, GangSettings{Oracle: set})
		require.ErrorIs(t, err, ErrSettings)
	}
	for _, v := range []float64{0, 0.15, MaxGangBoundShare} {
		require.NoError(t, GangOracleSettings{BoundShare: v}.Validate())
	}
	a, err := NewGang(m, GangSettings{Oracle: GangOracleSettings{Method: GangExact, TimeLimit: time.Second}})
	require.NoError(t, err)
	b, err := NewGang(m, GangSettings{Oracle: GangOracleSettings{Method: GangExact, TimeLimit: time.Second, BoundShare: 0.15}})
	require.NoError(t, err)
	require.NotEqual(t, a.fp, b.fp)
}

// TestGangTimeLimitHostile: a model made to be slow in the time-limited
// phases (3 000 components of distinct demands, so as many classes, on 4
// large servers, every job adjacent to every server) with BoundShare 0.5:
// the solve returns a feasible placement and a bound at least its value,
// and it honours the clock (a liveness check: within 20 times the limit,
// not a performance assertion).
func TestGangTimeLimitHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("a second")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	const L, R, K, q = 300, 4, 2, 10
	var edges []bipartite.Edge
	for l := 0; l < L; l++ {
		for r := 0; r < R; r++ {
			edges = append(edges, bipartite.Edge{Left: l, Right: r})
		}
	}
	g, err := bipartite.NewGraph(L, R, edges)
	require.NoError(t, err)
	capv := make([]float64, R*K)
	for i := range capv {
		capv[i] = 200
	}
	jobs := make([]bipartite.GangJob, L)
	for l := range jobs {
		d := make([]float64, q*K)
		for i := range d {
			d[i] = 0.5 + rng.Float64()
		}
		jobs[l] = bipartite.GangJob{Demand: d, Min: 1 + rng.IntN(q)}
	}
	ch := newTestChannels(t, g, K, capv, jobs)
	m := ch.Model()
	val := make([]float64, ch.Len())
	for i := range val {
		val[i] = rng.Float64()
	}
	p := &GangKnapsack{Channels: ch, Value: val, Arrived: allArrived(ch)}
	x := make([]int, m.NumComponents())
	const limit = 200 * time.Millisecond
	o := GangOracle{Settings: GangOracleSettings{Method: GangExact, TimeLimit: limit, BoundShare: 0.5}}
	t0 := time.Now()
	r, err := o.Solve(x, p)
	took := time.Since(t0)
	require.NoError(t, err)
	chk, err := m.Check(p.Arrived, x)
	require.NoError(t, err)
	require.Zero(t, chk.Violations)
	require.InDelta(t, gangValue(t, p, x), r.Value, 1e-9)
	require.GreaterOrEqual(t, r.Bound, r.Value)
	require.True(t, r.TimeLimited)
	require.Less(t, took, 20*limit)
	t.Logf("%d components, %d (server, class) groups on %d servers: %v, value %.3f, bound %.3f", m.NumComponents(), len(o.ldc.gdem), R, took, r.Value, r.Bound)
}

// BenchmarkGangLDClasses measures one evaluation of the decomposition's
// server side in class form (every server's best count vector by branch
// and bound) on the synthetic 312-component, 192-server model, at the
// capacity prices of the best multipliers, against the capacity
// relaxation's evaluation at the same multipliers (relax), which it
// replaces in a subgradient iteration.
func BenchmarkGangLDClasses(b *testing.B) {
	p, _ := syntheticGangKnapsack(b)
	m, ch, val := p.Channels.Model(), p.Channels, p.Value
	x := make([]int, m.NumComponents())
	o := &GangOracle{Settings: GangOracleSettings{Method: GangExact, MaxNodes: 1}}
	_, err := o.Solve(x, p)
	require.NoError(b, err)
	s := &gangSolve{o: o, ch: ch, p: p, K: m.K()}
	for l := 0; l < m.NumJobs(); l++ {
		if o.phi0[l] > 0 {
			s.active = append(s.active, l)
		}
	}
	s.ldBuild()
	require.True(b, s.ldBuildClasses())
	lam := make([]float64, ch.Len())
	for i := range lam {
		lam[i] = val[i] - o.w[i]
	}
	z := make([]int8, ch.Len())
	b.Run("classes", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.ldServersCls(lam, z)
		}
	})
	b.Run("relax", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s.relax(o.bestMu, s.active, nil)
		}
	})
}
