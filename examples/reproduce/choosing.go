package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// guide is the fixed prose of one family's section of docs/CHOOSING.md.
// It quotes no measured number: those come from the family's
// Outcome.Advice, computed by the same run as docs/REPRODUCTION.md. Costs
// are stated as the per-slot work and the memory the package documents,
// with the benchmark command that measures them on the reader's machine.
type guide struct {
	family string // Outcome.Family
	pkg    string // package and constructor
	buys   string // what the algorithm buys
	costs  string // per slot and in memory, with the benchmark command
	kube   string // what the kube plugin adds
}

var guides = []guide{{
	family: "OGASched",
	pkg:    "`ogasched.New(problem, ogasched.Settings{})`; baselines `baselines.NewDRF`, `NewFairness`, `NewBinPacking`, `NewSpreading`",
	buys: "An allocation of every resource type of every node to every job type, learned online with a regret guarantee against the best " +
		"fixed allocation in hindsight (Theorem 1), chosen *before* the slot's arrivals are known. It pays off when the reward has diminishing " +
		"returns (concave utilities): spreading a resource over job types is then worth more than giving it to whoever arrived.",
	costs: "One slot (Decide + Observe) is O(|E|·K) for the gradient plus the exact projection, and allocates nothing; the policy keeps a few " +
		"vectors of |E|·K floats (|E| = job type × node pairs, K resource types). Measure on your machine with " +
		"`go test -bench 'Slot' -benchmem ./ogasched` (the README's Performance table gives the numbers of the reference machine) and " +
		"`go test -bench OGASchedRun -benchmem ./baselines` for the baselines, which sort the arrived job types each slot.",
	kube: "`kube/plugins` runs OGASched (and DRF) as a Score plugin of the real kube-scheduler: job types are pod labels or request shapes, " +
		"y(t) becomes node scores, learning runs off the scheduling path, and the learned state survives restarts in a ConfigMap " +
		"([kube/README.md](../kube/README.md#the-plugins)).",
}, {
	family: "OnSocMax",
	pkg:    "`onsocmax.New(mesh, onsocmax.Settings{Iota: ι, V: v})`; baselines `baselines.NewMaxFirst`, `NewEqualShare`",
	buys: "Admission and reservation of deadline jobs at arrival, priced by the marginal cost of the capacity already committed, with a " +
		"competitive ratio α̂ (Theorem 2) against the offline optimum: a job that is admitted gets its whole allocation up to its deadline, " +
		"committed when it arrives.",
	costs: "One arriving job costs one per-job solve over its (node, slot) window (exact water-filling by default, the paper's augmented " +
		"Lagrangian as an option); the policy keeps the mesh of nodes × W slots and the reservations of live jobs. " +
		"`go test -bench 'WaterFill|ALM|RollingDecide' -benchmem ./onsocmax` measures both solvers and a rolling slot.",
	kube: "`kube/plugins/onsocmax` gates pods at PreEnqueue by the same price against their declared value (`msched.io/value`), keeps the " +
		"ledger of committed usage in Reserve/Unreserve, and reports why a job waits in a pod condition; it cannot reserve future slots " +
		"([kube/README.md](../kube/README.md#onsocmax-pluginsonsocmax)).",
}, {
	family: "ESDP",
	pkg:    "`esdp.New(cluster, esdp.Settings{})`; baselines `baselines.NewHSWF`, `NewLCF`, `NewLWTF`, `NewCUCB`, `NewThompson`",
	buys: "A semi-bandit dispatcher that learns the unknown reward of every port→server channel while keeping the servers' capacities, " +
		"with an exploration budget chosen each slot by a dynamic program (a regret bound, Theorem 2). It pays off when channel rewards are " +
		"unknown and differ, and capacities bind.",
	costs: "One slot solves a budgeted knapsack: the exact dynamic program is O(|E|·|S|·Π_k(c_k+1)) time and cells (bounded by " +
		"`OracleSettings.MaxBytes`, 1 GiB by default); past that budget the default `ModeAuto` switches to the scalable oracle, which reports " +
		"its certified gap per slot. The statistics are O(|E|). `go test -bench 'ModeSlot|PolicySlot' -benchtime 2x ./esdp` and " +
		"`go test -bench ESDPBaselinesSlot -benchmem ./baselines` measure the policy and the baselines (CUCB and Thompson sampling call the same oracle once a slot).",
	kube: "`kube/plugins/esdp` turns the slot's batch decision and the channels' indices into node scores, learning from finished pods' " +
		"rewards; kube-scheduler places one pod at a time, so the batch decision is a preference, not a dispatch " +
		"([kube/README.md](../kube/README.md#esdp-pluginsesdp)).",
}, {
	family: "OCORP",
	pkg:    "`ocorp.New(machines, ocorp.Settings{Fill: true})` (1-D), `ocorp.NewM` (cores and memory), `ocorp.NewPlus` (switching cost); baselines `baselines.NewSRPT`, `NewSRVF`, `NewSVF`, `NewSRF` (pooled), `baselines.NewFirstFit` (server-aware), `baselines.NewTetris`",
	buys: "Preemptive scheduling of multi-server jobs for l2 flowtime by dual updates (Lemma 1's order and the paper's packing), with OCORP+ " +
		"adding a switching cost on preemptions and migrations. The printed rule leaves cores idle (every job takes at least twice its " +
		"processing time); `Settings.Fill` makes it work-conserving, and is what to run if you run OCORP at all.",
	costs: "One slot sorts the live jobs and packs them: O(n log n + n·m) for n live jobs on m machines, memory O(n + m) (state is freed " +
		"with the job); OCORP+ solves a QP per slot, much heavier at scale. `go test -bench 'BenchmarkSlot' -benchtime 3x ./ocorp` and " +
		"`go test -bench 'FirstFitSlot|TetrisSlot' -benchmem ./baselines` measure them.",
	kube: "`kube/plugins/ocorp` orders the queue by OCORP's duals (QueueSort) and preempts by its rule (PostFilter); rates, migrations and " +
		"resumption are not reproduced, since a pod keeps its full request until it ends ([kube/README.md](../kube/README.md#ocorp-pluginsocorp)).",
}, {
	family: "Gang (beyond the papers)",
	pkg:    "`ogasched.NewGang(model, settings)`, `esdp.NewGang(model, settings)`; baselines `baselines.NewGangDRF`, `NewGangFairness`, `NewGangBinPacking`, `NewGangSpreading`, `NewGangFirstFit`, `NewGangHSWF`, `NewGangLCF`, `NewGangLWTF`",
	buys: "All-or-nothing placement of jobs whose components must start together (at least m_l of them, Kubernetes' min-available), " +
		"learned with OGASched's gradient or ESDP's bandit. The papers leave the design out; msched's extensions are checked by " +
		"`bipartite.GangModel.Check` on every placement and measured against the relaxation and job bounds.",
	costs: "One slot places each arrived job's components by a per-job knapsack (ESDP-gang: a gang oracle with a certified gap); " +
		"`go test -bench GangSlot ./ogasched` and `go test -bench GangBaselineSlot -benchmem ./baselines` measure them.",
	kube: "`kube/plugins/gang` places pod groups all or nothing (PreFilter plans the group with the gang oracle, Permit holds members until " +
		"min-member are bound, Unreserve releases a failed group at once) ([kube/README.md](../kube/README.md#gang-pluginsgang)).",
}}

// Choosing writes docs/CHOOSING.md from the outcomes of one run: a table
// of every measured recommendation, then one section per family with its
// fixed prose (guides) and its measured advice. docRel links the full
// reproduction table ("" = no link). Every family of outs needs a guide
// and every guide an outcome with advice, else an error names it.
func Choosing(w io.Writer, seeds []uint64, outs []Outcome, docRel string, bench BenchFile) error {
	byFamily := map[string]Outcome{}
	for _, o := range outs {
		byFamily[o.Family] = o
	}
	for _, o := range outs {
		if guideOf(o.Family) == nil {
			return fmt.Errorf("choosing: family %q has no guide in choosing.go", o.Family)
		}
	}
	for _, g := range guides {
		if o, ok := byFamily[g.family]; !ok || len(o.Advice) == 0 {
			return fmt.Errorf("choosing: family %q has no measured advice (run every family)", g.family)
		}
	}
	link := "docs/REPRODUCTION.md"
	if docRel != "" {
		link = fmt.Sprintf("[%s](%s)", docRel, docRel)
	}
	fmt.Fprintf(w, "# Which policy to run\n\n")
	fmt.Fprintf(w, "Generated by `go run ./examples/reproduce` (seeds %s) from the same run as %s: the prose is in `examples/reproduce/choosing.go`, "+
		"every number comes from that run (mean (min…max) over seeds; synthetic instances of each paper's experiment, not your workload). "+
		"Do not edit by hand. Each family's section says what its algorithm buys, what it costs per slot and in memory (with the benchmark "+
		"command to measure it), when a baseline is the better choice, and what its Kubernetes plugin adds.\n\n", seedRange(seeds), link)
	fmt.Fprintln(w, "## At a glance")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| family | goal | run | measured |")
	fmt.Fprintln(w, "|---|---|---|---|")
	for _, g := range guides {
		for _, a := range byFamily[g.family].Advice {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", cell(g.family), cell(a.Goal), cell(a.Choice), cell(a.Why))
		}
	}
	for _, g := range guides {
		fmt.Fprintf(w, "\n## %s\n\n", g.family)
		fmt.Fprintf(w, "Build: %s.\n\n", g.pkg)
		fmt.Fprintf(w, "### What it buys\n\n%s\n\n", g.buys)
		fmt.Fprintf(w, "### What it costs\n\n%s\n\n", g.costs)
		benchTable(w, g.family, bench)
		fmt.Fprintf(w, "### Which to run, as measured\n\n")
		for _, a := range byFamily[g.family].Advice {
			fmt.Fprintf(w, "- **%s**: run %s%s. Measured: %s.\n", strings.TrimSpace(a.Goal), a.Choice, constructorHint(a), a.Why)
		}
		fmt.Fprintf(w, "\n### In Kubernetes\n\n%s\n", g.kube)
	}
	return nil
}

// constructors names the constructor of each baseline an advice may
// choose; 2-D OCORP baselines are the server-aware first fit in the
// baseline's order.
var constructors = map[string]string{
	"DRF": "baselines.NewDRF", "FAIRNESS": "baselines.NewFairness", "BINPACKING": "baselines.NewBinPacking", "SPREADING": "baselines.NewSpreading",
	"MAX-FIRST": "baselines.NewMaxFirst", "EQUAL-SHARE": "baselines.NewEqualShare",
	"HSWF": "baselines.NewHSWF", "HSWF-channel": "baselines.NewHSWFChannel", "LCF": "baselines.NewLCF", "LWTF": "baselines.NewLWTF",
	"CUCB": "baselines.NewCUCB", "TS": "baselines.NewThompson",
	"SRPT": "baselines.NewSRPT", "SRVF": "baselines.NewSRVF", "SVF": "baselines.NewSVF", "SRF": "baselines.NewSRF", "Tetris": "baselines.NewTetris",
}

// constructorHint is " (`constructor`)" for an advice that chooses one
// baseline, "" otherwise.
func constructorHint(a Advice) string {
	name, rest, _ := strings.Cut(a.Choice, " ")
	if rest != "(a baseline)" {
		return ""
	}
	c, ok := constructors[name]
	if !ok {
		return ""
	}
	if strings.Contains(a.Goal, "2-D") && slices.Contains([]string{"SRPT", "SRVF", "SVF", "SRF"}, name) {
		return fmt.Sprintf(": `baselines.NewFirstFit(machines, baselines.FirstFitSettings{Order: baselines.Order%s})`, each job whole on one server", name)
	}
	return ": `" + c + "`"
}

func guideOf(family string) *guide {
	for i := range guides {
		if guides[i].family == family {
			return &guides[i]
		}
	}
	return nil
}

// seedRange writes seeds as "1–5" when they are consecutive, else as a
// list.
func seedRange(seeds []uint64) string {
	consecutive := true
	for i := 1; i < len(seeds); i++ {
		consecutive = consecutive && seeds[i] == seeds[i-1]+1
	}
	if len(seeds) > 1 && consecutive {
		return fmt.Sprintf("%d–%d", seeds[0], seeds[len(seeds)-1])
	}
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	return strings.Join(parts, ", ")
}
