package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSeeds(t *testing.T) {
	s, err := parseSeeds("1-3,7")
	require.NoError(t, err)
	assert.Equal(t, []uint64{1, 2, 3, 7}, s)
	for _, bad := range []string{"", "x", "5-1", "1-100000", "-3"} {
		_, err := parseSeeds(bad)
		assert.Error(t, err, bad)
	}
}

func TestSplice(t *testing.T) {
	doc := []byte("a\n" + beginMarker + "\nold\n" + endMarker + "\nb\n")
	out, err := splice(doc, []byte("new\n"))
	require.NoError(t, err)
	assert.Equal(t, "a\n"+beginMarker+"\nnew\n"+endMarker+"\nb\n", string(out))
	_, err = splice([]byte("no markers"), nil)
	assert.Error(t, err)
}

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{1, 2, 6})
	assert.Equal(t, Stat{Mean: 3, Min: 1, Max: 6, N: 3}, s)
	assert.Equal(t, "3.0 (1.0…6.0)", s.Format("%.1f"))
	assert.Equal(t, "+10.0 (+0.0…+20.0) %", Pct([]float64{1, 1.1, 1.2}))
}

// TestQuick runs every registered family at small sizes: each must return at
// least one complete row and, when it declares a figure, write a non-empty PNG.
func TestQuick(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every family's experiment at small size")
	}
	dir := t.TempDir()
	readme := filepath.Join(dir, "README.md")
	require.NoError(t, os.WriteFile(readme, []byte("x\n"+beginMarker+"\n"+endMarker+"\n"), 0o644))
	var out bytes.Buffer
	require.NoError(t, run([]string{"-quick", "-seeds", "1-2", "-readme", readme, "-figures", filepath.Join(dir, "fig")}, &out))
	for _, f := range families {
		assert.Contains(t, out.String(), "| "+f.name+" |", "family %s has no row", f.name)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| family") {
			assert.Equal(t, 5, strings.Count(line, " |")-strings.Count(line, "\\|"), "row with an empty or missing cell: %s", line)
		}
		if strings.HasPrefix(line, "![") {
			path := line[strings.Index(line, "(")+1 : len(line)-1]
			st, err := os.Stat(path)
			require.NoError(t, err, "figure %s", path)
			assert.Positive(t, st.Size())
		}
	}
	doc, err := os.ReadFile(readme)
	require.NoError(t, err)
	assert.Contains(t, string(doc), "| family |")
}
