// Command alibaba runs every msched algorithm family on Alibaba's GPU
// cluster trace (cluster-trace-gpu-v2023, OpenB files), mapped to each
// family's instance by package trace.
//
// Usage:
//
//	go run ./examples/alibaba [-trace DIR] [-pods FILE] [-family ogasched,...]
//	    [-seed 1] [-workers 2] [-json] [-out DIR]
//
// Every flag is checked before the trace is read: -workers in [1, 1024],
// -pods a file name in the trace folder, -family known names without
// repeats, -trace an existing folder, -out a folder or a new path; a bad
// value is an error naming the flag. The trace itself is read within
// trace.Limits (records, timestamps, slot counts).
//
// The trace folder defaults to ../shared/traces/alibaba-openb-2023 next to
// the repository (or $MSCHED_TRACE); get the files from
// github.com/alibaba/clusterdata (cluster-trace-gpu-v2023) if it is absent.
// For each family the command prints a table like the family's synthetic
// example; -out writes <family>_series.csv and <family>.svg; -json prints a
// JSON array with one summary object per family.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/msched/msched/examples/internal/report"
	"github.com/msched/msched/trace"
)

// options are the command-line settings shared by the families.
type options struct {
	Seed    uint64 `json:"seed"`
	Workers int    `json:"workers"`
	Pods    string `json:"pods"`
}

type result struct {
	Policy string  `json:"policy"`
	Total  float64 `json:"total"`
	Mean   float64 `json:"mean"`
}

// familyReport is one family's outcome: the JSON summary plus what the table and
// the plots need.
type familyReport struct {
	Experiment  string   `json:"experiment"`
	Params      any      `json:"params"`
	Results     []result `json:"results"`
	WallSeconds float64  `json:"wall_seconds"`

	intro  []string             // lines printed above the table
	head   []string             // table columns
	rows   [][]string           // table rows
	series map[string][]float64 // per policy, a cumulative metric over slots
	order  []string             // policies in series order
	ylabel string
}

// families lists the runnable families in the order they are printed.
var families = []struct {
	name string
	run  func(tr *trace.Trace, o options) (*familyReport, error)
}{
	{"ogasched", runOGASched},
	{"esdp", runESDP},
	{"onsocmax", runOnSocMax},
	{"onsocmax-congested", runOnSocMaxCongested},
	{"ocorp", runOCORP},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0)
		}
		fmt.Fprintln(os.Stderr, "alibaba:", err)
		os.Exit(1)
	}
}

// maxWorkers bounds -workers: more goroutines than this only cost memory.
const maxWorkers = 1024

// config is the parsed and validated command line.
type config struct {
	o      options
	dir    string
	fams   []string // validated family names, in the order given
	asJSON bool
	out    string
}

// parseFlags parses and validates the command line: every flag value is
// checked here, before the trace is read, so that a hostile value is an
// error naming the flag, never a panic or a hang later.
func parseFlags(args []string) (*config, error) {
	var c config
	fs := flag.NewFlagSet("alibaba", flag.ContinueOnError)
	fs.StringVar(&c.dir, "trace", "", "trace folder (default ../shared/traces/alibaba-openb-2023 next to the repository, or $MSCHED_TRACE)")
	fs.StringVar(&c.o.Pods, "pods", trace.DefaultPodFile, "pod list file in the trace folder")
	var names []string
	for _, f := range families {
		names = append(names, f.name)
	}
	fams := fs.String("family", strings.Join(names, ","), "comma-separated families to run")
	fs.Uint64Var(&c.o.Seed, "seed", 1, "seed for what the trace does not carry (utilities, rewards, node sample)")
	fs.IntVar(&c.o.Workers, "workers", 2, fmt.Sprintf("workers, in [1, %d]", maxWorkers))
	fs.BoolVar(&c.asJSON, "json", false, "print a JSON array of summaries instead of tables")
	fs.StringVar(&c.out, "out", "", "directory for CSV series and SVG plots")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	if c.o.Workers < 1 || c.o.Workers > maxWorkers {
		return nil, fmt.Errorf("-workers = %d, want [1, %d]", c.o.Workers, maxWorkers)
	}
	if c.o.Pods == "" || filepath.Base(c.o.Pods) != c.o.Pods || c.o.Pods == "." || c.o.Pods == ".." {
		return nil, fmt.Errorf("-pods = %q, want the name of a file in the trace folder (e.g. %s)", c.o.Pods, trace.DefaultPodFile)
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(*fams, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(names, name) {
			return nil, fmt.Errorf("-family: unknown family %q (have %v)", name, names)
		}
		if seen[name] {
			return nil, fmt.Errorf("-family: %q given twice", name)
		}
		seen[name] = true
		c.fams = append(c.fams, name)
	}
	if c.dir == "" {
		d, err := trace.DefaultDir()
		if err != nil {
			return nil, fmt.Errorf("%w\n(pass -trace DIR with the OpenB files of github.com/alibaba/clusterdata, cluster-trace-gpu-v2023)", err)
		}
		c.dir = d
	}
	if st, err := os.Stat(c.dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("-trace = %q is not a folder (get the OpenB files of github.com/alibaba/clusterdata, cluster-trace-gpu-v2023)", c.dir)
	}
	if c.out != "" {
		if st, err := os.Stat(c.out); err == nil && !st.IsDir() {
			return nil, fmt.Errorf("-out = %q exists and is not a folder", c.out)
		}
	}
	return &c, nil
}

func run(args []string) error {
	c, err := parseFlags(args)
	if err != nil {
		return err
	}
	o := c.o
	start := time.Now()
	tr, err := trace.Load(c.dir, o.Pods)
	if err != nil {
		return err
	}
	if !c.asJSON {
		fmt.Printf("Alibaba cluster-trace-gpu-v2023 (%s): %d nodes, %d pods from %s; loaded in %v\n\n",
			c.dir, len(tr.Nodes), len(tr.Pods), o.Pods, time.Since(start).Round(time.Millisecond))
	}
	var reports []*familyReport
	for _, name := range c.fams {
		for _, f := range families {
			if f.name != name {
				continue
			}
			fmt.Fprintf(os.Stderr, "alibaba: running %s ...\n", f.name)
			t0 := time.Now()
			r, err := f.run(tr, o)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			r.WallSeconds = time.Since(t0).Seconds()
			reports = append(reports, r)
			if !c.asJSON {
				printReport(r)
			}
			if c.out != "" {
				if err := writeOutputs(c.out, r); err != nil {
					return err
				}
			}
		}
	}
	if c.asJSON {
		return report.PrintJSON(reports)
	}
	return nil
}

func printReport(r *familyReport) {
	fmt.Printf("== %s\n", r.Experiment)
	for _, l := range r.intro {
		fmt.Println(l)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(r.head, "\t")+"\t")
	for _, row := range r.rows {
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	tw.Flush()
	fmt.Printf("wall time %.2fs\n\n", r.WallSeconds)
}

func writeOutputs(dir string, r *familyReport) error {
	if len(r.order) == 0 {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cols := make([]func(int) float64, len(r.order))
	pl := report.NewPlot(r.Experiment+" and its baselines on the Alibaba openb-2023 trace", "slot t", r.ylabel)
	for i, n := range r.order {
		ys := r.series[n]
		cols[i] = func(t int) float64 { return ys[t] }
		pl.Func(n, len(ys), cols[i])
	}
	if err := report.Series(filepath.Join(dir, r.Experiment+"_series.csv"), len(r.series[r.order[0]]), r.order, cols); err != nil {
		return err
	}
	return pl.Save(filepath.Join(dir, r.Experiment+".svg"))
}

func ftoa(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
