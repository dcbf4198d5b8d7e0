package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJSONShape runs both families at a small size and checks the JSON
// summary: the shared shape, a result per policy, zero violations, the
// gap for the OGASched family and the regret for ESDP's.
func TestJSONShape(t *testing.T) {
	if testing.Short() {
		t.Skip("runs both families")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"-T", "40", "-esdpT", "30", "-json", "-out", dir}, &out))
	var sum map[string]any
	require.NoError(t, json.Unmarshal(out.Bytes(), &sum))
	for _, k := range []string{"experiment", "params", "results", "violations", "per_seed"} {
		assert.Contains(t, sum, k)
	}
	res := sum["results"].([]any)
	require.Len(t, res, 6+5)
	for _, r := range res {
		m := r.(map[string]any)
		assert.Contains(t, m, "policy")
		assert.Contains(t, m, "total")
		assert.Contains(t, m, "mean")
		assert.Equal(t, 0.0, m["violations"], m["policy"])
		if m["family"] == "ogasched" {
			assert.Contains(t, m, "gap_to_bound")
		} else {
			assert.Contains(t, m, "regret")
		}
	}
	for _, f := range []string{"table.txt", "summary.json", "ogasched_gang_seed1.svg", "esdp_gang_regret_seed1.svg"} {
		_, err := os.Stat(filepath.Join(dir, f))
		assert.NoError(t, err, f)
	}
}

func TestFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-T", "0"}, {"-rho", "2"}, {"-seeds", "5-1"}, {"extra"}, {"-trace", "/nonexistent"}} {
		assert.Error(t, run(args, &out), "%v", args)
	}
}
