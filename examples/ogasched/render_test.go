package main

import (
	"bytes"
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRender runs a short version of the example and checks every figure:
// the PNG and SVG exist and are not empty, every expected series is in the
// SVG's legend, and no series of the CSV is all NaN.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"-T", "40", "-L", "3", "-R", "8", "-baselines", "both", "-workers", "1", "-out", dir}, &out))
	assert.Contains(t, out.String(), "best fixed y*")
	policies := []string{"OGASched", "DRF", "FAIRNESS", "BINPACKING", "SPREADING", "BINPACKING-pod", "SPREADING-pod"}
	want := map[string][]string{
		"average_reward":    append(append([]string(nil), policies...), "best fixed y*"),
		"cumulative_reward": append(append([]string(nil), policies...), "best fixed y*"),
		"ratio":             {"OGASched/DRF", "OGASched/FAIRNESS", "OGASched/BINPACKING", "OGASched/SPREADING", "parity (1)"},
	}
	for fig, series := range want {
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(filepath.Join(dir, fig+ext))
			require.NoError(t, err)
			assert.Positive(t, st.Size(), fig+ext)
		}
		svg, err := os.ReadFile(filepath.Join(dir, fig+".svg"))
		require.NoError(t, err)
		for _, s := range series {
			assert.Contains(t, string(svg), ">"+s, "%s: series %q missing", fig, s)
		}
	}
	f, err := os.Open(filepath.Join(dir, "series.csv"))
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	require.Len(t, rows, 41)
	for j, name := range rows[0] {
		allNaN := true
		for _, r := range rows[1:] {
			v, err := strconv.ParseFloat(r[j], 64)
			require.NoError(t, err)
			allNaN = allNaN && math.IsNaN(v)
		}
		assert.False(t, allNaN, "series %s is all NaN", name)
	}
	for _, p := range policies {
		assert.Contains(t, rows[0], p+"_reward")
	}
	assert.Contains(t, rows[0], "ystar_reward")
}

// TestFlags checks the reading flags and that bad flags return errors, never
// panic (issue 12): a sqrt utility, unknown names, -literal with -step.
func TestFlags(t *testing.T) {
	small := []string{"-T", "20", "-L", "3", "-R", "6", "-workers", "1", "-ystar=false"}
	var out bytes.Buffer
	require.NoError(t, run(append(small, "-literal"), &out))
	assert.Contains(t, out.String(), "step=paper eta0=25 lambda=0.9999 baselines=pod")
	assert.Contains(t, out.String(), "BINPACKING-pod")
	out.Reset()
	require.NoError(t, run(append(small, "-eta0", "1"), &out))
	assert.Contains(t, out.String(), "step=geometric eta0=1 lambda=0.9999")
	out.Reset()
	require.NoError(t, run(append(small, "-json"), &out))
	assert.True(t, strings.HasPrefix(out.String(), "{"))
	for _, bad := range [][]string{
		{"-utility", "sqrt"}, {"-utility", "nope"}, {"-step", "nope"}, {"-baselines", "nope"},
		{"-literal", "-step", "theory"}, {"-workers", "0"}, {"-T", "-5"}, {"-L", "-1"}, {"-R", "1000000000"},
		{"-L", "9223372036854775807"}, {"-K", "100000"}, {"-T", "100000000"},
		{"-rho", "NaN"}, {"-contention", "Inf"}, {"-preset", "huge"}, {"extra"},
	} {
		out.Reset()
		assert.NotPanics(t, func() {
			assert.Error(t, run(append(append([]string(nil), small...), bad...), &out), "%v", bad)
		}, "%v", bad)
	}
}
