package ogasched

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// runSteps replays one trace through policies built from the given settings
// and returns their series.
func runSteps(t *testing.T, p *Problem, tr *Trace, ss ...Settings) []Series {
	t.Helper()
	var pols []OnlinePolicy
	for _, s := range ss {
		pol, err := New(p, s)
		require.NoError(t, err)
		t.Cleanup(pol.Close)
		pols = append(pols, pol)
	}
	res, err := Run(p, tr, pols, RunSettings{CheckTol: 1e-9})
	require.NoError(t, err)
	return res.Series
}

func TestDefaultStepIsTheory53(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	p, err := Generate(DefaultConfig(), rng)
	require.NoError(t, err)
	const T = 200
	tr, err := BernoulliTrace(p.NumPorts(), T, 0.7, rng)
	require.NoError(t, err)
	res := runSteps(t, p, tr,
		Settings{Horizon: T},
		Settings{Step: Theory{Diam: p.Diameter(), T: T}},
		Settings{},
		Settings{Step: TheoryAnytime{Diam: p.Diameter()}},
	)
	require.Equal(t, res[1].Reward, res[0].Reward, "Horizon set: default must be Theory (53)")
	require.Equal(t, res[3].Reward, res[2].Reward, "Horizon 0: default must be TheoryAnytime")
}

func TestPaperGeometricIsTableII(t *testing.T) {
	g := PaperGeometric()
	require.Equal(t, Geometric{Eta0: 25, Lambda: 0.9999}, g)
	require.InDelta(t, 25*0.9999*0.9999, g.Eta(2, 0), 1e-12)
	require.Equal(t, 0.0, TheoryAnytime{Diam: 3}.Eta(5, 0))
	require.InDelta(t, 3/(2*2.0), TheoryAnytime{Diam: 3}.Eta(3, 2), 1e-15)
}

// On the Table II instances the literal eta_0 = 25 is far too large for the
// instance's units (doc.go, "Step size"): the theory step (53) must beat it
// on every seed, and the geometric schedule's regret/sqrt T must grow with T
// while (53)'s stays flat.
func TestTheoryStepBeatsLiteralGeometric(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	for _, seed := range seeds {
		rng := rand.New(rand.NewPCG(seed, 1))
		p, err := Generate(DefaultConfig(), rng)
		require.NoError(t, err)
		const T = 500
		tr, err := BernoulliTrace(p.NumPorts(), T, 0.7, rng)
		require.NoError(t, err)
		res := runSteps(t, p, tr, Settings{Horizon: T}, Settings{Step: PaperGeometric()})
		require.Greater(t, res[0].Total, 1.05*res[1].Total, "seed %d: (53) %v vs eta0=25 %v", seed, res[0].Total, res[1].Total)
	}
}
