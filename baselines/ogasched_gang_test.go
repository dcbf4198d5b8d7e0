package baselines

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
)

func ogaGangInstance(t testing.TB, seed uint64, jobs, servers int) *ogasched.GangInstance {
	t.Helper()
	cfg := ogasched.DefaultGangConfig()
	cfg.Config.Ports, cfg.Config.Nodes, cfg.Config.EdgeProb, cfg.Config.Contention = jobs, servers, 0.6, 20
	in, err := ogasched.GenerateGang(cfg, rand.New(rand.NewPCG(seed, 11)))
	require.NoError(t, err)
	return in
}

func ogaGangX(rng *rand.Rand, n int, rho float64) ([]float64, []bool) {
	x, a := make([]float64, n), make([]bool, n)
	for l := range x {
		if rng.Float64() < rho {
			x[l], a[l] = 1, true
		}
	}
	return x, a
}

func TestGangBaselinesFeasible(t *testing.T) {
	for seed := uint64(1); seed <= 25; seed++ {
		in := ogaGangInstance(t, seed, 2+int(seed%8), 2+int(seed%9))
		for _, name := range GangBaselineNames {
			pol, err := GangBaselineByName(name, in.Model)
			require.NoError(t, err)
			rng := rand.New(rand.NewPCG(seed, 2))
			for slot := range 30 {
				x, a := ogaGangX(rng, in.Model.NumJobs(), 0.8)
				d, err := pol.Decide(slot, x)
				require.NoError(t, err)
				require.Nil(t, d.Y)
				chk, err := in.Model.Check(a, d.Server)
				require.NoError(t, err)
				require.Zero(t, chk.Violations, "%s seed %d slot %d: %s", name, seed, slot, chk.First)
			}
		}
	}
}

// refGangFirstFit is an independent first-fit gang placer: it recomputes each
// server's load from the placement so far instead of keeping residuals.
func refGangFirstFit(m *bipartite.GangModel, x []float64) []int {
	server := slices.Repeat([]int{-1}, m.NumComponents())
	K := m.K()
	fits := func(c, r int) bool {
		for k := 0; k < K; k++ {
			load := m.Demand(c)[k]
			for c2, r2 := range server {
				if r2 == r {
					load += m.Demand(c2)[k]
				}
			}
			if load > m.Capacity(r)[k]*(1+1e-12)+1e-12 {
				return false
			}
		}
		return true
	}
	for l := 0; l < m.NumJobs(); l++ {
		if x[l] == 0 {
			continue
		}
		lo, hi := m.Components(l)
		n := 0
		for c := lo; c < hi; c++ {
			for _, r := range m.Graph().LeftNeighbors(l) {
				if fits(c, r) {
					server[c] = r
					n++
					break
				}
			}
		}
		if n < m.Min(l) {
			for c := lo; c < hi; c++ {
				server[c] = -1
			}
		}
	}
	return server
}

func TestGangFirstFitMatchesReference(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		in := ogaGangInstance(t, seed, 3+int(seed%6), 2+int(seed%5))
		pol, err := NewGangFirstFit(in.Model, GangFirstFitSettings{})
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(seed, 3))
		for slot := range 5 {
			x, _ := ogaGangX(rng, in.Model.NumJobs(), 0.8)
			d, err := pol.Decide(slot, x)
			require.NoError(t, err)
			require.Equal(t, refGangFirstFit(in.Model, x), d.Server, "seed %d slot %d", seed, slot)
		}
	}
}

// Two jobs compete for one server that fits one of them: DRF serves the
// smaller dominant share, first fit the lower index, FAIRNESS alternates.
func TestGangOrders(t *testing.T) {
	g := bipartite.Complete(2, 1)
	m, err := bipartite.NewGangModel(g, 1, []float64{4}, []bipartite.GangJob{
		{Demand: []float64{2, 2}}, // share 1
		{Demand: []float64{3}},    // share 0.75
	})
	require.NoError(t, err)
	x := []float64{1, 1}
	drf, _ := NewGangDRF(m, GangDRFSettings{})
	d, err := drf.Decide(0, x)
	require.NoError(t, err)
	assert.Equal(t, []int{-1, -1, 0}, d.Server)
	ff, _ := NewGangFirstFit(m, GangFirstFitSettings{})
	d, err = ff.Decide(0, x)
	require.NoError(t, err)
	assert.Equal(t, []int{0, 0, -1}, d.Server)
	fair, _ := NewGangFairness(m, GangFairnessSettings{})
	var got [][]int
	for slot := range 4 {
		d, err := fair.Decide(slot, x)
		require.NoError(t, err)
		got = append(got, slices.Clone(d.Server))
	}
	assert.Equal(t, [][]int{{0, 0, -1}, {-1, -1, 0}, {0, 0, -1}, {-1, -1, 0}}, got)
	// BINPACKING fills the fuller server, SPREADING the emptier one.
	g2 := bipartite.Complete(1, 2)
	m2, err := bipartite.NewGangModel(g2, 1, []float64{4, 4}, []bipartite.GangJob{{Demand: []float64{1, 1, 1}, Min: 3}})
	require.NoError(t, err)
	bp, _ := NewGangBinPacking(m2, GangBinPackingSettings{})
	d, _ = bp.Decide(0, []float64{1})
	assert.Equal(t, []int{0, 0, 0}, d.Server)
	sp, _ := NewGangSpreading(m2, GangSpreadingSettings{})
	d, _ = sp.Decide(0, []float64{1})
	assert.Equal(t, []int{0, 1, 0}, d.Server)
}

func TestGangBaselinesHostileAndSnapshot(t *testing.T) {
	_, err := NewGangDRF(nil, GangDRFSettings{})
	require.ErrorIs(t, err, ogasched.ErrDimension)
	_, err = GangBaselineByName("nope", nil)
	require.ErrorIs(t, err, ogasched.ErrSettings)
	in := ogaGangInstance(t, 1, 4, 5)
	J := in.Model.NumJobs()
	pol, err := NewGangFairness(in.Model, GangFairnessSettings{})
	require.NoError(t, err)
	_, err = pol.Decide(0, make([]float64, J+1))
	require.ErrorIs(t, err, ogasched.ErrDimension)
	bad := make([]float64, J)
	bad[1] = math.Inf(1)
	_, err = pol.Decide(0, bad)
	require.ErrorIs(t, err, ogasched.ErrValue)
	_, err = pol.Decide(-2, make([]float64, J))
	require.ErrorIs(t, err, ogasched.ErrSlot)
	rng := rand.New(rand.NewPCG(1, 1))
	for slot := range 10 {
		x, _ := ogaGangX(rng, J, 0.9)
		_, err := pol.Decide(slot, x)
		require.NoError(t, err)
	}
	snap, err := pol.MarshalBinary()
	require.NoError(t, err)
	other, _ := NewGangFairness(in.Model, GangFairnessSettings{})
	require.NoError(t, other.UnmarshalBinary(snap))
	require.Equal(t, pol.served, other.served)
	_, err = other.Decide(9, make([]float64, J))
	require.ErrorIs(t, err, ogasched.ErrSlot)
	for slot := 10; slot < 15; slot++ {
		x, _ := ogaGangX(rng, J, 0.9)
		a, _ := pol.Decide(slot, x)
		as := slices.Clone(a.Server)
		b, _ := other.Decide(slot, x)
		require.Equal(t, as, b.Server)
	}
	ff, _ := NewGangFirstFit(in.Model, GangFirstFitSettings{})
	require.ErrorIs(t, ff.UnmarshalBinary(snap), ogasched.ErrSnapshot)
	require.ErrorIs(t, other.UnmarshalBinary(snap[:20]), ogasched.ErrSnapshot)
}

func TestGangBaselinesZeroAllocs(t *testing.T) {
	in := ogaGangInstance(t, 2, 10, 20)
	rng := rand.New(rand.NewPCG(2, 2))
	x, _ := ogaGangX(rng, in.Model.NumJobs(), 0.7)
	for _, name := range GangBaselineNames {
		pol, err := GangBaselineByName(name, in.Model)
		require.NoError(t, err)
		slot := 0
		allocs := testing.AllocsPerRun(20, func() {
			if _, err := pol.Decide(slot, x); err != nil {
				t.Fatal(err)
			}
			slot++
		})
		require.Zero(t, allocs, name)
	}
}

// TestGangFairnessChangeClusterKeepsCounts: FAIRNESS-gang's served and
// arrived counts follow their job types through ChangeCluster (a removed
// job type's go, a new one starts at 0), and a server change keeps them
// all; the other gang baselines keep their slot.
func TestGangFairnessChangeClusterKeepsCounts(t *testing.T) {
	in := ogaGangInstance(t, 3, 4, 5)
	m := in.Model
	f, err := NewGangFairness(m, GangFairnessSettings{})
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(2, 2))
	for s := range 20 {
		x, _ := ogaGangX(rng, m.NumJobs(), 0.8)
		_, err := f.Decide(s, x)
		require.NoError(t, err)
	}
	served, arrived := slices.Clone(f.served), slices.Clone(f.arrived)
	require.NotZero(t, arrived[1])

	m2, mp, err := m.RemoveJob(0)
	require.NoError(t, err)
	require.NoError(t, f.ChangeCluster(m2, mp))
	require.Equal(t, served[1:], f.served)
	require.Equal(t, arrived[1:], f.arrived)
	_, err = f.Decide(19, make([]float64, m2.NumJobs()))
	require.ErrorIs(t, err, ogasched.ErrSlot) // the slot carried over

	m3, mp, err := m2.AddJob(bipartite.GangJob{Demand: make([]float64, m2.K())}, []int{0})
	require.NoError(t, err)
	require.NoError(t, f.ChangeCluster(m3, mp))
	require.Equal(t, append(served[1:], 0), f.served)
	require.Equal(t, append(arrived[1:], 0), f.arrived)

	m4, mp, err := m3.RemoveServer(0)
	require.NoError(t, err)
	require.NoError(t, f.ChangeCluster(m4, mp))
	require.Equal(t, append(served[1:], 0), f.served)

	// A bad mapping leaves the baseline as it was.
	before, err := f.MarshalBinary()
	require.NoError(t, err)
	require.ErrorIs(t, f.ChangeCluster(m3, bipartite.GangMapping{Jobs: []int{0}}), ogasched.ErrDimension)
	after, err := f.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, before, after)
}
