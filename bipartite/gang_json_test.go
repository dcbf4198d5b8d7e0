package bipartite

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGangModelJSONRoundTrip(t *testing.T) {
	m := gangFixture(t)
	b, err := json.Marshal(m)
	require.NoError(t, err)
	var got GangModel
	require.NoError(t, json.Unmarshal(b, &got))
	b2, err := json.Marshal(&got)
	require.NoError(t, err)
	require.Equal(t, string(b), string(b2))
	require.Equal(t, m.NumComponents(), got.NumComponents())
	for l := range m.NumJobs() {
		require.Equal(t, m.Min(l), got.Min(l))
	}
	for c := range m.NumComponents() {
		require.Equal(t, m.Demand(c), got.Demand(c))
		require.Equal(t, m.Job(c), got.Job(c))
	}
	for r := range m.NumServers() {
		require.Equal(t, m.Capacity(r), got.Capacity(r))
	}
	// The same placement gets the same verdict on both.
	srv := []int{0, 1, -1, 2}
	a, err := m.Check([]bool{true, true}, srv)
	require.NoError(t, err)
	c, err := got.Check([]bool{true, true}, srv)
	require.NoError(t, err)
	require.Equal(t, a, c)
}

func TestGangModelJSONRejects(t *testing.T) {
	good := `{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"capacity":[2],"jobs":[{"demand":[1,1],"min":1}]}`
	_, err := Limits{}.DecodeGangModel([]byte(good))
	require.NoError(t, err)
	for _, tc := range []struct {
		name, in string
		want     error
	}{
		{"version", strings.Replace(good, `{"version":1,"graph"`, `{"version":2,"graph"`, 1), ErrVersion},
		{"repeated key", strings.Replace(good, `"k":1`, `"k":1,"k":1`, 1), ErrSyntax},
		{"miscased key", strings.Replace(good, `"k":1`, `"K":1`, 1), ErrSyntax},
		{"unknown key", strings.Replace(good, `"k":1`, `"k":1,"x":0`, 1), ErrSyntax},
		{"trailing data", good + `{}`, ErrSyntax},
		{"no graph", strings.Replace(good, `"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},`, ``, 1), ErrNil},
		{"null graph", strings.Replace(good, `{"version":1,"left":1,"right":1,"edges":[[0,0]]}`, `null`, 1), ErrNil},
		{"bad graph", strings.Replace(good, `[[0,0]]`, `[[0,5]]`, 1), ErrVertexRange},
		{"min above", strings.Replace(good, `"min":1`, `"min":3`, 1), ErrDimension},
		{"negative capacity", strings.Replace(good, `[2]`, `[-2]`, 1), ErrCapacity},
		{"ragged demand", strings.Replace(good, `"k":1`, `"k":2`, 1), ErrDimension},
		{"not JSON", `{"version":1,`, ErrSyntax},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Limits{}.DecodeGangModel([]byte(tc.in))
			require.ErrorIs(t, err, tc.want)
		})
	}
	_, err = Limits{MaxComponents: 1}.DecodeGangModel([]byte(good))
	require.ErrorIs(t, err, ErrTooLarge)
}

// FuzzDecodeGangModel: any input is either refused with an error or
// decodes to a model that encodes back to bytes decoding to the same
// encoding.
func FuzzDecodeGangModel(f *testing.F) {
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"capacity":[2],"jobs":[{"demand":[1,1],"min":1}]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":2,"right":3,"edges":[[0,0],[0,1],[1,1],[1,2]]},"k":2,"capacity":[2,2,1,1,4,0],"jobs":[{"demand":[1,1,1,1,1,1],"min":2},{"demand":[1,0]}]}`))
	f.Add([]byte(`{"version":1,"graph":null,"k":0,"capacity":null,"jobs":null}`))
	lim := Limits{MaxVertices: 64, MaxEdges: 256, MaxComponents: 256}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := lim.DecodeGangModel(b)
		if err != nil {
			return
		}
		enc, err := json.Marshal(m)
		require.NoError(t, err)
		m2, err := lim.DecodeGangModel(enc)
		require.NoError(t, err)
		enc2, err := json.Marshal(m2)
		require.NoError(t, err)
		require.Equal(t, string(enc), string(enc2))
	})
}
