package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// BenchLine is one result line of a `go test -bench -benchmem` run, as
// examples/reproduce/bench.sh writes them to docs/bench.txt.
type BenchLine struct {
	Pkg     string // import path, from the preceding "pkg:" line
	Name    string // "BenchmarkSlot/n=2226/workers=1", without the -GOMAXPROCS suffix
	NsOp    float64
	BOp     float64 // NaN-free: 0 when the line has no B/op
	Allocs  float64
	Command string // the "# command:" line before it
}

// BenchFile is a parsed docs/bench.txt: its first comment line (date,
// load) and its result lines.
type BenchFile struct {
	Header string
	Lines  []BenchLine
}

// maxBenchBytes bounds the benchmark file read by -bench-file.
const maxBenchBytes = 1 << 20

// readBench reads and parses the benchmark file at path; a missing file is
// an empty BenchFile and no error (the guide then says how to make one).
func readBench(path string) (BenchFile, error) {
	if path == "" {
		return BenchFile{}, nil
	}
	st, err := os.Stat(path)
	if os.IsNotExist(err) {
		return BenchFile{}, nil
	}
	if err != nil {
		return BenchFile{}, fmt.Errorf("-bench-file %q: %w", path, err)
	}
	if !st.Mode().IsRegular() || st.Size() > maxBenchBytes {
		return BenchFile{}, fmt.Errorf("-bench-file %q: not a regular file of at most %d bytes", path, maxBenchBytes)
	}
	f, err := os.Open(path)
	if err != nil {
		return BenchFile{}, fmt.Errorf("-bench-file %q: %w", path, err)
	}
	defer f.Close()
	bf, err := parseBench(f)
	if err != nil {
		return BenchFile{}, fmt.Errorf("-bench-file %q: %w", path, err)
	}
	return bf, nil
}

// parseBench parses the output of go test -bench with -benchmem, with
// "# command: …" comment lines naming the command of the results after
// them. Lines it does not know (goos, PASS, ok) are skipped; a Benchmark
// line without ns/op is an error naming it.
func parseBench(r io.Reader) (BenchFile, error) {
	var bf BenchFile
	pkg, cmd := "", ""
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "# command: "):
			cmd = strings.TrimPrefix(line, "# command: ")
		case strings.HasPrefix(line, "#") && bf.Header == "":
			bf.Header = strings.TrimSpace(strings.TrimPrefix(line, "#"))
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
		case strings.HasPrefix(line, "Benchmark"):
			fs := strings.Fields(line)
			if len(fs) < 4 {
				return bf, fmt.Errorf("line %d: %q: too few fields", n, line)
			}
			b := BenchLine{Pkg: pkg, Name: fs[0], Command: cmd}
			if i := strings.LastIndexByte(b.Name, '-'); i > 0 {
				if _, err := strconv.Atoi(b.Name[i+1:]); err == nil {
					b.Name = b.Name[:i]
				}
			}
			seen := false
			for i := 2; i+1 < len(fs); i++ {
				v, err := strconv.ParseFloat(fs[i], 64)
				if err != nil {
					continue
				}
				switch fs[i+1] {
				case "ns/op":
					b.NsOp, seen = v, true
				case "B/op":
					b.BOp = v
				case "allocs/op":
					b.Allocs = v
				}
			}
			if !seen {
				return bf, fmt.Errorf("line %d: %q: no ns/op", n, line)
			}
			bf.Lines = append(bf.Lines, b)
		}
	}
	return bf, sc.Err()
}

// benchOf names, per family of the guide, the benchmarks (package, name
// prefix) that measure its policy and baselines.
var benchOf = map[string][][2]string{
	"OGASched":                 {{"ogasched", "BenchmarkSlot/"}},
	"OnSocMax":                 {{"onsocmax", "BenchmarkRollingDecide"}, {"onsocmax", "BenchmarkWaterFill"}},
	"ESDP":                     {{"esdp", "BenchmarkPolicySlot"}, {"esdp", "BenchmarkModeSlot"}, {"baselines", "BenchmarkESDPBaselinesSlot"}},
	"OCORP":                    {{"ocorp", "BenchmarkSlot/"}, {"baselines", "BenchmarkFirstFitSlot"}, {"baselines", "BenchmarkTetrisSlot"}},
	"Gang (beyond the papers)": {{"ogasched", "BenchmarkGangSlot"}, {"baselines", "BenchmarkGangBaselineSlot"}},
}

// benchTable writes the family's benchmark lines of bf as a Markdown table
// with the commands that produced them, or says how to produce them.
func benchTable(w io.Writer, family string, bf BenchFile) {
	var rows []BenchLine
	for _, b := range bf.Lines {
		for _, k := range benchOf[family] {
			if strings.HasSuffix(b.Pkg, "/"+k[0]) && strings.HasPrefix(b.Name, k[1]) {
				rows = append(rows, b)
				break
			}
		}
	}
	if len(rows) == 0 {
		fmt.Fprintf(w, "No benchmark results for this family in docs/bench.txt: `examples/reproduce/bench.sh` writes them.\n\n")
		return
	}
	fmt.Fprintf(w, "Measured by `examples/reproduce/bench.sh` (docs/bench.txt: %s; timings from the machine and load it names):\n\n", bf.Header)
	fmt.Fprintln(w, "| package | benchmark | time per op | bytes per op | allocs per op |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	var cmds []string
	for _, b := range rows {
		fmt.Fprintf(w, "| `%s` | `%s` | %s | %.0f | %.0f |\n", b.Pkg[strings.LastIndexByte(b.Pkg, '/')+1:], b.Name, duration(b.NsOp), b.BOp, b.Allocs)
		if b.Command != "" && !slices.Contains(cmds, b.Command) {
			cmds = append(cmds, b.Command)
		}
	}
	fmt.Fprintln(w)
	for _, c := range cmds {
		fmt.Fprintf(w, "`%s`\n\n", c)
	}
}

// duration formats nanoseconds with three significant digits in ns, µs,
// ms or s.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return strconv.FormatFloat(ns/1e9, 'g', 3, 64) + " s"
	case ns >= 1e6:
		return strconv.FormatFloat(ns/1e6, 'g', 3, 64) + " ms"
	case ns >= 1e3:
		return strconv.FormatFloat(ns/1e3, 'g', 3, 64) + " µs"
	}
	return strconv.FormatFloat(ns, 'g', 3, 64) + " ns"
}
