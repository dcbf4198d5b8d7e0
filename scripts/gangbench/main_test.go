package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// TestInstanceRoundTrip writes two medium instances as scripts/gang_highs.py
// reads them and checks that the file describes the problem the oracle
// solves: the same model, the same channels (component, server, fits alone)
// with the same values, and the library's capacity tolerance. It then
// solves each and checks what gangbench records: a placement GangModel.Check
// accepts, a value no larger than the certified bound, at most the arrived
// jobs served.
func TestInstanceRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for i := range 2 {
		in, err := medium(i)
		require.NoError(t, err)
		require.NoError(t, write(dir, in))

		b, err := os.ReadFile(filepath.Join(dir, in.name+".json"))
		require.NoError(t, err)
		var got instance
		require.NoError(t, json.Unmarshal(b, &got))
		require.Equal(t, in.name, got.Name)
		require.Equal(t, bipartite.CapacityTol, got.CapacityTol)
		require.Equal(t, in.p.Arrived, got.Arrived)
		require.Equal(t, in.p.Value, got.Value)

		want, err := json.Marshal(in.p.Channels.Model())
		require.NoError(t, err)
		back, err := json.Marshal(got.Model)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(back), "the model round-trips")

		ch := in.p.Channels
		require.Equal(t, ch.Len(), len(got.Comp))
		for c := range ch.Len() {
			require.Equal(t, ch.Component(c), got.Comp[c], "channel %d component", c)
			require.Equal(t, ch.Server(c), got.Server[c], "channel %d server", c)
			require.Equal(t, ch.Fits(c), got.Fits[c], "channel %d fits", c)
		}

		r, err := solve(in, esdp.GangOracleSettings{Method: esdp.GangAuto}, 1)
		require.NoError(t, err, "solve checks the placement with GangModel.Check")
		require.LessOrEqual(t, r.Value, r.Bound*(1+1e-12)+1e-12, "value above its certified bound")
		require.LessOrEqual(t, r.Served, r.Jobs)
		require.Equal(t, ch.Len(), r.Chans)
	}
}
