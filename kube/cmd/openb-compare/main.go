// Command openb-compare schedules the Alibaba OpenB trace with the real
// kube-scheduler (in process, fake clientset) once per profile and prints
// the comparison table: pods scheduled and pending, CPU and GPU allocation
// over time, GPU fragmentation, refused bindings and wall time.
//
//	go run ./cmd/openb-compare [-trace DIR] [-pods N] [-nodes N] [-step S] [-scale X] [-series out.csv]
//
// With -protocol fgd it runs FGD's protocol instead (issue 32; see package
// openb, "FGD protocol"): the GPU nodes, pods shuffled and inflated to
// 130 % of GPU capacity per seed, one scorer per profile on the GPU device
// model, ties by smallest node name:
//
//	go run ./cmd/openb-compare -protocol fgd -seeds 42-51 [-json] [-profiles FGD,BestFit] [-out DIR] [-random-ties] [-replicas 4]
//
// With -scheduler, each seed's pods are also scheduled one at a time by
// the real kube-scheduler with FGD's configuration (openb.RunFGDScheduler)
// and its numbers are printed beside the loop's; with -throughput R
// (and -protocol fgd) it measures kube-scheduler's throughput and p99
// cycle on a burst of the first -fgd-pods pods of the first seed, every
// profile of openb.FGDSchedProfiles as a ratio to LeastAllocated
// (openb.FGDThroughput):
//
//	go run ./cmd/openb-compare -protocol fgd -seeds 42 -scheduler -profiles LeastAllocated,BestFit,FGD,FGD-learned
//	go run ./cmd/openb-compare -protocol fgd -seeds 42 -throughput 2 -fgd-pods 2000 [-replicas 4]
//
// With -throughput R it instead runs every profile R times, interleaved in
// one process (the order rotated each round), on a burst of the first
// -pods pods (all arriving at once, held), and prints each profile's
// pods/s and scheduling-cycle p50/p99 as ratios to the first profile's
// (LeastAllocated, kube-scheduler's default, unless -profiles says
// otherwise).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/msched/msched/kube/openb"
	"github.com/msched/msched/trace"
)

func main() {
	dir := flag.String("trace", "", "OpenB folder (default: $MSCHED_TRACE or ../shared/traces/alibaba-openb-2023)")
	podFile := flag.String("podfile", "", "pod list (default "+trace.DefaultPodFile+")")
	pods := flag.Int("pods", 0, "first N pods with times (0 = all)")
	nodes := flag.Int("nodes", 0, "first N nodes (0 = all)")
	step := flag.Float64("step", 3600, "simulated seconds per settle step")
	scale := flag.Float64("scale", 1, "arrival-time compression (durations unchanged)")
	slot := flag.Float64("slot", 3600, "msched plugins' slot, trace seconds")
	weight := flag.Int("weight", 5, "msched score plugin weight")
	profiles := flag.String("profiles", "", "comma-separated profiles (default LeastAllocated,MostAllocated,OGASched,DRF; also ESDP, Gang)")
	rounds := flag.Int("throughput", 0, "if > 0: interleaved throughput runs, this many rounds, on a burst of -pods pods (default 2000)")
	hold := flag.Bool("hold", false, "pods never complete nor give up: the cluster fills in arrival order (the FGD paper's setup)")
	series := flag.String("series", "", "write every sample to this CSV file")
	// FGD's protocol (issue 32; fgd.go).
	var ff fgdFlags
	protocol := flag.String("protocol", "", `"fgd": FGD's protocol on the device model (GPU nodes, inflation to -ratio, -seeds) instead of the replay`)
	flag.StringVar(&ff.seeds, "seeds", "42-51", "FGD protocol: seeds (42-51, 42, 42,45)")
	flag.BoolVar(&ff.json, "json", false, "FGD protocol: JSON to stdout (the table goes to stderr)")
	flag.BoolVar(&ff.randomTies, "random-ties", false, "FGD protocol: break ties at random (upstream) instead of by smallest node name (FGD)")
	flag.IntVar(&ff.replicas, "replicas", 1, "FGD protocol: replicate the GPU nodes this many times")
	flag.Float64Var(&ff.ratio, "ratio", 1.3, "FGD protocol: inflate arrived GPU demand to this share of capacity")
	flag.StringVar(&ff.out, "out", "", "FGD protocol: write table.md, result.json and alloc.png here")
	flag.StringVar(&ff.cpuProfile, "cpuprofile", "", "FGD protocol: write a CPU profile (pprof) of the runs here")
	flag.BoolVar(&ff.scheduler, "scheduler", false, "FGD protocol: schedule each pod with the real kube-scheduler (FGD's configuration, one pod at a time) beside the replay loop, and compare")
	flag.IntVar(&ff.pods, "fgd-pods", 0, "FGD protocol: keep the first N pods of each seed's list (0 = all; with -throughput default 2000)")
	flag.StringVar(&ff.from, "from", "", "FGD protocol: redraw table.md and alloc.png (in -out, default the file's folder) from this -json output")
	flag.Parse()
	if *protocol != "" {
		if *protocol != "fgd" {
			fmt.Fprintf(os.Stderr, "openb-compare: -protocol %q: only \"fgd\"\n", *protocol)
			os.Exit(2)
		}
		ff.dir, ff.podFile, ff.profiles, ff.rounds = *dir, *podFile, *profiles, *rounds
		if err := runFGD(ff); err != nil {
			fmt.Fprintln(os.Stderr, "openb-compare:", err)
			os.Exit(1)
		}
		return
	}
	if *rounds > 0 {
		if err := throughput(*dir, *podFile, *pods, *nodes, *slot, *weight, *profiles, *rounds); err != nil {
			fmt.Fprintln(os.Stderr, "openb-compare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*dir, *podFile, *pods, *nodes, *step, *scale, *slot, *weight, *profiles, *series, *hold); err != nil {
		fmt.Fprintln(os.Stderr, "openb-compare:", err)
		os.Exit(1)
	}
}

func run(dir, podFile string, pods, nodes int, step, scale, slot float64, weight int, profs, series string, hold bool) error {
	if dir == "" {
		d, err := trace.DefaultDir()
		if err != nil {
			return err
		}
		dir = d
	}
	tr, err := trace.Load(dir, podFile)
	if err != nil {
		return err
	}
	list := openb.Profiles
	if profs != "" {
		list = nil
		for _, p := range strings.Split(profs, ",") {
			list = append(list, openb.Profile(strings.TrimSpace(p)))
		}
	}
	start := time.Now()
	var results []*openb.Result
	for _, p := range list {
		r, err := openb.Run(context.Background(), tr, p, openb.Options{Pods: pods, Nodes: nodes, StepSeconds: step, ArrivalScale: scale, SlotSeconds: slot, Weight: weight, Hold: hold})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		results = append(results, r)
		fmt.Fprintf(os.Stderr, "%s done in %v\n", p, r.Wall.Round(time.Millisecond))
	}
	fmt.Printf("OpenB %s: %d pods, %d nodes, step %gs, arrival scale %g, slot %gs, weight %d, hold %v\n\n",
		tr.PodFile, results[0].Pods, nodesOf(tr, nodes), step, scale, slot, weight, hold)
	openb.WriteTable(os.Stdout, results)
	fmt.Println()
	openb.WriteFillTable(os.Stdout, results)
	fmt.Printf("\ntotal wall time %v\n", time.Since(start).Round(time.Millisecond))
	if series != "" {
		f, err := os.Create(series)
		if err != nil {
			return err
		}
		defer f.Close()
		return openb.WriteSeries(f, results)
	}
	return nil
}

func nodesOf(tr *trace.Trace, n int) int {
	if n > 0 && n < len(tr.Nodes) {
		return n
	}
	return len(tr.Nodes)
}

func throughput(dir, podFile string, pods, nodes int, slot float64, weight int, profs string, rounds int) error {
	if dir == "" {
		d, err := trace.DefaultDir()
		if err != nil {
			return err
		}
		dir = d
	}
	tr, err := trace.Load(dir, podFile)
	if err != nil {
		return err
	}
	if pods <= 0 {
		pods = 2000
	}
	list := []openb.Profile{openb.LeastAllocated, openb.OGASched, openb.DRF, openb.ESDP, openb.Gang}
	if profs != "" {
		list = nil
		for _, p := range strings.Split(profs, ",") {
			list = append(list, openb.Profile(strings.TrimSpace(p)))
		}
	}
	start := time.Now()
	// A burst: every pod arrives in the first step and stays.
	o := openb.Options{Pods: pods, Nodes: nodes, ArrivalScale: 1e9, SlotSeconds: slot, Weight: weight, Hold: true}
	rows, err := openb.Throughput(context.Background(), tr, list, rounds, o)
	if err != nil {
		return err
	}
	fmt.Printf("OpenB %s: burst of %d pods on %d nodes, %d interleaved rounds, weight %d\n\n", tr.PodFile, pods, nodesOf(tr, nodes), rounds, weight)
	openb.WriteThroughputTable(os.Stdout, rows)
	fmt.Printf("\ntotal wall time %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}
