package openb

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
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
	"github.com/msched/msched/kube/plugins"
	"github.com/msched/msched/kube/plugins/esdp"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/trace"
)

// Options configures Run. The zero value runs the whole trace.
type Options struct {
	// Pods keeps the first Pods pods with times (0 = all), Nodes an evenly
	// spaced subset of Nodes nodes (0 = all).
	Pods, Nodes int
	// StepSeconds is the simulated time between two settle points: the
	// arrivals and completions of a step are applied together, then the
	// scheduler runs until it is idle. Default 3600 (one hour of trace).
	StepSeconds float64
	// StepPods, when > 0, also ends a step after StepPods arrivals, so
	// that a burst is sampled at a finer grain (e.g. by arrived GPU
	// demand). 0 = steps by time only.
	StepPods int
	// ArrivalScale divides the creation times (durations unchanged): 2
	// submits the same pods twice as fast. Default 1.
	ArrivalScale float64
	// SlotSeconds is the msched plugins' slot, in trace seconds. Default
	// 3600.
	SlotSeconds float64
	// Weight is the msched score plugin's weight. Default 5.
	Weight int
	// Hold keeps every pod: bound pods never complete and pending pods
	// never give up, so the cluster fills in arrival order, as in the FGD
	// paper's evaluation of this trace (the default pod list asks for 98%
	// of the cluster's GPUs in all).
	Hold bool
	// StatePath is given to OGASched's statePath ("" = none).
	StatePath string
	// Logger receives progress (nil = none).
	Logger klog.Logger

	// SchedulerConfig, when set, is the whole KubeSchedulerConfiguration
	// YAML used instead of the profile's (the profile then only names the
	// run); see replay.Config.SchedulerConfig.
	SchedulerConfig string
	// Registry adds out-of-tree plugins to the msched ones (same name:
	// this one wins).
	Registry frameworkruntime.Registry
	// FeatureGates are set for the run (process-wide; see
	// replay.Config.FeatureGates).
	FeatureGates map[string]bool
	// NodeObject and PodObject, when set, build the API objects of a
	// trace node and pod instead of the default ones (e.g. per-GPU
	// devices, annotations). The replay's own allocatable check still
	// uses the trace's cpu, memory and gpu-milli.
	NodeObject func(trace.Node) *v1.Node
	PodObject  func(trace.Pod) *v1.Pod
	// Admit, when set, is called for each binding that passed the
	// replay's allocatable check; an error refuses it (counted in
	// Result.Violations). AfterBind is called once the pod is bound (e.g.
	// device bookkeeping). See replay.Config for when they run.
	Admit     func(pod *v1.Pod, node string) error
	AfterBind func(pod *v1.Pod, node string)
	// OnStep, when set, is called after each step, once the scheduler is
	// idle and the step's Sample is taken (pluggable metrics).
	OnStep func(Step)
}

// Step is what Options.OnStep sees after each step.
type Step struct {
	Index  int
	Sample Sample
	// Arrived and Total are the GPU milli requested by the pods arrived
	// so far and by all pods of the run.
	ArrivedGPUMilli, TotalGPUMilli float64
	// Harness is the run's scheduler and fake API server (read-only use:
	// its Scheduler's cache, Pod, Counts).
	Harness *replay.Harness
}

func (o Options) withDefaults() Options {
	if o.StepSeconds <= 0 {
		o.StepSeconds = 3600
	}
	if o.ArrivalScale <= 0 {
		o.ArrivalScale = 1
	}
	if o.SlotSeconds <= 0 {
		o.SlotSeconds = 3600
	}
	if o.Weight <= 0 {
		o.Weight = 5
	}
	return o
}

// Sample is the cluster at the end of one step.
type Sample struct {
	Time             float64 // trace seconds since the first arrival
	Running, Pending int
	// Arrived is the share of the pod list's total GPU request that has
	// arrived by this sample (the x axis of the FGD paper's allocation
	// and fragmentation curves, normalised to the list's total).
	Arrived           float64
	CPU, Memory, GPU  float64 // allocated share of the cluster's allocatable
	GPUFrag           float64 // share of the idle GPU capacity that is fragmented
	IdleGPU, FragGPUs float64 // idle GPUs, fragmented GPUs
}

// Result is one profile's run.
type Result struct {
	Profile Profile
	Pods    int // pods submitted
	// Scheduled counts pods bound at least once, PendingEnd the pods
	// waiting after the last arrival's step, GaveUp the pods deleted while
	// still pending (at their trace deletion time).
	Scheduled, PendingEnd, GaveUp int
	// Violations counts bindings refused because the node's allocatable
	// would be exceeded (checked by the simulator, not the scheduler).
	Violations int
	// ScoredOwn, ScoredBucketed and NotScored count the msched plugin's
	// PreScore calls (scheduling cycles, retries included) that scored the
	// pod with its own port's row, with the nearest port's (a shape past
	// maxPorts, or a port not added yet) or not at all (no scores yet).
	// Zero for the profiles without an msched plugin.
	ScoredOwn, ScoredBucketed, NotScored int64
	Samples                              []Sample
	Wall                                 time.Duration
	// Busy is the wall time from the first pod creation of each step to
	// the scheduler being idle again, summed over steps: the time the
	// scheduler had work. Scheduled/Busy is the throughput.
	Busy time.Duration
	// Cycles holds the duration of every scheduling algorithm run
	// (Scheduler.SchedulePod: PreFilter, Filter, PreScore, Score and the
	// node choice of one pod, retries included), in call order.
	Cycles []time.Duration
}

// Mean returns the time average of f over the samples.
func (r *Result) Mean(f func(Sample) float64) float64 {
	if len(r.Samples) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range r.Samples {
		s += f(x)
	}
	return s / float64(len(r.Samples))
}

const (
	stNew = iota
	stPending
	stBound
	stDone
	stGaveUp
)

// settleTimeout bounds the wait for an idle scheduler after one step
// without progress (a pod bound, refused or tried).
const settleTimeout = time.Minute

type simPod struct {
	p        trace.Pod
	arrive   float64 // trace seconds, scaled
	giveUp   float64 // arrive + (deletion - creation)
	state    int
	node     int
	req      [3]int64 // cpu milli, memory MiB, gpu milli
	obj      *v1.Pod
	departAt float64
}

type sim struct {
	mu    sync.Mutex // guards what the binding hooks write
	pods  []*simPod
	byKey map[string]*simPod
	nodes []trace.Node
	index map[string]int
	cap   [][3]int64
	used  [][3]int64
	now   float64 // trace seconds
	start time.Time

	bound, violations, pendingN, liveBound int
	newlyBound                             []*simPod
}

// Run schedules the trace's pods on its nodes with the real kube-scheduler
// (k8s.io/kubernetes/pkg/scheduler) configured as profile p, a fake
// clientset and informers (package kube/internal/replay); see the package
// documentation.
func Run(ctx context.Context, tr *trace.Trace, p Profile, o Options) (*Result, error) {
	o = o.withDefaults()
	wall := time.Now()
	s := &sim{byKey: map[string]*simPod{}, index: map[string]int{}, start: time.Unix(1_700_000_000, 0)}
	s.nodes = tr.Nodes
	if o.Nodes > 0 && o.Nodes < len(s.nodes) {
		// Every (len/Nodes)-th node, so that a subset keeps the mix of
		// CPU-only and GPU models of the file (sorted by kind).
		sub := make([]trace.Node, o.Nodes)
		for i := range sub {
			sub[i] = tr.Nodes[i*len(tr.Nodes)/o.Nodes]
		}
		s.nodes = sub
	}
	nodeObj, podObj := nodeObject, podObject
	if o.NodeObject != nil {
		nodeObj = o.NodeObject
	}
	if o.PodObject != nil {
		podObj = o.PodObject
	}
	nodes := make([]*v1.Node, 0, len(s.nodes))
	for i, n := range s.nodes {
		s.index[n.Name] = i
		gpu := int64(n.GPU) * 1000
		s.cap = append(s.cap, [3]int64{n.CPUMilli, n.MemoryMiB, gpu})
		nodes = append(nodes, nodeObj(n))
	}
	s.used = make([][3]int64, len(s.nodes))
	first := int64(-1)
	for _, tp := range tr.Pods {
		if !tp.HasTimes {
			continue
		}
		if o.Pods > 0 && len(s.pods) >= o.Pods {
			break
		}
		if first < 0 {
			first = tp.Creation
		}
		sp := &simPod{p: tp, node: -1, req: [3]int64{tp.CPUMilli, tp.MemoryMiB, int64(tp.NumGPU) * int64(tp.GPUMilli)}}
		sp.arrive = float64(tp.Creation-first) / o.ArrivalScale
		sp.giveUp = sp.arrive + float64(tp.Deletion-tp.Creation)
		if o.Hold {
			sp.giveUp = math.Inf(1)
		}
		sp.obj = podObj(tp)
		if _, dup := s.byKey[sp.obj.Name]; dup {
			return nil, fmt.Errorf("openb: pod name %q appears twice", sp.obj.Name)
		}
		s.pods = append(s.pods, sp)
		s.byKey[sp.obj.Name] = sp
	}
	if len(s.pods) == 0 {
		return nil, errors.New("openb: no pods with times")
	}
	frag := newFragModel(s.pods)

	yaml := o.SchedulerConfig
	if yaml == "" {
		var err error
		if yaml, err = configYAML(p, o.SlotSeconds, o.Weight, o.StatePath); err != nil {
			return nil, err
		}
	}
	clock := func() time.Time {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.start.Add(time.Duration(s.now * float64(time.Second)))
	}
	var msched *plugins.Plugin
	capture := func(name string) frameworkruntime.PluginFactory {
		f := plugins.FactoryWithClock(name, clock)
		return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
			pl, err := f(ctx, obj, h)
			if err == nil {
				msched = pl.(*plugins.Plugin)
			}
			return pl, err
		}
	}
	registry := frameworkruntime.Registry{
		plugins.OGASchedName: capture(plugins.OGASchedName),
		plugins.DRFName:      capture(plugins.DRFName),
		esdp.Name:            esdp.New,
		gang.Name:            gang.New,
	}
	maps.Copy(registry, o.Registry)
	h, err := replay.Start(ctx, replay.Config{
		SchedulerConfig: yaml,
		Nodes:           nodes,
		Registry:        registry,
		FeatureGates:    o.FeatureGates,
		Admit: func(pod *v1.Pod, node string) error {
			if err := s.admit(pod.Name, node); err != nil {
				return err
			}
			if o.Admit != nil {
				if err := o.Admit(pod, node); err != nil {
					s.unadmit(pod.Name, true)
					return err
				}
			}
			return nil
		},
		AfterBind:     o.AfterBind,
		SettleTimeout: settleTimeout,
		Logger:        o.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("openb: %w", err)
	}
	defer h.Close()

	res := &Result{Profile: p, Pods: len(s.pods)}
	var totalGPU, arrivedGPU float64
	for _, sp := range s.pods {
		totalGPU += float64(sp.req[2])
	}
	deps := &departures{}
	next := 0
	t := 0.0
	for step := 0; next < len(s.pods); step++ {
		if o.StepPods <= 0 || s.pods[next].arrive > t {
			t = max(t+o.StepSeconds, s.pods[next].arrive)
		}
		s.mu.Lock()
		s.now = t
		s.mu.Unlock()
		// Completions and give-ups up to t.
		for deps.Len() > 0 && (*deps)[0].departAt <= t {
			sp := heap.Pop(deps).(*simPod)
			if err := s.remove(ctx, h, sp, stDone); err != nil {
				return nil, err
			}
		}
		if !o.Hold {
			for _, sp := range s.pods[:next] {
				if sp.giveUp <= t && s.isPending(sp) {
					if err := s.remove(ctx, h, sp, stGaveUp); err != nil {
						return nil, err
					}
					res.GaveUp++
				}
			}
		}
		busy := time.Now()
		for n := 0; next < len(s.pods) && s.pods[next].arrive <= t && (o.StepPods <= 0 || n < o.StepPods); n++ {
			sp := s.pods[next]
			s.mu.Lock()
			sp.state = stPending
			s.pendingN++
			s.mu.Unlock()
			if err := h.Create(ctx, sp.obj); err != nil {
				return nil, fmt.Errorf("openb: creating %s: %w", sp.p.Name, err)
			}
			arrivedGPU += float64(sp.req[2])
			next++
		}
		if err := h.Settle(ctx); err != nil {
			return nil, fmt.Errorf("openb: %w", err)
		}
		res.Busy += time.Since(busy)
		s.mu.Lock()
		for _, sp := range s.newlyBound {
			if !o.Hold {
				sp.departAt = t + float64(sp.p.Duration())
				heap.Push(deps, sp)
			}
		}
		s.newlyBound = s.newlyBound[:0]
		smp := s.sample(t, frag)
		if totalGPU > 0 {
			smp.Arrived = arrivedGPU / totalGPU
		}
		res.Samples = append(res.Samples, smp)
		s.mu.Unlock()
		if o.OnStep != nil {
			o.OnStep(Step{Index: step, Sample: smp, ArrivedGPUMilli: arrivedGPU, TotalGPUMilli: totalGPU, Harness: h})
		}
	}
	s.mu.Lock()
	res.Scheduled, res.Violations, res.PendingEnd = s.bound, s.violations, s.pendingN
	s.mu.Unlock()
	res.Cycles = h.TakeCycles()
	if msched != nil {
		res.ScoredOwn, res.ScoredBucketed, res.NotScored = msched.ScoreCounts()
	}
	res.Wall = time.Since(wall)
	return res, nil
}

func (s *sim) isPending(sp *simPod) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return sp.state == stPending
}

// admit is the fake API server's binding check: the pod must fit the
// node's allocatable given the pods already bound there, independently of
// the scheduler. On success the pod counts as bound.
func (s *sim) admit(podName, nodeName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp, ok := s.byKey[podName]
	ni, nok := s.index[nodeName]
	if !ok || !nok || sp.state != stPending {
		return fmt.Errorf("openb: binding %s to %s: unknown pod or node, or pod not pending", podName, nodeName)
	}
	for k := range 3 {
		if s.used[ni][k]+sp.req[k] > s.cap[ni][k] {
			s.violations++
			return fmt.Errorf("openb: binding %s to %s would exceed allocatable (resource %d: %d + %d > %d)", podName, nodeName, k, s.used[ni][k], sp.req[k], s.cap[ni][k])
		}
	}
	for k := range 3 {
		s.used[ni][k] += sp.req[k]
	}
	sp.state, sp.node = stBound, ni
	s.bound++
	s.pendingN--
	s.liveBound++
	s.newlyBound = append(s.newlyBound, sp)
	return nil
}

// unadmit undoes admit for a binding that Options.Admit refused.
func (s *sim) unadmit(podName string, refused bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sp := s.byKey[podName]
	for k := range 3 {
		s.used[sp.node][k] -= sp.req[k]
	}
	sp.state, sp.node = stPending, -1
	s.bound--
	s.pendingN++
	s.liveBound--
	s.newlyBound = s.newlyBound[:len(s.newlyBound)-1]
	if refused {
		s.violations++
	}
}

// remove deletes a bound pod (completion) or a pending pod (give-up).
func (s *sim) remove(ctx context.Context, h *replay.Harness, sp *simPod, state int) error {
	s.mu.Lock()
	switch sp.state {
	case stBound:
		for k := range 3 {
			s.used[sp.node][k] -= sp.req[k]
		}
		s.liveBound--
	case stPending:
		s.pendingN--
	default:
		s.mu.Unlock()
		return nil
	}
	sp.state = state
	s.mu.Unlock()
	if _, err := h.Delete(ctx, sp.obj.Namespace, sp.obj.Name); err != nil {
		return fmt.Errorf("openb: %w", err)
	}
	return nil
}

func (s *sim) sample(t float64, f *fragModel) Sample {
	var used, capa [3]float64
	for i := range s.nodes {
		for k := range 3 {
			used[k] += float64(s.used[i][k])
			capa[k] += float64(s.cap[i][k])
		}
	}
	share := func(k int) float64 {
		if capa[k] == 0 {
			return 0
		}
		return used[k] / capa[k]
	}
	idle, fragd := f.fragmented(s)
	smp := Sample{Time: t, Running: s.liveBound, Pending: s.pendingN, CPU: share(0), Memory: share(1), GPU: share(2), IdleGPU: idle / 1000, FragGPUs: fragd / 1000}
	if idle > 0 {
		smp.GPUFrag = fragd / idle
	}
	return smp
}

func nodeObject(n trace.Node) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(n.CPUMilli, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(n.MemoryMiB<<20, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(1000, resource.DecimalSI),
	}
	labels := map[string]string{v1.LabelHostname: n.Name}
	if n.GPU > 0 {
		alloc[GPUResource] = *resource.NewQuantity(int64(n.GPU)*1000, resource.DecimalSI)
		labels[GPUModelLabel] = n.Model
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: labels, UID: types.UID("node-" + n.Name)},
		Status: v1.NodeStatus{
			Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

func podObject(p trace.Pod) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(p.CPUMilli, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(p.MemoryMiB<<20, resource.BinarySI),
	}
	if g := int64(p.NumGPU) * int64(p.GPUMilli); g > 0 {
		req[GPUResource] = *resource.NewQuantity(g, resource.DecimalSI)
	}
	pod := &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: "default", UID: types.UID("pod-" + p.Name),
			Labels: map[string]string{"msched.io/qos": p.QoS, "msched.io/gpus": strconv.Itoa(p.NumGPU)}},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Containers:    []v1.Container{{Name: "main", Image: "openb", Resources: v1.ResourceRequirements{Requests: req, Limits: req}}},
		},
	}
	if p.NumGPU > 0 && len(p.GPUSpec) > 0 {
		pod.Spec.Affinity = &v1.Affinity{NodeAffinity: &v1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &v1.NodeSelector{
			NodeSelectorTerms: []v1.NodeSelectorTerm{{MatchExpressions: []v1.NodeSelectorRequirement{{Key: GPUModelLabel, Operator: v1.NodeSelectorOpIn, Values: p.GPUSpec}}}},
		}}}
	}
	return pod
}

// departures is a min-heap of bound pods by departure time.
type departures []*simPod

func (d departures) Len() int           { return len(d) }
func (d departures) Less(i, j int) bool { return d[i].departAt < d[j].departAt }
func (d departures) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }
func (d *departures) Push(x any)        { *d = append(*d, x.(*simPod)) }
func (d *departures) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}
