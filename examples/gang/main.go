// Command gang runs the gang-scheduling extensions of both families
// (OGASched-gang, paper 000 §III-E; ESDP-gang, paper 003 §3.4) against
// their gang baselines, on a synthetic instance (the papers' Table II and
// Table 2/3 defaults with components) or, with -trace, on Alibaba's DLRM
// trace (cluster-trace-gpu-v2025): every job is placed all or nothing, and
// every placement of every policy is verified by bipartite.GangModel.Check,
// independently of the policies' code.
//
// Usage:
//
//	go run ./examples/gang [-seeds 1-5 | -seed 1] [-T 2000] [-rho 0.7]
//	    [-trace DIR] [-slot 3600] [-cn 32] [-hn 16] [-esdp=true] [-esdpT 2000]
//	    [-ystar-tol 1e-4] [-json] [-out DIR]
//
// OGASched family: OGASched-gang against DRF-, FAIRNESS-, BINPACKING-,
// SPREADING- and FIRSTFIT-gang (the coscheduling plugin) on the same job
// arrivals; the reference is the relaxation's best fixed allocation in
// hindsight (ogasched.GangBestFixed), whose certified bound caps every
// fixed placement; "gap" is 1 - total/bound (negative: above the bound,
// possible for a policy that adapts to x(t), see ogasched's "# Gangs").
// ESDP family: ESDP-gang against HSWF-, LCF- and LWTF-gang and
// FIRSTFIT-gang, with the exact regret against the
// omniscient gang oracle and its fitted growth exponent b (RE(T) ~ T^b).
// On the trace, OGASched-gang replays the trace's own arrivals; ESDP's
// simulator draws Bernoulli arrivals with the per-app frequencies measured
// on the trace and channel rewards as in its generator (the trace has no
// rewards).
package main

import (
	"encoding/json"
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

	"gonum.org/v1/plot/vg"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/examples/internal/report"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/trace"
)

type params struct {
	Seeds    []uint64 `json:"seeds"`
	T        int      `json:"T"`
	ESDPT    int      `json:"esdp_T"`
	Rho      float64  `json:"rho"`
	Trace    string   `json:"trace,omitempty"`
	Slot     float64  `json:"slot_seconds,omitempty"`
	CN       int      `json:"cn_nodes,omitempty"`
	HN       int      `json:"hn_nodes,omitempty"`
	ESDP     bool     `json:"esdp"`
	YStarTol float64  `json:"ystar_tol"`
}

type result struct {
	Policy     string  `json:"policy"`
	Family     string  `json:"family"`
	Total      float64 `json:"total"`
	Mean       float64 `json:"mean"`
	Violations int     `json:"violations"`
	Served     float64 `json:"served_fraction"`
	// OGASched family: 1 - Total/Bound of the relaxation, and 1 -
	// Total/JobBound (ogasched.GangJobBound, a bound on every policy).
	Gap    *float64 `json:"gap_to_bound,omitempty"`
	JobGap *float64 `json:"gap_to_job_bound,omitempty"`
	// OGASched-gang: the relaxed reward of its fractional decisions.
	Relaxed *float64 `json:"relaxed,omitempty"`
	// ESDP family: cumulative regret and its fitted exponent.
	Regret   *float64 `json:"regret,omitempty"`
	Exponent *float64 `json:"regret_exponent,omitempty"`
}

type seedResult struct {
	Seed         uint64   `json:"seed"`
	Bound        float64  `json:"relaxation_bound"`
	JobBound     float64  `json:"job_bound"`
	BestFixed    float64  `json:"best_fixed_value"`
	ESDPOptimal  float64  `json:"esdp_optimal,omitempty"`
	Results      []result `json:"results"`
	Instance     string   `json:"instance"`
	WallSeconds  float64  `json:"wall_seconds"`
	YStarSeconds float64  `json:"ystar_seconds"`
}

type summary struct {
	Experiment string         `json:"experiment"`
	Params     params         `json:"params"`
	Results    []result       `json:"results"`
	Violations map[string]int `json:"violations"`
	PerSeed    []seedResult   `json:"per_seed"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "gang:", err)
		os.Exit(1)
	}
}

func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.ParseUint(strings.TrimSpace(lo), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds %q: %w", s, err)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseUint(strings.TrimSpace(hi), 10, 64); err != nil || b < a || b-a > 1000 {
				return nil, fmt.Errorf("-seeds %q: want a range lo-hi of at most 1000 seeds", s)
			}
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("gang", flag.ContinueOnError)
	var pr params
	seed := fs.Uint64("seed", 1, "random seed (one run)")
	seeds := fs.String("seeds", "", "seeds, e.g. 1-5 or 1,3 (overrides -seed; the table is the mean)")
	fs.IntVar(&pr.T, "T", 2000, "slots of the synthetic OGASched instance (the trace has its own)")
	fs.IntVar(&pr.ESDPT, "esdpT", 2000, "slots of the ESDP runs")
	fs.Float64Var(&pr.Rho, "rho", 0.7, "arrival probability of the synthetic OGASched instance (Table II)")
	fs.StringVar(&pr.Trace, "trace", "", "DLRM trace folder (disaggregated_DLRM_trace.csv); empty: synthetic")
	fs.Float64Var(&pr.Slot, "slot", 3600, "trace: slot length in seconds")
	fs.IntVar(&pr.CN, "cn", 32, "trace: CN servers")
	fs.IntVar(&pr.HN, "hn", 16, "trace: HN servers")
	fs.BoolVar(&pr.ESDP, "esdp", true, "also run the ESDP family")
	fs.Float64Var(&pr.YStarTol, "ystar-tol", 1e-4, "relative duality gap of the relaxation's best fixed allocation")
	asJSON := fs.Bool("json", false, "print a JSON summary instead of the table")
	out := fs.String("out", "", "directory for CSV series, SVG/PNG figures, table.txt and summary.json")
	fs.SetOutput(stdout)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	pr.Seeds = []uint64{*seed}
	if *seeds != "" {
		var err error
		if pr.Seeds, err = parseSeeds(*seeds); err != nil {
			return err
		}
	}
	if pr.T < 1 || pr.T > 1<<20 || pr.ESDPT < 1 || pr.ESDPT > esdp.MaxRunSlots {
		return fmt.Errorf("-T = %d, -esdpT = %d: want [1, %d] and [1, %d]", pr.T, pr.ESDPT, 1<<20, esdp.MaxRunSlots)
	}
	if !(pr.Rho >= 0 && pr.Rho <= 1) || !(pr.YStarTol > 0 && pr.YStarTol < 1) {
		return fmt.Errorf("-rho = %v, -ystar-tol = %v: want [0, 1] and (0, 1)", pr.Rho, pr.YStarTol)
	}
	var dlrm []trace.DLRMInstance
	if pr.Trace != "" {
		var err error
		if dlrm, err = trace.LoadDLRM(pr.Trace); err != nil {
			return err
		}
	} else {
		pr.Slot, pr.CN, pr.HN = 0, 0, 0
	}
	sum := summary{Experiment: "gang", Params: pr, Violations: map[string]int{}}
	if pr.Trace != "" {
		sum.Experiment = "gang-dlrm"
	}
	for _, s := range pr.Seeds {
		sr, err := runSeed(pr, dlrm, s, *out)
		if err != nil {
			return err
		}
		sum.PerSeed = append(sum.PerSeed, *sr)
	}
	sum.Results = meanResults(sum.PerSeed)
	for _, r := range sum.Results {
		sum.Violations[r.Policy] = r.Violations
	}
	if *out != "" {
		var tb strings.Builder
		printTable(&tb, &sum)
		if err := os.WriteFile(filepath.Join(*out, "table.txt"), []byte(tb.String()), 0o644); err != nil {
			return err
		}
		js, err := json.MarshalIndent(sum, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(*out, "summary.json"), append(js, '\n'), 0o644); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	printTable(stdout, &sum)
	return nil
}

// runSeed runs both families on one seed.
func runSeed(pr params, dlrm []trace.DLRMInstance, seed uint64, out string) (*seedResult, error) {
	start := time.Now()
	sr := &seedResult{Seed: seed}
	var (
		m        *bipartite.GangModel
		set      ogasched.GangSettings
		arrivals [][]float64
		freq     []float64
	)
	if dlrm != nil {
		g, err := trace.DLRMGangInstance(dlrm, trace.DLRMGangSettings{SlotSeconds: pr.Slot, CNNodes: pr.CN, HNNodes: pr.HN, Seed: seed})
		if err != nil {
			return nil, err
		}
		m, arrivals = g.Model, g.Arrivals
		set = ogasched.GangSettings{Utility: g.Utility, Beta: g.Beta}
		freq = make([]float64, m.NumJobs())
		for _, x := range arrivals {
			for l, v := range x {
				if v > 0 {
					freq[l]++
				}
			}
		}
		for l := range freq {
			freq[l] /= float64(len(arrivals))
		}
		sr.Instance = fmt.Sprintf("DLRM: %d apps, %d components, %d CN + %d HN servers, T = %d slots of %v s", m.NumJobs(), m.NumComponents(), pr.CN, pr.HN, len(arrivals), pr.Slot)
	} else {
		in, err := ogasched.GenerateGang(ogasched.DefaultGangConfig(), rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			return nil, err
		}
		m, set = in.Model, in.Settings()
		tr, err := ogasched.BernoulliTrace(m.NumJobs(), pr.T, pr.Rho, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			return nil, err
		}
		arrivals = tr.Arrivals
		sr.Instance = fmt.Sprintf("Table II with components: %d job types, %d components, %d servers, T = %d, rho = %v", m.NumJobs(), m.NumComponents(), m.NumServers(), pr.T, pr.Rho)
	}
	// OGASched family.
	oset := set
	oset.Horizon, oset.Seed = len(arrivals), seed
	oga, err := ogasched.NewGang(m, oset)
	if err != nil {
		return nil, err
	}
	defer oga.Close()
	pols := []ogasched.GangOnlinePolicy{oga}
	for _, name := range baselines.GangBaselineNames {
		b, err := baselines.GangBaselineByName(name, m)
		if err != nil {
			return nil, err
		}
		pols = append(pols, b)
	}
	res, err := ogasched.RunGang(oga.Relaxation(), m, arrivals, pols)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	bf, err := ogasched.GangBestFixed(oga.Relaxation(), m, arrivals, ogasched.BestFixedSettings{Tol: pr.YStarTol, MaxIter: 200000})
	if err != nil {
		return nil, err
	}
	sr.YStarSeconds = time.Since(t0).Seconds()
	sr.Bound, sr.BestFixed = bf.Bound, bf.Value
	if sr.JobBound, err = ogasched.GangJobBound(oga.Relaxation(), m, arrivals); err != nil {
		return nil, err
	}
	T := float64(len(arrivals))
	for _, s := range res.Series {
		gap, jgap := 1-s.Total/bf.Bound, 1-s.Total/sr.JobBound
		r := result{Policy: s.Name, Family: "ogasched", Total: s.Total, Mean: s.Total / T, Violations: s.Violations,
			Served: float64(s.Served) / math.Max(1, float64(s.Arrived)), Gap: &gap, JobGap: &jgap}
		if !math.IsNaN(s.Relaxed) {
			rel := s.Relaxed
			r.Relaxed = &rel
		}
		sr.Results = append(sr.Results, r)
	}
	if out != "" {
		if err := writeOGA(out, seed, res, bf, sr.JobBound); err != nil {
			return nil, err
		}
	}
	if pr.ESDP {
		if err := runESDP(pr, m, freq, seed, sr, out); err != nil {
			return nil, err
		}
	}
	sr.WallSeconds = time.Since(start).Seconds()
	return sr, nil
}

// ffAdapter runs an OGASched-family gang baseline (observation x_l) on
// the ESDP family's contract (observation arrived[l], decision servers).
type ffAdapter struct {
	pol ogasched.GangOnlinePolicy
	x   []float64
}

func (a *ffAdapter) Name() string { return a.pol.Name() }

func (a *ffAdapter) Decide(t int, arrived []bool) ([]int, error) {
	for l, v := range arrived {
		a.x[l] = 0
		if v {
			a.x[l] = 1
		}
	}
	d, err := a.pol.Decide(t, a.x)
	return d.Server, err
}

// runESDP runs ESDP-gang and its baselines. On the trace (freq != nil) the
// instance is the trace's model with channel rewards drawn as in
// esdp.GenerateGang and the measured arrival frequencies.
func runESDP(pr params, m *bipartite.GangModel, freq []float64, seed uint64, sr *seedResult, out string) error {
	var inst *esdp.GangInstance
	if freq == nil {
		var err error
		if inst, err = esdp.GenerateGang(esdp.DefaultGangConfig(), rand.New(rand.NewPCG(seed, 2))); err != nil {
			return err
		}
	} else {
		ch, err := esdp.NewGangChannels(m)
		if err != nil {
			return err
		}
		cfg := esdp.DefaultGangConfig()
		rng := rand.New(rand.NewPCG(seed, 3))
		inst = &esdp.GangInstance{Model: m, Mean: make([]float64, ch.Len()), Std: make([]float64, ch.Len()), Arrival: freq}
		for i := range inst.Mean {
			inst.Mean[i] = cfg.MeanLo + (cfg.MeanHi-cfg.MeanLo)*rng.Float64()
			inst.Std[i] = inst.Mean[i] / 2
		}
	}
	pol, err := esdp.NewGang(inst.Model, esdp.GangSettings{})
	if err != nil {
		return err
	}
	pols := []esdp.GangOnlinePolicy{pol}
	bs, err := esdpBaselines(inst.Model)
	if err != nil {
		return err
	}
	pols = append(pols, bs...)
	ff, err := baselines.NewGangFirstFit(inst.Model, baselines.GangFirstFitSettings{})
	if err != nil {
		return err
	}
	pols = append(pols, &ffAdapter{pol: ff, x: make([]float64, inst.Model.NumJobs())})
	res, err := esdp.RunGang(inst, pols, esdp.RunSettings{T: pr.ESDPT, Seed: seed, Workers: 1})
	if err != nil {
		return err
	}
	sr.ESDPOptimal = res.TotalOptimal
	for i, s := range res.Series {
		reg := s.TotalRegret
		r := result{Policy: s.Name, Family: "esdp", Total: s.Total, Mean: s.Total / float64(res.T), Violations: res.Violations[i], Regret: &reg}
		if b, ok := regretExponent(s.Regret); ok {
			r.Exponent = &b
		}
		sr.Results = append(sr.Results, r)
	}
	if out != "" {
		return writeESDP(out, seed, res)
	}
	return nil
}

// regretExponent fits log RE(t) = a + b log t by least squares on 20
// log-spaced t in [T/10, T] (cumulative regret), skipping RE <= 0.
func regretExponent(per []float64) (float64, bool) {
	T := len(per)
	if T < 20 {
		return 0, false
	}
	cum := make([]float64, T)
	s := 0.0
	for t, v := range per {
		s += v
		cum[t] = s
	}
	var xs, ys []float64
	lo, hi := math.Log(float64(T)/10), math.Log(float64(T))
	for i := range 20 {
		t := int(math.Round(math.Exp(lo + (hi-lo)*float64(i)/19)))
		t = min(max(t, 1), T)
		if cum[t-1] > 0 {
			xs, ys = append(xs, math.Log(float64(t))), append(ys, math.Log(cum[t-1]))
		}
	}
	if len(xs) < 5 {
		return 0, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i]
		my += ys[i]
	}
	mx /= float64(len(xs))
	my /= float64(len(xs))
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	return sxy / sxx, sxx > 0
}

// meanResults averages the per-seed results policy by policy (violations
// are summed).
func meanResults(per []seedResult) []result {
	if len(per) == 0 {
		return nil
	}
	n := float64(len(per))
	out := make([]result, len(per[0].Results))
	for i := range out {
		r := per[0].Results[i]
		out[i] = result{Policy: r.Policy, Family: r.Family}
		var gap, jgap, rel, reg, exp float64
		var nExp int
		for _, s := range per {
			x := s.Results[i]
			out[i].Total += x.Total / n
			out[i].Mean += x.Mean / n
			out[i].Served += x.Served / n
			out[i].Violations += x.Violations
			if x.Gap != nil {
				gap += *x.Gap / n
				jgap += *x.JobGap / n
			}
			if x.Relaxed != nil {
				rel += *x.Relaxed / n
			}
			if x.Regret != nil {
				reg += *x.Regret / n
			}
			if x.Exponent != nil {
				exp += *x.Exponent
				nExp++
			}
		}
		if r.Gap != nil {
			out[i].Gap, out[i].JobGap = &gap, &jgap
		}
		if r.Relaxed != nil {
			out[i].Relaxed = &rel
		}
		if r.Regret != nil {
			out[i].Regret = &reg
		}
		if nExp > 0 {
			exp /= float64(nExp)
			out[i].Exponent = &exp
		}
	}
	return out
}

func printTable(w io.Writer, sum *summary) {
	fmt.Fprintf(w, "%s, seeds %v\n", sum.PerSeed[0].Instance, sum.Params.Seeds)
	var bound, best, jb float64
	for _, s := range sum.PerSeed {
		bound += s.Bound / float64(len(sum.PerSeed))
		best += s.BestFixed / float64(len(sum.PerSeed))
		jb += s.JobBound / float64(len(sum.PerSeed))
	}
	fmt.Fprintf(w, "OGASched family (mean over seeds): relaxation bound %.2f (best fixed y* %.2f), job bound %.2f\n", bound, best, jb)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\ttotal\tper slot\tserved\tviolations\tgap to relaxation\tgap to job bound\trelaxed\t")
	for _, r := range sum.Results {
		if r.Family != "ogasched" {
			continue
		}
		rel := "-"
		if r.Relaxed != nil {
			rel = fmt.Sprintf("%.2f", *r.Relaxed)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.3f\t%.3f\t%d\t%+.2f%%\t%+.2f%%\t%s\t\n", r.Policy, r.Total, r.Mean, r.Served, r.Violations, 100**r.Gap, 100**r.JobGap, rel)
	}
	tw.Flush()
	if !sum.Params.ESDP {
		return
	}
	var opt float64
	for _, s := range sum.PerSeed {
		opt += s.ESDPOptimal / float64(len(sum.PerSeed))
	}
	fmt.Fprintf(w, "ESDP family (mean over seeds, T = %d): omniscient gang oracle %.2f expected welfare\n", sum.Params.ESDPT, opt)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "policy\twelfare\tper slot\tviolations\tregret\texponent b\t")
	for _, r := range sum.Results {
		if r.Family != "esdp" {
			continue
		}
		b := "-"
		if r.Exponent != nil {
			b = fmt.Sprintf("%.3f", *r.Exponent)
		}
		fmt.Fprintf(tw, "%s\t%.2f\t%.3f\t%d\t%.2f\t%s\t\n", r.Policy, r.Total, r.Mean, r.Violations, *r.Regret, b)
	}
	tw.Flush()
}

// writeOGA writes the per-slot rewards of every OGASched-family gang
// policy (CSV) and their average reward until t in two panels: on top, the
// policies with the job bound, which caps every policy and lies near them;
// below, on a log axis, the same policies with the relaxation bound, which
// is many times larger and would squeeze them into a sliver of one panel.
func writeOGA(dir string, seed uint64, res *ogasched.GangResult, bf *ogasched.BestFixedResult, jobBound float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	T := len(res.Series[0].Reward)
	names := make([]string, len(res.Series))
	cols := make([]func(int) float64, len(res.Series))
	top := report.NewPlot(fmt.Sprintf("Gang placement, average reward until t (seed %d)", seed), "slot t", "average reward")
	bottom := report.NewPlot(fmt.Sprintf("The same policies against the relaxation bound (%.0f× the best policy; log axis)", bf.Bound/bestTotal(res)), "slot t", "average reward").LogY()
	bottom.Height = 3.5 * vg.Inch
	for i, s := range res.Series {
		names[i] = s.Name
		cum := make([]float64, T)
		acc := 0.0
		for t, v := range s.Reward {
			acc += v
			cum[t] = acc / float64(t+1)
		}
		cols[i] = func(t int) float64 { return s.Reward[t] }
		top.Func(s.Name, T, func(t int) float64 { return cum[t] })
		bottom.Func(s.Name, T, func(t int) float64 { return cum[t] })
	}
	top.Level("job bound / T (caps every policy)", jobBound/float64(T))
	bottom.Level("relaxation bound / T", bf.Bound/float64(T))
	if err := report.Series(filepath.Join(dir, fmt.Sprintf("ogasched_gang_seed%d.csv", seed)), T, names, cols); err != nil {
		return err
	}
	return report.Stack(filepath.Join(dir, fmt.Sprintf("ogasched_gang_seed%d.svg", seed)), top, bottom)
}

// bestTotal is the largest total reward of the series.
func bestTotal(res *ogasched.GangResult) float64 {
	b := math.Inf(-1)
	for _, s := range res.Series {
		b = max(b, s.Total)
	}
	return b
}

func writeESDP(dir string, seed uint64, res *esdp.GangRunResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	pl := report.NewPlot(fmt.Sprintf("Gang placement, cumulative regret (seed %d)", seed), "slot t", "regret").Legend(true, true)
	for _, s := range res.Series {
		cum := make([]float64, res.T)
		acc := 0.0
		for t, v := range s.Regret {
			acc += v
			cum[t] = acc
		}
		pl.Func(s.Name, res.T, func(t int) float64 { return cum[t] })
	}
	return pl.Save(filepath.Join(dir, fmt.Sprintf("esdp_gang_regret_seed%d.svg", seed)))
}

// esdpBaselines returns the ESDP-family gang baselines of package
// baselines: HSWF-, LCF- and LWTF-gang.
func esdpBaselines(m *bipartite.GangModel) ([]esdp.GangOnlinePolicy, error) {
	h, err := baselines.NewGangHSWF(m, baselines.GangHSWFSettings{})
	if err != nil {
		return nil, err
	}
	c, err := baselines.NewGangLCF(m, baselines.GangLCFSettings{})
	if err != nil {
		return nil, err
	}
	w, err := baselines.NewGangLWTF(m, baselines.GangLWTFSettings{})
	if err != nil {
		return nil, err
	}
	return []esdp.GangOnlinePolicy{h, c, w}, nil
}
