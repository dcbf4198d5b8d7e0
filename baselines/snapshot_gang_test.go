package baselines_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/snapshottest"
	"github.com/msched/msched/ogasched"
)

// gangTiny is a gang model of 2 job types (3 and 2 components, 2 and 2
// needed) on 3 servers, K = 2.
func gangTiny(t testing.TB) *bipartite.GangModel {
	t.Helper()
	g := must[*bipartite.Graph](t)(bipartite.NewGraph(2, 3, []bipartite.Edge{{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2}, {Left: 1, Right: 1}, {Left: 1, Right: 2}}))
	return must[*bipartite.GangModel](t)(bipartite.NewGangModel(g, 2, []float64{4, 4, 4, 4, 3, 3}, []bipartite.GangJob{
		{Demand: []float64{1, 1, 1, 1, 2, 1}, Min: 2},
		{Demand: []float64{1, 2, 1, 1}},
	}))
}

// gangStateful lists every stateful policy and baseline of the gang
// extensions, with drivers that check each placement with
// bipartite.GangModel.Check.
func gangStateful() []stateful {
	var out []stateful
	ogaDrive := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		m := gangTiny(t)
		for s := from; s < to; s++ {
			rng := rand.New(rand.NewPCG(7, uint64(s)))
			x := []float64{float64(rng.IntN(2)), float64(rng.IntN(2))}
			d, err := p.(ogasched.GangOnlinePolicy).Decide(s, x)
			require.NoError(t, err, "slot %d", s)
			chk, err := m.Check([]bool{x[0] > 0, x[1] > 0}, d.Server)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, "slot %d: %s", s, chk.First)
			if l, ok := p.(ogasched.GangLearner); ok {
				require.NoError(t, l.Observe(s, x), "slot %d", s)
			}
		}
	}
	for _, c := range []struct {
		name string
		mk   func(*bipartite.GangModel) (snapshottest.Policy, error)
	}{
		{"ogasched.GangPolicy", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return ogasched.NewGang(m, ogasched.GangSettings{})
		}},
		{"DRF-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangDRF(m, baselines.GangDRFSettings{})
		}},
		{"FAIRNESS-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangFairness(m, baselines.GangFairnessSettings{})
		}},
		{"BINPACKING-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangBinPacking(m, baselines.GangBinPackingSettings{})
		}},
		{"SPREADING-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangSpreading(m, baselines.GangSpreadingSettings{})
		}},
		{"FIRSTFIT-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangFirstFit(m, baselines.GangFirstFitSettings{})
		}},
	} {
		out = append(out, stateful{c.name, ogasched.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[snapshottest.Policy](t)(c.mk(gangTiny(t))) }, ogaDrive})
	}
	esdpDrive := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		m := gangTiny(t)
		for s := from; s < to; s++ {
			rng := rand.New(rand.NewPCG(8, uint64(s)))
			arrived := []bool{rng.IntN(4) > 0, rng.IntN(4) > 0}
			d, err := p.(esdp.GangOnlinePolicy).Decide(s, arrived)
			require.NoError(t, err, "slot %d", s)
			chk, err := m.Check(arrived, d)
			require.NoError(t, err)
			require.Zero(t, chk.Violations, "slot %d: %s", s, chk.First)
			fb := esdp.GangFeedback{Server: append([]int(nil), d...), Reward: make([]float64, len(d))}
			for c := range fb.Reward {
				fb.Reward[c] = rng.Float64()
			}
			if l, ok := p.(esdp.GangLearner); ok {
				require.NoError(t, l.Observe(s, fb), "slot %d", s)
			}
		}
	}
	for _, c := range []struct {
		name string
		mk   func(*bipartite.GangModel) (snapshottest.Policy, error)
	}{
		{"esdp.GangPolicy", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return esdp.NewGang(m, esdp.GangSettings{})
		}},
		{"HSWF-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangHSWF(m, baselines.GangHSWFSettings{})
		}},
		{"LCF-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangLCF(m, baselines.GangLCFSettings{})
		}},
		{"LWTF-gang", func(m *bipartite.GangModel) (snapshottest.Policy, error) {
			return baselines.NewGangLWTF(m, baselines.GangLWTFSettings{})
		}},
	} {
		out = append(out, stateful{c.name, esdp.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[snapshottest.Policy](t)(c.mk(gangTiny(t))) }, esdpDrive})
	}
	return out
}

// TestGangSnapshotBitFlipSweep is TestSnapshotBitFlipSweep for the gang
// policies and baselines.
func TestGangSnapshotBitFlipSweep(t *testing.T) { bitFlipSweep(t, gangStateful()) }
