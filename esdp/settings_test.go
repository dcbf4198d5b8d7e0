package esdp

import (
	"bytes"
	"log/slog"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSettingsValidateJoinsEveryProblem: each bad field is named, all at
// once, and New refuses them before looking at the cluster.
func TestSettingsValidateJoinsEveryProblem(t *testing.T) {
	s := Settings{Alpha: math.NaN(), M: -1, Oracle: OracleSettings{MaxBytes: -1, MaxNodes: -2, Knapsack: 7}}
	err := s.Validate()
	require.ErrorIs(t, err, ErrSettings)
	for _, field := range []string{"Settings.Alpha = NaN", "Settings.M = -1", "OracleSettings.MaxBytes = -1", "OracleSettings.MaxNodes = -2", "OracleSettings.Knapsack = 7"} {
		require.Contains(t, err.Error(), field)
	}
	_, err = New(nil, s)
	require.ErrorIs(t, err, ErrSettings)
	_, err = New(nil, Settings{})
	require.ErrorIs(t, err, ErrDimension)
	require.NoError(t, Settings{}.Validate())
	require.ErrorIs(t, RunSettings{T: -1, Workers: -1}.Validate(), ErrSettings)
	require.NoError(t, Optimal.Err())
	require.ErrorIs(t, NotTerminated.Err(), ErrNotTerminated)
	require.ErrorIs(t, NodeLimit.Err(), ErrNodeLimit)
	require.Equal(t, NotTerminated, Status(0))
}

// TestLogger: one Debug record per Decide when a Logger is set.
func TestLogger(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(41, 1)))
	require.NoError(t, err)
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(&in.Cluster, Settings{Logger: log})
	require.NoError(t, err)
	all := make([]bool, in.NumPorts())
	for l := range all {
		all[l] = true
	}
	for s := 0; s < 3; s++ {
		_, err := p.Decide(s*2, all)
		require.NoError(t, err)
	}
	require.Equal(t, 3, bytes.Count(buf.Bytes(), []byte("msg=decide family=esdp policy=ESDP slot=")))
	require.Contains(t, buf.String(), "slot=4")
}

// TestExploration: the named sequences are GDefault, GLog and GLogLog,
// their names parse back, an unknown one is a settings error, and a
// policy with ExploreLog has sigma^2 = ln(t+1)/(2 n_e) and a fingerprint
// of its own (snapshots do not cross).
func TestExploration(t *testing.T) {
	for x := ExploreDefault; x <= ExploreLogLog; x++ {
		y, err := ParseExploration(x.String())
		require.NoError(t, err)
		require.Equal(t, x, y)
		require.NotNil(t, x.G())
	}
	_, err := ParseExploration("ln")
	require.ErrorIs(t, err, ErrSettings)
	require.ErrorIs(t, Settings{Exploration: 9}.Validate(), ErrSettings)
	require.Equal(t, GLog(99, 7), ExploreLog.G()(99, 7))
	require.Equal(t, math.Log(100), GLog(99, 7))

	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(41, 2)))
	require.NoError(t, err)
	def, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	lg, err := New(&in.Cluster, Settings{Exploration: ExploreLog})
	require.NoError(t, err)
	x := make([]bool, in.Cluster.NumEdges())
	x[0] = true
	z := make([]float64, len(x))
	z[0] = 0.5
	for _, p := range []*Policy{def, lg} {
		require.NoError(t, p.Warm(Feedback{Chosen: x, Reward: z}))
	}
	require.InDelta(t, math.Log(11)/2, lg.Variance(9, 0), 1e-15)
	require.InDelta(t, GDefault(10, float64(def.M()))/2, def.Variance(9, 0), 1e-12)
	snap, err := def.MarshalBinary()
	require.NoError(t, err)
	require.ErrorIs(t, lg.UnmarshalBinary(snap), ErrSnapshot)
}
