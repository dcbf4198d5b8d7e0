package conformance

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/ogasched"
)

// gangModel is a gang model of 3 job types (3, 2 and 2 components; 2, 2
// and 1 needed) on 4 servers, K = 2.
func gangModel() (*bipartite.GangModel, error) {
	g, err := bipartite.NewGraph(3, 4, []bipartite.Edge{
		{Left: 0, Right: 0}, {Left: 0, Right: 1}, {Left: 0, Right: 2},
		{Left: 1, Right: 1}, {Left: 1, Right: 2}, {Left: 1, Right: 3},
		{Left: 2, Right: 0}, {Left: 2, Right: 3},
	})
	if err != nil {
		return nil, err
	}
	return bipartite.NewGangModel(g, 2, []float64{4, 4, 4, 4, 3, 3, 2, 5}, []bipartite.GangJob{
		{Demand: []float64{1, 1, 1, 1, 2, 1}, Min: 2},
		{Demand: []float64{1, 2, 1, 1}},
		{Demand: []float64{2, 1, 1, 2}, Min: 1},
	})
}

// gangEdit removes server 1; the bad mapping repeats an old server.
func gangEdit(m *bipartite.GangModel) (*bipartite.GangModel, bipartite.GangMapping, bipartite.GangMapping, error) {
	n, mp, err := m.RemoveServer(1)
	return n, mp, bipartite.GangMapping{Jobs: mp.Jobs, Servers: []int{0, 0, 3}}, err
}

// gangValid checks a placement with bipartite.GangModel.Check.
func gangValid(m *bipartite.GangModel, arrived []bool, server []int) error {
	chk, err := m.Check(arrived, server)
	if err != nil {
		return err
	}
	if chk.Violations > 0 {
		return fmt.Errorf("%d violations: %s", chk.Violations, chk.First)
	}
	return nil
}

func gangArrived(m *bipartite.GangModel, s int) []bool {
	r := rand.New(rand.NewPCG(11, uint64(s)))
	a := make([]bool, m.NumJobs())
	for l := range a {
		a[l] = r.IntN(4) > 0
	}
	return a
}

func ogaGangFamily() suite {
	xs := func(m *bipartite.GangModel, s int) []float64 {
		x := make([]float64, m.NumJobs())
		for l, a := range gangArrived(m, s) {
			if a {
				x[l] = 1
			}
		}
		return x
	}
	return &family[*bipartite.GangModel, bipartite.GangMapping, []float64, ogasched.GangDecision, []float64]{
		log:       "ogasched",
		sentinels: ogaschedSentinels,
		model:     gangModel,
		edit:      gangEdit,
		obs:       xs,
		bad:       func(m *bipartite.GangModel, s int) []float64 { return make([]float64, m.NumJobs()+1) },
		valid: func(m *bipartite.GangModel, x []float64, d ogasched.GangDecision) error {
			a := make([]bool, len(x))
			for l, v := range x {
				a[l] = v > 0
			}
			return gangValid(m, a, d.Server)
		},
		feedback: func(_ *bipartite.GangModel, _ int, x []float64, _ ogasched.GangDecision) []float64 {
			return slices.Clone(x)
		},
		slots: 10,
		policies: []entry[*bipartite.GangModel, []float64, ogasched.GangDecision]{
			{name: "OGASched-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return ogasched.NewGang(m, ogasched.GangSettings{Seed: 5, Logger: l})
			}, alt: func(m *bipartite.GangModel) (any, error) {
				return ogasched.NewGang(m, ogasched.GangSettings{Seed: 5, Workers: 3})
			}},
			{name: "DRF-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangDRF(m, baselines.GangDRFSettings{Logger: l})
			}},
			{name: "FAIRNESS-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangFairness(m, baselines.GangFairnessSettings{Logger: l})
			}},
			{name: "BINPACKING-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangBinPacking(m, baselines.GangBinPackingSettings{Logger: l})
			}},
			{name: "SPREADING-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangSpreading(m, baselines.GangSpreadingSettings{Logger: l})
			}},
			{name: "FIRSTFIT-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangFirstFit(m, baselines.GangFirstFitSettings{Logger: l})
			}},
		},
	}
}

func esdpGangFamily() suite {
	return &family[*bipartite.GangModel, bipartite.GangMapping, []bool, []int, esdp.GangFeedback]{
		log:       "esdp",
		sentinels: esdpSentinels,
		model:     gangModel,
		edit:      gangEdit,
		obs:       gangArrived,
		bad:       func(m *bipartite.GangModel, s int) []bool { return make([]bool, m.NumJobs()+1) },
		valid:     gangValid,
		feedback: func(_ *bipartite.GangModel, s int, _ []bool, d []int) esdp.GangFeedback {
			r := rand.New(rand.NewPCG(13, uint64(s)))
			fb := esdp.GangFeedback{Server: slices.Clone(d), Reward: make([]float64, len(d))}
			for c := range fb.Reward {
				fb.Reward[c] = r.Float64()
			}
			return fb
		},
		slots: 10,
		policies: []entry[*bipartite.GangModel, []bool, []int]{
			{name: "ESDP-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return esdp.NewGang(m, esdp.GangSettings{Logger: l})
			}},
			{name: "HSWF-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangHSWF(m, baselines.GangHSWFSettings{Logger: l})
			}},
			{name: "LCF-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangLCF(m, baselines.GangLCFSettings{Logger: l})
			}},
			{name: "LWTF-gang", mk: func(m *bipartite.GangModel, l *slog.Logger) (any, error) {
				return baselines.NewGangLWTF(m, baselines.GangLWTFSettings{Logger: l})
			}},
		},
	}
}
