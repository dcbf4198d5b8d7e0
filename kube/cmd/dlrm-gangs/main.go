// Command dlrm-gangs replays the gangs of the Alibaba DLRM trace through
// the real kube-scheduler (in process, fake clientset) with the default
// profile, with plugins/gang and with upstream's GangScheduling, and prints the gang table: groups placed,
// groups ever half-bound, stranded pods, time to place (see package dlrm).
//
//	go run ./cmd/dlrm-gangs [-trace DIR] [-groups N] [-life SLOTS] [-profiles Default,Gang,Upstream]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/msched/msched/kube/dlrm"
	"github.com/msched/msched/trace"
)

func main() {
	dir := flag.String("trace", "", "DLRM folder (default: $MSCHED_DLRM_TRACE or ../shared/traces/alibaba-dlrm-2025)")
	groups := flag.Int("groups", 0, "first N group arrivals (0 = all)")
	life := flag.Int("life", 0, "delete each group's pods this many hourly slots after it arrived (0 = hold: the cluster fills)")
	profs := flag.String("profiles", "Default,Gang", "comma-separated profiles: Default, Gang, Upstream (kube-scheduler's GangScheduling on PodGroups)")
	groupCSV := flag.String("group-csv", "", "write one CSV per profile, PREFIX-<profile>.csv: per group its arrival slot, size, vCPU and GPU demand, members bound when it left, slots waited (-1: never whole)")
	gangArgs := flag.String("gang-args", "", "comma-separated extra plugins/gang args of the Gang profile, key=value (e.g. reserveBlockedMillis=500,backfill=true)")
	flag.Parse()
	var ga []string
	for _, kv := range strings.Split(*gangArgs, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok {
			ga = append(ga, k+": "+v)
		}
	}
	if err := run(*dir, *groups, *life, *profs, ga, *groupCSV); err != nil {
		fmt.Fprintln(os.Stderr, "dlrm-gangs:", err)
		os.Exit(1)
	}
}

func run(dir string, n, life int, profs string, gangArgs []string, groupCSV string) error {
	if dir == "" {
		d, err := trace.DefaultDLRMDir()
		if err != nil {
			return err
		}
		dir = d
	}
	ins, err := trace.LoadDLRM(dir)
	if err != nil {
		return err
	}
	groups, nodes, err := dlrm.Groups(ins)
	if err != nil {
		return err
	}
	if n > 0 && n < len(groups) {
		groups = groups[:n]
	}
	pods := 0
	for _, g := range groups {
		pods += len(g.Members)
	}
	start := time.Now()
	var rs []*dlrm.Result
	for _, p := range strings.Split(profs, ",") {
		r, err := dlrm.Run(context.Background(), groups, nodes, dlrm.Profile(strings.TrimSpace(p)), dlrm.Options{LifeSlots: life, GangArgs: gangArgs})
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		rs = append(rs, r)
		if groupCSV != "" {
			if err := writeGroups(groupCSV+"-"+strings.TrimSpace(p)+".csv", groups, r); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "%s done in %v\n", p, r.Wall.Round(time.Millisecond))
	}
	fmt.Printf("DLRM %d instances: %d group arrivals (%d pods, slots 0-%d) on %d nodes, life %d slots (0 = held)\n\n", len(ins), len(groups), pods, groups[len(groups)-1].Slot, len(nodes), life)
	dlrm.WriteTable(os.Stdout, rs)
	fmt.Println()
	dlrm.WriteGangTable(os.Stdout, rs)
	fmt.Printf("\ntotal wall time %v\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// writeGroups writes r's per-group outcome, one CSV row per group.
func writeGroups(path string, groups []dlrm.Group, r *dlrm.Result) error {
	var b strings.Builder
	b.WriteString("group,slot,size,cpu,gpu,bound,waited\n")
	for i, g := range groups {
		var cpu, gpu int64
		for _, m := range g.Members {
			cpu += m[0]
			gpu += m[2]
		}
		fmt.Fprintf(&b, "%s,%d,%d,%d,%d,%d,%d\n", g.Name, g.Slot, len(g.Members), cpu, gpu, r.GroupBound[i], r.GroupWaited[i])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
