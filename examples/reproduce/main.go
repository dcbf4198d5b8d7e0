// Command reproduce regenerates docs/REPRODUCTION.md (the "What reproduces
// and what does not" table), the README's one-line-per-claim summary of it
// and the key figure of each family from one run: every family's
// experiment over several seeds (default 1–5), under the faithful default
// reading and under the paper's literal reading, summarised as mean and range.
//
//	go run ./examples/reproduce                 # seeds 1-5, rewrites docs/REPRODUCTION.md, README.md's summary and docs/figures/
//	go run ./examples/reproduce -family esdp    # one family, table on stdout only
//	go run ./examples/reproduce -quick          # small sizes, for a smoke test
//	go run ./examples/reproduce -from docs/reproduce.json   # render the documents again from the saved measurements
//
// The table goes to stdout and, unless -doc is empty, to the file -doc
// (written whole); unless -readme is empty, a summary (family, claim,
// verdict, one line per claim, linking to -doc) and the figures replace the
// text between the markers "<!-- BEGIN reproduce -->" and
// "<!-- END reproduce -->" of the README, so nobody edits the numbers by
// hand. Figures (PNG and SVG) go to -figures. The guide "which policy to
// run" goes to -choosing (docs/CHOOSING.md, see choosing.go): its prose is
// in choosing.go, every number in it comes from the run (each family's
// Outcome.Advice), and its per-slot costs from -bench-file (docs/bench.txt,
// written by bench.sh from the packages' own benchmarks). The run's
// measurements go to -data as JSON, from which -from renders every
// document again without running.
//
// Each family lives in its own file (ogasched.go, onsocmax.go, esdp.go,
// ocorp.go) and registers itself with register in an init function.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Row is one line of the reproduction table.
type Row struct {
	Family   string `json:"family"`   // "OGASched", …
	Claim    string `json:"claim"`    // the paper's claim, with the table or figure it comes from
	Faithful string `json:"faithful"` // our number under the faithful default reading (mean (min…max) over seeds)
	Literal  string `json:"literal"`  // our number under the paper's literal reading, named
	Verdict  string `json:"verdict"`  // "reproduces", "does not reproduce", "not testable on this workload", …: one line, with why
}

// Advice is one measured line of docs/CHOOSING.md: for a goal, which policy
// to run, and the numbers of this run that say so (never typed by hand).
type Advice struct {
	Goal   string `json:"goal"`   // "concave utilities (log, reciprocal, poly)"
	Choice string `json:"choice"` // "OGASched" or a baseline
	Why    string `json:"why"`    // the measured numbers, with seeds and setting
}

// Config is what every family's run receives.
type Config struct {
	Seeds  []uint64 // seeds to average over
	Quick  bool     // small sizes (tests): the numbers are meaningless, the code paths are the real ones
	FigDir string   // where to write the key figure ("" = no figure)
}

// Outcome is what a family's run returns.
type Outcome struct {
	Family string   `json:"family"` // display name, set by run
	Rows   []Row    `json:"rows"`
	Figure string   `json:"figure,omitempty"` // file name of the key figure (PNG) inside Config.FigDir, "" if none
	Notes  []string `json:"notes,omitempty"`
	Advice []Advice `json:"advice,omitempty"` // the family's lines of docs/CHOOSING.md
}

// Data is what one run measured, as -data writes it and -from reads it
// back: every document of the run can be rendered again from it, without
// running anything (and a test checks that the committed documents are).
type Data struct {
	Seeds    []uint64  `json:"seeds"`
	Outcomes []Outcome `json:"outcomes"`
}

type family struct {
	key  string // flag value, lower case: "ogasched"
	name string // display name
	run  func(Config) (Outcome, error)
}

var families []family

// register adds a family; called from each family file's init.
func register(key, name string, run func(Config) (Outcome, error)) {
	families = append(families, family{key: key, name: name, run: run})
	slices.SortFunc(families, func(a, b family) int { return order(a.key) - order(b.key) })
}

// order fixes the table's row order whatever the init order.
func order(key string) int {
	switch key {
	case "ogasched":
		return 0
	case "onsocmax":
		return 1
	case "esdp":
		return 2
	case "ocorp":
		return 3
	}
	return 4
}

// Stat is the summary of one measure over seeds.
type Stat struct {
	Mean, Min, Max float64
	N              int
}

// Summarize returns mean, min and max of xs (NaN for none).
func Summarize(xs []float64) Stat {
	if len(xs) == 0 {
		return Stat{Mean: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	s := Stat{Min: math.Inf(1), Max: math.Inf(-1), N: len(xs)}
	for _, x := range xs {
		s.Mean += x
		s.Min = min(s.Min, x)
		s.Max = max(s.Max, x)
	}
	s.Mean /= float64(len(xs))
	return s
}

// Format writes the stat as "mean (min…max)" with the verb f applied to each
// (e.g. "%.1f", "%+.1f%%").
func (s Stat) Format(f string) string {
	if s.N <= 1 {
		return fmt.Sprintf(f, s.Mean)
	}
	return fmt.Sprintf(f+" ("+f+"…"+f+")", s.Mean, s.Min, s.Max)
}

// Pct formats a ratio r as a signed percentage gap (r-1)·100, e.g. "+7.1 %".
func Pct(ratios []float64) string {
	g := make([]float64, len(ratios))
	for i, r := range ratios {
		g[i] = 100 * (r - 1)
	}
	return Summarize(g).Format("%+.1f") + " %"
}

// maxSeeds bounds -seeds: every seed is a full run of every family.
const maxSeeds = 1000

// parseSeeds parses -seeds: comma-separated seeds or increasing ranges
// lo-hi, at most maxSeeds in all, each seed once. The range is walked by
// count, not by x <= hi, so that hi = MaxUint64 cannot wrap the loop
// (-seeds 18446744073709551615 used to loop forever, appending).
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	seen := map[uint64]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("-seeds %q: an item is empty", s)
		}
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, fmt.Errorf("-seeds %q: %w", s, err)
			}
		}
		if b < a || b-a >= maxSeeds || uint64(len(out))+(b-a+1) > maxSeeds {
			return nil, fmt.Errorf("-seeds %q: at most %d seeds, in increasing ranges", s, maxSeeds)
		}
		for i := uint64(0); i <= b-a; i++ {
			x := a + i
			if seen[x] {
				return nil, fmt.Errorf("-seeds %q: seed %d given twice", s, x)
			}
			seen[x] = true
			out = append(out, x)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-seeds %q: no seed", s)
	}
	return out, nil
}

const (
	beginMarker = "<!-- BEGIN reproduce -->"
	endMarker   = "<!-- END reproduce -->"
)

// Table renders rows and figures as the Markdown block the README embeds.
func Table(w io.Writer, seeds []uint64, outs []Outcome, figRel string) {
	fmt.Fprintf(w, "Generated by `go run ./examples/reproduce` (seeds %d–%d; mean (min…max) over seeds). Do not edit by hand.\n\n",
		seeds[0], seeds[len(seeds)-1])
	fmt.Fprintln(w, "| family | paper's claim | faithful default | literal reading | verdict |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, o := range outs {
		for _, r := range o.Rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cell(r.Family), cell(r.Claim), cell(r.Faithful), cell(r.Literal), cell(r.Verdict))
		}
	}
	for _, o := range outs {
		for _, n := range o.Notes {
			fmt.Fprintf(w, "\n%s\n", n)
		}
	}
	writeFigures(w, outs, figRel)
}

// Summary renders the README's block: one line per claim (family, the
// claim without its source citations, the verdict cut to its first
// clause), a link to the full table at docRel, and the figures.
func Summary(w io.Writer, outs []Outcome, docRel, figRel string) {
	fmt.Fprintf(w, "Generated by `go run ./examples/reproduce`; the numbers, both readings and the notes are in [%s](%s). Do not edit by hand.\n\n", docRel, docRel)
	fmt.Fprintln(w, "| family | paper's claim | verdict |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, o := range outs {
		for _, r := range o.Rows {
			fmt.Fprintf(w, "| %s | %s | %s |\n", cell(r.Family), cell(dropSources(r.Claim)), cell(firstClause(r.Verdict, " (", ":", ";", ",")))
		}
	}
	writeFigures(w, outs, figRel)
}

// sourcePrefixes open the parenthesised citations dropSources removes.
var sourcePrefixes = []string{"Table", "Fig", "§", "abstract", "Theorem", "Sec", "Steps", "pure "}

// dropSources removes from a claim the parenthesised groups " (…)" (nested
// parentheses allowed) that cite where it comes from, e.g. " (Table III,
// Fig. 2(a))"; other groups, such as " (CPU)", stay.
func dropSources(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, " (")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		depth, j := 0, i+1
		for ; j < len(s); j++ {
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
		if j == len(s) { // unbalanced: keep the rest as it is
			b.WriteString(s)
			return b.String()
		}
		inner := s[i+2 : j]
		if slices.ContainsFunc(sourcePrefixes, func(p string) bool { return strings.HasPrefix(inner, p) }) {
			b.WriteString(s[:i])
		} else {
			b.WriteString(s[:j+1])
		}
		s = s[j+1:]
	}
}

// firstClause returns s up to the earliest of the separators (s whole if
// none occurs after its first few characters).
func firstClause(s string, seps ...string) string {
	cut := len(s)
	for _, sep := range seps {
		if i := strings.Index(s, sep); i >= 4 && i < cut {
			cut = i
		}
	}
	return strings.TrimSpace(s[:cut])
}

func writeFigures(w io.Writer, outs []Outcome, figRel string) {
	var figs []string
	for _, o := range outs {
		if o.Figure != "" {
			figs = append(figs, o.Figure)
		}
	}
	if len(figs) > 0 && figRel != "" {
		fmt.Fprintln(w)
		for _, f := range figs {
			fmt.Fprintf(w, "![%s](%s)\n", strings.TrimSuffix(f, filepath.Ext(f)), filepath.ToSlash(filepath.Join(figRel, f)))
		}
	}
}

func cell(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "\n", " ") }

// splice replaces the text between the markers of doc by block.
func splice(doc []byte, block []byte) ([]byte, error) {
	i := bytes.Index(doc, []byte(beginMarker))
	j := bytes.Index(doc, []byte(endMarker))
	if i < 0 || j < i {
		return nil, fmt.Errorf("markers %q … %q not found in order", beginMarker, endMarker)
	}
	var out bytes.Buffer
	out.Write(doc[:i+len(beginMarker)])
	out.WriteString("\n")
	out.Write(block)
	out.Write(doc[j:])
	return out.Bytes(), nil
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "reproduce:", err)
		os.Exit(1)
	}
}

// relPath returns target relative to the folder base (target itself if
// no relative path exists).
func relPath(base, target string) string {
	if target == "" {
		return ""
	}
	r, err := filepath.Rel(base, target)
	if err != nil {
		return target
	}
	return filepath.ToSlash(r)
}

// writeFile writes b to path, creating its folder.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// maxDataBytes bounds the file -from reads.
const maxDataBytes = 16 << 20

// readData reads the measurements -from names: a regular file of at most
// maxDataBytes holding a Data with seeds and at least one outcome.
func readData(path string) (*Data, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-from %q: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("-from %q: not a regular file (%v)", path, st.Mode().Type())
	}
	if st.Size() > maxDataBytes {
		return nil, fmt.Errorf("-from %q: %d bytes, limit %d", path, st.Size(), maxDataBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-from %q: %w", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var d Data
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("-from %q: %w", path, err)
	}
	if len(d.Seeds) == 0 || len(d.Outcomes) == 0 {
		return nil, fmt.Errorf("-from %q: no seeds or no outcomes", path)
	}
	return &d, nil
}

// maxReadmeBytes bounds the README that -readme names: it is read whole.
const maxReadmeBytes = 16 << 20

// readReadme reads the README that -readme names and checks, before any
// family runs, that it is a regular file of at most maxReadmeBytes with the
// reproduce markers in order: a missing file or markers used to be found
// only after the whole run, and -readme /dev/zero read forever.
func readReadme(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("-readme %q: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("-readme %q: not a regular file (%v)", path, st.Mode().Type())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("-readme %q: %w", path, err)
	}
	defer f.Close()
	doc, err := io.ReadAll(io.LimitReader(f, maxReadmeBytes+1))
	if err != nil {
		return nil, fmt.Errorf("-readme %q: %w", path, err)
	}
	if len(doc) > maxReadmeBytes {
		return nil, fmt.Errorf("-readme %q: larger than %d bytes", path, maxReadmeBytes)
	}
	if _, err := splice(doc, nil); err != nil {
		return nil, fmt.Errorf("-readme %q: %w", path, err)
	}
	return doc, nil
}

// run parses and checks every flag (no positional argument, a known
// -family, valid -seeds, a -readme with its markers, a -figures folder)
// before any family runs: a bad value is an error naming the flag, and
// nothing is written.
func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("reproduce", flag.ContinueOnError)
	seedsFlag := fs.String("seeds", "1-5", "seeds, e.g. 1-5 or 1,3,7")
	only := fs.String("family", "", "run one family only (ogasched, onsocmax, esdp, ocorp); implies -readme '' -doc ''")
	readme := fs.String("readme", "README.md", "README whose summary between the reproduce markers is updated ('' = none)")
	doc := fs.String("doc", "docs/REPRODUCTION.md", "file the full reproduction table is written to ('' = none)")
	figDir := fs.String("figures", "docs/figures", "folder for the key figures ('' = none)")
	choosing := fs.String("choosing", "docs/CHOOSING.md", "file the guide 'which policy to run' is written to ('' = none)")
	data := fs.String("data", "docs/reproduce.json", "file the run's measurements are written to, to render the documents again with -from ('' = none)")
	benchFile := fs.String("bench-file", "docs/bench.txt", "benchmark results (written by examples/reproduce/bench.sh) quoted in -choosing's costs; a missing file is skipped")
	from := fs.String("from", "", "render -doc, -choosing and -readme from this file of measurements (written by -data) instead of running; figures are not redrawn")
	quick := fs.Bool("quick", false, "small sizes (smoke test; numbers are not the paper's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	seeds, err := parseSeeds(*seedsFlag)
	if err != nil {
		return err
	}
	if *only != "" {
		*readme, *doc, *choosing, *data = "", "", "", ""
		if !slices.ContainsFunc(families, func(f family) bool { return f.key == *only }) {
			var keys []string
			for _, f := range families {
				keys = append(keys, f.key)
			}
			return fmt.Errorf("-family %q: no such family (have %v)", *only, keys)
		}
	}
	if *readme != "" {
		if _, err := readReadme(*readme); err != nil {
			return err
		}
	}
	if *doc != "" {
		if st, err := os.Stat(*doc); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("-doc %q: exists and is not a regular file", *doc)
		}
	}
	if *figDir != "" {
		if st, err := os.Stat(*figDir); err == nil && !st.IsDir() {
			return fmt.Errorf("-figures %q: exists and is not a folder", *figDir)
		}
		if err := os.MkdirAll(*figDir, 0o755); err != nil {
			return fmt.Errorf("-figures %q: %w", *figDir, err)
		}
	}
	bench, err := readBench(*benchFile)
	if err != nil {
		return err
	}
	var saved *Data
	if *from != "" {
		if *only != "" {
			return fmt.Errorf("-from %q: renders every family; -family runs one", *from)
		}
		if saved, err = readData(*from); err != nil {
			return err
		}
		seeds = saved.Seeds
	}
	for _, p := range []struct{ flag, path string }{{"-choosing", *choosing}, {"-data", *data}} {
		if p.path == "" {
			continue
		}
		if st, err := os.Stat(p.path); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("%s %q: exists and is not a regular file", p.flag, p.path)
		}
	}
	var outs []Outcome
	var errs []error
	start0 := time.Now()
	for _, f := range families {
		if saved != nil {
			break
		}
		if *only != "" && f.key != *only {
			continue
		}
		start := time.Now()
		o, err := f.run(Config{Seeds: seeds, Quick: *quick, FigDir: *figDir})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.name, err))
			continue
		}
		o.Family = f.name
		fmt.Fprintf(os.Stderr, "reproduce: %s done in %.1f s\n", f.name, time.Since(start).Seconds())
		outs = append(outs, o)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if saved != nil {
		outs = saved.Outcomes
	} else {
		fmt.Fprintf(os.Stderr, "reproduce: all done in %.1f s\n", time.Since(start0).Seconds())
	}
	if *data != "" && saved == nil {
		b, err := json.MarshalIndent(Data{Seeds: seeds, Outcomes: outs}, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFile(*data, append(b, '\n')); err != nil {
			return fmt.Errorf("-data %q: %w", *data, err)
		}
	}
	if *choosing != "" {
		var g bytes.Buffer
		rel := ""
		if *doc != "" {
			rel = relPath(filepath.Dir(*choosing), *doc)
		}
		if err := Choosing(&g, seeds, outs, rel, bench); err != nil {
			return err
		}
		if err := writeFile(*choosing, g.Bytes()); err != nil {
			return fmt.Errorf("-choosing %q: %w", *choosing, err)
		}
	}
	var buf bytes.Buffer
	figRel := ""
	if *figDir != "" {
		figRel = *figDir
	}
	Table(&buf, seeds, outs, figRel)
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if *doc != "" {
		var full bytes.Buffer
		fmt.Fprintf(&full, "# What reproduces and what does not\n\n")
		rel := ""
		if *figDir != "" {
			rel = relPath(filepath.Dir(*doc), *figDir)
		}
		Table(&full, seeds, outs, rel)
		if err := writeFile(*doc, full.Bytes()); err != nil {
			return fmt.Errorf("-doc %q: %w", *doc, err)
		}
	}
	if *readme != "" {
		// Read again: the run may have taken long; the same checks apply.
		text, err := readReadme(*readme)
		if err != nil {
			return err
		}
		var sum bytes.Buffer
		docRel := ""
		if *doc != "" {
			docRel = relPath(filepath.Dir(*readme), *doc)
		}
		Summary(&sum, outs, docRel, relPath(filepath.Dir(*readme), *figDir))
		out, err := splice(text, sum.Bytes())
		if err != nil {
			return fmt.Errorf("%s: %w", *readme, err)
		}
		if err := os.WriteFile(*readme, out, 0o644); err != nil {
			return err
		}
	}
	return nil
}
