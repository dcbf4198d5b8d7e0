// Command onsocmax reproduces the experiments of the OnSocMax paper (paper
// 001, Section IV) on generated instances: the social welfare of OnSocMax
// against MAX-FIRST and EQUAL-SHARE, and the offline optimum of P1 with the
// measured ratios OPT/policy.
//
// Usage:
//
//	go run ./examples/onsocmax [-runs 20] [-seed 1] [-nodes 10] [-slots 24]
//	    [-jobs 20] [-rate 2.03] [-duration 4] [-cap 20] [-rho 18] [-xbar 7]
//	    [-utility linear|log|poly|mix] [-per-job-utility] [-alm] [-np]
//	    [-instance FILE] [-sweep duration|workload|congestion|all]
//	    [-json] [-out DIR]
//
// Each run draws one day with the paper's generator (onsocmax.Generate) and
// seed -seed+run. Utility coefficients are drawn per (job, unit) as in
// Section IV-A; -per-job-utility is the literal reading of our first
// generator (one coefficient per job for all its units). The offline
// optimum is exact (min-cost flow, onsocmax.OfflineFlow) for linear
// utilities; otherwise it is the certified bracket of
// onsocmax.OfflineConcave, whose lower end (a feasible allocation) is used
// for the ratios and whose worst relative gap is printed. "poly" is the
// paper's a*sqrt(x) (utility.Sqrt).
//
// -sweep varies the mean service duration (Fig. 4), the mean workload rho
// (Fig. 5), and, for the congestion of Fig. 6, the node capacity and the
// workload together (a grid), and prints OPT/policy per point.
//
// The baselines decide slot by slot and never commit to a future slot;
// OnSocMax commits a job's whole allocation, later slots included, when the
// job arrives. The baselines thus see every arrival before they spend a
// slot's capacity, an information advantage the paper does not discuss.
//
// With -out DIR the program writes CSV files and figures (SVG with a PNG
// beside each): ratio.svg (OPT/policy per day, with alpha-hat of Theorem 2
// dashed) and, for sweeps, sweep_<name>.svg (OPT/policy per point, one
// figure per workload for the congestion grid).
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/examples/internal/flagcheck"
	"github.com/msched/msched/examples/internal/report"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

type params struct {
	Runs     int     `json:"runs"`
	Seed     uint64  `json:"seed"`
	Nodes    int     `json:"nodes"`
	Slots    int     `json:"slots"`
	Jobs     int     `json:"jobs"`
	Rate     float64 `json:"arrival_rate"`
	Duration float64 `json:"mean_duration"`
	Cap      float64 `json:"capacity_mean"`
	Rho      float64 `json:"rho_mean"`
	XBar     float64 `json:"xbar_mean"`
	Utility  string  `json:"utility"`
	PerJob   bool    `json:"per_job_utility"`
	ALM      bool    `json:"alm"`
	NP       bool    `json:"non_partitionable"`
	Instance string  `json:"instance,omitempty"`
}

type result struct {
	Policy string  `json:"policy"`
	Total  float64 `json:"total"` // welfare summed over runs
	Mean   float64 `json:"mean"`  // mean welfare per run (day)
	Ratio  float64 `json:"opt_over_policy"`
}

type summary struct {
	Experiment  string   `json:"experiment"`
	Params      params   `json:"params"`
	Results     []result `json:"results"`
	MeanAlpha   float64  `json:"mean_alpha"`
	WorstRatio  float64  `json:"worst_opt_over_onsocmax"`
	WorstGap    float64  `json:"worst_offline_gap"`
	WallSeconds float64  `json:"wall_seconds"`
}

// day is the outcome of one instance.
type day struct {
	names   []string
	welfare []float64 // per policy; the last entry is OPT
	alpha   float64
	gap     float64 // relative gap of the offline bracket (0 if exact)
}

// maxRuns bounds -runs (each run is one generated day).
const maxRuns = 100000

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "onsocmax:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	var pr params
	fs := flag.NewFlagSet("onsocmax", flag.ContinueOnError)
	fs.IntVar(&pr.Runs, "runs", 20, "days (instances) averaged")
	fs.Uint64Var(&pr.Seed, "seed", 1, "random seed of the first day")
	fs.IntVar(&pr.Nodes, "nodes", 10, "nodes")
	fs.IntVar(&pr.Slots, "slots", 24, "slots per day")
	fs.IntVar(&pr.Jobs, "jobs", 20, "jobs per day (at most)")
	fs.Float64Var(&pr.Rate, "rate", 2.03, "Poisson arrivals per slot")
	fs.Float64Var(&pr.Duration, "duration", 4, "mean service duration, slots (Exp)")
	fs.Float64Var(&pr.Cap, "cap", 20, "mean node capacity C_r, workload units per slot (sd = cap/10)")
	fs.Float64Var(&pr.Rho, "rho", 18, "mean workload rho_n, workload units (sd = rho/6)")
	fs.Float64Var(&pr.XBar, "xbar", 7, "mean per-unit cap xbar_nr, workload units (sd = xbar/7)")
	fs.StringVar(&pr.Utility, "utility", "linear", "job utilities: linear, log, poly (a*sqrt(x)) or mix")
	fs.BoolVar(&pr.PerJob, "per-job-utility", false, "literal reading: one utility coefficient a per job for all its units (default: per (job, unit), Section IV-A)")
	fs.BoolVar(&pr.ALM, "alm", false, "also run OnSocMax with the augmented-Lagrangian solver (Algorithm 2)")
	fs.BoolVar(&pr.NP, "np", false, "also run the non-partitionable variant (Section III-D)")
	fs.StringVar(&pr.Instance, "instance", "", "run one instance read from this JSON file instead of generating")
	sweep := fs.String("sweep", "", "duration, workload, congestion or all: sweep instead of one table")
	asJSON := fs.Bool("json", false, "print a JSON summary instead of the table")
	out := fs.String("out", "", "directory for CSV and SVG/PNG output")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := errors.Join(flagcheck.Finite(fs), flagcheck.NonNegative(fs, "runs", "nodes", "slots", "jobs")); err != nil {
		return err
	}
	if pr.Runs <= 0 || pr.Runs > maxRuns {
		return fmt.Errorf("-runs %d: want 1..%d", pr.Runs, maxRuns)
	}
	if _, err := config(pr); err != nil {
		return err
	}
	if *sweep != "" {
		return runSweep(stdout, pr, *sweep, *out)
	}
	start := time.Now()
	days, err := experiment(pr)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	names := days[0].names
	totals := make([]float64, len(names))
	var alpha, worstRatio, worstGap float64
	for _, d := range days {
		for i, w := range d.welfare {
			totals[i] += w
		}
		alpha += d.alpha / float64(len(days))
		if d.welfare[0] > 0 {
			worstRatio = math.Max(worstRatio, d.welfare[len(d.welfare)-1]/d.welfare[0])
		}
		worstGap = math.Max(worstGap, d.gap)
	}
	opt := totals[len(totals)-1]
	if *out != "" {
		if err := writeDays(*out, pr, days); err != nil {
			return err
		}
	}
	if *asJSON {
		s := summary{Experiment: "onsocmax", Params: pr, MeanAlpha: alpha, WorstRatio: worstRatio, WorstGap: worstGap, WallSeconds: wall.Seconds()}
		for i, n := range names {
			s.Results = append(s.Results, result{n, totals[i], totals[i] / float64(len(days)), opt / totals[i]})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	if pr.Instance != "" {
		fmt.Fprintf(stdout, "OnSocMax on instance %s\n", pr.Instance)
	} else {
		fmt.Fprintf(stdout, "OnSocMax vs baselines: %d days, %d nodes x %d slots, <= %d jobs/day, Poisson(%v) arrivals, Exp(%v) duration, C~N(%v), rho~N(%v), xbar~N(%v), utility %s (%s), seed %d\n",
			pr.Runs, pr.Nodes, pr.Slots, pr.Jobs, pr.Rate, pr.Duration, pr.Cap, pr.Rho, pr.XBar, pr.Utility, drawName(pr.PerJob), pr.Seed)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\ttotal welfare\tmean welfare/day\tOPT/policy\tdays OnSocMax ahead\t")
	for i, n := range names {
		ahead := "-"
		if i > 0 && i < len(names)-1 {
			k := 0
			for _, d := range days {
				if d.welfare[0] > d.welfare[i] {
					k++
				}
			}
			ahead = fmt.Sprintf("%d/%d", k, len(days))
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.4f\t%.4f\t%s\t\n", n, totals[i], totals[i]/float64(len(days)), opt/totals[i], ahead)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "alpha-hat (Theorem 2, per-day iota and v of (8)): mean %.4f; worst per-day OPT/OnSocMax %.4f\n", alpha, worstRatio)
	if worstGap > 0 {
		fmt.Fprintf(stdout, "OPT is the feasible lower end of a certified bracket; worst relative gap %.2g\n", worstGap)
	}
	fmt.Fprintln(stdout, "(baselines decide slot by slot and never commit to future slots; OnSocMax commits each job's allocation at arrival)")
	fmt.Fprintf(stdout, "wall time %v\n", wall.Round(time.Millisecond))
	return nil
}

func drawName(perJob bool) string {
	if perJob {
		return "a per job, literal"
	}
	return "a per (job, unit)"
}

func kinds(name string) ([]utility.Kind, error) {
	switch name {
	case "linear":
		return []utility.Kind{utility.Linear}, nil
	case "log":
		return []utility.Kind{utility.Log}, nil
	case "poly", "sqrt":
		return []utility.Kind{utility.Sqrt}, nil
	case "mix":
		return []utility.Kind{utility.Linear, utility.Log, utility.Sqrt}, nil
	}
	return nil, fmt.Errorf("unknown -utility %q (linear, log, poly, mix)", name)
}

func config(pr params) (onsocmax.Config, error) {
	c := onsocmax.DefaultConfig()
	c.Nodes, c.Slots, c.Jobs = pr.Nodes, pr.Slots, pr.Jobs
	c.ArrivalRate, c.MeanDuration = pr.Rate, pr.Duration
	c.CapMean, c.CapStd = pr.Cap, pr.Cap/10
	c.RhoMean, c.RhoStd = pr.Rho, pr.Rho/6
	c.XBarMean, c.XBarStd = pr.XBar, pr.XBar/7
	c.PerJobUtility = pr.PerJob
	k, err := kinds(pr.Utility)
	if err != nil {
		return c, err
	}
	c.Kinds = k
	return c, c.Validate()
}

func experiment(pr params) ([]day, error) {
	if pr.Instance != "" {
		f, err := os.Open(pr.Instance)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in, err := onsocmax.ReadInstance(f)
		if err != nil {
			return nil, err
		}
		d, err := evaluate(in, pr)
		if err != nil {
			return nil, err
		}
		return []day{d}, nil
	}
	c, err := config(pr)
	if err != nil {
		return nil, err
	}
	days := make([]day, 0, pr.Runs)
	for k := range pr.Runs {
		in, err := onsocmax.Generate(c, rand.New(rand.NewPCG(pr.Seed+uint64(k), 1)))
		if err != nil {
			return nil, err
		}
		d, err := evaluate(in, pr)
		if err != nil {
			return nil, fmt.Errorf("day %d: %w", k, err)
		}
		days = append(days, d)
	}
	return days, nil
}

func evaluate(in *onsocmax.Instance, pr params) (day, error) {
	pricing, err := in.Pricing(0)
	if err != nil {
		return day{}, err
	}
	var pols []onsocmax.OnlinePolicy
	osm, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: pricing.Iota, V: pricing.V})
	if err != nil {
		return day{}, err
	}
	pols = append(pols, osm)
	if pr.ALM {
		p, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: pricing.Iota, V: pricing.V, Solver: onsocmax.AugmentedLagrangian})
		if err != nil {
			return day{}, err
		}
		pols = append(pols, renamed{p, "OnSocMax-ALM"})
	}
	if pr.NP {
		p, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: pricing.Iota, V: pricing.V, NonPartitionable: true})
		if err != nil {
			return day{}, err
		}
		pols = append(pols, p)
	}
	mf, err := baselines.NewMaxFirst(in.Mesh, baselines.MaxFirstSettings{})
	if err != nil {
		return day{}, err
	}
	es, err := baselines.NewEqualShare(in.Mesh, baselines.EqualShareSettings{})
	if err != nil {
		return day{}, err
	}
	pols = append(pols, mf, es)
	d := day{alpha: pricing.Alpha}
	res, err := onsocmax.Run(in, pols, onsocmax.RunSettings{})
	if err != nil {
		return day{}, err
	}
	for _, o := range res.Series {
		d.names = append(d.names, o.Policy)
		d.welfare = append(d.welfare, o.Welfare)
	}
	opt, _, err := onsocmax.OfflineFlow(in)
	if errors.Is(err, onsocmax.ErrUnsupported) {
		res, err2 := onsocmax.OfflineConcave(in, nil)
		if err2 != nil {
			return day{}, err2
		}
		opt, err, d.gap = res.Lower, nil, res.Gap()
	}
	if err != nil {
		return day{}, err
	}
	d.names = append(d.names, "OPT (offline)")
	d.welfare = append(d.welfare, opt)
	return d, nil
}

type renamed struct {
	*onsocmax.Policy
	name string
}

func (r renamed) Name() string { return r.name }

type sweepDef struct {
	name, label string // label: the x axis, with its unit
	xs          []float64
	set         func(*params, float64)
	// groups, if any, split the sweep into one figure per group value (the
	// congestion grid: one figure per mean workload).
	groupName string
	groups    []float64
	setGroup  func(*params, float64)
}

func sweeps(which string) ([]sweepDef, error) {
	all := []sweepDef{
		{name: "duration", label: "mean service duration (slots)", xs: []float64{1, 2, 4, 6, 8}, set: func(p *params, v float64) { p.Duration = v }},
		{name: "workload", label: "mean workload rho (workload units)", xs: []float64{6, 12, 18, 24, 30}, set: func(p *params, v float64) { p.Rho = v }},
		{name: "congestion", label: "mean node capacity C (workload units per slot)", xs: []float64{4, 8, 12, 16, 20}, set: func(p *params, v float64) { p.Cap = v },
			groupName: "rho", groups: []float64{12, 18, 24}, setGroup: func(p *params, v float64) { p.Rho = v }},
	}
	if which == "all" {
		return all, nil
	}
	for _, s := range all {
		if s.name == which {
			return []sweepDef{s}, nil
		}
	}
	return nil, fmt.Errorf("unknown -sweep %q (duration, workload, congestion, all)", which)
}

func runSweep(stdout io.Writer, base params, which, out string) error {
	defs, err := sweeps(which)
	if err != nil {
		return err
	}
	if out != "" {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return err
		}
	}
	start := time.Now()
	for _, s := range defs {
		groups := s.groups
		if len(groups) == 0 {
			groups = []float64{math.NaN()}
		}
		for _, g := range groups {
			var names []string
			means := [][]float64{} // [value][policy]
			alphas := make([]float64, len(s.xs))
			for k, v := range s.xs {
				pr := base
				if !math.IsNaN(g) {
					s.setGroup(&pr, g)
				}
				s.set(&pr, v)
				fmt.Fprintf(os.Stderr, "onsocmax: sweep %s = %v%s (%v)\n", s.name, v, groupLabel(s, g), time.Since(start).Round(time.Millisecond))
				days, err := experiment(pr)
				if err != nil {
					return err
				}
				names = days[0].names
				m := make([]float64, len(names))
				for _, d := range days {
					for i, w := range d.welfare {
						m[i] += w / float64(len(days))
					}
					alphas[k] += d.alpha / float64(len(days))
				}
				means = append(means, m)
			}
			fmt.Fprintf(stdout, "Sweep over %s%s (mean welfare per day over %d days, utility %s, %s)\n", s.label, groupLabel(s, g), base.Runs, base.Utility, drawName(base.PerJob))
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "%s\t", s.name)
			for _, n := range names {
				fmt.Fprintf(tw, "%s\t", n)
			}
			for _, n := range names[:len(names)-1] {
				fmt.Fprintf(tw, "OPT/%s\t", n)
			}
			fmt.Fprintln(tw, "alpha-hat\t")
			opt := len(names) - 1
			for k, v := range s.xs {
				fmt.Fprintf(tw, "%v\t", v)
				for _, w := range means[k] {
					fmt.Fprintf(tw, "%.2f\t", w)
				}
				for i := range names[:opt] {
					fmt.Fprintf(tw, "%.4f\t", means[k][opt]/means[k][i])
				}
				fmt.Fprintf(tw, "%.3f\t\n", alphas[k])
			}
			tw.Flush()
			fmt.Fprintln(stdout)
			if out != "" {
				if err := writeSweep(out, base, s, g, names, means, alphas); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func groupLabel(s sweepDef, g float64) string {
	if math.IsNaN(g) {
		return ""
	}
	return fmt.Sprintf(" at mean %s %v", s.groupName, g)
}

func sweepFile(s sweepDef, g float64) string {
	if math.IsNaN(g) {
		return "sweep_" + s.name
	}
	return fmt.Sprintf("sweep_%s_%s%v", s.name, s.groupName, g)
}

func writeDays(dir string, pr params, days []day) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := days[0].names
	head := append([]string{"day", "alpha"}, names...)
	var rows [][]string
	for k, d := range days {
		row := []string{strconv.Itoa(k), report.Ftoa(d.alpha)}
		for _, w := range d.welfare {
			row = append(row, report.Ftoa(w))
		}
		rows = append(rows, row)
	}
	if err := report.WriteCSV(filepath.Join(dir, "welfare.csv"), head, rows); err != nil {
		return err
	}
	opt := len(names) - 1
	var lines []plotter.XYs
	for i := range names[:opt] {
		pts := make(plotter.XYs, len(days))
		for k, d := range days {
			pts[k].X, pts[k].Y = float64(k), d.welfare[opt]/d.welfare[i]
		}
		lines = append(lines, pts)
	}
	ref := make(plotter.XYs, len(days))
	for k, d := range days {
		ref[k].X, ref[k].Y = float64(k), d.alpha
	}
	return saveRatio(filepath.Join(dir, "ratio.svg"),
		fmt.Sprintf("OPT/policy per day: OnSocMax vs baselines (%s utilities, %s, %d nodes x %d slots)", pr.Utility, drawName(pr.PerJob), pr.Nodes, pr.Slots),
		"day (seed offset)", "OPT / policy welfare (ratio, 1 = optimal)", names[:opt], lines, "alpha-hat (Theorem 2 bound for OnSocMax)", ref)
}

// saveRatio draws OPT/policy ratios in two panels: the policies with a
// labelled tick at 1 (the optimum), and below, OnSocMax (names[0]) against
// its bound alpha-hat, which lies about twice as far from 1 as the
// baselines and would squeeze them into the bottom of one panel.
func saveRatio(path, title, xlabel, ylabel string, names []string, lines []plotter.XYs, boundName string, bound plotter.XYs) error {
	top := report.NewPlot(title, xlabel, ylabel).IncludeY(1)
	bottom := report.NewPlot(names[0]+" against its Theorem 2 bound", xlabel, "OPT / "+names[0]).IncludeY(1)
	bottom.Height = 3 * vg.Inch
	for i, n := range names {
		top.Line(n, lines[i])
	}
	bottom.Line(names[0], lines[0]).Reference(boundName, bound)
	return report.Stack(path, top, bottom)
}

func writeSweep(dir string, pr params, s sweepDef, g float64, names []string, means [][]float64, alphas []float64) error {
	head := append([]string{s.name}, names...)
	head = append(head, "alpha_hat")
	var rows [][]string
	for k, v := range s.xs {
		row := []string{report.Ftoa(v)}
		for _, w := range means[k] {
			row = append(row, report.Ftoa(w))
		}
		row = append(row, report.Ftoa(alphas[k]))
		rows = append(rows, row)
	}
	file := sweepFile(s, g)
	if err := report.WriteCSV(filepath.Join(dir, file+".csv"), head, rows); err != nil {
		return err
	}
	title := strings.Join(strings.Fields(fmt.Sprintf("OPT/policy vs %s %s (%s utilities, %s, %d days)", s.name, groupLabel(s, g), pr.Utility, drawName(pr.PerJob), pr.Runs)), " ")
	opt := len(names) - 1
	var lines []plotter.XYs
	for i := range names[:opt] {
		pts := make(plotter.XYs, len(s.xs))
		for k, v := range s.xs {
			pts[k].X, pts[k].Y = v, means[k][opt]/means[k][i]
		}
		lines = append(lines, pts)
	}
	ref := make(plotter.XYs, len(s.xs))
	for k, v := range s.xs {
		ref[k].X, ref[k].Y = v, alphas[k]
	}
	return saveRatio(filepath.Join(dir, file+".svg"), title, s.label, "OPT / mean policy welfare (ratio, 1 = optimal)", names[:opt], lines, "alpha-hat (Theorem 2 bound, mean)", ref)
}
