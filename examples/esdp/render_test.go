package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRenderFigures runs a short version of the example under both
// capacity rules and checks that every figure renders to a non-empty SVG and
// PNG, that series.csv has every policy's series, and that no series is all
// NaN.
func TestRenderFigures(t *testing.T) {
	for _, rule := range []string{"table2", "alpha"} {
		dir := t.TempDir()
		var out bytes.Buffer
		require.NoError(t, run([]string{"-T", "40", "-caprule", rule, "-R", "12", "-out", dir}, &out))
		require.Contains(t, out.String(), "ESDP")
		for _, f := range []string{"welfare", "ratio", "average_welfare", "regret"} {
			for _, ext := range []string{".svg", ".png"} {
				st, err := os.Stat(filepath.Join(dir, f+ext))
				require.NoError(t, err, f+ext)
				require.Positive(t, st.Size(), f+ext)
			}
		}
		fh, err := os.Open(filepath.Join(dir, "series.csv"))
		require.NoError(t, err)
		rows, err := csv.NewReader(fh).ReadAll()
		fh.Close()
		require.NoError(t, err)
		require.Greater(t, len(rows), 1)
		head := rows[0]
		for _, name := range []string{"ESDP", "HSWF", "LCF", "LWTF", "CUCB", "TS"} {
			for _, col := range []string{"_welfare", "_regret", "_cumulative_regret"} {
				require.Contains(t, head, name+col)
			}
		}
		for c, name := range head {
			allNaN := true
			for _, r := range rows[1:] {
				v, err := strconv.ParseFloat(r[c], 64)
				if err == nil && !math.IsNaN(v) {
					allNaN = false
					break
				}
			}
			require.False(t, allNaN, "%s: series %s is all NaN", rule, name)
		}
	}
}

// TestBadFlags: hostile flag values are errors, not panics.
func TestBadFlags(t *testing.T) {
	hostile := filepath.Join(t.TempDir(), "hostile.json")
	require.NoError(t, os.WriteFile(hostile, []byte(`{"version":1,"graph":{"version":1,"left":1e9,"right":1,"edges":[]},"k":1}`), 0o644))
	for _, args := range [][]string{
		{"-T", "-1"},
		{"-T", "9223372036854775807"},
		{"-caprule", "nope"},
		{"-L", "9223372036854775807"},
		{"-K", "0"},
		{"-caphi", "0"},
		{"-rho", "NaN"},
		{"-workers", "-1"},
		{"-sweep", "-regret"},
		{"-instance", hostile},
		{"-instance", filepath.Join(t.TempDir(), "missing.json")},
	} {
		var out bytes.Buffer
		require.Error(t, run(args, &out), "%v", args)
	}
}
