package bipartite

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func gangFixture(t *testing.T) *GangModel {
	t.Helper()
	// Two job types, three servers, K = 2. Job 0 may use servers 0 and 1,
	// job 1 servers 1 and 2.
	g, err := NewGraph(2, 3, []Edge{{0, 0}, {0, 1}, {1, 1}, {1, 2}})
	require.NoError(t, err)
	m, err := NewGangModel(g, 2, []float64{2, 2, 1, 1, 4, 0}, []GangJob{
		{Demand: []float64{1, 1, 1, 1, 1, 1}, Min: 2}, // three components, two needed
		{Demand: []float64{1, 0}},                     // one component, all needed
	})
	require.NoError(t, err)
	return m
}

func TestGangModelAccessors(t *testing.T) {
	m := gangFixture(t)
	require.Equal(t, 2, m.NumJobs())
	require.Equal(t, 3, m.NumServers())
	require.Equal(t, 4, m.NumComponents())
	lo, hi := m.Components(1)
	require.Equal(t, [2]int{3, 4}, [2]int{lo, hi})
	require.Equal(t, 2, m.Min(0))
	require.Equal(t, 1, m.Min(1), "Min 0 means every component")
	require.Equal(t, 1, m.Job(3))
	require.Equal(t, []float64{1, 0}, m.Demand(3))
	require.Equal(t, []float64{4, 0}, m.Capacity(2))
	require.True(t, m.Fits(0, 0))
	require.False(t, m.Fits(0, 2), "not adjacent")
	require.True(t, m.Fits(3, 2))
	require.False(t, m.Fits(-1, 0))
	require.False(t, m.Fits(0, 3))
}

func TestGangModelValidation(t *testing.T) {
	g, err := NewGraph(1, 1, []Edge{{0, 0}})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		g    *Graph
		k    int
		c    []float64
		jobs []GangJob
		want error
	}{
		{"nil graph", nil, 1, []float64{1}, []GangJob{{Demand: []float64{1}}}, ErrNil},
		{"K zero", g, 0, nil, []GangJob{{Demand: []float64{1}}}, ErrDimension},
		{"K huge", g, MaxGangResources + 1, nil, nil, ErrDimension},
		{"capacity length", g, 2, []float64{1}, []GangJob{{Demand: []float64{1, 1}}}, ErrDimension},
		{"capacity NaN", g, 1, []float64{math.NaN()}, []GangJob{{Demand: []float64{1}}}, ErrCapacity},
		{"capacity negative", g, 1, []float64{-1}, []GangJob{{Demand: []float64{1}}}, ErrCapacity},
		{"jobs length", g, 1, []float64{1}, nil, ErrDimension},
		{"no component", g, 1, []float64{1}, []GangJob{{}}, ErrDimension},
		{"ragged demand", g, 2, []float64{1, 1}, []GangJob{{Demand: []float64{1, 1, 1}}}, ErrDimension},
		{"min above", g, 1, []float64{1}, []GangJob{{Demand: []float64{1}, Min: 2}}, ErrDimension},
		{"min negative", g, 1, []float64{1}, []GangJob{{Demand: []float64{1}, Min: -1}}, ErrDimension},
		{"demand Inf", g, 1, []float64{1}, []GangJob{{Demand: []float64{math.Inf(1)}}}, ErrCapacity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewGangModel(tc.g, tc.k, tc.c, tc.jobs)
			require.ErrorIs(t, err, tc.want)
		})
	}
	_, err = Limits{MaxComponents: 2}.NewGangModel(g, 1, []float64{1}, []GangJob{{Demand: []float64{1, 1, 1}}})
	require.ErrorIs(t, err, ErrTooLarge)
	_, err = Limits{MaxComponents: math.MaxInt}.NewGangModel(g, 1, []float64{1}, []GangJob{{Demand: []float64{1}}})
	require.ErrorIs(t, err, ErrTooLarge, "a limit above its ceiling is an error")
}

func TestGangCheck(t *testing.T) {
	m := gangFixture(t)
	all := []bool{true, true}
	for _, tc := range []struct {
		name       string
		arrived    []bool
		server     []int
		served     int
		violations int
	}{
		{"nothing", all, []int{-1, -1, -1, -1}, 0, 0},
		{"job 0 with its minimum", all, []int{0, 0, -1, -1}, 1, 0},
		{"both", all, []int{0, 0, 1, 2}, 2, 0},
		{"half placed", all, []int{0, -1, -1, -1}, 0, 1},
		{"over capacity", all, []int{0, 0, 0, -1}, 1, 2}, // server 0: load 3 > 2 for both resources
		{"not adjacent", all, []int{2, 0, -1, -1}, 0, 2}, // bad edge, then job 0 half-placed
		{"out of range", all, []int{-2, 3, -1, -1}, 0, 2},
		{"not arrived", []bool{false, true}, []int{0, 0, -1, 2}, 1, 2},
		{"resource with zero capacity", all, []int{-1, -1, -1, 2}, 1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := m.Check(tc.arrived, tc.server)
			require.NoError(t, err)
			require.Equal(t, tc.served, got.Served, got.First)
			require.Equal(t, tc.violations, got.Violations, got.First)
			require.Equal(t, tc.violations > 0, got.First != "")
		})
	}
	_, err := m.Check(all, []int{0})
	require.True(t, errors.Is(err, ErrDimension))
	_, err = m.Check(nil, []int{0, 0, 0, 0})
	require.True(t, errors.Is(err, ErrDimension))
}

// TestGangCheckRandom compares Check with a direct restatement of the
// constraints on random placements.
func TestGangCheckRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		L, R, K := 1+rng.IntN(3), 1+rng.IntN(3), 1+rng.IntN(2)
		var edges []Edge
		for l := range L {
			for r := range R {
				if rng.Float64() < 0.7 {
					edges = append(edges, Edge{l, r})
				}
			}
		}
		g, err := NewGraph(L, R, edges)
		require.NoError(t, err)
		c := make([]float64, R*K)
		for i := range c {
			c[i] = float64(rng.IntN(4))
		}
		jobs := make([]GangJob, L)
		for l := range jobs {
			q := 1 + rng.IntN(3)
			jobs[l].Demand = make([]float64, q*K)
			for i := range jobs[l].Demand {
				jobs[l].Demand[i] = float64(rng.IntN(3))
			}
			jobs[l].Min = rng.IntN(q + 1)
		}
		m, err := NewGangModel(g, K, c, jobs)
		require.NoError(t, err)
		arrived := make([]bool, L)
		for l := range arrived {
			arrived[l] = rng.IntN(4) > 0
		}
		server := make([]int, m.NumComponents())
		for i := range server {
			server[i] = rng.IntN(R+1) - 1
		}
		got, err := m.Check(arrived, server)
		require.NoError(t, err)
		// Restatement: feasible iff every placed component is adjacent and
		// arrived, every job has 0 or >= m_l placed, and loads fit.
		feasible := true
		load := make([]float64, R*K)
		served := 0
		for l, j := range jobs {
			q := len(j.Demand) / K
			need := j.Min
			if need == 0 {
				need = q
			}
			lo, _ := m.Components(l)
			n := 0
			for i := range q {
				r := server[lo+i]
				if r < 0 {
					continue
				}
				if _, ok := g.EdgeID(l, r); !ok || !arrived[l] {
					feasible = false
					continue
				}
				n++
				for k := range K {
					load[r*K+k] += j.Demand[i*K+k]
				}
			}
			if n > 0 && n < need {
				feasible = false
			}
			if n >= need && n > 0 {
				served++
			}
		}
		for i := range load {
			if load[i] > c[i] {
				feasible = false
			}
		}
		require.Equal(t, feasible, got.Violations == 0, got.First)
		require.Equal(t, served, got.Served)
	}
}
