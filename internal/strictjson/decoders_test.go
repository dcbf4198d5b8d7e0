package strictjson_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/ocorp"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/onsocmax"
)

// TestDecodersDeepNesting: issue 30. 80 KB of 40 000 nested arrays made
// every strict decoder allocate O(depth²) (620 MiB at depth 20 000; the
// test process aborted at 40 000). Each decoder now refuses it with an
// error, allocating a few MiB, at the top level and inside a field.
func TestDecodersDeepNesting(t *testing.T) {
	const depth = 40000
	deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	docs := map[string]string{
		"top":   deep,
		"field": `{"version":1,"graph":` + deep + `}`,
	}
	decoders := map[string]func(b []byte) error{
		"DecodeGraph":           func(b []byte) error { _, err := bipartite.Limits{}.DecodeGraph(b); return err },
		"DecodeGangModel":       func(b []byte) error { _, err := bipartite.Limits{}.DecodeGangModel(b); return err },
		"Graph":                 func(b []byte) error { return json.Unmarshal(b, new(bipartite.Graph)) },
		"GangModel":             func(b []byte) error { return json.Unmarshal(b, new(bipartite.GangModel)) },
		"ogasched.Problem":      func(b []byte) error { return json.Unmarshal(b, new(ogasched.Problem)) },
		"ogasched.Trace":        func(b []byte) error { return json.Unmarshal(b, new(ogasched.Trace)) },
		"esdp.Instance":         func(b []byte) error { return json.Unmarshal(b, new(esdp.Instance)) },
		"esdp.Stats":            func(b []byte) error { return json.Unmarshal(b, new(esdp.Stats)) },
		"onsocmax.Instance":     func(b []byte) error { return json.Unmarshal(b, new(onsocmax.Instance)) },
		"ocorp.Instance":        func(b []byte) error { return json.Unmarshal(b, new(ocorp.Instance)) },
		"ocorp.ReadInstance":    func(b []byte) error { _, err := ocorp.ReadInstanceJSON(bytes.NewReader(b)); return err },
		"Graph (UnmarshalJSON)": func(b []byte) error { return new(bipartite.Graph).UnmarshalJSON(b) },
	}
	for name, dec := range decoders {
		for where, doc := range docs {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err := dec([]byte(doc))
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			require.Error(t, err, "%s %s", name, where)
			require.Less(t, alloc, uint64(16<<20), "%s %s: %d bytes allocated", name, where, alloc)
		}
	}
}
