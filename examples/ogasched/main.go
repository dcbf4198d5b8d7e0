// Command ogasched reproduces the experiments of the OGASched paper (paper
// 000, Section IV) on generated instances: OGASched against DRF, FAIRNESS,
// BINPACKING and SPREADING on the same Bernoulli arrivals.
//
// Usage:
//
//	go run ./examples/ogasched [-T 2000] [-seed 1] [-L 10] [-R 128] [-K 6]
//	    [-rho 0.7] [-contention 10] [-utility mix] [-eta0 25] [-lambda 0.9999]
//	    [-workers 2] [-preset default|large] [-paperproj] [-json] [-out DIR] [-sweep]
//
// OGASched decides y(t) before it sees the arrivals x(t); the baselines see
// x(t) first. The table prints the cumulative reward, the average reward per
// slot, OGASched's total over each policy's total and the wall time.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
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
	Eta0       float64 `json:"eta0"`
	Lambda     float64 `json:"lambda"`
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
	WallSeconds float64  `json:"wall_seconds"`
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ogasched:", err)
		os.Exit(1)
	}
}

func run() error {
	var pr params
	preset := flag.String("preset", "default", "default (Table II) or large (|L|=100, |R|=1024, T=10000); explicit flags override")
	flag.IntVar(&pr.T, "T", 0, "time slots (default 2000, large 10000)")
	flag.Uint64Var(&pr.Seed, "seed", 1, "random seed")
	flag.IntVar(&pr.L, "L", 0, "ports |L| (default 10, large 100)")
	flag.IntVar(&pr.R, "R", 0, "nodes |R| (default 128, large 1024)")
	flag.IntVar(&pr.K, "K", 6, "resource types")
	flag.Float64Var(&pr.Rho, "rho", 0.7, "arrival probability per port and slot")
	flag.Float64Var(&pr.Contention, "contention", 10, "contention level (demand multiplier)")
	flag.Float64Var(&pr.EdgeProb, "edgeprob", 0, "port-node edge probability (default 0.3, large 0.05)")
	flag.StringVar(&pr.Utility, "utility", "mix", "utility: mix, linear, log, reciprocal, poly")
	flag.Float64Var(&pr.Eta0, "eta0", 25, "initial step eta_0")
	flag.Float64Var(&pr.Lambda, "lambda", 0.9999, "step decay lambda")
	flag.IntVar(&pr.Workers, "workers", 2, "workers (policies run concurrently; OGASched projection workers)")
	flag.BoolVar(&pr.PaperProj, "paperproj", false, "also run OGASched with the paper's inexact projection (infeasible allocations; for reproduction)")
	asJSON := flag.Bool("json", false, "print a JSON summary instead of the table")
	out := flag.String("out", "", "directory for CSV series and SVG plots")
	sweep := flag.Bool("sweep", false, "print Table III rows (T, rho, graph density) and Fig. 7 (utility types) instead of one run")
	flag.Parse()

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
	if *sweep {
		return runSweep(pr)
	}
	start := time.Now()
	series, err := experiment(pr)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	if *out != "" {
		if err := writeOutputs(*out, series); err != nil {
			return err
		}
	}
	if *asJSON {
		s := summary{Experiment: "ogasched", Params: pr, WallSeconds: wall.Seconds()}
		for _, x := range series {
			s.Results = append(s.Results, result{x.Name, x.Total, x.Total / float64(pr.T)})
		}
		return report.PrintJSON(s)
	}
	fmt.Printf("OGASched vs baselines: |L|=%d |R|=%d K=%d T=%d rho=%v contention=%v utility=%s eta0=%v lambda=%v seed=%d\n",
		pr.L, pr.R, pr.K, pr.T, pr.Rho, pr.Contention, pr.Utility, pr.Eta0, pr.Lambda, pr.Seed)
	fmt.Println("(OGASched decides before seeing the slot's arrivals; baselines see them first.)")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\tcumulative reward\taverage reward\tOGASched/policy\twall time\t")
	og := series[0].Total
	for _, s := range series {
		fmt.Fprintf(tw, "%s\t%.2f\t%.4f\t%.4f\t%v\t\n", s.Name, s.Total, s.Total/float64(pr.T), og/s.Total, s.Wall.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Printf("total wall time %v\n", wall.Round(time.Millisecond))
	if pr.PaperProj {
		fmt.Println("OGASched(paper-proj) uses the paper's projection, whose allocations exceed the demands a_l^k (5) in most slots: its reward is not attainable.")
	}
	return nil
}

func experiment(pr params) ([]ogasched.Series, error) {
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
	oga, err := ogasched.New(p, ogasched.Settings{Step: ogasched.Geometric{Eta0: pr.Eta0, Lambda: pr.Lambda}, Workers: max(1, pr.Workers)})
	if err != nil {
		return nil, err
	}
	defer oga.Close()
	pols := []bipartite.OnlinePolicy[[]float64, []float64]{oga,
		baselines.NewDRF(p), baselines.NewFairness(p), baselines.NewBinPacking(p), baselines.NewSpreading(p)}
	if pr.PaperProj {
		pp, err := ogasched.New(p, ogasched.Settings{Step: ogasched.Geometric{Eta0: pr.Eta0, Lambda: pr.Lambda}, Workers: max(1, pr.Workers), PaperProjection: true})
		if err != nil {
			return nil, err
		}
		defer pp.Close()
		pols = append(pols, pp)
	}
	rs := ogasched.RunSettings{Workers: pr.Workers}
	if pr.T*pr.L*pr.R >= 1e7 { // runs of more than a few seconds
		start := time.Now()
		var mu sync.Mutex
		rs.Progress = func(name string, t, T int) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(os.Stderr, "ogasched: %-10s slot %6d/%d  %v\n", name, t, T, time.Since(start).Round(time.Second))
		}
	}
	return ogasched.Run(p, tr, pols, rs)
}

func runSweep(base params) error {
	type col struct {
		name string
		pr   params
	}
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
		series, err := experiment(c.pr)
		if err != nil {
			return err
		}
		for _, s := range series {
			if len(names) < len(series) && len(avg[s.Name]) == 0 {
				names = append(names, s.Name)
			}
			avg[s.Name] = append(avg[s.Name], s.Total/float64(c.pr.T))
		}
	}
	fmt.Println("Table III and Fig. 7 (average reward per slot; columns vary T, rho, mean |L_r|, utility type)")
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
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

func writeOutputs(dir string, series []ogasched.Series) error {
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
	if err := report.Series(filepath.Join(dir, "series.csv"), T, names, cols); err != nil {
		return err
	}
	line := func(name, title, ylabel string, ys func(i, t int) float64, from int) error {
		pl := report.NewPlot(title, "t", ylabel)
		for i := from; i < len(series); i++ {
			label := series[i].Name
			if from > 0 {
				label = "OGASched/" + label
			}
			pl.Func(label, T, func(t int) float64 { return ys(i, t) })
		}
		return pl.Save(filepath.Join(dir, name))
	}
	if err := line("average_reward.svg", "Average reward until t", "(1/t) sum q", func(i, t int) float64 { return cum[i][t] / float64(t+1) }, 0); err != nil {
		return err
	}
	if err := line("cumulative_reward.svg", "Cumulative reward", "sum q", func(i, t int) float64 { return cum[i][t] }, 0); err != nil {
		return err
	}
	return line("ratio.svg", "Ratio of average rewards", "OGASched / baseline", func(i, t int) float64 { return cum[0][t] / cum[i][t] }, 1)
}
