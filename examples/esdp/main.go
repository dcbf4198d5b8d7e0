// Command esdp reproduces the experiments of the ESDP papers (papers 002/003,
// Section 4) on generated instances: ESDP against HSWF, LCF and LWTF (the
// papers' baselines) and against CUCB and Thompson sampling (standard
// combinatorial semi-bandit policies with the same exact knapsack oracle),
// on the same arrivals and the same realised rewards.
//
// Usage:
//
//	go run ./examples/esdp [-T 2000] [-seed 1] [-L 8] [-R 40] [-K 3]
//	    [-edgeprob 0.1] [-rho 0.9] [-alpha 0.5] [-caprule table2|alpha]
//	    [-caplo 1] [-caphi 2] [-paper] [-workers 2]
//	    [-instance FILE] [-save FILE] [-json] [-out DIR] [-sweep] [-regret]
//	    [-mode auto|exact|scalable] [-maxcells N] [-maxbytes N] [-preset large]
//	    [-g default|log|loglog]
//
// -g selects ESDP's exploration g(t) (esdp.Settings.Exploration): the
// experiments' default ln(t+1) + 4 ln(ln(t+1)+1) m, or ln(t+1), the best
// sequence of the paper's Fig. 8. HSWF-channel (the last row) is HSWF
// ranking channels one by one instead of ports (baselines.HSWFChannel).
//
// -mode selects ESDP's oracle (esdp.Settings.Mode): auto runs the exact DP
// within the budget -maxcells/-maxbytes and the scalable oracle (certified
// gap, reported) beyond it. -preset large is an instance (|E| about 400,
// capacities in [10, 20]) past the DP budget: only the scalable oracle
// runs it; -mode exact fails with the DP's size.
//
// Capacities follow Table 2 by default (-caprule table2: c_k uniform in
// [-caplo, -caphi] = [1, 2], the scale of the papers' figures); -caprule
// alpha sets c_k = round(alpha sum_e a_k^e) (about alpha |E| channels fit,
// ~10x the papers' welfare).
//
// The table prints the accumulated social welfare (realised rewards), its
// expectation, ESDP's welfare over each policy's (the papers report up to
// +73 %, +36 % and +28 % over HSWF, LCF and LWTF), the cumulative exact
// regret against the omniscient oracle and the wall time. -sweep compares the
// delta(t) and g(t) sequences of Figs. 7-8; -regret reports ESDP's regret at
// T = 500, 1000, 2000, 4000 and the fitted exponent of RE(T) ~ T^b.
package main

import (
	"encoding/json"
	"errors"
	goflag "flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/examples/internal/flagcheck"
	"github.com/msched/msched/examples/internal/report"
)

// maxT bounds -T (a run stores a few float64 per slot and policy).
const maxT = esdp.MaxRunSlots

// maxInstanceBytes bounds the -instance file.
const maxInstanceBytes = 256 << 20

type params struct {
	T        int     `json:"T"`
	Seed     uint64  `json:"seed"`
	L        int     `json:"L"`
	R        int     `json:"R"`
	K        int     `json:"K"`
	EdgeProb float64 `json:"edge_prob"`
	Rho      float64 `json:"rho"`
	Alpha    float64 `json:"alpha"`
	CapRule  string  `json:"capacity_rule"`
	CapLo    int     `json:"cap_lo"`
	CapHi    int     `json:"cap_hi"`
	Paper    bool    `json:"solve_then_zero"`
	Mode     string  `json:"mode"`
	G        string  `json:"g"`
	MaxCells int64   `json:"max_cells"`
	MaxBytes int64   `json:"max_bytes"`
	Preset   string  `json:"preset,omitempty"`
	Workers  int     `json:"workers"`
	Instance string  `json:"instance,omitempty"`
	Edges    int     `json:"edges"`
	Capacity []int   `json:"capacity"`
}

type result struct {
	Policy   string  `json:"policy"`
	Total    float64 `json:"total"`
	Mean     float64 `json:"mean"`
	Expected float64 `json:"expected"`
	Regret   float64 `json:"regret"`
	Ratio    float64 `json:"esdp_ratio"`
	Seconds  float64 `json:"seconds"`
}

type summary struct {
	Experiment  string   `json:"experiment"`
	Params      params   `json:"params"`
	Optimal     float64  `json:"optimal"`
	Results     []result `json:"results"`
	WallSeconds float64  `json:"wall_seconds"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "esdp:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	var pr params
	def := esdp.DefaultConfig()
	flag := goflag.NewFlagSet("esdp", goflag.ContinueOnError)
	flag.IntVar(&pr.T, "T", 2000, "time slots")
	flag.Uint64Var(&pr.Seed, "seed", 1, "random seed (instance, arrivals, rewards, Thompson sampling)")
	flag.IntVar(&pr.L, "L", def.Ports, "ports |L|")
	flag.IntVar(&pr.R, "R", def.Servers, "servers |R|")
	flag.IntVar(&pr.K, "K", def.K, "resource types")
	flag.Float64Var(&pr.EdgeProb, "edgeprob", def.EdgeProb, "port-server edge probability")
	flag.Float64Var(&pr.Rho, "rho", def.ArrivalProb, "arrival probability per port and slot")
	flag.Float64Var(&pr.Alpha, "alpha", def.Alpha, "m = alpha |E|; under -caprule alpha the capacities also fit about alpha |E| channels")
	flag.StringVar(&pr.CapRule, "caprule", def.CapacityRule.String(), "capacity rule: table2 (c_k uniform in [caplo, caphi], Table 2, default) or alpha (c_k = round(alpha sum_e a_k^e))")
	flag.IntVar(&pr.CapLo, "caplo", def.CapLo, "lowest capacity under -caprule table2")
	flag.IntVar(&pr.CapHi, "caphi", def.CapHi, "highest capacity under -caprule table2")
	flag.BoolVar(&pr.Paper, "paper", false, "ESDP solves over all edges, then zeroes idle ports (Algorithm 1 literally)")
	flag.StringVar(&pr.Mode, "mode", "auto", "ESDP's oracle: auto (exact DP within -maxcells/-maxbytes, scalable beyond), exact, scalable")
	flag.StringVar(&pr.G, "g", "default", "ESDP's exploration g(t) (esdp.Settings.Exploration): default (ln(t+1) + 4 ln(ln(t+1)+1) m, the experiments'), log (ln(t+1), Fig. 8's best) or loglog (4 ln(ln(t+1)+1) m)")
	flag.Int64Var(&pr.MaxCells, "maxcells", 0, "work budget of ESDP's DP in cells (0: bounded by -maxbytes only)")
	flag.Int64Var(&pr.MaxBytes, "maxbytes", 0, "memory budget of ESDP's DP tables in bytes (0: 1 GiB)")
	flag.StringVar(&pr.Preset, "preset", "", "large: |L|=40, |R|=100 (|E| about 400), capacities in [10, 20], T=200, DP budget 2e7 cells and 256 MiB: past exploration only the scalable oracle runs it (-mode exact fails)")
	flag.IntVar(&pr.Workers, "workers", 2, "policies simulated concurrently (results do not depend on it)")
	flag.StringVar(&pr.Instance, "instance", "", "load the instance from this JSON file instead of generating it")
	save := flag.String("save", "", "write the instance as JSON to this file")
	asJSON := flag.Bool("json", false, "print a JSON summary instead of the table")
	out := flag.String("out", "", "directory for CSV series and SVG plots")
	sweep := flag.Bool("sweep", false, "compare the delta(t) and g(t) sequences of Figs. 7-8 (ESDP only)")
	regret := flag.Bool("regret", false, "regret of ESDP (two g(t)), CUCB and TS at T = 500, 1000, 2000, 4000 and the fitted exponent")
	if err := flag.Parse(args); err != nil {
		return err
	}
	if err := errors.Join(flagcheck.Finite(flag), flagcheck.NonNegative(flag, "T", "L", "R", "K", "caplo", "caphi", "maxcells", "maxbytes")); err != nil {
		return err
	}
	switch pr.Preset {
	case "":
	case "large":
		set := map[string]bool{}
		flag.Visit(func(f *goflag.Flag) { set[f.Name] = true })
		if !set["L"] {
			pr.L = 40
		}
		if !set["R"] {
			pr.R = 100
		}
		if !set["caplo"] {
			pr.CapLo = 10
		}
		if !set["caphi"] {
			pr.CapHi = 20
		}
		if !set["T"] {
			pr.T = 200
		}
		if !set["maxcells"] {
			pr.MaxCells = 2e7
		}
		if !set["maxbytes"] {
			pr.MaxBytes = 256 << 20
		}
	default:
		return fmt.Errorf("-preset %q: want large", pr.Preset)
	}
	mode, err := parseMode(pr.Mode)
	if err != nil {
		return err
	}
	expl, err := esdp.ParseExploration(pr.G)
	if err != nil {
		return fmt.Errorf("-g: %w", err)
	}
	if pr.T < 0 || pr.T > maxT {
		return fmt.Errorf("-T %d: want 0..%d", pr.T, maxT)
	}
	if pr.Workers < 1 || pr.Workers > 64 {
		return fmt.Errorf("-workers %d: want 1..64", pr.Workers)
	}
	if *sweep && *regret {
		return fmt.Errorf("-sweep and -regret are two different experiments: give one")
	}

	in, err := instance(&pr)
	if err != nil {
		return err
	}
	if *save != "" {
		b, err := json.MarshalIndent(in, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(*save, b, 0o644); err != nil {
			return err
		}
	}
	switch {
	case *sweep:
		return runSweep(stdout, in, pr, *out)
	case *regret:
		return runRegret(stdout, in, pr)
	}
	start := time.Now()
	oracle := esdp.OracleSettings{MaxCells: pr.MaxCells, MaxBytes: pr.MaxBytes}
	pols, err := policies(in, pr, esdp.Settings{SolveThenZero: pr.Paper, Mode: mode, Oracle: oracle, Exploration: expl})
	if err != nil {
		return err
	}
	watch := &gapWatch{p: pols[0].(*esdp.Policy)}
	report := progress(pr.T)
	res, err := esdp.Run(in, pols, esdp.RunSettings{T: pr.T, Seed: pr.Seed, Workers: pr.Workers, Progress: func(name string, t int) {
		if name == "ESDP" {
			watch.slot()
		}
		report(name, t)
	}})
	if err != nil {
		return err
	}
	wall := time.Since(start)
	if *out != "" {
		if err := writeOutputs(*out, res, instanceLabel(in, pr)); err != nil {
			return err
		}
	}
	ref := res.Series[0].Total
	if *asJSON {
		s := summary{Experiment: "esdp", Params: pr, Optimal: res.TotalOptimal, WallSeconds: wall.Seconds()}
		for _, x := range res.Series {
			s.Results = append(s.Results, result{x.Name, x.Total, x.Total / float64(pr.T), x.TotalExpected,
				x.TotalRegret, ref / x.Total, x.Wall.Seconds()})
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	fmt.Fprintf(stdout, "ESDP vs baselines: |L|=%d |R|=%d K=%d |E|=%d capacity=%v T=%d rho=%v alpha=%v seed=%d solve-then-zero=%v g=%v\n",
		in.NumPorts(), in.Graph.NumRight(), in.K, in.NumEdges(), in.Capacity, pr.T, pr.Rho, pr.Alpha, pr.Seed, pr.Paper, expl)
	fmt.Fprintf(stdout, "omniscient oracle: expected welfare %.2f\n", res.TotalOptimal)
	fmt.Fprintf(stdout, "ESDP oracle: mode %v, %d of %d slots solved by the scalable oracle, largest certified gap of P3(t) %.3g\n",
		mode, watch.scalable, pr.T, watch.maxGap)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	from := max(pr.T/20, 1)
	fmt.Fprintf(tw, "policy\taccumulated welfare\texpected\tESDP/policy\tESDP gain\tmax gain, t>=%d\tcumulative regret\twall time\t\n", from)
	for _, s := range res.Series {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.4f\t%+.1f%%\t%+.1f%%\t%.2f\t%v\t\n", s.Name, s.Total, s.TotalExpected,
			ref/s.Total, 100*(ref/s.Total-1), 100*(maxRatio(res.Series[0].Welfare, s.Welfare, from)-1),
			s.TotalRegret, s.Wall.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintln(stdout, "papers 002/003: ESDP gains up to +73% (HSWF), +36% (LCF), +28% (LWTF)")
	fmt.Fprintf(stdout, "total wall time %v\n", wall.Round(time.Millisecond))
	return nil
}

func instance(pr *params) (*esdp.Instance, error) {
	var in *esdp.Instance
	if pr.Instance != "" {
		f, err := os.Open(pr.Instance)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(io.LimitReader(f, maxInstanceBytes+1))
		f.Close()
		if err != nil {
			return nil, err
		}
		if len(b) > maxInstanceBytes {
			return nil, fmt.Errorf("%s: larger than %d bytes", pr.Instance, maxInstanceBytes)
		}
		in = new(esdp.Instance)
		if err := json.Unmarshal(b, in); err != nil {
			return nil, fmt.Errorf("%s: %w", pr.Instance, err)
		}
	} else {
		cfg := esdp.DefaultConfig()
		cfg.Ports, cfg.Servers, cfg.K = pr.L, pr.R, pr.K
		cfg.EdgeProb, cfg.ArrivalProb, cfg.Alpha = pr.EdgeProb, pr.Rho, pr.Alpha
		rule, err := esdp.ParseCapacityRule(pr.CapRule)
		if err != nil {
			return nil, err
		}
		cfg.CapacityRule, cfg.CapLo, cfg.CapHi = rule, pr.CapLo, pr.CapHi
		in, err = esdp.Generate(cfg, rand.New(rand.NewPCG(pr.Seed, 1)))
		if err != nil {
			return nil, err
		}
	}
	pr.Edges, pr.Capacity = in.NumEdges(), in.Capacity
	return in, nil
}

func parseMode(s string) (esdp.Mode, error) {
	for _, m := range []esdp.Mode{esdp.ModeAuto, esdp.ModeExact, esdp.ModeScalable} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("-mode %q: want auto, exact or scalable", s)
}

// gapWatch counts, from ESDP's Progress calls (made in ESDP's goroutine
// after each of its slots), the slots solved by the scalable oracle and
// their largest certified gap.
type gapWatch struct {
	p        *esdp.Policy
	scalable int
	maxGap   float64
}

func (g *gapWatch) slot() {
	if l := g.p.Last(); l.Scalable {
		g.scalable++
		g.maxGap = math.Max(g.maxGap, l.Gap)
	}
}

func policies(in *esdp.Instance, pr params, opt esdp.Settings) ([]esdp.OnlinePolicy, error) {
	opt.Alpha = pr.Alpha
	cl := &in.Cluster
	e, err := esdp.New(cl, opt)
	if err != nil {
		return nil, err
	}
	h, err := baselines.NewHSWF(cl, baselines.HSWFSettings{})
	if err != nil {
		return nil, err
	}
	l, _ := baselines.NewLCF(cl, baselines.LCFSettings{})
	w, _ := baselines.NewLWTF(cl, baselines.LWTFSettings{})
	c, _ := baselines.NewCUCB(cl, baselines.CUCBSettings{})
	th, err := baselines.NewThompson(cl, baselines.ThompsonSettings{Seed: pr.Seed, Stream: 2})
	if err != nil {
		return nil, err
	}
	hc, _ := baselines.NewHSWFChannel(cl, baselines.HSWFChannelSettings{})
	return []esdp.OnlinePolicy{e, h, l, w, c, th, hc}, nil
}

// progress reports ESDP's progress on stderr every 10 % of the horizon.
func progress(T int) func(string, int) {
	step := max(T/10, 1)
	return func(name string, t int) {
		if name == "ESDP" && (t+1)%step == 0 {
			fmt.Fprintf(os.Stderr, "ESDP: slot %d/%d\n", t+1, T)
		}
	}
}

// runRegret runs ESDP (default g and g = ln(t+1)), CUCB and TS for 4000 slots (or -T if larger) and
// reads the cumulative regret at the horizons from the same run (the
// policies are anytime: nothing depends on T).
func runRegret(stdout io.Writer, in *esdp.Instance, pr params) error {
	horizons := []int{500, 1000, 2000, 4000}
	T := max(pr.T, 4000)
	all, err := policies(in, pr, esdp.Settings{SolveThenZero: pr.Paper})
	if err != nil {
		return err
	}
	glog, err := esdp.New(&in.Cluster, esdp.Settings{Alpha: pr.Alpha, SolveThenZero: pr.Paper, G: esdp.GLog})
	if err != nil {
		return err
	}
	pols := []esdp.OnlinePolicy{all[0], &named{Policy: glog, name: "ESDP g=ln(t+1)"}, all[4], all[5]}
	start := time.Now()
	res, err := esdp.Run(in, pols, esdp.RunSettings{T: T, Seed: pr.Seed, Workers: pr.Workers, Progress: progress(T)})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "cumulative regret RE(T) on |E|=%d (seed %d); fit RE(T) = a T^b on the horizons\n", in.NumEdges(), pr.Seed)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "policy\t")
	for _, h := range horizons {
		fmt.Fprintf(tw, "T=%d\t", h)
	}
	fmt.Fprintln(tw, "exponent b\tRE(T)/T at 4000\t")
	for _, s := range res.Series {
		fmt.Fprintf(tw, "%s\t", s.Name)
		cum, xs, ys := 0.0, []float64{}, []float64{}
		hi := 0
		for t, r := range s.Regret {
			cum += r
			if hi < len(horizons) && t+1 == horizons[hi] {
				fmt.Fprintf(tw, "%.2f\t", cum)
				xs, ys = append(xs, math.Log(float64(t+1))), append(ys, math.Log(cum))
				hi++
			}
		}
		fmt.Fprintf(tw, "%.3f\t%.4f\t\n", slope(xs, ys), math.Exp(ys[len(ys)-1])/4000)
	}
	tw.Flush()
	fmt.Fprintf(stdout, "wall time %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// maxRatio is the largest ratio of accumulated welfare a/b over t >= from
// (the papers' "up to", read off Fig. 3).
func maxRatio(a, b []float64, from int) float64 {
	best, ca, cb := math.Inf(-1), 0.0, 0.0
	for t := range a {
		ca += a[t]
		cb += b[t]
		if t+1 >= from && cb > 0 {
			best = math.Max(best, ca/cb)
		}
	}
	return best
}

// slope is the least-squares slope of y on x.
func slope(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		sxy += x[i] * y[i]
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}

// runSweep runs ESDP with the delta(t) sequences of Fig. 7 and the g(t)
// sequences of Fig. 8 on the same instance and randomness.
func runSweep(stdout io.Writer, in *esdp.Instance, pr params, out string) error {
	type variant struct {
		name string
		opt  esdp.Settings
	}
	vs := []variant{
		{"delta=1/(ln(ln(t+1)+1)+1) (default)", esdp.Settings{}},
		{"delta=1/(ln(t+1)+1)", esdp.Settings{Delta: esdp.DeltaLog}},
		{"delta=1/ln(ln(t+1)+1)", esdp.Settings{Delta: esdp.DeltaLogLogBare}},
		{"delta=1/(ln(ln(ln(t+1)+1)+1)+1)", esdp.Settings{Delta: esdp.DeltaLogLogLog}},
		{"g=4ln(ln(t+1)+1)m", esdp.Settings{G: esdp.GLogLog}},
		{"g=ln(t+1)", esdp.Settings{G: esdp.GLog}},
	}
	var pols []esdp.OnlinePolicy
	for _, v := range vs {
		v.opt.Alpha, v.opt.SolveThenZero = pr.Alpha, pr.Paper
		p, err := esdp.New(&in.Cluster, v.opt)
		if err != nil {
			return err
		}
		pols = append(pols, &named{Policy: p, name: v.name})
	}
	start := time.Now()
	res, err := esdp.Run(in, pols, esdp.RunSettings{T: pr.T, Seed: pr.Seed, Workers: pr.Workers})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "ESDP sensitivity to delta(t) (Fig. 7) and g(t) (Fig. 8): |E|=%d T=%d seed=%d; default g = ln(t+1)+4ln(ln(t+1)+1)m\n"+
		"(computation time depends on the machine's load; DP cells do not)\n",
		in.NumEdges(), pr.T, pr.Seed)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "variant\taccumulated welfare\tcumulative regret\tDP cells (total)\tcomputation time\t")
	for i, s := range res.Series {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.3g\t%v\t\n", s.Name, s.Total, s.TotalRegret, float64(pols[i].(*named).cells),
			s.Wall.Round(time.Millisecond))
	}
	tw.Flush()
	fmt.Fprintf(stdout, "wall time %v\n", time.Since(start).Round(time.Millisecond))
	if out != "" {
		return writeOutputs(out, res, instanceLabel(in, pr))
	}
	return nil
}

// named renames a policy for the sweep and counts the cells of its dynamic
// programs (a measure of computation that does not depend on the load).
type named struct {
	*esdp.Policy
	name  string
	cells int64
}

func (n *named) Name() string { return n.name }

func (n *named) Decide(t int, arrived []bool) ([]bool, error) {
	x, err := n.Policy.Decide(t, arrived)
	n.cells += n.Policy.Last().Cells
	return x, err
}

// instanceLabel names the instance in figure titles.
func instanceLabel(in *esdp.Instance, pr params) string {
	src := fmt.Sprintf("%s capacities, seed %d", pr.CapRule, pr.Seed)
	if pr.Instance != "" {
		src = filepath.Base(pr.Instance)
	}
	return fmt.Sprintf("|E| = %d, c = %v, %s", in.NumEdges(), in.Capacity, src)
}

func writeOutputs(dir string, res *esdp.Result, label string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	T, series := res.T, res.Series
	cum := make([][]float64, len(series))
	reg := make([][]float64, len(series))
	for i, s := range series {
		cum[i], reg[i] = make([]float64, T), make([]float64, T)
		c, r := 0.0, 0.0
		for t := 0; t < T; t++ {
			c += s.Welfare[t]
			r += s.Regret[t]
			cum[i][t], reg[i][t] = c, r
		}
	}
	names := []string{"oracle_expected"}
	cols := []func(int) float64{func(t int) float64 { return res.Optimal[t] }}
	for i, s := range series {
		names = append(names, s.Name+"_welfare", s.Name+"_expected", s.Name+"_regret", s.Name+"_cumulative_welfare", s.Name+"_cumulative_regret")
		cols = append(cols, func(t int) float64 { return s.Welfare[t] }, func(t int) float64 { return s.Expected[t] },
			func(t int) float64 { return s.Regret[t] }, func(t int) float64 { return cum[i][t] }, func(t int) float64 { return reg[i][t] })
	}
	if err := report.Series(filepath.Join(dir, "series.csv"), T, names, cols); err != nil {
		return err
	}
	line := func(name, title, ylabel string, ys func(i, t int) float64, from int) error {
		pl := report.NewPlot(title, "slot t", ylabel).Legend(true, true)
		for i := from; i < len(series); i++ {
			label := series[i].Name
			if from > 0 {
				label = series[0].Name + "/" + label
			}
			pl.Func(label, T, func(t int) float64 { return ys(i, t) })
		}
		return pl.Save(filepath.Join(dir, name))
	}
	if err := line("welfare.svg", "ESDP vs baselines: accumulated social welfare (Fig. 2), "+label, "accumulated welfare (normalised reward units)", func(i, t int) float64 { return cum[i][t] }, 0); err != nil {
		return err
	}
	if err := line("ratio.svg", "ESDP / baseline accumulated welfare (Fig. 3), "+label, "ratio (dimensionless)", func(i, t int) float64 { return cum[0][t] / cum[i][t] }, 1); err != nil {
		return err
	}
	if err := line("average_welfare.svg", "Average welfare per slot until t (Fig. 4), "+label, "welfare per slot (normalised reward units)", func(i, t int) float64 { return cum[i][t] / float64(t+1) }, 0); err != nil {
		return err
	}
	return line("regret.svg", "Cumulative regret vs the omniscient oracle, "+label, "RE(t) (normalised reward units)", func(i, t int) float64 { return reg[i][t] }, 0)
}
