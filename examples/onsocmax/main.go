// Command onsocmax reproduces the experiments of the OnSocMax paper (paper
// 001, Section IV) on generated instances: the social welfare of OnSocMax
// against MAX-FIRST and EQUAL-SHARE, and the offline optimum of P1 with the
// measured ratios OPT/policy.
//
// Usage:
//
//	go run ./examples/onsocmax [-runs 20] [-seed 1] [-nodes 10] [-slots 24]
//	    [-jobs 20] [-rate 2.03] [-duration 4] [-cap 20] [-rho 18] [-xbar 7]
//	    [-utility linear|log|poly|mix] [-alm] [-np] [-instance FILE]
//	    [-sweep duration|workload|congestion|all] [-json] [-out DIR]
//
// Each run draws one day with the paper's generator (onsocmax.Generate) and
// seed -seed+run. The offline optimum is exact (min-cost flow) for linear
// utilities; otherwise it is the certified bracket of
// onsocmax.OfflineConcave, whose lower end (a feasible allocation) is used
// for the ratios and whose worst relative gap is printed. "poly" is the
// paper's a*sqrt(x) (utility.Sqrt). -sweep varies the mean service duration
// (Fig. 4), the mean workload rho (Fig. 5) and the node capacity
// (congestion, Fig. 6) and prints the mean welfare of each policy.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
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

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "onsocmax:", err)
		os.Exit(1)
	}
}

func run() error {
	var pr params
	flag.IntVar(&pr.Runs, "runs", 20, "days (instances) averaged")
	flag.Uint64Var(&pr.Seed, "seed", 1, "random seed of the first day")
	flag.IntVar(&pr.Nodes, "nodes", 10, "nodes")
	flag.IntVar(&pr.Slots, "slots", 24, "slots per day")
	flag.IntVar(&pr.Jobs, "jobs", 20, "jobs per day (at most)")
	flag.Float64Var(&pr.Rate, "rate", 2.03, "Poisson arrivals per slot")
	flag.Float64Var(&pr.Duration, "duration", 4, "mean service duration, slots (Exp)")
	flag.Float64Var(&pr.Cap, "cap", 20, "mean node capacity C_r (sd = cap/10)")
	flag.Float64Var(&pr.Rho, "rho", 18, "mean workload rho_n (sd = rho/6)")
	flag.Float64Var(&pr.XBar, "xbar", 7, "mean per-unit cap xbar_nr (sd = xbar/7)")
	flag.StringVar(&pr.Utility, "utility", "linear", "job utilities: linear, log, poly (a*sqrt(x)) or mix")
	flag.BoolVar(&pr.ALM, "alm", false, "also run OnSocMax with the augmented-Lagrangian solver (Algorithm 2)")
	flag.BoolVar(&pr.NP, "np", false, "also run the non-partitionable variant (Section III-D)")
	flag.StringVar(&pr.Instance, "instance", "", "run one instance read from this JSON file instead of generating")
	sweep := flag.String("sweep", "", "duration, workload, congestion or all: sweep instead of one table")
	asJSON := flag.Bool("json", false, "print a JSON summary instead of the table")
	out := flag.String("out", "", "directory for CSV and SVG output")
	flag.Parse()
	if pr.Runs <= 0 {
		return fmt.Errorf("-runs %d: want >= 1", pr.Runs)
	}
	if *sweep != "" {
		return runSweep(pr, *sweep, *out)
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
		if err := writeDays(*out, days); err != nil {
			return err
		}
	}
	if *asJSON {
		s := summary{Experiment: "onsocmax", Params: pr, MeanAlpha: alpha, WorstRatio: worstRatio, WorstGap: worstGap, WallSeconds: wall.Seconds()}
		for i, n := range names {
			s.Results = append(s.Results, result{n, totals[i], totals[i] / float64(len(days)), opt / totals[i]})
		}
		return report.PrintJSON(s)
	}
	if pr.Instance != "" {
		fmt.Printf("OnSocMax on instance %s\n", pr.Instance)
	} else {
		fmt.Printf("OnSocMax vs baselines: %d days, %d nodes x %d slots, <= %d jobs/day, Poisson(%v) arrivals, Exp(%v) duration, C~N(%v), rho~N(%v), xbar~N(%v), utility %s, seed %d\n",
			pr.Runs, pr.Nodes, pr.Slots, pr.Jobs, pr.Rate, pr.Duration, pr.Cap, pr.Rho, pr.XBar, pr.Utility, pr.Seed)
	}
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\ttotal welfare\tmean welfare/day\tOPT/policy\t")
	for i, n := range names {
		fmt.Fprintf(tw, "%s\t%.2f\t%.4f\t%.4f\t\n", n, totals[i], totals[i]/float64(len(days)), opt/totals[i])
	}
	tw.Flush()
	fmt.Printf("alpha-hat (Theorem 2, per-day iota and v of (8)): mean %.4f; worst per-day OPT/OnSocMax %.4f\n", alpha, worstRatio)
	if worstGap > 0 {
		fmt.Printf("OPT is the feasible lower end of a certified bracket; worst relative gap %.2g\n", worstGap)
	}
	fmt.Printf("wall time %v\n", wall.Round(time.Millisecond))
	return nil
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
	k, err := kinds(pr.Utility)
	c.Kinds = k
	return c, err
}

func experiment(pr params) ([]day, error) {
	if pr.Instance != "" {
		b, err := os.ReadFile(pr.Instance)
		if err != nil {
			return nil, err
		}
		var in onsocmax.Instance
		if err := json.Unmarshal(b, &in); err != nil {
			return nil, err
		}
		d, err := evaluate(&in, pr)
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
	type named = bipartite.OnlinePolicy[[]onsocmax.Job, []onsocmax.Allocation]
	var pols []named
	osm, err := onsocmax.NewPolicy(in.Mesh, pricing, nil)
	if err != nil {
		return day{}, err
	}
	pols = append(pols, osm)
	if pr.ALM {
		p, err := onsocmax.NewPolicy(in.Mesh, pricing, &onsocmax.PolicySettings{Solver: onsocmax.AugmentedLagrangian})
		if err != nil {
			return day{}, err
		}
		pols = append(pols, renamed{p, "OnSocMax-ALM"})
	}
	if pr.NP {
		p, err := onsocmax.NewPolicy(in.Mesh, pricing, &onsocmax.PolicySettings{NonPartitionable: true})
		if err != nil {
			return day{}, err
		}
		pols = append(pols, p)
	}
	pols = append(pols, baselines.NewMaxFirst(in.Mesh), baselines.NewEqualShare(in.Mesh))
	d := day{alpha: pricing.Alpha}
	for _, p := range pols {
		o, err := onsocmax.Run(in, p)
		if err != nil {
			return day{}, err
		}
		d.names = append(d.names, p.Name())
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
	name, label string
	values      []float64
	set         func(*params, float64)
}

func sweeps(which string) ([]sweepDef, error) {
	all := []sweepDef{
		{"duration", "mean service duration (slots)", []float64{1, 2, 4, 6, 8}, func(p *params, v float64) { p.Duration = v }},
		{"workload", "mean workload rho", []float64{6, 12, 18, 24, 30}, func(p *params, v float64) { p.Rho = v }},
		{"congestion", "mean node capacity C", []float64{4, 8, 12, 16, 20}, func(p *params, v float64) { p.Cap = v }},
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

func runSweep(base params, which, out string) error {
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
		var names []string
		means := [][]float64{} // [value][policy]
		for _, v := range s.values {
			pr := base
			s.set(&pr, v)
			fmt.Fprintf(os.Stderr, "onsocmax: sweep %s = %v (%v)\n", s.name, v, time.Since(start).Round(time.Millisecond))
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
			}
			means = append(means, m)
		}
		fmt.Printf("Sweep over %s (mean welfare per day over %d days, utility %s)\n", s.label, base.Runs, base.Utility)
		tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "%s\t", s.name)
		for _, n := range names {
			fmt.Fprintf(tw, "%s\t", n)
		}
		fmt.Fprintln(tw, "OPT/OnSocMax\t")
		for k, v := range s.values {
			fmt.Fprintf(tw, "%v\t", v)
			for _, w := range means[k] {
				fmt.Fprintf(tw, "%.2f\t", w)
			}
			fmt.Fprintf(tw, "%.4f\t\n", means[k][len(names)-1]/means[k][0])
		}
		tw.Flush()
		fmt.Println()
		if out != "" {
			if err := writeSweep(out, s, names, means); err != nil {
				return err
			}
		}
	}
	return nil
}

func writeDays(dir string, days []day) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := days[0].names
	rows := [][]string{append([]string{"day", "alpha"}, names...)}
	for k, d := range days {
		row := []string{strconv.Itoa(k), ftoa(d.alpha)}
		for _, w := range d.welfare {
			row = append(row, ftoa(w))
		}
		rows = append(rows, row)
	}
	if err := writeCSV(filepath.Join(dir, "welfare.csv"), rows); err != nil {
		return err
	}
	vals := make(plotter.Values, len(names))
	for _, d := range days {
		for i, w := range d.welfare {
			vals[i] += w / float64(len(days))
		}
	}
	pl := plot.New()
	pl.Title.Text = "Mean social welfare per day"
	pl.Y.Label.Text = "welfare"
	bars, err := plotter.NewBarChart(vals, vg.Points(30))
	if err != nil {
		return err
	}
	pl.Add(bars)
	pl.NominalX(names...)
	return pl.Save(8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "welfare.svg"))
}

func writeSweep(dir string, s sweepDef, names []string, means [][]float64) error {
	rows := [][]string{append([]string{s.name}, names...)}
	for k, v := range s.values {
		row := []string{ftoa(v)}
		for _, w := range means[k] {
			row = append(row, ftoa(w))
		}
		rows = append(rows, row)
	}
	if err := writeCSV(filepath.Join(dir, "sweep_"+s.name+".csv"), rows); err != nil {
		return err
	}
	pl := plot.New()
	pl.Title.Text = "Social welfare vs " + s.label
	pl.X.Label.Text = s.label
	pl.Y.Label.Text = "mean welfare per day"
	var args []any
	for i, n := range names {
		pts := make(plotter.XYs, len(s.values))
		for k, v := range s.values {
			pts[k].X, pts[k].Y = v, means[k][i]
		}
		args = append(args, n, pts)
	}
	if err := plotutil.AddLinePoints(pl, args...); err != nil {
		return err
	}
	return pl.Save(8*vg.Inch, 5*vg.Inch, filepath.Join(dir, "sweep_"+s.name+".svg"))
}

// writeCSV writes rows, the first of them the header.
func writeCSV(path string, rows [][]string) error { return report.WriteCSV(path, rows[0], rows[1:]) }

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
