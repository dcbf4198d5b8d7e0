// Command alibaba runs every msched algorithm family on Alibaba's GPU
// cluster trace (cluster-trace-gpu-v2023, OpenB files), mapped to each
// family's instance by package trace.
//
// Usage:
//
//	go run ./examples/alibaba [-trace DIR] [-pods FILE] [-family ogasched,...]
//	    [-seed 1] [-workers 2] [-json] [-out DIR]
//
// The trace folder defaults to ../shared/traces/alibaba-openb-2023 next to
// the repository (or $MSCHED_TRACE); get the files from
// github.com/alibaba/clusterdata (cluster-trace-gpu-v2023) if it is absent.
// For each family the command prints a table like the family's synthetic
// example; -out writes <family>_series.csv and <family>.svg; -json prints a
// JSON array with one summary object per family.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
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
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "alibaba:", err)
		os.Exit(1)
	}
}

func run() error {
	var o options
	dir := flag.String("trace", "", "trace folder (default ../shared/traces/alibaba-openb-2023 next to the repository, or $MSCHED_TRACE)")
	flag.StringVar(&o.Pods, "pods", trace.DefaultPodFile, "pod list file in the trace folder")
	var names []string
	for _, f := range families {
		names = append(names, f.name)
	}
	fams := flag.String("family", strings.Join(names, ","), "comma-separated families to run")
	flag.Uint64Var(&o.Seed, "seed", 1, "seed for what the trace does not carry (utilities, rewards, node sample)")
	flag.IntVar(&o.Workers, "workers", 2, "workers")
	asJSON := flag.Bool("json", false, "print a JSON array of summaries instead of tables")
	out := flag.String("out", "", "directory for CSV series and SVG plots")
	flag.Parse()

	if *dir == "" {
		d, err := trace.DefaultDir()
		if err != nil {
			return fmt.Errorf("%w\n(pass -trace DIR with the OpenB files of github.com/alibaba/clusterdata, cluster-trace-gpu-v2023)", err)
		}
		*dir = d
	}
	start := time.Now()
	tr, err := trace.Load(*dir, o.Pods)
	if err != nil {
		return err
	}
	if !*asJSON {
		fmt.Printf("Alibaba cluster-trace-gpu-v2023 (%s): %d nodes, %d pods from %s; loaded in %v\n\n",
			*dir, len(tr.Nodes), len(tr.Pods), o.Pods, time.Since(start).Round(time.Millisecond))
	}
	var reports []*familyReport
	for _, name := range strings.Split(*fams, ",") {
		found := false
		for _, f := range families {
			if f.name != strings.TrimSpace(name) {
				continue
			}
			found = true
			fmt.Fprintf(os.Stderr, "alibaba: running %s ...\n", f.name)
			t0 := time.Now()
			r, err := f.run(tr, o)
			if err != nil {
				return fmt.Errorf("%s: %w", f.name, err)
			}
			r.WallSeconds = time.Since(t0).Seconds()
			reports = append(reports, r)
			if !*asJSON {
				printReport(r)
			}
			if *out != "" {
				if err := writeOutputs(*out, r); err != nil {
					return err
				}
			}
		}
		if !found {
			return fmt.Errorf("unknown family %q (have %v)", name, names)
		}
	}
	if *asJSON {
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
	pl := report.NewPlot(r.Experiment+" on the Alibaba trace", "t", r.ylabel)
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
