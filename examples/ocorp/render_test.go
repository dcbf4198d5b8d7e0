package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRender runs a short version of the example (300 jobs, both
// settings, OCORP+ at alpha 10) writing its figures to a temporary folder,
// and checks that every figure exists as SVG and PNG, non-empty, that every
// policy (and the lower bound) is in the plots' legends, and that no
// series of the CSV is all NaN.
func TestRender(t *testing.T) {
	if testing.Short() {
		t.Skip("renders 16 figures (about 2 s, 30 s under -race)")
	}
	dir := t.TempDir()
	var out bytes.Buffer
	require.NoError(t, run([]string{"-n", "300", "-alpha", "0,10", "-workload", "testable", "-quiet", "-out", dir}, &out))
	assert.Contains(t, out.String(), "/ lower bound")
	assert.Contains(t, out.String(), "lower bound (f_j = p_j)")
	policies := map[string][]string{
		"1d": {"OCORP", "OCORP-fill", "OCORP+(a=10)", "SRPT", "SRVF", "SVF", "SRF", "Tetris"},
		"2d": {"OCORP+M", "OCORP+M-fill", "OCORP+M-fill/first-fit", "SRPT", "SRVF", "SVF", "SRF", "Tetris", "SRPT-pooled", "SRF-pooled"},
	}
	figs := []string{"flowtime", "fractional", "unfinished", "waiting_by_size", "max_waiting_by_size", "preemptions_by_size", "migrations_by_size"}
	for exp, pols := range policies {
		names := figs
		if exp == "1d" {
			names = append(names[:len(names):len(names)], "ocorp_plus_flowtime")
		}
		for _, f := range names {
			for _, ext := range []string{".svg", ".png"} {
				st, err := os.Stat(filepath.Join(dir, exp, f+ext))
				require.NoError(t, err)
				assert.Positive(t, st.Size(), "%s/%s%s", exp, f, ext)
			}
		}
		svg, err := os.ReadFile(filepath.Join(dir, exp, "flowtime.svg"))
		require.NoError(t, err)
		for _, p := range append(pols, "lower bound") {
			assert.Contains(t, string(svg), xmlEscape(p), "%s flowtime.svg lacks series %s", exp, p)
		}
		f, err := os.Open(filepath.Join(dir, exp, "series.csv"))
		require.NoError(t, err)
		rows, err := csv.NewReader(f).ReadAll()
		f.Close()
		require.NoError(t, err)
		require.Greater(t, len(rows), 1)
		for c, name := range rows[0] {
			allNaN := true
			for _, r := range rows[1:] {
				v, err := strconv.ParseFloat(r[c], 64)
				require.NoError(t, err)
				allNaN = allNaN && math.IsNaN(v)
			}
			assert.False(t, allNaN, "%s series %s is all NaN", exp, name)
		}
		for _, p := range pols {
			assert.Contains(t, rows[0], p+"_exact", "%s series.csv", exp)
		}
	}
}

func xmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// TestBadFlags: hostile flag values are errors, not panics or huge
// allocations.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"-n", "-1"}, {"-n", "99999999999"}, {"-machines", "0"}, {"-machines", "9223372036854775807"},
		{"-slot", "0"}, {"-k", "NaN"}, {"-k", "0.5"}, {"-load", "NaN"}, {"-load", "-1"}, {"-workload", "x"},
		{"-mode", "3d"}, {"-alpha", "NaN"}, {"-alpha", "1e308"}, {"-slot", "9223372036854775807"}, {"-beta", "2"}, {"-workers", "0"}, {"-jobs", "/nonexistent.csv"},
	} {
		assert.Error(t, run(append(args, "-quiet"), &bytes.Buffer{}), "%v", args)
	}
}

// TestTestableDefaultN: -workload testable runs the 3000 jobs of the
// README's testable rows unless -n is given.
func TestTestableDefaultN(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 3000 jobs")
	}
	for _, c := range []struct {
		args []string
		n    int
	}{
		{[]string{"-workload", "testable"}, 3000},
		{[]string{"-workload", "testable", "-n", "200"}, 200},
		{[]string{"-n", "300"}, 300},
	} {
		var out bytes.Buffer
		require.NoError(t, run(append(c.args, "-json", "-quiet", "-mode", "1d", "-alpha", "0"), &out))
		var sum summary
		require.NoError(t, json.Unmarshal(out.Bytes(), &sum))
		assert.Equal(t, c.n, sum.Params.N, "%v", c.args)
	}
}
