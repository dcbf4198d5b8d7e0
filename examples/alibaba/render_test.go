package main

import (
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

// TestRenderFigures runs every family on the small fixture trace with -out
// and checks each figure: SVG and PNG exist and are not empty, the SVG's
// legend names every series of the CSV beside it, and no series is all NaN.
func TestRenderFigures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every family on the fixture trace")
	}
	dir := fixtureDir(t)
	out := t.TempDir()
	stdout := os.Stdout
	devnull, err := os.Open(os.DevNull)
	require.NoError(t, err)
	os.Stdout = devnull
	err = run([]string{"-trace", dir, "-out", out})
	os.Stdout = stdout
	devnull.Close()
	require.NoError(t, err)

	csvs, err := filepath.Glob(filepath.Join(out, "*_series.csv"))
	require.NoError(t, err)
	require.NotEmpty(t, csvs, "no figure written")
	for _, c := range csvs {
		base := strings.TrimSuffix(c, "_series.csv")
		for _, ext := range []string{".svg", ".png"} {
			st, err := os.Stat(base + ext)
			require.NoError(t, err, "figure %s%s", base, ext)
			assert.Positive(t, st.Size(), "%s%s is empty", base, ext)
		}
		f, err := os.Open(c)
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err)
		require.Greater(t, len(rows), 1, "%s has no data", c)
		svg, err := os.ReadFile(base + ".svg")
		require.NoError(t, err)
		for col, name := range rows[0][1:] {
			assert.Contains(t, string(svg), name, "%s.svg: legend lacks series %q", base, name)
			finite := 0
			for _, r := range rows[1:] {
				if v, err := strconv.ParseFloat(r[col+1], 64); err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
					finite++
				}
			}
			assert.Positive(t, finite, "%s: series %q is all NaN", c, name)
		}
	}
}
