package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/msched/msched/kube/openb"
	"github.com/msched/msched/kube/plugins/gpushare"
	"github.com/msched/msched/trace"
)

// parseSeeds reads "42-51", "42" or "42,45,50".
func parseSeeds(s string) ([]uint64, error) {
	var out []uint64
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		lo, hi, rng := strings.Cut(part, "-")
		a, err := strconv.ParseUint(lo, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("-seeds %q: %v", s, err)
		}
		b := a
		if rng {
			if b, err = strconv.ParseUint(hi, 10, 64); err != nil {
				return nil, fmt.Errorf("-seeds %q: %v", s, err)
			}
		}
		if b < a || b-a > 1000 {
			return nil, fmt.Errorf("-seeds %q: range %d-%d not increasing or past 1000 seeds", s, a, b)
		}
		for v := a; v <= b; v++ {
			out = append(out, v)
		}
	}
	return out, nil
}

type fgdFlags struct {
	dir, podFile, seeds, profiles, out, from, cpuProfile string
	json, randomTies, scheduler                          bool
	replicas, pods, rounds                               int
	ratio                                                float64
}

// replotFGD rewrites table.md and alloc.png in f.out from a JSON result
// written by -json (no rerun).
func replotFGD(f fgdFlags) error {
	b, err := os.ReadFile(f.from)
	if err != nil {
		return err
	}
	var doc struct {
		Seeds    []uint64            `json:"seeds"`
		Baseline string              `json:"baseline"`
		Profiles []*openb.FGDSummary `json:"profiles"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return fmt.Errorf("%s: %w", f.from, err)
	}
	if f.out == "" {
		f.out = filepath.Dir(f.from)
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return err
	}
	seeds := fmt.Sprint(doc.Seeds)
	if n := len(doc.Seeds); n > 1 && doc.Seeds[n-1]-doc.Seeds[0] == uint64(n-1) {
		seeds = fmt.Sprintf("%d-%d", doc.Seeds[0], doc.Seeds[n-1])
	}
	var table strings.Builder
	openb.WriteFGDTable(&table, doc.Profiles, doc.Baseline)
	fmt.Print(table.String())
	if err := os.WriteFile(filepath.Join(f.out, "table.md"), []byte(table.String()), 0o644); err != nil {
		return err
	}
	return plotFGD(filepath.Join(f.out, "alloc.png"), doc.Profiles, seeds)
}

func runFGD(f fgdFlags) error {
	if f.from != "" {
		return replotFGD(f)
	}
	if f.cpuProfile != "" {
		pf, err := os.Create(f.cpuProfile)
		if err != nil {
			return err
		}
		defer pf.Close()
		if err := pprof.StartCPUProfile(pf); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if f.dir == "" {
		d, err := trace.DefaultDir()
		if err != nil {
			return err
		}
		f.dir = d
	}
	tr, err := trace.Load(f.dir, f.podFile)
	if err != nil {
		return err
	}
	seeds, err := parseSeeds(f.seeds)
	if err != nil {
		return err
	}
	profiles := openb.FGDProfiles
	if f.profiles != "" {
		profiles = nil
		for _, p := range strings.Split(f.profiles, ",") {
			profiles = append(profiles, strings.TrimSpace(p))
		}
	}
	nodes, err := openb.FGDCluster(tr, f.replicas)
	if err != nil {
		return err
	}
	var capMilli int64
	gpus := 0
	for _, n := range nodes {
		gpus += len(n.GPUs)
	}
	capMilli = int64(gpus) * 1000
	w, err := openb.FGDWorkload(tr)
	if err != nil {
		return err
	}
	log := os.Stderr
	fmt.Fprintf(log, "FGD protocol: %d GPU nodes, %d GPUs, target workload %d shapes, seeds %v, profiles %v, random ties %v\n",
		len(nodes), gpus, len(w.Shapes), seeds, profiles, f.randomTies)
	start := time.Now()
	if f.rounds > 0 {
		return fgdThroughput(f, tr, nodes, w, seeds[0], capMilli)
	}
	if f.scheduler {
		return fgdScheduler(f, nodes, w, tr, seeds, profiles, capMilli)
	}
	var runs []*openb.FGDResult
	for _, seed := range seeds {
		pods, err := openb.FGDPods(tr, seed, f.ratio, capMilli)
		if err != nil {
			return err
		}
		if f.pods > 0 && f.pods < len(pods) {
			pods = pods[:f.pods]
		}
		// Profiles interleaved per seed, so that a drift in the machine's
		// load moves both sides of a throughput ratio.
		for _, p := range profiles {
			r, err := openb.RunFGD(nodes, pods, w, p, openb.FGDOptions{Seed: seed, RandomTies: f.randomTies})
			if err != nil {
				return err
			}
			fmt.Fprintf(log, "seed %d %-16s %d pods: alloc 100%% %.2f, 130%% %.2f, failed %d, %v\n", seed, p, r.Pods, r.Alloc[100], r.Alloc[130], r.Failed, r.Wall.Round(time.Millisecond))
			runs = append(runs, r)
		}
	}
	base := "LeastAllocated"
	if !contains(profiles, base) {
		base = profiles[0]
	}
	sums := openb.SummarizeFGD(runs, base)
	var table strings.Builder
	fmt.Fprintf(&table, "OpenB %s on FGD's protocol: %d GPU nodes (%d GPUs), inflated to %.0f %% of capacity, seeds %s, ties %s; throughput and p99 of the replay loop vs %s (loaded machine)\n\n",
		tr.PodFile, len(nodes), gpus, 100*f.ratio, f.seeds, map[bool]string{false: "smallest node name", true: "random"}[f.randomTies], base)
	openb.WriteFGDTable(&table, sums, base)
	fmt.Fprintf(&table, "\ntotal wall time %v\n", time.Since(start).Round(time.Millisecond))
	out := io.Writer(os.Stdout)
	if f.json {
		out = os.Stderr
	}
	fmt.Fprint(out, table.String())
	doc := map[string]any{"trace": tr.PodFile, "nodes": len(nodes), "gpus": gpus, "seeds": seeds, "ratio": f.ratio,
		"random_ties": f.randomTies, "baseline": base, "profiles": sums}
	if f.json {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", " ")
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	if f.out != "" {
		if err := os.MkdirAll(f.out, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(f.out, "table.md"), []byte(table.String()), 0o644); err != nil {
			return err
		}
		b, err := json.MarshalIndent(doc, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(f.out, "result.json"), b, 0o644); err != nil {
			return err
		}
		if err := plotFGD(filepath.Join(f.out, "alloc.png"), sums, f.seeds); err != nil {
			return err
		}
		fmt.Fprintf(log, "wrote %s/{table.md,result.json,alloc.png}\n", f.out)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// fgdThroughput is -protocol fgd -throughput R.
func fgdThroughput(f fgdFlags, tr *trace.Trace, nodes []*gpushare.Node, w *gpushare.Workload, seed uint64, capMilli int64) error {
	pods, err := openb.FGDPods(tr, seed, f.ratio, capMilli)
	if err != nil {
		return err
	}
	n := f.pods
	if n <= 0 {
		n = 2000
	}
	pods = pods[:min(n, len(pods))]
	profiles := openb.FGDSchedProfiles
	if f.profiles != "" {
		profiles = strings.Split(f.profiles, ",")
	}
	fmt.Fprintf(os.Stderr, "kube-scheduler throughput, FGD configuration: %d nodes, burst of %d pods (seed %d), %d rounds, profiles %v\n", len(nodes), len(pods), seed, f.rounds, profiles)
	start := time.Now()
	rows, err := openb.FGDThroughput(context.Background(), nodes, pods, w, profiles, f.rounds, openb.FGDSchedOptions{RandomTies: f.randomTies})
	if err != nil {
		return err
	}
	openb.WriteFGDThroughputTable(os.Stdout, rows)
	fmt.Printf("wall %v\n", time.Since(start).Round(time.Second))
	return nil
}

// fgdScheduler is -protocol fgd -scheduler: for each seed and profile,
// the replay loop and kube-scheduler on the same pods, side by side.
func fgdScheduler(f fgdFlags, nodes []*gpushare.Node, w *gpushare.Workload, tr *trace.Trace, seeds []uint64, profiles []string, capMilli int64) error {
	if f.profiles == "" {
		profiles = []string{"LeastAllocated", "BestFit", "FGD", openb.FGDLearned}
	}
	var loops, scheds []*openb.FGDResult
	fmt.Printf("| seed | profile | alloc 100 %% loop / sched | alloc 130 %% loop / sched | frag amount 100 %% loop / sched | failed loop / sched | same node and GPUs | sched wall | sched p99 cycle |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, seed := range seeds {
		pods, err := openb.FGDPods(tr, seed, f.ratio, capMilli)
		if err != nil {
			return err
		}
		if f.pods > 0 && f.pods < len(pods) {
			pods = pods[:f.pods]
		}
		for _, p := range profiles {
			// OGASched, DRF and ESDP are score plugins of kube-scheduler
			// only: the loop has no such scorer.
			schedOnly := p == string(openb.OGASched) || p == string(openb.DRF) || p == string(openb.ESDP)
			var loop *openb.FGDResult
			if !schedOnly {
				loop, err = openb.RunFGD(nodes, pods, w, p, openb.FGDOptions{Seed: seed, RandomTies: f.randomTies, Record: true})
				if err != nil {
					return err
				}
			}
			sched, err := openb.RunFGDScheduler(context.Background(), nodes, pods, w, p, openb.FGDSchedOptions{RandomTies: f.randomTies, Record: true,
				Progress: func(d int) { fmt.Fprintf(os.Stderr, "seed %d %s: %d pods\r", seed, p, d) }})
			if err != nil {
				return err
			}
			sched.Seed = seed
			if loop == nil {
				fmt.Printf("| %d | %s | – / %.2f | – / %.2f | – / %.2f | – / %d | (no loop) | %v | %.2f ms |\n", seed, p,
					sched.Alloc[100], sched.Alloc[130], sched.FragAmount[100], sched.Failed, sched.Wall.Round(time.Second), float64(openb.Quantile(sched.Cycles, 0.99))/1e6)
				continue
			}
			same := 0
			first := -1
			for i := range pods {
				a, b := loop.Placements[i], sched.Placements[i]
				if a.Node == b.Node && slices.Equal(a.GPUs, b.GPUs) {
					same++
				} else if first < 0 {
					first = i
				}
			}
			fmt.Printf("| %d | %s | %.2f / %.2f | %.2f / %.2f | %.2f / %.2f | %d / %d | %d of %d (first differs: %d) | %v | %.2f ms |\n", seed, p,
				loop.Alloc[100], sched.Alloc[100], loop.Alloc[130], sched.Alloc[130], loop.FragAmount[100], sched.FragAmount[100],
				loop.Failed, sched.Failed, same, len(pods), first, sched.Wall.Round(time.Second), float64(openb.Quantile(sched.Cycles, 0.99))/1e6)
			loops = append(loops, loop)
			scheds = append(scheds, sched)
		}
	}
	if len(seeds) > 1 {
		var table strings.Builder
		fmt.Fprintf(&table, "\nloop, %d seeds:\n", len(seeds))
		openb.WriteFGDTable(&table, openb.SummarizeFGD(loops, profiles[0]), profiles[0])
		fmt.Fprintf(&table, "\nkube-scheduler, %d seeds:\n", len(seeds))
		openb.WriteFGDTable(&table, openb.SummarizeFGD(scheds, profiles[0]), profiles[0])
		fmt.Print(table.String())
	}
	return nil
}
