package baselines

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

func gangInstance(t testing.TB, seed uint64) *esdp.GangInstance {
	in, err := esdp.GenerateGang(esdp.DefaultGangConfig(), rand.New(rand.NewPCG(seed, 1)))
	require.NoError(t, err)
	return in
}

type gangPolicy interface {
	esdp.GangOnlinePolicy
	esdp.GangLearner
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	Count(int) int
}

func gangPolicies(t testing.TB, m *bipartite.GangModel) []gangPolicy {
	h, err := NewGangHSWF(m, GangHSWFSettings{})
	require.NoError(t, err)
	c, err := NewGangLCF(m, GangLCFSettings{})
	require.NoError(t, err)
	w, err := NewGangLWTF(m, GangLWTFSettings{})
	require.NoError(t, err)
	return []gangPolicy{h, c, w}
}

// TestGangBaselinesRun runs the three gang baselines: no decision breaks a gang or capacity constraint (GangModel.Check, in
// RunGang), and none beats the omniscient oracle in expectation.
func TestGangBaselinesRun(t *testing.T) {
	for seed := uint64(1); seed <= 3; seed++ {
		in := gangInstance(t, seed)
		var pols []esdp.GangOnlinePolicy
		for _, p := range gangPolicies(t, in.Model) {
			pols = append(pols, p)
		}
		res, err := esdp.RunGang(in, pols, esdp.RunSettings{T: 200, Seed: seed})
		require.NoError(t, err)
		for i, s := range res.Series {
			require.Zero(t, res.Violations[i], s.Name)
			require.Positive(t, s.TotalExpected, s.Name)
			require.LessOrEqual(t, s.TotalExpected, res.TotalOptimal+1e-9, s.Name)
			t.Logf("seed %d %-10s expected %.1f (oracle %.1f)", seed, s.Name, s.TotalExpected, res.TotalOptimal)
		}
	}
}

// TestGangBaselinesAllOrNothing checks with the independent verifier
// (GangModel.Check) on random models, zero demands and capacities
// included, that every decision is all-or-nothing and within capacity.
func TestGangBaselinesAllOrNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for it := 0; it < 300; it++ {
		in, err := esdp.GenerateGang(esdp.GangConfig{Jobs: 1 + rng.IntN(6), Servers: 1 + rng.IntN(6), K: 1 + rng.IntN(3),
			EdgeProb: 0.6, ArrivalProb: 0.8, MinComponents: 1, MaxComponents: 4, DemandLo: 0, DemandHi: 2, CapLo: 0, CapHi: 3, MeanLo: 0, MeanHi: 1},
			rand.New(rand.NewPCG(uint64(it), 2)))
		require.NoError(t, err)
		m := in.Model
		for _, p := range gangPolicies(t, m) {
			arr := make([]bool, m.NumJobs())
			for l := range arr {
				arr[l] = rng.IntN(4) > 0
			}
			x, err := p.Decide(0, arr)
			require.NoError(t, err)
			chk, err := m.Check(arr, x)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, chk.First)
		}
	}
}

func TestGangBaselinesSnapshot(t *testing.T) {
	in := gangInstance(t, 4)
	m := in.Model
	C := m.NumComponents()
	a, b := gangPolicies(t, m), gangPolicies(t, m)
	rng := rand.New(rand.NewPCG(1, 1))
	arr := make([]bool, m.NumJobs())
	fb := esdp.GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
	step := func(p gangPolicy, tt int) []int {
		x, err := p.Decide(tt, arr)
		require.NoError(t, err)
		copy(fb.Server, x)
		for c := range fb.Reward {
			fb.Reward[c] = float64((c*7+tt)%10) / 10
		}
		require.NoError(t, p.Observe(tt, fb))
		return append([]int(nil), x...)
	}
	for i := range a {
		for tt := 0; tt < 30; tt++ {
			for l := range arr {
				arr[l] = rng.IntN(5) > 0
			}
			step(a[i], tt)
		}
		data, err := a[i].MarshalBinary()
		require.NoError(t, err)
		require.NoError(t, b[i].UnmarshalBinary(data))
		for tt := 30; tt < 40; tt++ {
			for l := range arr {
				arr[l] = rng.IntN(5) > 0
			}
			require.Equal(t, step(a[i], tt), step(b[i], tt), a[i].Name())
		}
		// Another policy's snapshot, truncation: rejected, unchanged.
		other := a[(i+1)%len(a)]
		od, err := other.MarshalBinary()
		require.NoError(t, err)
		before := b[i].Count(0)
		require.ErrorIs(t, b[i].UnmarshalBinary(od), esdp.ErrSnapshot)
		require.ErrorIs(t, b[i].UnmarshalBinary(data[:len(data)-3]), esdp.ErrSnapshot)
		require.Equal(t, before, b[i].Count(0))
	}
}

func TestGangBaselinesHostile(t *testing.T) {
	_, err := NewGangHSWF(nil, GangHSWFSettings{})
	require.Error(t, err)
	_, err = NewGangLWTF(nil, GangLWTFSettings{})
	require.Error(t, err)
	_, err = NewGangLCF(nil, GangLCFSettings{})
	require.ErrorIs(t, err, esdp.ErrDimension)
	in := gangInstance(t, 5)
	m := in.Model
	_, err = NewGangLCF(m, GangLCFSettings{Cost: []float64{1}})
	require.ErrorIs(t, err, esdp.ErrSettings)
	_, err = NewGangLCF(m, GangLCFSettings{Cost: []float64{1, math.NaN(), -1}})
	require.ErrorIs(t, err, esdp.ErrSettings)
	for _, p := range gangPolicies(t, m) {
		_, err := p.Decide(0, nil)
		require.ErrorIs(t, err, esdp.ErrDimension)
		_, err = p.Decide(-1, make([]bool, m.NumJobs()))
		require.ErrorIs(t, err, esdp.ErrSlot)
		require.ErrorIs(t, p.Observe(0, esdp.GangFeedback{}), esdp.ErrSlot)
		_, err = p.Decide(3, make([]bool, m.NumJobs()))
		require.NoError(t, err)
		_, err = p.Decide(3, make([]bool, m.NumJobs()))
		require.ErrorIs(t, err, esdp.ErrSlot)
		require.ErrorIs(t, p.Observe(3, esdp.GangFeedback{Server: []int{1}}), esdp.ErrDimension)
		require.ErrorIs(t, p.UnmarshalBinary([]byte("{")), esdp.ErrSnapshot)
	}
}

func TestGangBaselinesAllocs(t *testing.T) {
	in := gangInstance(t, 6)
	m := in.Model
	C := m.NumComponents()
	arr := make([]bool, m.NumJobs())
	for l := range arr {
		arr[l] = l%4 != 1
	}
	fb := esdp.GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
	for _, p := range gangPolicies(t, m) {
		tt := 0
		allocs := testing.AllocsPerRun(50, func() {
			x, err := p.Decide(tt, arr)
			if err != nil {
				t.Fatal(err)
			}
			copy(fb.Server, x)
			if err := p.Observe(tt, fb); err != nil {
				t.Fatal(err)
			}
			tt++
		})
		require.Zero(t, allocs, p.Name())
	}
}

// TestGangChangeClusterBaselines drops the last server: statistics follow their
// channels and LWTF's waiting times their job types.
func TestGangChangeClusterBaselines(t *testing.T) {
	in := gangInstance(t, 7)
	m := in.Model
	w, err := NewGangLWTF(m, GangLWTFSettings{})
	require.NoError(t, err)
	arr := make([]bool, m.NumJobs())
	for l := range arr {
		arr[l] = true
	}
	C := m.NumComponents()
	fb := esdp.GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
	for tt := 0; tt < 5; tt++ {
		x, err := w.Decide(tt, arr)
		require.NoError(t, err)
		copy(fb.Server, x)
		require.NoError(t, w.Observe(tt, fb))
	}
	R := m.NumServers()
	var edges []bipartite.Edge
	for e := 0; e < m.Graph().NumEdges(); e++ {
		if ed := m.Graph().Edge(e); ed.Right < R-1 {
			edges = append(edges, ed)
		}
	}
	for l := 0; l < m.NumJobs(); l++ {
		edges = append(edges, bipartite.Edge{Left: l, Right: 0})
	}
	g, err := bipartite.NewGraph(m.NumJobs(), R-1, dedup(edges))
	require.NoError(t, err)
	capv := make([]float64, 0, (R-1)*m.K())
	for r := 0; r < R-1; r++ {
		capv = append(capv, m.Capacity(r)...)
	}
	jobs := make([]bipartite.GangJob, m.NumJobs())
	for l := range jobs {
		lo, hi := m.Components(l)
		var d []float64
		for c := lo; c < hi; c++ {
			d = append(d, m.Demand(c)...)
		}
		jobs[l] = bipartite.GangJob{Demand: d, Min: m.Min(l)}
	}
	nm, err := bipartite.NewGangModel(g, m.K(), capv, jobs)
	require.NoError(t, err)
	waits := make([]int, m.NumJobs())
	for l := range waits {
		waits[l] = w.Wait(l)
	}
	oldCh := w.Channels()
	counts := map[[2]int]int{}
	for i := 0; i < oldCh.Len(); i++ {
		counts[[2]int{oldCh.Component(i), oldCh.Server(i)}] = w.Count(i)
	}
	require.NoError(t, w.ChangeCluster(nm, bipartite.GangMapping{}))
	for l := range waits {
		require.Equal(t, waits[l], w.Wait(l))
	}
	ch := w.Channels()
	for i := 0; i < ch.Len(); i++ {
		require.Equal(t, counts[[2]int{ch.Component(i), ch.Server(i)}], w.Count(i))
	}
}

func dedup(edges []bipartite.Edge) []bipartite.Edge {
	seen := map[bipartite.Edge]bool{}
	var out []bipartite.Edge
	for _, e := range edges {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// TestGangBaselinesCompare logs the gang baselines' expected welfare on
// the default synthetic instance (seeds 1-5, the instances and arrivals of
// esdp's TestGangRegret). An experiment: run with MSCHED_GANG_COMPARE=T.
func TestGangBaselinesCompare(t *testing.T) {
	T, _ := strconv.Atoi(os.Getenv("MSCHED_GANG_COMPARE"))
	if T < 1 {
		t.Skip("set MSCHED_GANG_COMPARE=T to run the comparison")
	}
	for seed := uint64(1); seed <= 5; seed++ {
		in := gangInstance(t, seed)
		var pols []esdp.GangOnlinePolicy
		for _, p := range gangPolicies(t, in.Model) {
			pols = append(pols, p)
		}
		res, err := esdp.RunGang(in, pols, esdp.RunSettings{T: T, Seed: seed})
		require.NoError(t, err)
		for i, s := range res.Series {
			require.Zero(t, res.Violations[i])
			t.Logf("seed %d T %d %-10s expected %.1f realised %.1f (oracle %.1f, %.1f%%)", seed, T, s.Name, s.TotalExpected, s.Total, res.TotalOptimal, 100*s.TotalExpected/res.TotalOptimal)
		}
	}
}
