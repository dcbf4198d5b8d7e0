package openb

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/msched/msched/kube/internal/replay"
	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gpushare"
	"github.com/msched/msched/kube/plugins/ogasched"
)

// FGD protocol inside kube-scheduler (issue 32): the pods and nodes of
// RunFGD, each pod scheduled by the real scheduler (kube/internal/replay)
// with FGD's configuration. See the package documentation, section "FGD
// protocol inside kube-scheduler".

// FGDSchedOptions are the knobs of RunFGDScheduler and FGDThroughput.
type FGDSchedOptions struct {
	// RandomTies leaves ties to kube-scheduler's selectHost (uniform among
	// the best nodes) instead of the smallest node name.
	RandomTies bool
	// Record keeps every pod's placement (FGDResult.Placements).
	Record bool
	// Logger is the scheduler's logger (the zero value: silent).
	Logger klog.Logger
	// Progress, when set, is called every 1 000 pods.
	Progress func(done int)
}

// FGDSchedProfiles are the profiles RunFGDScheduler and FGDThroughput
// know: the FGD-protocol profiles but Random (kube-scheduler's own random
// tie-break among equal scores is not FGD's Random) and the "+BF"
// tie-breaks, msched's OGASched, DRF and ESDP score plugins, each the
// only scorer (weight 1000) beside GPUShare's device model, and msched's
// lookahead (GPUShare with policy Lookahead or Lookahead-learned).
var FGDSchedProfiles = []string{"LeastAllocated", "MostAllocated", "FGD", FGDLearned, "BestFit", "DotProd", "GpuPacking", "GpuClustering",
	string(OGASched), string(DRF), string(ESDP), Lookahead, LookaheadLearned}

// fgdSchedYAML is FGD's scheduler configuration for profile:
// percentageOfNodesToScore 100; every default PreScore and Score plugin
// disabled and the scorer under test enabled at weight 1000;
// DefaultPreemption disabled (FGD's simulator does not preempt); GPUShare
// (the device model: PreFilter, Filter, Reserve, PreBind) in every
// profile. The default Filter plugins (NodeResourcesFit for CPU and
// memory, …) stay.
func fgdSchedYAML(profile string) (string, error) {
	score := gpushare.Name
	msched := ""
	switch profile {
	case string(OGASched), string(DRF), string(ESDP):
		score, msched = profile, profile
	default:
		if !slices.Contains(FGDSchedProfiles, profile) {
			return "", fmt.Errorf("%w: profile %q not run inside kube-scheduler (known: %s)", ErrFGD, profile, strings.Join(FGDSchedProfiles, ", "))
		}
	}
	var b strings.Builder
	b.WriteString(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
  plugins:
`)
	pre := gpushare.Name
	if msched != "" {
		pre += "}, {name: " + msched
	}
	fmt.Fprintf(&b, "    preFilter: {enabled: [{name: %s}]}\n", pre)
	fmt.Fprintf(&b, "    filter: {enabled: [{name: %s}]}\n", gpushare.Name)
	fmt.Fprintf(&b, "    reserve: {enabled: [{name: %s}]}\n", gpushare.Name)
	fmt.Fprintf(&b, "    preBind: {enabled: [{name: %s}]}\n", gpushare.Name)
	b.WriteString("    postFilter: {disabled: [{name: DefaultPreemption}]}\n")
	if msched != "" {
		fmt.Fprintf(&b, "    preScore: {disabled: [{name: '*'}], enabled: [{name: %s}]}\n", msched)
	} else {
		b.WriteString("    preScore: {disabled: [{name: '*'}]}\n")
	}
	fmt.Fprintf(&b, "    score: {disabled: [{name: '*'}], enabled: [{name: %s, weight: 1000}]}\n", score)
	if msched == string(OGASched) || msched == string(DRF) {
		fmt.Fprintf(&b, "    postBind: {enabled: [{name: %s}]}\n", msched)
	}
	if msched != "" {
		slot := float64(fgdSchedSlot)
		if msched == string(ESDP) {
			slot = 5
		}
		b.WriteString("  pluginConfig:\n")
		writeMschedArgs(&b, msched, slot)
		b.WriteString("      stateStore: None\n")
	}
	return b.String(), nil
}

// fgdSchedSlot is OGASched's and DRF's slot in the FGD protocol, in pods:
// the protocol has no time, so their clock advances one second per pod
// created and a slot is 60 pods. ESDP's slots run on the wall clock
// (5 s), as in the whole-trace replay.
const fgdSchedSlot = 60

// fgdNodeObject is a device-model node as the API sees it.
func fgdNodeObject(n *gpushare.Node) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(n.CapCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(n.CapMemory<<20, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(1000, resource.DecimalSI),
		GPUResource:       *resource.NewQuantity(int64(len(n.GPUs))*gpushare.Milli, resource.DecimalSI),
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, UID: types.UID("node-" + n.Name),
			Labels: map[string]string{v1.LabelHostname: n.Name, gpushare.AnnotationModel: n.Model}},
		Status: v1.NodeStatus{Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}}},
	}
}

// fgdPodObject is request i as a pod: CPU and memory requests, the
// gpu-milli extended resource (its total, which OGASched, DRF and ESDP
// read) and the GPU-share annotations (count, per-GPU milli, models),
// which GPUShare reads.
func fgdPodObject(i int, r gpushare.Request) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(r.CPUMilli, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(r.MemoryMiB<<20, resource.BinarySI),
	}
	ann := map[string]string{}
	if r.GPUCount > 0 {
		req[GPUResource] = *resource.NewQuantity(r.TotalGPUMilli(), resource.DecimalSI)
		ann[gpushare.AnnotationCount] = strconv.Itoa(r.GPUCount)
		ann[gpushare.AnnotationMilli] = strconv.FormatInt(r.GPUMilli, 10)
		if len(r.Models) > 0 {
			ann[gpushare.AnnotationModel] = strings.Join(r.Models, "|")
		}
	}
	name := fmt.Sprintf("p%06d", i)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("pod-" + name), Annotations: ann},
		Spec: v1.PodSpec{SchedulerName: v1.DefaultSchedulerName,
			Containers: []v1.Container{{Name: "main", Image: "openb", Resources: v1.ResourceRequirements{Requests: req, Limits: req}}}},
	}
}

// fgdScheduler starts kube-scheduler on nodes with profile's
// configuration. The clock OGASched and DRF see is *pods seconds after a
// fixed start.
func fgdScheduler(ctx context.Context, nodes []*gpushare.Node, w *gpushare.Workload, profile string, o FGDSchedOptions, pods *atomic.Int64, dev **gpushare.Plugin) (*replay.Harness, error) {
	yaml, err := fgdSchedYAML(profile)
	if err != nil {
		return nil, err
	}
	args := &gpushare.Args{}
	switch profile {
	case string(OGASched), string(DRF), string(ESDP):
	case "FGD", Lookahead:
		args.Policy, args.Prior = profile, w
	default:
		args.Policy = profile
	}
	if !o.RandomTies {
		args.TieBreak = "name"
	}
	start := time.Unix(1_700_000_000, 0)
	clock := func() time.Time { return start.Add(time.Duration(pods.Load()) * time.Second) }
	registry := frameworkruntime.Registry{
		gpushare.Name: func(ctx context.Context, _ runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			pl, err := gpushare.New(ctx, args, h)
			if err == nil {
				*dev = pl.(*gpushare.Plugin)
			}
			return pl, err
		},
		ogasched.OGASchedName: ogasched.FactoryWithClock(ogasched.OGASchedName, clock),
		ogasched.DRFName:      ogasched.FactoryWithClock(ogasched.DRFName, clock),
		esdp.Name:             esdp.New,
	}
	objs := make([]*v1.Node, len(nodes))
	for i, n := range nodes {
		objs[i] = fgdNodeObject(n)
	}
	h, err := replay.Start(ctx, replay.Config{SchedulerConfig: yaml, Nodes: objs, Registry: registry, SettleTimeout: settleTimeout, Logger: o.Logger})
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrFGD, profile, err)
	}
	return h, nil
}

// RunFGDScheduler is RunFGD inside kube-scheduler: the same nodes, pods
// and metrics, each pod created and the scheduler settled before the
// next (one at a time, in order, as FGD's simulator does); a pod left
// unbound is counted failed and deleted (no departures: it could never
// fit later, and the scheduler would otherwise retry it at every
// binding). The placements are read from the bound pods (node, and the
// gpu-index annotation GPUShare wrote) and replayed on a copy of the
// device model, which checks them (Assign refuses a GPU set that does
// not fit) and gives the metrics. FGDResult.Cycles are the scheduler's
// SchedulePod durations; Wall the whole run, settling included.
func RunFGDScheduler(ctx context.Context, nodes []*gpushare.Node, pods []gpushare.Request, w *gpushare.Workload, profile string, o FGDSchedOptions) (*FGDResult, error) {
	if len(nodes) == 0 || len(pods) == 0 {
		return nil, fmt.Errorf("%w: %d nodes, %d pods", ErrFGD, len(nodes), len(pods))
	}
	var created atomic.Int64
	var dev *gpushare.Plugin
	h, err := fgdScheduler(ctx, nodes, w, profile, o, &created, &dev)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	ns := make([]*gpushare.Node, len(nodes))
	index := make(map[string]int, len(nodes))
	var capMilli int64
	for i, n := range nodes {
		ns[i] = n.Clone()
		index[n.Name] = i
		capMilli += int64(len(n.GPUs)) * gpushare.Milli
	}
	res := &FGDResult{Profile: profile, Pods: len(pods), FragAmount: map[int]float64{}, FragRatio: map[int]float64{}}
	m := newFGDMetrics(res, ns, w, capMilli)
	start := time.Now()
	for i, r := range pods {
		pod := fgdPodObject(i, r)
		created.Add(1)
		m.arrived += r.TotalGPUMilli()
		if err := h.Create(ctx, pod); err != nil {
			return nil, fmt.Errorf("%w: %s pod %d: %w", ErrFGD, profile, i, err)
		}
		live, err := settleOne(ctx, h, pod)
		if err != nil {
			return nil, fmt.Errorf("%w: %s pod %d: %w", ErrFGD, profile, i, err)
		}
		if live == nil || live.Spec.NodeName == "" {
			if _, err := h.Delete(ctx, pod.Namespace, pod.Name); err != nil {
				return nil, fmt.Errorf("%w: %s pod %d: %w", ErrFGD, profile, i, err)
			}
			res.Failed++
			if o.Record {
				res.Placements = append(res.Placements, FGDPlacement{Node: -1})
			}
			m.record()
			continue
		}
		k, ok := index[live.Spec.NodeName]
		if !ok {
			return nil, fmt.Errorf("%w: %s pod %d bound to unknown node %q", ErrFGD, profile, i, live.Spec.NodeName)
		}
		// The harness binds its own copy of the pod, without the
		// annotation GPUShare patched at PreBind: the ids come from the
		// plugin's reservation, as its NodeState reads them.
		var ids []int
		err = nil
		if r.GPUCount > 0 {
			node, got, ok := dev.Reserved(live.UID)
			if !ok || node != live.Spec.NodeName {
				err = fmt.Errorf("no GPU reservation on the node (reserved on %q)", node)
			}
			ids = got
		}
		if err == nil {
			err = ns[k].Assign(r, ids)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s pod %d on %s: %w", ErrFGD, profile, i, live.Spec.NodeName, err)
		}
		m.allocated += r.TotalGPUMilli()
		if o.Record {
			res.Placements = append(res.Placements, FGDPlacement{Node: k, GPUs: ids})
		}
		m.record()
		if o.Progress != nil && (i+1)%1000 == 0 {
			o.Progress(i + 1)
		}
	}
	m.finish()
	res.Cycles = h.TakeCycles()
	res.Wall = time.Since(start)
	return res, nil
}

// settleOne settles the scheduler until pod is bound or waits, as
// unschedulable, in the scheduler's queue. Settle can return while the
// pod is neither (replay.Counts.LostSteps: seen under load on seed 42,
// where the pod was then scheduled after the driver had deleted it);
// settleOne then settles again, up to a minute.
func settleOne(ctx context.Context, h *replay.Harness, pod *v1.Pod) (*v1.Pod, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		if err := h.Settle(ctx); err != nil {
			return nil, err
		}
		live := h.Pod(pod.Namespace, pod.Name)
		if live == nil || live.Spec.NodeName != "" {
			return live, nil
		}
		queued, _ := h.Scheduler().SchedulingQueue.PendingPods()
		for _, q := range queued {
			if q.UID == pod.UID {
				return live, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("pod %s neither bound nor queued after a minute", pod.Name)
		}
		time.Sleep(time.Millisecond)
	}
}

// fgdMetrics fills FGDResult's bins as pods arrive (shared by RunFGD's
// definition: allocation when the arrived demand first reaches k %,
// fragmentation at 50, 55, …, 100 %).
type fgdMetrics struct {
	res                *FGDResult
	ns                 []*gpushare.Node
	w                  *gpushare.Workload
	capMilli           int64
	arrived, allocated int64
	nextBin, nextFrag  int
}

func newFGDMetrics(res *FGDResult, ns []*gpushare.Node, w *gpushare.Workload, capMilli int64) *fgdMetrics {
	return &fgdMetrics{res: res, ns: ns, w: w, capMilli: capMilli, nextFrag: 50}
}

func (m *fgdMetrics) record() {
	k := int(m.arrived * 100 / m.capMilli)
	for m.nextBin <= min(k, FGDBins) {
		m.res.Alloc[m.nextBin] = 100 * float64(m.allocated) / float64(m.capMilli)
		m.nextBin++
	}
	for m.nextFrag <= min(k, 100) {
		f, idle := gpushare.ClusterFrag(m.ns, m.w)
		m.res.FragAmount[m.nextFrag] = 100 * f / float64(m.capMilli)
		if idle > 0 {
			m.res.FragRatio[m.nextFrag] = 100 * f / idle
		}
		m.nextFrag += 5
	}
}

func (m *fgdMetrics) finish() {
	for m.nextBin <= FGDBins {
		m.res.Alloc[m.nextBin] = 100 * float64(m.allocated) / float64(m.capMilli)
		m.nextBin++
	}
}

// FGDThroughput measures kube-scheduler's cost on FGD's protocol: every
// profile rounds times in one process, the order rotated each round (as
// Throughput), each run a burst of pods (all created, then one Settle)
// on nodes with profile's FGD configuration. Use a prefix of a seed's
// pod list that fits (say 25 % of the GPU capacity): a pod no node can
// hold is retried by the scheduler at every binding and would measure
// the queue, not the cycle. Rows are ratios to profiles[0] in the same
// rounds (pods bound per second of the burst; p99 of SchedulePod).
func FGDThroughput(ctx context.Context, nodes []*gpushare.Node, pods []gpushare.Request, w *gpushare.Workload, profiles []string, rounds int, o FGDSchedOptions) ([]ThroughputRow, error) {
	if len(profiles) == 0 || rounds < 1 || len(nodes) == 0 || len(pods) == 0 {
		return nil, fmt.Errorf("%w: throughput: %d profiles, %d rounds, %d nodes, %d pods, want >= 1 of each", ErrFGD, len(profiles), rounds, len(nodes), len(pods))
	}
	rows := make([]ThroughputRow, len(profiles))
	cycles := make([][]time.Duration, len(profiles))
	for i, p := range profiles {
		rows[i].Profile = Profile(p)
	}
	objs := make([]*v1.Pod, len(pods))
	for i, r := range pods {
		objs[i] = fgdPodObject(i, r)
	}
	for r := range rounds {
		for k := range profiles {
			i := (k + r) % len(profiles)
			var created atomic.Int64
			var dev *gpushare.Plugin
			h, err := fgdScheduler(ctx, nodes, w, profiles[i], o, &created, &dev)
			if err != nil {
				return nil, err
			}
			start, cpu0 := time.Now(), processCPU()
			for _, pod := range objs {
				created.Add(1)
				if err := h.Create(ctx, pod.DeepCopy()); err != nil {
					h.Close()
					return nil, fmt.Errorf("%w: %s round %d: %w", ErrFGD, profiles[i], r, err)
				}
			}
			if err := h.Settle(ctx); err != nil {
				h.Close()
				return nil, fmt.Errorf("%w: %s round %d: %w", ErrFGD, profiles[i], r, err)
			}
			busy, cpu := time.Since(start), processCPU()-cpu0
			c := h.Counts()
			cycles[i] = append(cycles[i], h.TakeCycles()...)
			h.Close()
			rows[i].Scheduled = append(rows[i].Scheduled, c.Bound)
			rows[i].PodsPerSec = append(rows[i].PodsPerSec, rate(c.Bound, busy))
			rows[i].PodsPerCPUSec = append(rows[i].PodsPerCPUSec, rate(c.Bound, cpu))
			if o.Progress != nil {
				o.Progress(c.Bound)
			}
		}
	}
	fillRatios(rows, cycles)
	for i := range rows {
		var ratios []float64
		for r, x := range rows[i].PodsPerCPUSec {
			if b := rows[0].PodsPerCPUSec[r]; b > 0 {
				ratios = append(ratios, x/b)
			}
		}
		rows[i].CPURatio = median(ratios)
	}
	return rows, nil
}

// processCPU is the process's user and system CPU time (every goroutine:
// the scheduler, the plugins' learners, the fake API server, GC).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// WriteFGDThroughputTable prints FGDThroughput's rows: wall-clock pods/s
// and its ratio (as WriteThroughputTable), and pods per CPU second of the
// whole process and its ratio, which a loaded machine disturbs less (the
// other processes' load changes the wall time of a run, not its CPU).
func WriteFGDThroughputTable(w io.Writer, rows []ThroughputRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tbound/round\tpods/s\tx default\tmin-max\tpods/CPU s\tx default (CPU)\tp50 cycle\tp99 cycle\tp99 x default\t")
	for _, r := range rows {
		lo, hi := math.NaN(), math.NaN()
		if len(r.Ratios) > 0 {
			lo, hi = slices.Min(r.Ratios), slices.Max(r.Ratios)
		}
		fmt.Fprintf(tw, "%s\t%v\t%.1f\t%.2f\t%.2f-%.2f\t%.1f\t%.2f\t%.2fms\t%.2fms\t%.2f\t\n", r.Profile, r.Scheduled, median(r.PodsPerSec), r.Ratio,
			lo, hi, median(r.PodsPerCPUSec), r.CPURatio, float64(r.P50)/1e6, float64(r.P99)/1e6, r.P99Ratio)
	}
	tw.Flush()
}
