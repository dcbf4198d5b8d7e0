// Command ocorp reproduces the experiments of the OCORP paper (paper 004,
// Section VI) on a synthetic heavy-tailed workload or a job list: OCORP,
// OCORP+ (switching cost alpha) and OCORP+M against SRPT, SRVF, SVF, SRF
// and Tetris on the same jobs, in the single-resource (CPU) and the
// two-resource (CPU + memory) settings. In 2-D, SRPT, SRVF, SVF and SRF
// are server-aware (baselines.FirstFit: each job whole on the first
// server with its cores and memory free) and their pooled-then-pack forms
// run as SRPT-pooled, ... (the 1-D baselines); OCORP+M-fill/first-fit is
// OCORP+M-fill with the same server-aware packing (ocorp.PackFirstFit).
//
// Usage:
//
//	go run ./examples/ocorp [-n 6500] [-machines 5] [-seed 1] [-slot 10]
//	    [-workload default|testable] [-load U] [-bursts B]
//	    [-jobs FILE.csv|FILE.json] [-alpha 0,10,100] [-normalize] [-k 2]
//	    [-mode both|1d|2d] [-beta B] [-mapreduce] [-workers 2] [-json] [-out DIR] [-quiet]
//
// -workload testable (ocorp.TestableConfig) draws a busier workload of
// 3000 jobs unless -n is given (utilisation 0.95, arrivals in n/100
// bursts, lighter tails, cores 1-32)
// on which the baselines sit well above the lower bound, so the paper's
// claimed reductions can be tested; on the default workload SRPT is
// already about 1.2x the bound. -load and -bursts override the
// workload's utilisation and bursts.
//
// Job files hold arrival and processing times in seconds (CSV header
// arrival,cores,memory,processing, or versioned JSON, see ocorp.ReadJobsCSV
// and ocorp.ReadJobsJSON); they are cut into -slot second slots. The
// cluster is -machines servers cycling over 64 cores/256 GB, 32/128 and
// 16/64 (the paper's three server types). Gamma is (27) over the whole job
// list, as in the paper's experiments; the step is mu = t^(k+0.5), or
// Theorem 3's mu = T^(k-beta) with T = Gamma if -beta is given (jobs may
// then starve once t^k outgrows the constant step; the run stops with an
// error after its slot limit).
//
// The table gives the l_k norm (k = 2) of the exact flowtime, its ratio to
// the lower bound (sum_j p_j^k)^(1/k) (every job served at full rate from
// its arrival), and the fractional flowtime side by side (Fig. 2), the makespan, mean and max waiting time
// f_j - p_j, preemptions and migrations; times in seconds. OCORP-fill and
// OCORP+M-fill are the work-conserving variants (a deviation, see package
// ocorp). The reductions of the l2 flowtime are printed next to the
// paper's claims (~34 % in 1-D, ~24 % in 2-D).
//
// Measured with the defaults (seed 1, 6500 jobs, 5 machines, 208 cores,
// about 5 s): this workload cannot test the paper's claims in 1-D, since
// the l2 lower bound is 150523 s and the best baseline (SRVF 163318 s) is
// only 1.085x it, so a 34 % cut would go below the bound (SRPT 1.226x,
// SRF 1.306x, Tetris 1.502x, OCORP 2.116x, OCORP-fill 1.390x).
// l2 exact flowtime, 1-D: OCORP 318569 s against SRPT 184547,
// SVF 164707, SRVF 163318, SRF 196521 (OCORP 73 %, 93 %, 95 %, 62 %
// worse); 2-D: OCORP+M 420658 against the server-aware SRPT 212617,
// SVF 189694, SRVF 186539, SRF 344635 (98 %, 122 %, 126 %, 22 % worse;
// the pooled-then-pack SRPT-pooled ... SRF-pooled: 268031, 249126,
// 245573, 332469). With mu = t^2.5 a
// job served at full rate drops to lambda = 0 and is idle the next slot,
// so the literal policy alternates (243077 preemptions, makespan 83440 s
// against 62820 s for SRPT). The work-conserving OCORP-fill is within
// 7-28 % of the baselines (better than Tetris by 7 %). OCORP+ with the
// literal costs (about 1e7) barely differs from OCORP at alpha = 10 or
// 100 (preemptions -11 % at 100); with -normalize alpha = 10 cuts
// preemptions from 243077 to 14 and migrations from 27218 to 118 at +20 %
// l2 flowtime (the paper reports <5 %). The fractional l2 flowtime tracks
// the exact one within 25 % but lies below it for OCORP (0.76), above it
// for SRPT/SVF (1.04-1.10). With -mapreduce (Fig. 12; the paper: OCORP
// 10 % below SRVF) OCORP's l2 job flowtime is 490087 s against SRVF's
// 128560 s.
//
// With -workload testable (seed 1, 3000 jobs unless -n is given, about
// 1.5 s) the baselines queue: the bound is 5651 s and the best baseline,
// SRVF, is 2.70x it in 1-D (15276 s) and, server-aware, 3.66x in 2-D
// (20705 s; SRVF-pooled 24329 s), so the claims are testable; they do
// not reproduce: OCORP is 6.41x the bound (-137.1 % against SRVF),
// OCORP-fill 6.08x (-124.8 %), OCORP+M 9.48x and OCORP+M-fill 9.07x
// (-158.7 % and -147.6 % against SRVF), OCORP+M-fill with the
// server-aware packing 8.81x (-140.3 %). examples/reproduce gives the
// same verdict over seeds 1-5.
package main

import (
	"encoding/json"
	stdflag "flag"
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
	"github.com/msched/msched/examples/internal/exrun"
	"github.com/msched/msched/examples/internal/flagcheck"
	"github.com/msched/msched/examples/internal/report"
	"github.com/msched/msched/ocorp"
)

type params struct {
	N         int       `json:"n"`
	Machines  int       `json:"machines"`
	Seed      uint64    `json:"seed"`
	Slot      int       `json:"slot_seconds"`
	Jobs      string    `json:"jobs,omitempty"`
	Alpha     []float64 `json:"alpha"`
	Normalize bool      `json:"normalize"`
	K         float64   `json:"k"`
	Mode      string    `json:"mode"`
	Gamma     float64   `json:"gamma_slots"`
	Beta      float64   `json:"beta"`
	Workload  string    `json:"workload"`
	Load      float64   `json:"load,omitempty"`
	Bursts    int       `json:"bursts,omitempty"`
}

type result struct {
	Experiment   string  `json:"experiment"`
	Policy       string  `json:"policy"`
	Total        float64 `json:"total"` // l_k norm of the exact flowtime (s)
	Mean         float64 `json:"mean"`  // mean flowtime (s)
	Fractional   float64 `json:"fractional"`
	Makespan     float64 `json:"makespan"`
	MeanWait     float64 `json:"mean_wait"`
	MaxWait      float64 `json:"max_wait"`
	Preemptions  int     `json:"preemptions"`
	Migrations   int     `json:"migrations"`
	LowerBoundLk float64 `json:"lower_bound"`
	OverBound    float64 `json:"over_lower_bound"` // Total / LowerBoundLk
}

type summary struct {
	Experiment  string             `json:"experiment"`
	Params      params             `json:"params"`
	Results     []result           `json:"results"`
	Reductions  map[string]float64 `json:"reductions"`
	WallSeconds float64            `json:"wall_seconds"`
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ocorp:", err)
		os.Exit(1)
	}
}

// testableJobs is -n's default with -workload testable: the size of
// ocorp.TestableConfig's rows in examples/reproduce and the README.
const testableJobs = 3000

// maxSlotSeconds bounds -slot (one year): beyond it the flowtimes in
// seconds stop meaning anything and their products approach int overflow.
const maxSlotSeconds = 365 * 24 * 3600

func run(args []string, stdout io.Writer) error {
	var pr params
	flag := stdflag.NewFlagSet("ocorp", stdflag.ContinueOnError)
	flag.IntVar(&pr.N, "n", 6500, "number of synthetic jobs (the paper's trace has 6487; 3000 with -workload testable, as in examples/reproduce)")
	flag.IntVar(&pr.Machines, "machines", 5, "servers, cycling over 64/32/16 cores")
	flag.Uint64Var(&pr.Seed, "seed", 1, "random seed")
	flag.IntVar(&pr.Slot, "slot", 10, "slot length in seconds (paper: 10)")
	flag.StringVar(&pr.Jobs, "jobs", "", "job list (.csv or .json, times in seconds) instead of the synthetic workload")
	alpha := flag.String("alpha", "0,10,100", "OCORP+ switching weights")
	flag.BoolVar(&pr.Normalize, "normalize", false, "OCORP+: scale the slot's costs to [-1, 1] before adding the switching cost")
	flag.Float64Var(&pr.K, "k", 2, "order k of the l_k norm")
	flag.StringVar(&pr.Mode, "mode", "both", "1d (CPU), 2d (CPU+memory) or both")
	flag.Float64Var(&pr.Beta, "beta", -1, "if in [0,1): Theorem 3's step mu = T^(k-beta) with T = Gamma instead of mu = t^(k+0.5)")
	workers := flag.Int("workers", 2, "policies simulated concurrently")
	mapreduce := flag.Bool("mapreduce", false, "also run the MapReduce extension (Section V, Fig. 12) on jobs derived from the workload")
	asJSON := flag.Bool("json", false, "print a JSON summary instead of the table")
	out := flag.String("out", "", "directory for CSV series and SVG plots")
	flag.StringVar(&pr.Workload, "workload", "default", "synthetic workload: default (ocorp.DefaultConfig) or testable (ocorp.TestableConfig: load 0.95, bursts, lighter tails)")
	flag.Float64Var(&pr.Load, "load", 0, "if > 0: offered utilisation of the cluster (overrides the workload's arrival window)")
	flag.IntVar(&pr.Bursts, "bursts", -1, "if >= 0 (with a load): number of arrival bursts (0 = independent arrivals)")
	quiet := flag.Bool("quiet", false, "no progress on stderr")
	if err := flag.Parse(args); err != nil {
		return err
	}
	if err := flagcheck.Finite(flag); err != nil {
		return err
	}
	nSet := false
	flag.Visit(func(f *stdflag.Flag) { nSet = nSet || f.Name == "n" })
	if pr.Workload == "testable" && !nSet {
		pr.N = testableJobs
	}
	if pr.Workload != "default" && pr.Workload != "testable" {
		return fmt.Errorf("unknown -workload %q", pr.Workload)
	}
	if !(pr.Load >= 0) || math.IsInf(pr.Load, 0) || pr.Load > 100 {
		return fmt.Errorf("-load %v not in [0, 100]", pr.Load)
	}
	if pr.N < 1 || pr.N > ocorp.MaxGenJobs || pr.Machines < 1 || pr.Machines > ocorp.MaxClusterMachines || pr.Slot < 1 || pr.Slot > maxSlotSeconds {
		return fmt.Errorf("-n %d, -machines %d, -slot %d: need 1 <= n <= %d, 1 <= machines <= %d, 1 <= slot <= %d", pr.N, pr.Machines, pr.Slot, ocorp.MaxGenJobs, ocorp.MaxClusterMachines, maxSlotSeconds)
	}
	if !(pr.K >= 1) || pr.K > 16 {
		return fmt.Errorf("-k %v not in [1, 16]", pr.K)
	}
	if *workers < 1 || *workers > 64 {
		return fmt.Errorf("-workers %d not in [1, 64]", *workers)
	}
	var err error
	if pr.Alpha, err = flagcheck.Floats("alpha", *alpha, 0, ocorp.MaxAlpha); err != nil {
		return err
	}
	if pr.Beta != -1 && !(pr.Beta >= 0 && pr.Beta < 1) {
		return fmt.Errorf("-beta %v: want -1 (unset) or in [0, 1)", pr.Beta)
	}
	if pr.Mode != "both" && pr.Mode != "1d" && pr.Mode != "2d" {
		return fmt.Errorf("unknown -mode %q", pr.Mode)
	}
	start := time.Now()
	secs, err := loadJobs(pr, ocorp.TotalCores(ocorp.Cluster(pr.Machines)))
	if err != nil {
		return err
	}
	pr.N = len(secs)
	jobs, err := ocorp.Discretize(nil, secs, pr.Slot)
	if err != nil {
		return err
	}
	ms := ocorp.Cluster(pr.Machines)
	if pr.Gamma, err = ocorp.Gamma(jobs, ms); err != nil {
		return err
	}
	sum := summary{Experiment: "ocorp", Params: pr, Reductions: map[string]float64{}}
	type exp struct {
		name  string
		jobs  []ocorp.Job
		pols  []ocorp.OnlinePolicy
		mine  string
		claim float64
	}
	var exps []exp
	if pr.Mode != "2d" {
		pols, err := policies1D(ms, pr)
		if err != nil {
			return err
		}
		exps = append(exps, exp{"1d", ocorp.CPUOnly(jobs), pols, "OCORP", 0.34})
	}
	if pr.Mode != "1d" {
		pols, err := policies2D(ms, pr)
		if err != nil {
			return err
		}
		exps = append(exps, exp{"2d", jobs, pols, "OCORP+M", 0.24})
	}
	L := float64(pr.Slot)
	for _, e := range exps {
		if !*quiet {
			fmt.Fprintf(os.Stderr, "ocorp: %s: %d policies on %d jobs, %d machines (%d cores)...\n", e.name, len(e.pols), len(e.jobs), len(ms), ocorp.TotalCores(ms))
		}
		rs, err := exrun.OCORP(e.jobs, ms, e.pols, ocorp.RunSettings{K: pr.K, NoSeries: *out == ""}, *workers)
		if err != nil {
			return err
		}
		byName := map[string]*ocorp.Series{}
		for _, r := range rs {
			byName[r.Policy] = r
			sum.Results = append(sum.Results, summarize(e.name, r, L))
		}
		red := map[string]float64{}
		for _, b := range []string{"SRPT", "SVF", "SRVF", "SRF", "Tetris"} {
			for _, mine := range []string{e.mine, e.mine + "-fill", e.mine + "-fill/first-fit"} {
				if r, ok := byName[mine]; ok {
					red[mine+" vs "+b] = 1 - r.ExactLk/byName[b].ExactLk
					sum.Reductions[e.name+": "+mine+" vs "+b] = red[mine+" vs "+b]
				}
			}
		}
		if !*asJSON {
			printTable(stdout, e.name, rs, L, pr, e.mine, e.claim, byName)
		}
		if *out != "" {
			if err := writeOutputs(filepath.Join(*out, e.name), e.name, e.jobs, rs, L); err != nil {
				return err
			}
		}
	}
	if *mapreduce {
		rs, err := runMapReduce(jobs, ms, pr, *workers)
		if err != nil {
			return err
		}
		for _, r := range rs {
			sum.Results = append(sum.Results, result{Experiment: "mapreduce", Policy: r.Run.Policy, Total: r.ExactLk * L,
				Makespan: float64(r.Run.Makespan) * L, Preemptions: r.Run.TotalPreemptions, Migrations: r.Run.TotalMigrations})
		}
		if !*asJSON {
			lb := lowerBoundMR(rs[0], pr.K)
			fmt.Fprintf(stdout, "\n== mapreduce (Section V, Fig. 12): %d jobs as map + reduce dummy jobs, CPU only ==\n", len(jobs))
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(tw, "policy\tl%g job flowtime (s)\t/ lower bound\tmakespan (s)\tpreemptions\tmigrations\t\n", pr.K)
			for _, r := range rs {
				fmt.Fprintf(tw, "%s\t%.0f\t%.3f\t%.0f\t%d\t%d\t\n", r.Run.Policy, r.ExactLk*L, r.ExactLk/lb, float64(r.Run.Makespan)*L, r.Run.TotalPreemptions, r.Run.TotalMigrations)
			}
			fmt.Fprintf(tw, "lower bound (f_j = p^m + p^r)\t%.0f\t1.000\t\t\t\t\n", lb*L)
			tw.Flush()
			fmt.Fprintf(stdout, "OCORP vs SRVF: %+.1f %% (paper: about -10 %% total flowtime)\n", 100*(rs[0].ExactLk/rs[3].ExactLk-1))
		}
	}
	sum.WallSeconds = time.Since(start).Seconds()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	fmt.Fprintf(stdout, "total wall time %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// lowerBoundMR is the l_k norm of the MapReduce jobs' lower bounds
// p^m + p^r (map and reduce phases back to back, no wait).
func lowerBoundMR(r *ocorp.MapReduceResult, k float64) float64 {
	f := make([]float64, len(r.LowerBound))
	for j, v := range r.LowerBound {
		f[j] = float64(v)
	}
	return ocorp.LkNorm(f, k)
}

// genConfig is the synthetic workload of the flags.
func genConfig(pr params, clusterCores int) ocorp.Config {
	cfg := ocorp.DefaultConfig()
	if pr.Workload == "testable" {
		cfg = ocorp.TestableConfig(pr.N, clusterCores)
	}
	cfg.Jobs = pr.N
	if pr.Load > 0 {
		cfg.Load, cfg.ClusterCores = pr.Load, clusterCores
	}
	if pr.Bursts >= 0 {
		cfg.Bursts = pr.Bursts
	}
	return cfg
}

func loadJobs(pr params, clusterCores int) ([]ocorp.Job, error) {
	if pr.Jobs == "" {
		return ocorp.Generate(genConfig(pr, clusterCores), rand.New(rand.NewPCG(pr.Seed, 4)))
	}
	f, err := os.Open(pr.Jobs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var jobs []ocorp.Job
	if strings.HasSuffix(strings.ToLower(pr.Jobs), ".json") {
		jobs, err = ocorp.ReadJobsJSON(f)
	} else {
		jobs, err = ocorp.ReadJobsCSV(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", pr.Jobs, err)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs", pr.Jobs)
	}
	return jobs, nil
}

func settings(pr params, fill bool) ocorp.Settings {
	s := ocorp.Settings{K: pr.K, Gamma: pr.Gamma, Fill: fill}
	if pr.Beta >= 0 {
		s.Step, _ = ocorp.NewTheoryStep(int(math.Ceil(pr.Gamma)), pr.K, pr.Beta)
	}
	return s
}

func policies1D(ms []ocorp.Machine, pr params) ([]ocorp.OnlinePolicy, error) {
	o, err := ocorp.New(ms, settings(pr, false))
	if err != nil {
		return nil, err
	}
	of, _ := ocorp.New(ms, settings(pr, true))
	pols := []ocorp.OnlinePolicy{o, of}
	for _, a := range pr.Alpha {
		if a == 0 {
			continue // OCORP+(0) is OCORP
		}
		p, err := ocorp.NewPlus(ms, ocorp.PlusSettings{Base: settings(pr, false), Alpha: a, Normalize: pr.Normalize})
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	return append(pols, mustBaselines(ms)...), nil
}

func policies2D(ms []ocorp.Machine, pr params) ([]ocorp.OnlinePolicy, error) {
	o, err := ocorp.NewM(ms, settings(pr, false))
	if err != nil {
		return nil, err
	}
	of, _ := ocorp.NewM(ms, settings(pr, true))
	sff := settings(pr, true)
	sff.Packing, sff.Name = ocorp.PackFirstFit, "OCORP+M-fill/first-fit"
	off, err := ocorp.NewM(ms, sff)
	if err != nil {
		return nil, err
	}
	pols := []ocorp.OnlinePolicy{o, of, off}
	// Server-aware baselines under the paper's names, then the pooled
	// ones (the 1-D baselines) as "-pooled", for the record.
	for _, ord := range []baselines.Order{baselines.OrderSRPT, baselines.OrderSRVF, baselines.OrderSVF, baselines.OrderSRF} {
		p, err := baselines.NewFirstFit(ms, baselines.FirstFitSettings{Order: ord, Name: ord.String()})
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	tet, err := baselines.NewTetris(ms)
	if err != nil {
		return nil, err
	}
	pols = append(pols, tet)
	for _, ord := range []baselines.Order{baselines.OrderSRPT, baselines.OrderSRVF, baselines.OrderSVF, baselines.OrderSRF} {
		p, err := ocorp.NewPriority(ord.String()+"-pooled", ms, ord.Key())
		if err != nil {
			return nil, err
		}
		pols = append(pols, p)
	}
	return pols, nil
}

func mustBaselines(ms []ocorp.Machine) []ocorp.OnlinePolicy {
	srpt, _ := baselines.NewSRPT(ms, baselines.PrioritySettings{})
	srvf, _ := baselines.NewSRVF(ms, baselines.PrioritySettings{})
	svf, _ := baselines.NewSVF(ms, baselines.PrioritySettings{})
	srf, _ := baselines.NewSRF(ms, baselines.PrioritySettings{})
	tet, _ := baselines.NewTetris(ms, baselines.TetrisSettings{})
	return []ocorp.OnlinePolicy{srpt, srvf, svf, srf, tet}
}

func waits(r *ocorp.Series) (mean, mx float64) {
	for _, w := range r.Waiting {
		mean += float64(w)
		mx = math.Max(mx, float64(w))
	}
	return mean / float64(len(r.Waiting)), mx
}

func summarize(exp string, r *ocorp.Series, L float64) result {
	mw, xw := waits(r)
	mf := 0.0
	for _, f := range r.Flowtime {
		mf += float64(f)
	}
	return result{Experiment: exp, Policy: r.Policy, Total: r.ExactLk * L, Mean: mf / float64(len(r.Flowtime)) * L,
		Fractional: r.FractionalLk * L, Makespan: float64(r.Makespan) * L, MeanWait: mw * L, MaxWait: xw * L,
		Preemptions: r.TotalPreemptions, Migrations: r.TotalMigrations, LowerBoundLk: r.LowerBoundLk * L, OverBound: r.ExactLk / r.LowerBoundLk}
}

func printTable(w io.Writer, exp string, rs []*ocorp.Series, L float64, pr params, mine string, claim float64, byName map[string]*ocorp.Series) {
	res := "CPU only (Section VI-A/B, Figs. 2-7)"
	if exp == "2d" {
		res = "CPU + memory (Section VI-C, Figs. 8-10)"
	}
	fmt.Fprintf(w, "\n== %s: %s; %d jobs, %d machines, slot %d s, Gamma %.0f slots, k = %g ==\n", exp, res, pr.N, pr.Machines, pr.Slot, pr.Gamma, pr.K)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "policy\tl%g exact (s)\t/ lower bound\tl%g fractional (s)\tfrac/exact\tmakespan (s)\tmean wait (s)\tmax wait (s)\tpreemptions\tmigrations\twall\t\n", pr.K, pr.K)
	for _, r := range rs {
		mw, xw := waits(r)
		fmt.Fprintf(tw, "%s\t%.0f\t%.3f\t%.0f\t%.3f\t%.0f\t%.0f\t%.0f\t%d\t%d\t%v\t\n", r.Policy, r.ExactLk*L, r.ExactLk/r.LowerBoundLk, r.FractionalLk*L, r.FractionalLk/r.ExactLk,
			float64(r.Makespan)*L, mw*L, xw*L, r.TotalPreemptions, r.TotalMigrations, r.Wall.Round(time.Millisecond))
	}
	fmt.Fprintf(tw, "lower bound (f_j = p_j)\t%.0f\t1.000\t\t\t\t\t\t\t\t\t\n", rs[0].LowerBoundLk*L)
	tw.Flush()
	if exp == "1d" {
		for _, a := range pr.Alpha {
			if a == 0 {
				fmt.Fprintln(w, "OCORP+(a=0) is OCORP (the QP becomes the LP of Lemma 1).")
			}
		}
	}
	fmt.Fprintf(w, "l%g flowtime reduction, 1 - %s/baseline (paper: ~%.0f %%):\n", pr.K, mine, claim*100)
	for _, m := range []string{mine, mine + "-fill", mine + "-fill/first-fit"} {
		r, ok := byName[m]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "  %-22s", m)
		for _, b := range []string{"SRPT", "SVF", "SRVF", "SRF", "Tetris"} {
			fmt.Fprintf(w, "  vs %s %+.1f %%", b, 100*(1-r.ExactLk/byName[b].ExactLk))
		}
		fmt.Fprintln(w)
	}
}

// sizeBins are processing-time bins in seconds (log scale, Figs. 4, 6, 7).
var sizeBins = []float64{0, 100, 1000, 10000, math.Inf(1)}

func binOf(p float64) int {
	for b := 1; b < len(sizeBins); b++ {
		if p < sizeBins[b] {
			return b - 1
		}
	}
	return len(sizeBins) - 2
}

func binLabel(b int) string {
	if math.IsInf(sizeBins[b+1], 1) {
		return fmt.Sprintf(">=%g", sizeBins[b])
	}
	return fmt.Sprintf("%g-%g", sizeBins[b], sizeBins[b+1])
}

func writeOutputs(dir, exp string, jobs []ocorp.Job, rs []*ocorp.Series, L float64) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Per-slot series (Figs. 2, 3, 5, 8, 9).
	T := 0
	for _, r := range rs {
		T = max(T, len(r.ExactSeries))
	}
	at := func(s []float64, t int) float64 {
		if t < len(s) {
			return s[t]
		}
		return s[len(s)-1]
	}
	atI := func(s []int64, t int) float64 {
		if t < len(s) {
			return float64(s[t])
		}
		return float64(s[len(s)-1])
	}
	head := []string{"t_seconds"}
	for _, r := range rs {
		head = append(head, r.Policy+"_exact", r.Policy+"_fractional", r.Policy+"_unfinished", r.Policy+"_offered")
	}
	rows := make([][]string, 0, T)
	for t := 0; t < T; t++ {
		row := []string{ftoa(float64(t+1) * L)}
		for _, r := range rs {
			row = append(row, ftoa(at(r.ExactSeries, t)*L), ftoa(at(r.FractionalSeries, t)*L), ftoa(atI(r.Unfinished, t)), ftoa(atI(r.Offered, t)))
		}
		rows = append(rows, row)
	}
	if err := writeCSV(filepath.Join(dir, "series.csv"), head, rows); err != nil {
		return err
	}
	// By job size (Figs. 4, 6, 7, 10).
	nb := len(sizeBins) - 1
	head = []string{"policy", "size_seconds", "jobs", "min_wait", "mean_wait", "max_wait", "preemptions_per_job", "migrations_per_job"}
	rows = rows[:0]
	type agg struct{ n, pre, mig, sum, mn, mx float64 }
	stats := make([][]agg, len(rs))
	for k, r := range rs {
		stats[k] = make([]agg, nb)
		for b := range stats[k] {
			stats[k][b].mn = math.Inf(1)
		}
		for j, jb := range jobs {
			a := &stats[k][binOf(float64(jb.Processing)*L)]
			w := float64(r.Waiting[j]) * L
			a.n++
			a.sum += w
			a.mn = math.Min(a.mn, w)
			a.mx = math.Max(a.mx, w)
			a.pre += float64(r.Preemptions[j])
			a.mig += float64(r.Migrations[j])
		}
		for b, a := range stats[k] {
			if a.n == 0 {
				continue
			}
			rows = append(rows, []string{r.Policy, binLabel(b), ftoa(a.n), ftoa(a.mn), ftoa(a.sum / a.n), ftoa(a.mx), ftoa(a.pre / a.n), ftoa(a.mig / a.n)})
		}
	}
	if err := writeCSV(filepath.Join(dir, "by_size.csv"), head, rows); err != nil {
		return err
	}
	lbs := lowerBoundSeries(jobs, rs[0].K, T)
	line := func(name, title, ylabel string, y func(r *ocorp.Series, t int) float64, keep func(string) bool, withBound bool, below ...*report.Plot) error {
		pl := report.NewPlot(title, "time (s)", ylabel).Legend(true, true)
		pl.Width = 9 * vg.Inch
		if withBound {
			step := max(1, T/2000)
			pts := make(plotter.XYs, 0, T/step+1)
			for t := 0; t < T; t += step {
				pts = append(pts, plotter.XY{X: float64(t+1) * L, Y: lbs[t] * L})
			}
			pl.Reference("lower bound (every f_j = p_j)", pts)
		}
		for _, r := range rs {
			if !keep(r.Policy) {
				continue
			}
			step := max(1, T/2000)
			pts := make(plotter.XYs, 0, T/step+1)
			for t := 0; t < T; t += step {
				pts = append(pts, plotter.XY{X: float64(t+1) * L, Y: y(r, t)})
			}
			pl.Line(r.Policy, pts)
		}
		if len(below) > 0 {
			return report.Stack(filepath.Join(dir, name), append([]*report.Plot{pl}, below...)...)
		}
		return pl.Save(filepath.Join(dir, name))
	}
	all := func(string) bool { return true }
	if err := line("flowtime.svg", "l2 norm of the flowtimes of jobs completed by t ("+exp+")", "l2 flowtime (s)", func(r *ocorp.Series, t int) float64 { return at(r.ExactSeries, t) * L }, all, true); err != nil {
		return err
	}
	pl := report.NewPlot("exact and fractional l2 flowtime ("+exp+")", "time (s)", "l2 flowtime (s)").Legend(true, false)
	pl.Width = 9 * vg.Inch
	for _, r := range rs[:min(2, len(rs))] {
		ex, fr := make(plotter.XYs, 0, T), make(plotter.XYs, 0, T)
		for t := 0; t < T; t += max(1, T/2000) {
			ex = append(ex, plotter.XY{X: float64(t+1) * L, Y: at(r.ExactSeries, t) * L})
			fr = append(fr, plotter.XY{X: float64(t+1) * L, Y: at(r.FractionalSeries, t) * L})
		}
		pl.Line(r.Policy+" exact", ex).Line(r.Policy+" fractional", fr)
	}
	if err := pl.Save(filepath.Join(dir, "fractional.svg")); err != nil {
		return err
	}
	if err := line("unfinished.svg", "unfinished work ("+exp+")", "unfinished work (core-slots)", func(r *ocorp.Series, t int) float64 { return atI(r.Unfinished, t) }, all, false); err != nil {
		return err
	}
	if exp == "1d" {
		plus := func(s string) bool { return s == "OCORP" || strings.HasPrefix(s, "OCORP+") }
		// OCORP+ lies within a few percent of OCORP, under its line: a
		// second panel draws each OCORP+ over OCORP.
		ratio := report.NewPlot("OCORP+ over OCORP: ratio of the l2 flowtimes of jobs completed by t (from T/20)", "time (s)", "OCORP+ / OCORP").IncludeY(1)
		ratio.Width, ratio.Height = 9*vg.Inch, 3.5*vg.Inch
		var base *ocorp.Series
		for _, r := range rs {
			if r.Policy == "OCORP" {
				base = r
			}
		}
		for _, r := range rs {
			if base == nil || !strings.HasPrefix(r.Policy, "OCORP+") {
				continue
			}
			step := max(1, T/2000)
			pts := make(plotter.XYs, 0, T/step+1)
			// From T/20 on: the first completions make the ratio jump.
			for t := T / 20; t < T; t += step {
				if b := at(base.ExactSeries, t); b > 0 {
					pts = append(pts, plotter.XY{X: float64(t+1) * L, Y: at(r.ExactSeries, t) / b})
				}
			}
			if len(pts) > 0 {
				ratio.Line(r.Policy+" vs OCORP", pts)
			}
		}
		var below []*report.Plot
		if base != nil && len(rs) > 1 {
			below = append(below, ratio)
		}
		if err := line("ocorp_plus_flowtime.svg", "OCORP+ l2 flowtime over time (Fig. 5)", "l2 flowtime (s)", func(r *ocorp.Series, t int) float64 { return at(r.ExactSeries, t) * L }, plus, true, below...); err != nil {
			return err
		}
	}
	// Bins that hold jobs (the same for every policy), so that no bar
	// group is an empty placeholder.
	var used []int
	for b := 0; b < nb; b++ {
		if len(rs) > 0 && stats[0][b].n > 0 {
			used = append(used, b)
		}
	}
	bars := func(name, title, ylabel string, v func(a agg) float64) error {
		var labels []string
		for _, b := range used {
			labels = append(labels, fmt.Sprintf("%s s [%.0f]", binLabel(b), stats[0][b].n))
		}
		bc := report.NewBars(title, "job processing time p_j (jobs per bin in brackets)", ylabel, labels...)
		bc.Width = 11 * vg.Inch
		for k, r := range rs {
			vals := make([]float64, len(used))
			for x, b := range used {
				vals[x] = v(stats[k][b])
			}
			bc.Add(r.Policy, vals)
		}
		return bc.Save(filepath.Join(dir, name))
	}
	if err := bars("waiting_by_size.svg", "mean waiting time by job size ("+exp+", Figs. 4/10)", "mean wait (s)", func(a agg) float64 { return a.sum / a.n }); err != nil {
		return err
	}
	if err := bars("max_waiting_by_size.svg", "max waiting time by job size ("+exp+")", "max wait (s)", func(a agg) float64 { return a.mx }); err != nil {
		return err
	}
	if err := bars("preemptions_by_size.svg", "preemptions per job by size ("+exp+", Fig. 6)", "preemptions/job", func(a agg) float64 { return a.pre / a.n }); err != nil {
		return err
	}
	return bars("migrations_by_size.svg", "migrations per job by size ("+exp+", Fig. 7)", "migrations/job", func(a agg) float64 { return a.mig / a.n })
}

// lowerBoundSeries returns, for slots 1..T (index t-1), the l_k norm of
// the flowtimes of the jobs that finish by t when every job runs at full
// rate from its arrival (f_j = p_j, c_j = a_j + p_j): the run's lower
// bound as a curve over time, ending at Result.LowerBoundLk.
func lowerBoundSeries(jobs []ocorp.Job, k float64, T int) []float64 {
	add := make([]float64, T)
	for _, j := range jobs {
		if c := j.Arrival + j.Processing; c <= T { // c >= 1; a later c is past the plot
			add[c-1] += math.Pow(float64(j.Processing), k)
		}
	}
	out := make([]float64, T)
	s := 0.0
	for t := range out {
		s += add[t]
		out[t] = math.Pow(s, 1/k)
	}
	return out
}

// runMapReduce turns each job into a MapReduce job: a map phase of
// n = 1-4 tasks of d_j cores sharing 70 % of the job's work (each
// ceil(0.7 p_j / n) slots) and one reduce task (d_j cores) doing the rest, and runs OCORP, OCORP-fill and the
// priority baselines on the dummy jobs (package ocorp, RunMapReduce).
func runMapReduce(jobs []ocorp.Job, ms []ocorp.Machine, pr params, workers int) ([]*ocorp.MapReduceResult, error) {
	rng := rand.New(rand.NewPCG(pr.Seed, 5))
	mr := make([]ocorp.MapReduceJob, len(jobs))
	for j, jb := range jobs {
		pm := max(1, (7*jb.Processing+9)/10)
		n := 1 + rng.IntN(4)
		mr[j] = ocorp.MapReduceJob{Arrival: jb.Arrival, MapTasks: n, MapCores: jb.Cores, MapTime: max(1, (pm+n-1)/n),
			ReduceTasks: 1, ReduceCores: jb.Cores, ReduceTime: max(1, jb.Processing-pm)}
	}
	// Gamma of Section V over the map and reduce work.
	var dummies []ocorp.Job
	for _, m := range mr {
		a, b, err := m.Dummies()
		if err != nil {
			return nil, err
		}
		dummies = append(dummies, a, b)
	}
	g, err := ocorp.Gamma(dummies, ms)
	if err != nil {
		return nil, err
	}
	s := ocorp.Settings{K: pr.K, Gamma: g}
	o, _ := ocorp.New(ms, s)
	s.Fill = true
	of, _ := ocorp.New(ms, s)
	srpt, _ := baselines.NewSRPT(ms, baselines.PrioritySettings{})
	srvf, _ := baselines.NewSRVF(ms, baselines.PrioritySettings{})
	svf, _ := baselines.NewSVF(ms, baselines.PrioritySettings{})
	srf, _ := baselines.NewSRF(ms, baselines.PrioritySettings{})
	pols := []ocorp.OnlinePolicy{o, of, srpt, srvf, svf, srf}
	out := make([]*ocorp.MapReduceResult, len(pols))
	errs := make([]error, len(pols))
	sem := make(chan struct{}, max(1, workers))
	done := make(chan struct{})
	for i, p := range pols {
		go func() {
			sem <- struct{}{}
			out[i], errs[i] = ocorp.RunMapReduce(mr, ms, p, ocorp.RunSettings{K: pr.K, NoSeries: true})
			<-sem
			done <- struct{}{}
		}()
	}
	for range pols {
		<-done
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func writeCSV(path string, head []string, rows [][]string) error {
	return report.WriteCSV(path, head, rows)
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
