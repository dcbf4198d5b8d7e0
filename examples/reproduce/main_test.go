package main

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSeeds(t *testing.T) {
	s, err := parseSeeds("1-3,7")
	require.NoError(t, err)
	assert.Equal(t, []uint64{1, 2, 3, 7}, s)
	for _, bad := range []string{"", "x", "5-1", "1-100000", "-3", "1,1", "1-3,2", "18446744073709551616", "1,,2", "1,", ",1"} {
		_, err := parseSeeds(bad)
		assert.ErrorContains(t, err, "-seeds", bad)
	}
	// The largest seeds: a range ending at MaxUint64 used to wrap x++ to 0
	// and loop forever (a hang, then out of memory).
	s, err = parseSeeds("18446744073709551615")
	require.NoError(t, err)
	assert.Equal(t, []uint64{math.MaxUint64}, s)
	s, err = parseSeeds("18446744073709551613-18446744073709551615")
	require.NoError(t, err)
	assert.Equal(t, []uint64{math.MaxUint64 - 2, math.MaxUint64 - 1, math.MaxUint64}, s)
	s, err = parseSeeds("1-1000")
	require.NoError(t, err)
	assert.Len(t, s, maxSeeds)
	_, err = parseSeeds("1-1000,1001")
	assert.Error(t, err)
}

// TestFlagsCheckedBeforeWork is issue 12 for the reproduce flags: every bad
// value is an error naming the flag, returned before any family runs and
// before anything is written (-family used to be checked after the run and
// after -figures was created; -readme after the whole run, and -readme
// /dev/zero read forever; extra arguments were ignored).
func TestFlagsCheckedBeforeWork(t *testing.T) {
	dir := t.TempDir()
	noMarkers := filepath.Join(dir, "plain.md")
	require.NoError(t, os.WriteFile(noMarkers, []byte("no markers here\n"), 0o644))
	afile := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(afile, []byte("x"), 0o644))
	figs := filepath.Join(dir, "figs")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-seeds", "18446744073709551615-1"}, "-seeds"},
		{[]string{"-seeds", "1,1"}, "twice"},
		{[]string{"-family", "bogus"}, "-family"},
		{[]string{"-readme", "/dev/zero"}, "not a regular file"},
		{[]string{"-readme", dir}, "not a regular file"},
		{[]string{"-readme", filepath.Join(dir, "missing.md")}, "-readme"},
		{[]string{"-readme", noMarkers}, "markers"},
		{[]string{"-readme", "", "-figures", afile}, "-figures"},
		{[]string{"-readme", "", "extra"}, "unexpected argument"},
	} {
		args := append([]string{"-quick", "-figures", figs}, tc.args...)
		start := time.Now()
		var out bytes.Buffer
		err := run(args, &out)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.want, "%v", tc.args)
		assert.Less(t, time.Since(start), 2*time.Second, "%v: checked before the run", tc.args)
		assert.Empty(t, out.String(), "%v", tc.args)
		_, statErr := os.Stat(figs)
		assert.True(t, os.IsNotExist(statErr), "%v: -figures created before the flags were checked", tc.args)
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
	docFile := filepath.Join(dir, "docs", "REPRODUCTION.md")
	choosing := filepath.Join(dir, "docs", "CHOOSING.md")
	data := filepath.Join(dir, "docs", "reproduce.json")
	require.NoError(t, run([]string{"-quick", "-seeds", "1-2", "-readme", readme, "-doc", docFile, "-figures", filepath.Join(dir, "docs", "fig"),
		"-choosing", choosing, "-data", data}, &out))
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
	assert.Contains(t, string(doc), "| family | paper's claim | verdict |")
	assert.Contains(t, string(doc), "(docs/REPRODUCTION.md)", "the summary links to the full table")
	assert.Contains(t, string(doc), "(docs/fig/", "the README keeps the figures")
	full, err := os.ReadFile(docFile)
	require.NoError(t, err)
	assert.Contains(t, string(full), "| family | paper's claim | faithful default | literal reading | verdict |")
	assert.Contains(t, string(full), "](fig/", "figure links relative to the doc's folder")
	for _, f := range families {
		assert.Contains(t, string(full), "| "+f.name+" |", "family %s has no row in the doc", f.name)
	}
	// The guide has every family, and rendering it again from the saved
	// measurements gives the same bytes.
	guide, err := os.ReadFile(choosing)
	require.NoError(t, err)
	for _, f := range families {
		assert.Contains(t, string(guide), "\n## "+f.name+"\n", "family %s has no section in the guide", f.name)
	}
	dir2 := t.TempDir()
	require.NoError(t, run([]string{"-from", data, "-readme", "", "-doc", filepath.Join(dir2, "docs", "REPRODUCTION.md"), "-figures", filepath.Join(dir2, "docs", "fig"),
		"-choosing", filepath.Join(dir2, "docs", "CHOOSING.md"), "-data", ""}, io.Discard))
	b, err := os.ReadFile(filepath.Join(dir2, "docs", "CHOOSING.md"))
	require.NoError(t, err)
	assert.Equal(t, string(guide), string(b), "the guide rendered from -data")
	b, err = os.ReadFile(filepath.Join(dir2, "docs", "REPRODUCTION.md"))
	require.NoError(t, err)
	assert.Equal(t, string(full), string(b), "the table rendered from -data")
}

// TestCommittedDocs renders docs/REPRODUCTION.md, docs/CHOOSING.md and the
// README's summary again from the committed measurements
// (docs/reproduce.json, written by the same run) and checks that they are
// the committed files byte for byte: nobody edited a number by hand, and
// the generator still writes what is committed.
func TestCommittedDocs(t *testing.T) {
	root := filepath.Join("..", "..")
	dir := t.TempDir()
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "docs"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "README.md"), readme, 0o644))
	var out bytes.Buffer
	require.NoError(t, run([]string{"-from", filepath.Join(root, "docs", "reproduce.json"),
		"-readme", filepath.Join(dir, "README.md"), "-doc", filepath.Join(dir, "docs", "REPRODUCTION.md"),
		"-figures", filepath.Join(dir, "docs", "figures"), "-choosing", filepath.Join(dir, "docs", "CHOOSING.md"), "-data", "",
		"-bench-file", filepath.Join(root, "docs", "bench.txt")}, &out))
	for _, f := range []string{"README.md", "docs/REPRODUCTION.md", "docs/CHOOSING.md"} {
		want, err := os.ReadFile(filepath.Join(root, f))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(dir, f))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s is not what -from docs/reproduce.json renders", f)
	}
	// Every family has its section and at least one measured line.
	guide, err := os.ReadFile(filepath.Join(root, "docs", "CHOOSING.md"))
	require.NoError(t, err)
	for _, g := range guides {
		assert.Contains(t, string(guide), "\n## "+g.family+"\n")
	}
	assert.Contains(t, string(readme), "(docs/CHOOSING.md)", "the README links the guide")
}

// TestChoosingNeedsEveryFamily: the guide refuses a run that lacks a
// family's advice, or a family it has no prose for.
func TestChoosingNeedsEveryFamily(t *testing.T) {
	var outs []Outcome
	for _, g := range guides {
		outs = append(outs, Outcome{Family: g.family, Advice: []Advice{{Goal: "g", Choice: "c", Why: "w"}}})
	}
	var b bytes.Buffer
	require.NoError(t, Choosing(&b, []uint64{1, 2, 3}, outs, "REPRODUCTION.md", BenchFile{}))
	assert.Contains(t, b.String(), "seeds 1–3")
	for _, g := range guides {
		assert.Contains(t, b.String(), "\n## "+g.family+"\n")
		assert.Contains(t, b.String(), "### What it costs")
	}
	assert.ErrorContains(t, Choosing(&b, []uint64{1}, outs[1:], "", BenchFile{}), guides[0].family)
	noAdvice := slices.Clone(outs)
	noAdvice[2].Advice = nil
	assert.ErrorContains(t, Choosing(&b, []uint64{1}, noAdvice, "", BenchFile{}), guides[2].family)
	assert.ErrorContains(t, Choosing(&b, []uint64{1}, append(outs, Outcome{Family: "New"}), "", BenchFile{}), `"New"`)
}

// TestSummaryCells: the README summary drops source citations (nested
// parentheses included) and keeps other parentheses; verdicts are cut to
// their first clause.
func TestSummaryCells(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"OGASched beats DRF by +11.33 % in average reward (Table III default column, Fig. 2(a); Table II setup, T = 2000)", "OGASched beats DRF by +11.33 % in average reward"},
		{"Sublinear regret against the best fixed allocation y* of (10): regret <= H_G sqrt T (Theorem 1, (39))", "Sublinear regret against the best fixed allocation y* of (10): regret <= H_G sqrt T"},
		{"OCORP cuts l2 flowtime by ~34 % vs the best baseline, 1-D (CPU), Figs. 2-3; testable workload (3000 jobs)", "OCORP cuts l2 flowtime by ~34 % vs the best baseline, 1-D (CPU), Figs. 2-3; testable workload (3000 jobs)"},
		{"unbalanced (Table", "unbalanced (Table"},
	} {
		assert.Equal(t, c.want, dropSources(c.in))
	}
	assert.Equal(t, "partly", firstClause("partly: with the step (53)", " (", ":", ";", ","))
	assert.Equal(t, "mostly", firstClause("mostly (faithful): OnSocMax", " (", ":", ";", ","))
	assert.Equal(t, "reproduces", firstClause("reproduces", " (", ":", ";", ","))
}

// TestParseBench reads go test -bench output with commands, drops the
// GOMAXPROCS suffix, keeps extra metrics out of the way, and refuses a
// result line without ns/op.
func TestParseBench(t *testing.T) {
	in := `# written by bench.sh on 2026-11-28; load average: 5.1 4.2 3.3; 2 CPUs
# command: go test -run '^$' -benchmem -bench Slot ./esdp
goos: linux
pkg: github.com/msched/msched/esdp
BenchmarkPolicySlot-2   	      20	     11918 ns/op	       0 B/op	       0 allocs/op
BenchmarkModeSlot/E=52/mode=exact-2         	       1	   6506610 ns/op	        52.00 edges	         0 gap	       16 B/op	       1 allocs/op
PASS
`
	bf, err := parseBench(strings.NewReader(in))
	require.NoError(t, err)
	assert.Equal(t, "written by bench.sh on 2026-11-28; load average: 5.1 4.2 3.3; 2 CPUs", bf.Header)
	require.Len(t, bf.Lines, 2)
	assert.Equal(t, BenchLine{Pkg: "github.com/msched/msched/esdp", Name: "BenchmarkPolicySlot", NsOp: 11918, Command: "go test -run '^$' -benchmem -bench Slot ./esdp"}, bf.Lines[0])
	assert.Equal(t, "BenchmarkModeSlot/E=52/mode=exact", bf.Lines[1].Name)
	assert.Equal(t, []float64{6506610, 16, 1}, []float64{bf.Lines[1].NsOp, bf.Lines[1].BOp, bf.Lines[1].Allocs})
	_, err = parseBench(strings.NewReader("BenchmarkX-2 10 5 B/op\n"))
	assert.ErrorContains(t, err, "no ns/op")
	var b bytes.Buffer
	benchTable(&b, "ESDP", bf)
	assert.Contains(t, b.String(), "| `esdp` | `BenchmarkPolicySlot` | 11.9 µs | 0 | 0 |")
	assert.Contains(t, b.String(), "6.51 ms")
	b.Reset()
	benchTable(&b, "OCORP", bf)
	assert.Contains(t, b.String(), "bench.sh` writes them")
	assert.Equal(t, []string{"12 ns", "1.5 µs", "2.5 ms", "1.43 s"}, []string{duration(12), duration(1500), duration(2.5e6), duration(1.43e9)})
}
