package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"time"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/dlrmslots"
	"github.com/msched/msched/trace"
)

// instance is the JSON schema read by scripts/gang_highs.py.
type instance struct {
	Name    string               `json:"name"`
	Model   *bipartite.GangModel `json:"model"`
	Arrived []bool               `json:"arrived"`
	// Channel i is component Comp[i] on server Server[i] with value
	// Value[i]; Fits[i] says whether the component fits the server alone.
	Comp   []int     `json:"comp"`
	Server []int     `json:"server"`
	Fits   []bool    `json:"fits"`
	Value  []float64 `json:"value"`
	// CapacityTol is bipartite.CapacityTol: a load fits c when it is at
	// most c + CapacityTol*c.
	CapacityTol float64 `json:"capacity_tol"`
}

type result struct {
	Name    string  `json:"name"`
	Mode    string  `json:"mode"`
	Seconds float64 `json:"seconds"` // median of the runs
	Value   float64 `json:"value"`
	Bound   float64 `json:"bound"`
	Status  string  `json:"status"`
	Nodes   int64   `json:"nodes"`
	Served  int     `json:"served"`
	Jobs    int     `json:"jobs"` // arrived jobs
	Comps   int     `json:"components"`
	Chans   int     `json:"channels"`
	// TimeLimit is the oracle's TimeLimit in seconds (0: none); TimeLimited
	// says it ended the solve.
	TimeLimit   float64 `json:"time_limit"`
	TimeLimited bool    `json:"time_limited"`
	// Placement is the server of every component (-1: unplaced).
	Placement []int `json:"placement"`
}

func main() {
	out := flag.String("out", "gangbench", "output folder")
	runs := flag.Int("runs", 3, "runs per instance and mode (the median time is kept)")
	modes := flag.String("modes", "auto,exact,scalable", "oracle modes")
	nodes := flag.Int64("nodes", 0, "MaxNodes of the oracle (0: each mode's default)")
	only := flag.String("only", "", "solve only the instances of these names (comma-separated; dlrm-slot-T names the DLRM trace's slot T)")
	iters := flag.Int("iters", 0, "Iterations of the oracle (0: the default)")
	limit := flag.Duration("time", 0, "TimeLimit of the oracle (0: none; the node budget ends the solve)")
	share := flag.Float64("bound-share", 0, "BoundShare of the oracle: the share of the time limit GangExact keeps for its bound (0..0.5; with -time or -sweep)")
	policy := flag.Int("policy", 0, "instead of the instances: run ESDP-gang this many slots on the DLRM trace with the oracle of -modes (one mode), -nodes, -iters and -time, and count the slots stopped at the node budget")
	seed := flag.Uint64("seed", 1, "seed of the -policy run")
	sweep := flag.Duration("sweep", 0, "instead of the instances: solve every DLRM slot with an arrival with GangExact at this time limit, and write sweep.json and the model (dlrm-all.json) for gang_highs.py --sweep")
	sweepMin := flag.Int("sweep-min-components", 0, "with -sweep: only the slots whose arrived apps have more than this many components (esdp.AutoSearchComponents = 128: the slots where the time-limited phase runs past the search)")
	nMedium := flag.Int("medium", 10, "medium random instances medium-0 .. medium-(N-1) (the comparison's ten; more for a held-out check)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	if *policy > 0 {
		meth, ok := map[string]esdp.GangMethod{"auto": esdp.GangAuto, "exact": esdp.GangExact, "scalable": esdp.GangScalable}[*modes]
		if !ok {
			log.Fatalf("-policy needs one mode in -modes, got %q", *modes)
		}
		dir, err := trace.DefaultDLRMDir()
		if err != nil {
			log.Fatalf("%v: %v", errNoTrace, err)
		}
		if err := policyRun(dir, *policy, *seed, esdp.GangOracleSettings{Method: meth, MaxNodes: *nodes, Iterations: *iters, TimeLimit: *limit, BoundShare: *share}); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	if *sweep > 0 {
		dir, err := trace.DefaultDLRMDir()
		if err != nil {
			log.Fatalf("%v: %v", errNoTrace, err)
		}
		if err := sweepRun(dir, *out, *sweep, *share, *sweepMin); err != nil {
			log.Fatal(err)
		}
		return
	}
	ins, err := instances(*nMedium, splitModes(*only))
	if err != nil {
		log.Fatal(err)
	}
	var res []result
	for _, in := range ins {
		if *only != "" && !slices.Contains(splitModes(*only), in.name) {
			continue
		}
		if err := write(*out, in); err != nil {
			log.Fatal(err)
		}
		for _, name := range splitModes(*modes) {
			meth := map[string]esdp.GangMethod{"auto": esdp.GangAuto, "exact": esdp.GangExact, "scalable": esdp.GangScalable}[name]
			r, err := solve(in, esdp.GangOracleSettings{Method: meth, MaxNodes: *nodes, Iterations: *iters, TimeLimit: *limit, BoundShare: *share}, *runs)
			if err != nil {
				log.Fatal(err)
			}
			r.Mode = name
			r.TimeLimit = limit.Seconds()
			res = append(res, r)
			fmt.Printf("%-16s %-8s %10.4f s  value %12.4f  bound %12.4f  gap %7.3f%%  %-9s nodes %d\n",
				r.Name, r.Mode, r.Seconds, r.Value, r.Bound, 100*(r.Bound-r.Value)/max(r.Value, 1e-12), r.Status, r.Nodes)
		}
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*out, "msched.json"), b, 0o644); err != nil {
		log.Fatal(err)
	}
}

func splitModes(s string) []string {
	var out []string
	cur := ""
	for _, c := range s + "," {
		if c == ',' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(c)
	}
	return out
}

type named struct {
	name string
	p    *esdp.GangKnapsack
}

func instances(nMedium int, want []string) ([]named, error) {
	var out []named
	for i := range nMedium {
		m, err := medium(i)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	dir, err := trace.DefaultDLRMDir()
	if err != nil {
		log.Printf("no DLRM trace (%v): medium instances only", err)
		return out, nil
	}
	sl, err := dlrmslots.Load(dir)
	if err != nil {
		return nil, err
	}
	log.Printf("DLRM: %d slots with arrivals; median slot %d (%d apps), busiest slot %d (%d apps), %d apps in all",
		sl.WithArrivals, sl.Median, sl.MedianApps, sl.Busiest, sl.BusiestApps, sl.Apps)
	for i, p := range sl.Knapsacks {
		out = append(out, named{"dlrm-" + sl.Names[i], p})
	}
	// Single slots (dlrm-slot-T, T the slot's index) only when -only
	// names them.
	for i, p := range sl.EveryKnapsacks {
		if name := fmt.Sprintf("dlrm-slot-%d", sl.Every[i]); slices.Contains(want, name) {
			out = append(out, named{name, p})
		}
	}
	return out, nil
}

// medium is the i-th medium random instance: esdp.GenerateGang with 16 job
// types, seeded by i; channel values uniform in [0, 1].
func medium(i int) (named, error) {
	cfg := esdp.DefaultGangConfig()
	cfg.Jobs = 16
	rng := rand.New(rand.NewPCG(uint64(i), 29))
	in, err := esdp.GenerateGang(cfg, rng)
	if err != nil {
		return named{}, err
	}
	ch, err := in.Channels()
	if err != nil {
		return named{}, err
	}
	p := &esdp.GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, in.Model.NumJobs())}
	for i := range p.Value {
		p.Value[i] = rng.Float64()
	}
	for l := range p.Arrived {
		p.Arrived[l] = rng.Float64() < cfg.ArrivalProb
	}
	return named{fmt.Sprintf("medium-%d", i), p}, nil
}

func write(dir string, in named) error {
	ch := in.p.Channels
	js := instance{Name: in.name, Model: ch.Model(), Arrived: in.p.Arrived, Value: in.p.Value, CapacityTol: bipartite.CapacityTol}
	if js.Arrived == nil {
		js.Arrived = make([]bool, ch.Model().NumJobs())
		for l := range js.Arrived {
			js.Arrived[l] = true
		}
	}
	for i := range ch.Len() {
		js.Comp = append(js.Comp, ch.Component(i))
		js.Server = append(js.Server, ch.Server(i))
		js.Fits = append(js.Fits, ch.Fits(i))
	}
	b, err := json.Marshal(js)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, in.name+".json"), b, 0o644)
}

func solve(in named, set esdp.GangOracleSettings, runs int) (result, error) {
	o := esdp.GangOracle{Settings: set}
	m := in.p.Channels.Model()
	x := make([]int, m.NumComponents())
	var times []float64
	var r esdp.GangKnapsackResult
	for range max(1, runs) {
		t0 := time.Now()
		var err error
		r, err = o.Solve(x, in.p)
		times = append(times, time.Since(t0).Seconds())
		if err != nil {
			return result{}, err
		}
	}
	arrived := in.p.Arrived
	if arrived == nil {
		arrived = make([]bool, m.NumJobs())
		for l := range arrived {
			arrived[l] = true
		}
	}
	chk, err := m.Check(arrived, x)
	if err != nil {
		return result{}, err
	}
	if chk.Violations > 0 {
		return result{}, fmt.Errorf("%s: infeasible placement: %s", in.name, chk.First)
	}
	slices.Sort(times)
	jobs, comps := 0, 0
	for l, a := range arrived {
		if a {
			jobs++
			lo, hi := m.Components(l)
			comps += hi - lo
		}
	}
	return result{Name: in.name, Seconds: times[len(times)/2], Value: r.Value, Bound: r.Bound, Status: r.Status.String(),
		Nodes: r.Nodes, Served: r.Served, TimeLimited: r.TimeLimited, Jobs: jobs, Comps: comps, Chans: in.p.Channels.Len(), Placement: x}, nil
}

// sweepSlot is one slot of the sweep (sweep.json): the oracle's result
// and the apps that arrived.
type sweepSlot struct {
	Slot    int   `json:"slot"`
	Arrived []int `json:"arrived"`
	result
}

// sweepRun solves every slot of the DLRM trace with an arrival with
// GangExact at the time limit, writes the model once (dlrm-all.json, every
// app arrived) and the results with each slot's arrived apps (sweep.json),
// and prints a summary.
func sweepRun(dir, out string, limit time.Duration, share float64, minComps int) error {
	sl, err := dlrmslots.Load(dir)
	if err != nil {
		return err
	}
	if err := write(out, named{"dlrm-all", sl.Knapsacks[2]}); err != nil {
		return err
	}
	var res []sweepSlot
	var total float64
	proved, timed := 0, 0
	for i, p := range sl.EveryKnapsacks {
		if minComps > 0 {
			n := 0
			m := p.Channels.Model()
			for l, a := range p.Arrived {
				if a {
					lo, hi := m.Components(l)
					n += hi - lo
				}
			}
			if n <= minComps {
				continue
			}
		}
		r, err := solve(named{fmt.Sprintf("slot-%d", sl.Every[i]), p}, esdp.GangOracleSettings{Method: esdp.GangExact, TimeLimit: limit, BoundShare: share}, 1)
		if err != nil {
			return err
		}
		r.Mode, r.TimeLimit = "exact", limit.Seconds()
		var arr []int
		for l, a := range p.Arrived {
			if a {
				arr = append(arr, l)
			}
		}
		res = append(res, sweepSlot{Slot: sl.Every[i], Arrived: arr, result: r})
		total += r.Seconds
		if r.Status == esdp.Optimal.String() {
			proved++
		}
		if r.TimeLimited {
			timed++
		}
	}
	fmt.Printf("%d slots with an arrival, time limit %v: %d proved optimal, %d ended by the time limit, %.1f s in all\n", len(res), limit, proved, timed, total)
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, "sweep.json"), b, 0o644)
}
