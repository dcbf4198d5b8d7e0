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

// TestRender runs short versions of the example (one table, every sweep)
// into a temporary folder and checks that each figure exists as SVG and
// PNG, is not empty, names every expected series, and that no series of
// the CSV behind it is all NaN.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	small := []string{"-runs", "2", "-nodes", "3", "-slots", "6", "-jobs", "6", "-out", dir}
	var out bytes.Buffer
	require.NoError(t, run(small, &out))
	assert.Contains(t, out.String(), "OPT/policy")
	out.Reset()
	require.NoError(t, run(append(small, "-sweep", "all", "-utility", "log"), &out))
	assert.Contains(t, out.String(), "Sweep over mean node capacity")

	series := []string{"OnSocMax", "MAX-FIRST", "EQUAL-SHARE", "alpha-hat"}
	figs := map[string]string{ // figure -> CSV behind it
		"ratio":                  "welfare",
		"sweep_duration":         "sweep_duration",
		"sweep_workload":         "sweep_workload",
		"sweep_congestion_rho12": "sweep_congestion_rho12",
		"sweep_congestion_rho18": "sweep_congestion_rho18",
		"sweep_congestion_rho24": "sweep_congestion_rho24",
	}
	for fig, data := range figs {
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(filepath.Join(dir, fig+ext))
			require.NoError(t, err, fig+ext)
			assert.Greater(t, st.Size(), int64(1000), fig+ext)
		}
		svg, err := os.ReadFile(filepath.Join(dir, fig+".svg"))
		require.NoError(t, err)
		for _, s := range series {
			assert.Contains(t, string(svg), s, "%s lacks series %s", fig, s)
		}
		f, err := os.Open(filepath.Join(dir, data+".csv"))
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err)
		require.Greater(t, len(rows), 1, data)
		for c, name := range rows[0] {
			allNaN := true
			for _, r := range rows[1:] {
				v, err := strconv.ParseFloat(strings.TrimSpace(r[c]), 64)
				require.NoError(t, err)
				allNaN = allNaN && math.IsNaN(v)
			}
			assert.False(t, allNaN, "%s column %s is all NaN", data, name)
		}
	}
}

// TestFlags: bad flags are errors, not panics or hangs.
func TestFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-runs", "0"},
		{"-runs", "-5"},
		{"-runs", "1000000000"},
		{"-nodes", "4294967296", "-slots", "4294967296"},
		{"-nodes", "-1"},
		{"-jobs", "9223372036854775807"},
		{"-utility", "cubic"},
		{"-sweep", "nope"},
		{"-cap", "NaN"},
		{"-rate", "-1"},
		{"-instance", "/nonexistent/instance.json"},
		{"extra"},
	} {
		var out bytes.Buffer
		assert.Error(t, run(args, &out), "%q", args)
	}
}
