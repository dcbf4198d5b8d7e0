package baselines

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/ogasched"
)

// exactFitProbes returns issue 29's probes: one server, one resource, one
// job whose components (all required) demand tenths that sum exactly to
// the capacity (a fit), or to the capacity plus one tenth (no fit). Every
// demand and capacity is a decimal literal, n/10.
func exactFitProbes() (caps []float64, demands [][]float64, fit []bool) {
	for c := 1; c <= 20; c++ {
		for q := 2; q <= 4; q++ {
			for over := 0; over <= 1; over++ {
				total := c + over // tenths
				if total < q {
					continue
				}
				d := make([]float64, q)
				rest := total
				for j := 0; j < q; j++ { // an uneven split: 3, 2, 3, 2, ... tenths, the last takes the rest
					u := min(rest-(q-1-j), 2+(j+c)%3)
					if j == q-1 {
						u = rest
					}
					d[j] = float64(u) / 10
					rest -= u
				}
				caps = append(caps, float64(c)/10)
				demands = append(demands, d)
				fit = append(fit, over == 0)
			}
		}
	}
	return caps, demands, fit
}

// TestGangFamiliesAgreeOnExactFits runs every gang policy of both families
// (and the gang oracle, and GangModel.Check) on the exact-fit probes: each
// places the job exactly when its demands fit under bipartite.Fits, so a
// placement feasible for one family is feasible for every other. On the old
// code the ESDP family left 31 fitting jobs unplaced while the OGASched
// family placed all of them.
func TestGangFamiliesAgreeOnExactFits(t *testing.T) {
	caps, demands, fit := exactFitProbes()
	nfit := 0
	for _, f := range fit {
		if f {
			nfit++
		}
	}
	require.Greater(t, nfit, 40)
	type decider func(m *bipartite.GangModel) ([]int, error)
	one := []bool{true}
	esdpFamily := map[string]decider{
		"ESDP-gang": func(m *bipartite.GangModel) ([]int, error) {
			p, err := esdp.NewGang(m, esdp.GangSettings{})
			if err != nil {
				return nil, err
			}
			return p.Decide(0, one)
		},
		"HSWF-gang": func(m *bipartite.GangModel) ([]int, error) {
			p, err := NewGangHSWF(m, GangHSWFSettings{})
			if err != nil {
				return nil, err
			}
			return p.Decide(0, one)
		},
		"LWTF-gang": func(m *bipartite.GangModel) ([]int, error) {
			p, err := NewGangLWTF(m, GangLWTFSettings{})
			if err != nil {
				return nil, err
			}
			return p.Decide(0, one)
		},
		"oracle": func(m *bipartite.GangModel) ([]int, error) {
			ch, err := esdp.NewGangChannels(m)
			if err != nil {
				return nil, err
			}
			v := make([]float64, ch.Len())
			for i := range v {
				v[i] = 1
			}
			x := make([]int, m.NumComponents())
			var o esdp.GangOracle
			_, err = o.Solve(x, &esdp.GangKnapsack{Channels: ch, Value: v})
			return x, err
		},
	}
	ogaFamily := map[string]decider{
		"OGASched-gang": func(m *bipartite.GangModel) ([]int, error) {
			p, err := ogasched.NewGang(m, ogasched.GangSettings{})
			if err != nil {
				return nil, err
			}
			d, err := p.Decide(0, []float64{1})
			return d.Server, err
		},
	}
	for _, name := range []string{"DRF-gang", "FAIRNESS-gang", "BINPACKING-gang", "SPREADING-gang", "FIRSTFIT-gang"} {
		ogaFamily[name] = func(m *bipartite.GangModel) ([]int, error) {
			p, err := GangBaselineByName(name, m)
			if err != nil {
				return nil, err
			}
			d, err := p.Decide(0, []float64{1})
			return d.Server, err
		}
	}
	g, err := bipartite.NewGraph(1, 1, []bipartite.Edge{{Left: 0, Right: 0}})
	require.NoError(t, err)
	placed := map[string]int{}
	for i, c := range caps {
		m, err := bipartite.NewGangModel(g, 1, []float64{c}, []bipartite.GangJob{{Demand: demands[i]}})
		require.NoError(t, err)
		load := 0.0
		for _, a := range demands[i] {
			load += a
		}
		require.Equal(t, fit[i], bipartite.Fits(load, c), "probe %d: %v on %v", i, demands[i], c)
		all := make([]int, len(demands[i]))
		chk, err := m.Check(one, all)
		require.NoError(t, err)
		require.Equal(t, fit[i], chk.Violations == 0, "Check, probe %d: %v on %v", i, demands[i], c)
		for fam, ds := range map[string]map[string]decider{"esdp": esdpFamily, "ogasched": ogaFamily} {
			for name, d := range ds {
				x, err := d(m)
				require.NoError(t, err, "%s/%s", fam, name)
				chk, err := m.Check(one, x)
				require.NoError(t, err)
				require.Zero(t, chk.Violations, "%s/%s, probe %d: %s", fam, name, i, chk.First)
				require.Equal(t, fit[i], chk.Served == 1, "%s/%s, probe %d: %v on capacity %v: served %d", fam, name, i, demands[i], c, chk.Served)
				if chk.Served == 1 {
					placed[name]++
				}
			}
		}
	}
	t.Logf("%d probes, %d exact fits; placed: %v", len(caps), nfit, placed)
}
