// Command ogasched reproduces the experiments of the OGASched paper (paper
// 000, Section IV) on generated instances: OGASched against DRF, FAIRNESS,
// BINPACKING and SPREADING on the same Bernoulli arrivals, with the best
// fixed allocation in hindsight y* (ogasched.BestFixed) as the reference.
//
// Usage:
//
//	go run ./examples/ogasched [-T 2000] [-seed 1] [-L 10] [-R 128] [-K 6]
//	    [-rho 0.7] [-contention 10] [-utility mix]
//	    [-step theory|anytime|constant|paper|geometric] [-eta0 25] [-lambda 0.9999]
//	    [-baselines fractional|pod|both] [-literal] [-ystar=true]
//	    [-workers 2] [-preset default|large] [-paperproj] [-json] [-out DIR] [-sweep]
//
// The default is the faithful reading: OGASched with the theory step (53)
// for the instance and horizon, and the fractional BINPACKING / SPREADING.
// -literal is the paper's literal reading: -step paper (eta0 = 25,
// lambda = 0.9999, Table II) and -baselines pod (whole-pod Kubernetes-style
// placement). -step geometric uses -eta0 and -lambda; setting -eta0 or
// -lambda alone implies it.
//
// OGASched decides y(t) before it sees the arrivals x(t); the baselines see
// x(t) first. The table prints the cumulative reward, the average reward per
// slot, OGASched's total over each policy's total and the wall time.
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
	"sync"
	"text/tabwriter"
	"time"

	"gonum.org/v1/plot/plotter"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/examples/internal/flagcheck"
	"github.com/msched/msched/examples/internal/report"
	"github.com/msched/msched/ogasched"
)

type params struct {
	T          int     `json:"T"`
	Seed       uint64  `json:"seed"`
	L          int     `json:"L"`
	R          int     `json:"R"`
	K          int     `json:"K"`
	Rho        float64 `json:"rho"`
	Contention float64 `json:"contention"`
	EdgeProb   float64 `json:"edge_prob"`
	Utility    string  `json:"utility"`
	Step       string  `json:"step"`
	Eta0       float64 `json:"eta0,omitempty"`
	Lambda     float64 `json:"lambda,omitempty"`
	Baselines  string  `json:"baselines"`
	YStar      bool    `json:"ystar"`
	YStarTol   float64 `json:"ystar_tol,omitempty"`
	Workers    int     `json:"workers"`
	PaperProj  bool    `json:"paper_projection"`
}

type result struct {
	Policy string  `json:"policy"`
	Total  float64 `json:"total"`
	Mean   float64 `json:"mean"`
}

type summary struct {
	Experiment  string   `json:"experiment"`
	Params      params   `json:"params"`
	Results     []result `json:"results"`
	YStar       *result  `json:"best_fixed_ystar,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
}

// outcome is one experiment: the series of every policy and y*.
type outcome struct {
	series []ogasched.Series
	ystar  *ogasched.BestFixedResult // nil unless params.YStar
	// simWall is the wall time of the policies' run, ystarWall of
	// BestFixed.
	simWall, ystarWall time.Duration
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ogasched:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ogasched", flag.ContinueOnError)
	var pr params
	preset := fs.String("preset", "default", "default (Table II) or large (|L|=100, |R|=1024, T=10000); explicit flags override")
	fs.IntVar(&pr.T, "T", 0, "time slots (default 2000, large 10000)")
	fs.Uint64Var(&pr.Seed, "seed", 1, "random seed")
	fs.IntVar(&pr.L, "L", 0, "ports |L| (default 10, large 100)")
	fs.IntVar(&pr.R, "R", 0, "nodes |R| (default 128, large 1024)")
	fs.IntVar(&pr.K, "K", 6, "resource types")
	fs.Float64Var(&pr.Rho, "rho", 0.7, "arrival probability per port and slot")
	fs.Float64Var(&pr.Contention, "contention", 10, "contention level (demand multiplier)")
	fs.Float64Var(&pr.EdgeProb, "edgeprob", 0, "port-node edge probability (default 0.3, large 0.05)")
	fs.StringVar(&pr.Utility, "utility", "mix", "utility: mix, linear, log, reciprocal, poly")
	fs.StringVar(&pr.Step, "step", "theory", "OGASched step: theory ((53) for the instance, the default), anytime ((53) with sqrt(t+1)), constant (diam/(G sqrt T)), paper (literal eta0 = 25, lambda = 0.9999), geometric (-eta0, -lambda)")
	fs.Float64Var(&pr.Eta0, "eta0", 25, "initial step eta_0 of -step geometric (setting it implies -step geometric)")
	fs.Float64Var(&pr.Lambda, "lambda", 0.9999, "step decay lambda of -step geometric (setting it implies -step geometric)")
	fs.StringVar(&pr.Baselines, "baselines", "fractional", "BINPACKING/SPREADING reading: fractional (the paper's model, default), pod (whole-pod Kubernetes placement), both")
	literal := fs.Bool("literal", false, "the paper's literal reading: -step paper -baselines pod")
	fs.BoolVar(&pr.YStar, "ystar", true, "compute the best fixed allocation in hindsight y* (ogasched.BestFixed) as the reference")
	fs.Float64Var(&pr.YStarTol, "ystar-tol", 0, "relative duality gap of y* (default 1e-6, large 1e-4)")
	fs.IntVar(&pr.Workers, "workers", 2, "workers (policies run concurrently; OGASched projection workers)")
	fs.BoolVar(&pr.PaperProj, "paperproj", false, "also run OGASched with the paper's inexact projection (infeasible allocations; for reproduction)")
	asJSON := fs.Bool("json", false, "print a JSON summary instead of the table")
	out := fs.String("out", "", "directory for CSV series and SVG/PNG plots")
	sweep := fs.Bool("sweep", false, "print Table III rows (T, rho, graph density) and Fig. 7 (utility types) instead of one run")
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if err := errors.Join(flagcheck.Finite(fs), flagcheck.NonNegative(fs, "T", "L", "R", "K")); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if (set["eta0"] || set["lambda"]) && !set["step"] {
		pr.Step = "geometric"
	}
	if *literal {
		if set["step"] || set["baselines"] {
			return fmt.Errorf("-literal sets -step paper -baselines pod; do not combine it with -step or -baselines")
		}
		pr.Step, pr.Baselines = "paper", "pod"
	}
	if pr.Step != "geometric" {
		pr.Eta0, pr.Lambda = 0, 0
	}
	if pr.Step == "geometric" {
		if err := (ogasched.Settings{Step: ogasched.Geometric{Eta0: pr.Eta0, Lambda: pr.Lambda}}).Validate(); err != nil {
			return fmt.Errorf("-eta0 %v -lambda %v: %w", pr.Eta0, pr.Lambda, err)
		}
	}
	switch pr.Step {
	case "theory", "anytime", "constant", "paper", "geometric":
	default:
		return fmt.Errorf("-step %q: want theory, anytime, constant, paper or geometric", pr.Step)
	}
	switch pr.Baselines {
	case "fractional", "pod", "both":
	default:
		return fmt.Errorf("-baselines %q: want fractional, pod or both", pr.Baselines)
	}
	if pr.Workers < 1 || pr.Workers > ogasched.MaxWorkers {
		return fmt.Errorf("-workers %d: want 1..%d", pr.Workers, ogasched.MaxWorkers)
	}

	cfg := ogasched.DefaultConfig()
	T := 2000
	switch *preset {
	case "default":
	case "large":
		cfg = ogasched.LargeConfig()
		T = 10000
	default:
		return fmt.Errorf("unknown preset %q", *preset)
	}
	if pr.T == 0 {
		pr.T = T
	}
	if pr.L == 0 {
		pr.L = cfg.Ports
	}
	if pr.R == 0 {
		pr.R = cfg.Nodes
	}
	if pr.EdgeProb == 0 {
		pr.EdgeProb = cfg.EdgeProb
	}
	if pr.YStarTol == 0 {
		pr.YStarTol = 1e-6
		if *preset == "large" {
			pr.YStarTol = 1e-4 // 1 s instead of 4 s; the regret bound loses at most 1e-4 of the total reward
		}
	}
	if !(pr.YStarTol > 0 && pr.YStarTol < 1) {
		return fmt.Errorf("-ystar-tol %v: want in (0, 1)", pr.YStarTol)
	}
	if !pr.YStar {
		pr.YStarTol = 0
	}
	if pr.T < 1 || pr.T > 10_000_000 {
		return fmt.Errorf("-T %d: want 1..10000000", pr.T)
	}
	if *sweep {
		return runSweep(stdout, pr)
	}
	start := time.Now()
	res, err := experiment(pr)
	if err != nil {
		return err
	}
	series := res.series
	wall := time.Since(start)
	if *out != "" {
		if err := writeOutputs(*out, res); err != nil {
			return err
		}
	}
	if *asJSON {
		s := summary{Experiment: "ogasched", Params: pr, WallSeconds: wall.Seconds()}
		for _, x := range series {
			s.Results = append(s.Results, result{x.Name, x.Total, x.Total / float64(pr.T)})
		}
		if res.ystar != nil {
			s.YStar = &result{"best fixed y*", res.ystar.Value, res.ystar.Value / float64(pr.T)}
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	fmt.Fprintf(stdout, "OGASched vs baselines: |L|=%d |R|=%d K=%d T=%d rho=%v contention=%v utility=%s step=%s baselines=%s seed=%d\n",
		pr.L, pr.R, pr.K, pr.T, pr.Rho, pr.Contention, pr.Utility, stepLabel(pr), pr.Baselines, pr.Seed)
	fmt.Fprintln(stdout, "(OGASched decides before seeing the slot's arrivals; baselines see them first.)")
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tcumulative reward\taverage reward\tOGASched/policy\twall time\t")
	og := series[0].Total
	for _, s := range series {
		fmt.Fprintf(tw, "%s\t%.2f\t%.4f\t%.4f\t%v\t\n", s.Name, s.Total, s.Total/float64(pr.T), og/s.Total, s.Wall.Round(time.Millisecond))
	}
	if y := res.ystar; y != nil {
		fmt.Fprintf(tw, "%s\t%.2f\t%.4f\t%.4f\t\t\n", "best fixed y* (hindsight)", y.Value, y.Value/float64(pr.T), og/y.Value)
	}
	tw.Flush()
	if y := res.ystar; y != nil {
		fmt.Fprintf(stdout, "y* by ogasched.BestFixed: relative duality gap %.1e after %d iterations (converged %v); OGASched's regret sum_t q(y*) - q(y(t)) <= %.2f, regret/sqrt T <= %.1f\n",
			y.Gap(), y.Iterations, y.Converged, y.Bound-og, (y.Bound-og)/math.Sqrt(float64(pr.T)))
	}
	if pr.Baselines != "pod" && coincide(series, "BINPACKING", "SPREADING") {
		fmt.Fprintln(stdout, "BINPACKING and SPREADING (fractional) coincide on this instance: under the per-edge cap (5) a port's node order cannot change its allocation.")
	}
	if res.ystar != nil {
		fmt.Fprintf(stdout, "total wall time %v (policies %v, y* %v, concurrently with -workers > 1)\n", wall.Round(time.Millisecond), res.simWall.Round(time.Millisecond), res.ystarWall.Round(time.Millisecond))
	} else {
		fmt.Fprintf(stdout, "total wall time %v\n", wall.Round(time.Millisecond))
	}
	if pr.PaperProj {
		fmt.Fprintln(stdout, "OGASched(paper-proj) uses the paper's projection, whose allocations exceed the demands a_l^k (5) in most slots: its reward is not attainable.")
	}
	return nil
}

// stepLabel names the step of pr for output.
func stepLabel(pr params) string {
	switch pr.Step {
	case "theory":
		return "theory (53)"
	case "anytime":
		return "anytime (53)"
	case "constant":
		return "constant diam/(G sqrt T)"
	case "paper":
		return "paper eta0=25 lambda=0.9999"
	}
	return fmt.Sprintf("geometric eta0=%v lambda=%v", pr.Eta0, pr.Lambda)
}

// coincide reports whether the series named a and b have identical rewards.
func coincide(series []ogasched.Series, a, b string) bool {
	var sa, sb *ogasched.Series
	for i := range series {
		switch series[i].Name {
		case a:
			sa = &series[i]
		case b:
			sb = &series[i]
		}
	}
	if sa == nil || sb == nil {
		return false
	}
	for t := range sa.Reward {
		if sa.Reward[t] != sb.Reward[t] {
			return false
		}
	}
	return true
}

// step returns the OGASched step of pr for p.
func step(pr params, p *ogasched.Problem) ogasched.Step {
	switch pr.Step {
	case "anytime":
		return ogasched.TheoryAnytime{Diam: p.Diameter()}
	case "constant":
		return p.OptimalConstant(pr.T)
	case "paper":
		return ogasched.PaperGeometric()
	case "geometric":
		return ogasched.Geometric{Eta0: pr.Eta0, Lambda: pr.Lambda}
	}
	return ogasched.Theory{Diam: p.Diameter(), T: pr.T}
}

func experiment(pr params) (*outcome, error) {
	cfg := ogasched.DefaultConfig()
	cfg.Ports, cfg.Nodes, cfg.K = pr.L, pr.R, pr.K
	cfg.EdgeProb, cfg.Contention, cfg.Utility = pr.EdgeProb, pr.Contention, pr.Utility
	rng := rand.New(rand.NewPCG(pr.Seed, 1))
	p, err := ogasched.Generate(cfg, rng)
	if err != nil {
		return nil, err
	}
	tr, err := ogasched.BernoulliTrace(p.NumPorts(), pr.T, pr.Rho, rng)
	if err != nil {
		return nil, err
	}
	oga, err := ogasched.New(p, ogasched.Settings{Step: step(pr, p), Horizon: pr.T, Workers: pr.Workers})
	if err != nil {
		return nil, err
	}
	defer oga.Close()
	pols := []ogasched.OnlinePolicy{oga}
	names := []string{"DRF", "FAIRNESS"}
	if pr.Baselines != "pod" {
		names = append(names, "BINPACKING", "SPREADING")
	}
	if pr.Baselines != "fractional" {
		names = append(names, "BINPACKING-pod", "SPREADING-pod")
	}
	for _, n := range names {
		b, err := baselines.NewOGASchedBaseline(n, p)
		if err != nil {
			return nil, err
		}
		pols = append(pols, b)
	}
	if pr.PaperProj {
		pp, err := ogasched.New(p, ogasched.Settings{Step: step(pr, p), Horizon: pr.T, Workers: pr.Workers, PaperProjection: true})
		if err != nil {
			return nil, err
		}
		defer pp.Close()
		pols = append(pols, pp)
	}
	rs := ogasched.RunSettings{Workers: pr.Workers}
	if float64(pr.T)*float64(pr.L)*float64(pr.R) >= 1e7 { // runs of more than a few seconds
		start := time.Now()
		var mu sync.Mutex
		rs.Progress = func(name string, t, T int) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(os.Stderr, "ogasched: %-10s slot %6d/%d  %v\n", name, t, T, time.Since(start).Round(time.Second))
		}
	}
	// y* depends only on the trace: with more than one worker it is
	// computed beside the policies (one more goroutine), so that no core
	// idles while the last policy finishes.
	res := &outcome{}
	var ystarErr error
	ystarDone := make(chan struct{})
	ystar := func() {
		defer close(ystarDone)
		if !pr.YStar {
			return
		}
		start := time.Now()
		res.ystar, ystarErr = ogasched.BestFixed(p, tr, ogasched.BestFixedSettings{Tol: pr.YStarTol})
		res.ystarWall = time.Since(start)
	}
	if pr.Workers > 1 {
		go ystar()
	}
	start := time.Now()
	series, err := ogasched.Run(p, tr, pols, rs)
	res.simWall = time.Since(start)
	if pr.Workers <= 1 {
		ystar()
	}
	<-ystarDone
	if err != nil {
		return nil, err
	}
	if ystarErr != nil {
		return nil, ystarErr
	}
	res.series = series.Series
	return res, nil
}

func runSweep(stdout io.Writer, base params) error {
	type col struct {
		name string
		pr   params
	}
	base.YStar = false
	var cols []col
	for _, T := range []int{1000, 2000, 5000, 10000} {
		pr := base
		pr.T = T
		cols = append(cols, col{"T=" + strconv.Itoa(T), pr})
	}
	for _, rho := range []float64{0.3, 0.5, 0.7, 0.9} {
		pr := base
		pr.Rho = rho
		cols = append(cols, col{fmt.Sprintf("rho=%v", rho), pr})
	}
	for _, d := range []float64{2, 2.5, 3} {
		pr := base
		pr.EdgeProb = d / float64(pr.L) // mean |L_r| = d
		cols = append(cols, col{fmt.Sprintf("dense~%v", d), pr})
	}
	for _, u := range []string{"linear", "log", "reciprocal", "poly"} { // Fig. 7
		pr := base
		pr.Utility = u
		cols = append(cols, col{"f=" + u, pr})
	}
	var names []string
	avg := map[string][]float64{}
	for _, c := range cols {
		res, err := experiment(c.pr)
		if err != nil {
			return err
		}
		for _, s := range res.series {
			if len(names) < len(res.series) && len(avg[s.Name]) == 0 {
				names = append(names, s.Name)
			}
			avg[s.Name] = append(avg[s.Name], s.Total/float64(c.pr.T))
		}
	}
	fmt.Fprintf(stdout, "Table III and Fig. 7 (average reward per slot; columns vary T, rho, mean |L_r|, utility type; step %s, baselines %s)\n", stepLabel(base), base.Baselines)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.name)
	}
	fmt.Fprintln(tw)
	for _, n := range names {
		fmt.Fprintf(tw, "%s\t", n)
		for _, v := range avg[n] {
			fmt.Fprintf(tw, "%.2f\t", v)
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// writeOutputs writes series.csv and three plots: the average reward until
// t (y* dashed), the cumulative reward, and OGASched's ratio to each
// baseline (the whole-pod baselines, orders of magnitude below the others,
// are left out of the ratio plot so it stays readable; the CSV has them).
func writeOutputs(dir string, res *outcome) error {
	series := res.series
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	T := len(series[0].Reward)
	cum := make([][]float64, len(series))
	for i, s := range series {
		cum[i] = make([]float64, T)
		c := 0.0
		for t, r := range s.Reward {
			c += r
			cum[i][t] = c
		}
	}
	var names []string
	var cols []func(int) float64
	for i, s := range series {
		names = append(names, s.Name+"_reward", s.Name+"_gain", s.Name+"_penalty", s.Name+"_cumulative")
		cols = append(cols, func(t int) float64 { return s.Reward[t] }, func(t int) float64 { return s.Gain[t] },
			func(t int) float64 { return s.Penalty[t] }, func(t int) float64 { return cum[i][t] })
	}
	if y := res.ystar; y != nil {
		names = append(names, "ystar_reward")
		cols = append(cols, func(int) float64 { return y.Value / float64(T) })
	}
	if err := report.Series(filepath.Join(dir, "series.csv"), T, names, cols); err != nil {
		return err
	}
	// The average and the ratio start at t0 = T/20: OGASched starts from
	// y = 0, and its first slots would stretch the y axis over the range
	// where the policies differ.
	t0 := max(1, T/20)
	from := func(f func(t int) float64) plotter.XYs {
		pts := make(plotter.XYs, 0, T-t0+1)
		for t := t0 - 1; t < T; t++ {
			pts = append(pts, plotter.XY{X: float64(t + 1), Y: f(t)})
		}
		return pts
	}
	inst := fmt.Sprintf("(T = %d)", T)
	avg := report.NewPlot(fmt.Sprintf("OGASched vs baselines: average reward until t, t >= %d %s", t0, inst), "time slot t", "average reward (1/t) sum q (utility units per slot)")
	tot := report.NewPlot("OGASched vs baselines: cumulative reward "+inst, "time slot t", "cumulative reward sum q (utility units)")
	ratio := report.NewPlot(fmt.Sprintf("OGASched over each baseline: ratio of cumulative rewards, t >= %d %s", t0, inst), "time slot t", "OGASched / baseline (dimensionless)")
	for i, s := range series {
		avg.Line(s.Name, from(func(t int) float64 { return cum[i][t] / float64(t+1) }))
		tot.Func(s.Name, T, func(t int) float64 { return cum[i][t] })
		if i > 0 && !strings.HasSuffix(s.Name, "-pod") {
			ratio.Line("OGASched/"+s.Name, from(func(t int) float64 { return cum[0][t] / cum[i][t] }))
		}
	}
	ratio.Reference("parity (1)", plotter.XYs{{X: float64(t0), Y: 1}, {X: float64(T), Y: 1}})
	if y := res.ystar; y != nil {
		v := y.Value / float64(T)
		avg.Reference(fmt.Sprintf("best fixed y* (%.1f)", v), plotter.XYs{{X: float64(t0), Y: v}, {X: float64(T), Y: v}})
		tot.Reference("best fixed y*", plotter.XYs{{X: 1, Y: v}, {X: float64(T), Y: y.Value}})
	}
	for name, pl := range map[string]*report.Plot{"average_reward.svg": avg, "cumulative_reward.svg": tot, "ratio.svg": ratio} {
		if err := pl.Save(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}
