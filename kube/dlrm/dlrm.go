package dlrm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/msched/msched/kube/internal/replay"
	"github.com/msched/msched/kube/plugins/gang"
	"github.com/msched/msched/trace"
)

// Profile names a scheduler configuration of the replay.
type Profile string

// The profiles: kube-scheduler's default, and the default plus plugins/gang.
const (
	Default Profile = "Default"
	Gang    Profile = "Gang"
)

// Resource names of the replay (besides cpu, memory, nvidia.com/gpu and
// ephemeral-storage).
const (
	RDMAResource   = "msched.io/rdma"
	CNSlotResource = "msched.io/cn-slot"
	GPUResource    = "nvidia.com/gpu"
)

// ErrNoGroups is returned when the trace gives no group to replay.
var ErrNoGroups = errors.New("dlrm: no groups")

// nres is the number of resources tracked per node: cpu (vCPU), memory
// (MiB), GPUs, RDMA (percent), disk (MiB), CN slots.
const nres = 6

// Group is one gang of the replay.
type Group struct {
	Name string
	App  string
	Slot int
	// Members are the requests of its pods, in the order of nres.
	Members [][nres]int64
}

// Options configures Run.
type Options struct {
	// Groups keeps the first Groups group arrivals (0 = all).
	Groups int
	// LifeSlots, when > 0, deletes every pod of a group (bound or not)
	// LifeSlots slots after the group arrived: the service ends, or gives
	// up. 0 holds every group to the end (the cluster fills).
	LifeSlots int
	// PermitSeconds is plugins/gang's permitWaitingTimeSeconds (default 5).
	PermitSeconds int64
	// GangArgs holds more plugins/gang args of the Gang profile, as
	// "key: value" YAML lines (e.g. "reserveBlockedMillis: 500").
	GangArgs []string
	// Logger receives progress (nil = none).
	Logger klog.Logger

	// SchedulerConfig, when set, is the whole KubeSchedulerConfiguration
	// YAML used instead of the profile's (the profile then only names the
	// run, and need not be Default or Gang); see
	// replay.Config.SchedulerConfig.
	SchedulerConfig string
	// Registry adds out-of-tree plugins to plugins/gang (same name: this
	// one wins).
	Registry frameworkruntime.Registry
	// FeatureGates are set for the run (process-wide; e.g.
	// {"GenericWorkload": true} for upstream's gang scheduling).
	FeatureGates map[string]bool
	// BackoffSeconds is the scheduler's pod backoff, initial and max
	// (default 0: retries do not wait for wall-clock time).
	BackoffSeconds int64
	// PodObject, when set, builds member j of group g instead of the
	// default pod (e.g. spec.schedulingGroup for upstream PodGroups).
	// GroupObjects, when set, returns extra objects created with the
	// group, before its members (e.g. a scheduling.k8s.io/v1beta1
	// PodGroup); Objects are created before the scheduler starts.
	PodObject    func(g Group, j int, req [nres]int64) *v1.Pod
	GroupObjects func(g Group) []runtime.Object
	Objects      []runtime.Object
	// AfterBind is called once a pod is bound; see replay.Config.
	AfterBind func(pod *v1.Pod, node string)
	// WallPermitTimeouts lets members waiting at Permit time out in wall
	// time; by default the replay fires the timeout as soon as nothing
	// else can happen (replay.Config.WallPermitTimeouts).
	WallPermitTimeouts bool
	// SettleOnFailedRetries ends a slot when the only pods left are being
	// retried after failing since the last change
	// (replay.Config.SettleOnFailedRetries; on for Upstream).
	SettleOnFailedRetries bool
}

// Groups returns the replay's groups and nodes from the DLRM trace through
// trace.DLRMGangInstance with its defaults (see the package doc).
func Groups(ins []trace.DLRMInstance) ([]Group, []Node, error) {
	g, err := trace.DLRMGangInstance(ins, trace.DLRMGangOptions{})
	if err != nil {
		return nil, nil, fmt.Errorf("dlrm: %w", err)
	}
	m := g.Model
	var out []Group
	for t, row := range g.Arrivals {
		for l, x := range row {
			if x == 0 {
				continue
			}
			lo, hi := m.Components(l)
			grp := Group{Name: fmt.Sprintf("g%d-%s", t, g.Apps[l]), App: g.Apps[l], Slot: t}
			for c := lo; c < hi; c++ {
				grp.Members = append(grp.Members, request(m.Demand(c)))
			}
			out = append(out, grp)
		}
	}
	var nodes []Node
	for r := range m.NumServers() {
		alloc := request(m.Capacity(r))
		role := "hn"
		if alloc[5] > 0 {
			role = "cn"
		}
		nodes = append(nodes, Node{Name: fmt.Sprintf("%s-%02d", role, r), Alloc: alloc})
	}
	return out, nodes, nil
}

// Node is one server of the replay.
type Node struct {
	Name  string
	Alloc [nres]int64
}

// request converts a demand or capacity in trace.DLRMUnits (in the order
// of trace.DLRMResourceNames) to the replay's integer units in its own
// order: vCPU, memory MiB, GPUs, RDMA percent, disk MiB, CN slots. CPU, GPU,
// RDMA and slots are integers in the trace; memory and disk (GiB, with
// decimals) are rounded up to MiB.
func request(units []float64) [nres]int64 {
	// trace.DLRMResourceNames order: CPU, GPU, MEM, RDMA, DISK, CN-SLOT.
	to := [nres]int{0, 2, 1, 3, 4, 5}
	var out [nres]int64
	for k, u := range units[:min(len(units), nres)] {
		v := u * trace.DLRMUnits[k]
		switch k {
		case 2, 4: // GiB -> MiB
			out[to[k]] = int64(math.Ceil(v*1024 - 1e-6))
		default:
			out[to[k]] = int64(math.Round(v))
		}
	}
	return out
}

// Result is one profile's replay.
type Result struct {
	Profile Profile
	Groups  int // groups submitted
	Pods    int // pods submitted
	// Placed counts the groups with every member bound when they left
	// (Options.LifeSlots) or at the end, HalfBound the groups seen with
	// some but not all members bound at any idle point, PartialEnd those
	// still so when they left or at the end.
	Placed, HalfBound, PartialEnd int
	// PodsBound counts pods ever bound; StrandedPods the bound pods of
	// groups half-bound when they left or at the end (capacity held by
	// services that cannot run).
	PodsBound, StrandedPods int
	// Violations counts bindings refused because a node's allocatable
	// would be exceeded (checked by the replay, not the scheduler).
	Violations int
	// PlaceSlots holds, per placed group, the slots it waited: 0 when it
	// was placed whole in its arrival slot. PlaceTimes holds the wall time
	// to place of the groups placed in their arrival slot (creation of the
	// first member to binding of the last, on the replay's machine).
	PlaceSlots []int
	PlaceTimes []time.Duration
	Wall       time.Duration
	// PlaceWall holds, per placed group, its wall time to place (creation
	// of the first member to binding of the last), whatever slot it was
	// placed in; Slots counts the hourly slots replayed.
	PlaceWall []time.Duration
	Slots     int
	// IdleGPUSeconds is the GPU time members held between Reserve and
	// their binding or release (GPUs × wall seconds): what members
	// waiting at Permit keep from other work.
	IdleGPUSeconds float64
	// PermitTimeouts counts the Permit timeouts the replay fired instead
	// of waiting for them, PermitLoops the slots whose members kept
	// timing out at Permit (see replay.Config.MaxPermitTimeouts).
	PermitTimeouts, PermitLoops int
	// LostSteps counts the slots that ended with pending members the
	// scheduler held neither in its queue nor in flight
	// (replay.Counts.LostSteps).
	LostSteps int
	// RetrySettles counts the slots that ended while pods that had failed
	// since the last change were being retried
	// (replay.Counts.RetrySettles).
	RetrySettles int
	// GroupBound holds, per group in arrival order, its members bound
	// when it left (Options.LifeSlots) or at the end, and GroupWaited the
	// slots from its arrival to its last binding (-1: never whole); for
	// comparing profiles group by group.
	GroupBound, GroupWaited []int
}

type simGroup struct {
	g       Group
	pods    []*v1.Pod
	bound   int
	created time.Time
	placed  time.Duration
	waited  int // slots from arrival to placed whole
	half    bool
	removed bool
	final   int // bound members when removed
}

type sim struct {
	mu         sync.Mutex // guards what the binding hook writes
	nodes      []Node
	index      map[string]int
	used       [][nres]int64
	byPod      map[string]*simGroup
	podReq     map[string][nres]int64
	podNode    map[string]int  // bound pods' nodes
	podBound   map[string]bool // pods ever bound
	pending    int
	bound      int // pods bound now
	totalBound int // pods ever bound
	violations int
	slot       int // the slot being replayed
}

// settleTimeout bounds the wait for an idle scheduler after one slot
// without progress.
const settleTimeout = 2 * time.Minute

// Run replays groups on nodes with the real kube-scheduler configured as
// profile p (package kube/internal/replay); see the package documentation.
func Run(ctx context.Context, groups []Group, nodes []Node, p Profile, o Options) (*Result, error) {
	if p == Upstream {
		o = upstreamOptions(o)
	}
	if p != Default && p != Gang && o.SchedulerConfig == "" {
		return nil, fmt.Errorf("%w: unknown profile %q", ErrNoGroups, p)
	}
	if o.PermitSeconds <= 0 {
		o.PermitSeconds = 5
	}
	if o.Groups > 0 && o.Groups < len(groups) {
		groups = groups[:o.Groups]
	}
	if len(groups) == 0 || len(nodes) == 0 {
		return nil, fmt.Errorf("%w: %d groups, %d nodes", ErrNoGroups, len(groups), len(nodes))
	}
	wall := time.Now()
	s := &sim{nodes: nodes, index: map[string]int{}, used: make([][nres]int64, len(nodes)),
		byPod: map[string]*simGroup{}, podReq: map[string][nres]int64{}, podBound: map[string]bool{}, podNode: map[string]int{}}
	nodeObjs := make([]*v1.Node, 0, len(nodes))
	for i, n := range nodes {
		s.index[n.Name] = i
		nodeObjs = append(nodeObjs, nodeObject(n))
	}
	podObj := podObject
	if o.PodObject != nil {
		podObj = o.PodObject
	}
	sgs := make([]*simGroup, len(groups))
	for i, g := range groups {
		sg := &simGroup{g: g}
		for j, req := range g.Members {
			pod := podObj(g, j, req)
			if _, dup := s.byPod[pod.Name]; dup {
				return nil, fmt.Errorf("%w: pod name %q appears twice", ErrNoGroups, pod.Name)
			}
			sg.pods = append(sg.pods, pod)
			s.byPod[pod.Name] = sg
			s.podReq[pod.Name] = req
		}
		sgs[i] = sg
	}
	yaml := o.SchedulerConfig
	if yaml == "" {
		yaml = configYAML(p, o.PermitSeconds, o.GangArgs...)
	}
	yaml, err := withPermitClock(yaml)
	if err != nil {
		return nil, err
	}
	clock := newPermitClock()
	registry := frameworkruntime.Registry{gang.Name: gang.New,
		PermitClockName: func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) { return clock, nil }}
	maps.Copy(registry, o.Registry)
	afterBind := func(pod *v1.Pod, node string) {
		clock.stop(pod.Name)
		if o.AfterBind != nil {
			o.AfterBind(pod, node)
		}
	}
	h, err := replay.Start(ctx, replay.Config{
		SchedulerConfig:       yaml,
		Nodes:                 nodeObjs,
		Objects:               o.Objects,
		Registry:              registry,
		FeatureGates:          o.FeatureGates,
		InitialBackoffSeconds: o.BackoffSeconds,
		MaxBackoffSeconds:     o.BackoffSeconds,
		Admit:                 func(pod *v1.Pod, node string) error { return s.admit(pod.Name, node) },
		AfterBind:             afterBind,
		WallPermitTimeouts:    o.WallPermitTimeouts,
		SettleOnFailedRetries: o.SettleOnFailedRetries,
		SettleTimeout:         settleTimeout,
		Logger:                o.Logger,
	})
	if err != nil {
		return nil, fmt.Errorf("dlrm: %w", err)
	}
	defer h.Close()
	res := &Result{Profile: p, Groups: len(sgs)}
	gone := 0 // sgs[:gone] are deleted
	for i := 0; i < len(sgs); {
		slot := sgs[i].g.Slot
		s.mu.Lock()
		s.slot = slot
		s.mu.Unlock()
		// Every group leaving at this slot is marked gone before the
		// first deletion: the capacity a deletion frees must not complete
		// another leaving group (counted placed as it leaves).
		leave := gone
		for ; o.LifeSlots > 0 && leave < i && sgs[leave].g.Slot+o.LifeSlots <= slot; leave++ {
			s.markRemoved(sgs[leave])
		}
		for ; gone < leave; gone++ {
			if err := s.remove(ctx, h, sgs[gone]); err != nil {
				return nil, err
			}
		}
		for ; i < len(sgs) && sgs[i].g.Slot == slot; i++ {
			sg := sgs[i]
			if o.GroupObjects != nil {
				for _, obj := range o.GroupObjects(sg.g) {
					if err := h.Client().Tracker().Add(obj); err != nil {
						return nil, fmt.Errorf("dlrm: group %s: %w", sg.g.Name, err)
					}
				}
			}
			s.mu.Lock()
			sg.created = time.Now()
			s.pending += len(sg.pods)
			s.mu.Unlock()
			for _, pod := range sg.pods {
				if err := h.Create(ctx, pod); err != nil {
					return nil, fmt.Errorf("dlrm: %w", err)
				}
				res.Pods++
			}
		}
		res.Slots++
		if err := h.Settle(ctx); err != nil {
			return nil, fmt.Errorf("dlrm: %w", err)
		}
		s.mu.Lock()
		for _, sg := range sgs[gone:i] {
			if halfBound(sg.bound, len(sg.pods)) {
				sg.half = true
			}
		}
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	counts := make([][2]int, len(sgs))
	for i, sg := range sgs {
		b := sg.bound
		if sg.removed {
			b = sg.final
		}
		counts[i] = [2]int{b, len(sg.pods)}
		res.GroupBound = append(res.GroupBound, b)
		w := -1
		if b == len(sg.pods) {
			w = sg.waited
		}
		res.GroupWaited = append(res.GroupWaited, w)
		if sg.half {
			res.HalfBound++
		}
		if counts[i][0] == len(sg.pods) {
			res.PlaceWall = append(res.PlaceWall, sg.placed)
			res.PlaceSlots = append(res.PlaceSlots, sg.waited)
			if sg.waited == 0 {
				res.PlaceTimes = append(res.PlaceTimes, sg.placed)
			}
		}
	}
	res.Placed, res.PartialEnd, res.StrandedPods = countGroups(counts)
	res.PodsBound, res.Violations = s.totalBound, s.violations
	c := h.Counts()
	res.PermitTimeouts, res.PermitLoops, res.LostSteps, res.RetrySettles = c.PermitTimeouts, c.PermitLoops, c.LostSteps, c.RetrySettles
	res.Wall = time.Since(wall)
	res.IdleGPUSeconds = clock.GPUSeconds()
	return res, nil
}

// halfBound reports whether a group of size members with bound of them
// bound is half-bound: some, not all.
func halfBound(bound, size int) bool { return bound > 0 && bound < size }

// countGroups returns, over (bound, size) pairs, the groups bound whole,
// the groups half-bound, and the bound pods of half-bound groups.
func countGroups(gs [][2]int) (whole, half, stranded int) {
	for _, g := range gs {
		switch {
		case g[0] == g[1] && g[1] > 0:
			whole++
		case halfBound(g[0], g[1]):
			half++
			stranded += g[0]
		}
	}
	return whole, half, stranded
}

// admit is the fake API server's binding check: the pod must fit the
// node's allocatable given the pods bound there, independently of the
// scheduler. On success the pod counts as bound.
func (s *sim) admit(podName, nodeName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	sg, ok := s.byPod[podName]
	ni, nok := s.index[nodeName]
	if ok && sg.removed {
		return apierrors.NewNotFound(v1.Resource("pods"), podName)
	}
	if !ok || !nok || s.podBound[podName] {
		return fmt.Errorf("dlrm: binding %s to %s: unknown pod or node, or pod bound", podName, nodeName)
	}
	req := s.podReq[podName]
	for k := range nres {
		if s.used[ni][k]+req[k] > s.nodes[ni].Alloc[k] {
			s.violations++
			return fmt.Errorf("dlrm: binding %s to %s would exceed allocatable (resource %d: %d + %d > %d)", podName, nodeName, k, s.used[ni][k], req[k], s.nodes[ni].Alloc[k])
		}
	}
	for k := range nres {
		s.used[ni][k] += req[k]
	}
	s.podBound[podName] = true
	s.podNode[podName] = ni
	s.totalBound++
	s.bound++
	s.pending--
	sg.bound++
	if sg.bound == len(sg.pods) {
		sg.placed = time.Since(sg.created)
		sg.waited = s.slot - sg.g.Slot
	}
	return nil
}

// markRemoved fixes the group's final bound count and refuses its
// bindings from now on (admit); idempotent.
func (s *sim) markRemoved(sg *simGroup) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !sg.removed {
		sg.final = sg.bound
		sg.removed = true
	}
}

// remove deletes every pod of a group: bound pods free their node,
// pending pods leave the queue. The group's bound count is kept as its
// final state.
func (s *sim) remove(ctx context.Context, h *replay.Harness, sg *simGroup) error {
	s.markRemoved(sg)
	s.mu.Lock()
	for _, pod := range sg.pods {
		if ni, ok := s.podNode[pod.Name]; ok {
			req := s.podReq[pod.Name]
			for k := range nres {
				s.used[ni][k] -= req[k]
			}
			delete(s.podNode, pod.Name)
			s.bound--
		} else {
			s.pending--
		}
	}
	s.mu.Unlock()
	for _, pod := range sg.pods {
		if _, err := h.Delete(ctx, pod.Namespace, pod.Name); err != nil {
			return fmt.Errorf("dlrm: %w", err)
		}
	}
	return nil
}

func quantities(r [nres]int64) v1.ResourceList {
	l := v1.ResourceList{
		v1.ResourceCPU:              *resource.NewQuantity(r[0], resource.DecimalSI),
		v1.ResourceMemory:           *resource.NewQuantity(r[1]<<20, resource.BinarySI),
		v1.ResourceEphemeralStorage: *resource.NewQuantity(r[4]<<20, resource.BinarySI),
	}
	if r[2] > 0 {
		l[GPUResource] = *resource.NewQuantity(r[2], resource.DecimalSI)
	}
	if r[3] > 0 {
		l[RDMAResource] = *resource.NewQuantity(r[3], resource.DecimalSI)
	}
	if r[5] > 0 {
		l[CNSlotResource] = *resource.NewQuantity(r[5], resource.DecimalSI)
	}
	return l
}

func nodeObject(n Node) *v1.Node {
	alloc := quantities(n.Alloc)
	alloc[v1.ResourcePods] = *resource.NewQuantity(1000, resource.DecimalSI)
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: n.Name, Labels: map[string]string{v1.LabelHostname: n.Name}, UID: types.UID("node-" + n.Name)},
		Status: v1.NodeStatus{
			Capacity: alloc, Allocatable: alloc,
			Conditions: []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue}},
		},
	}
}

func podObject(g Group, j int, req [nres]int64) *v1.Pod {
	r := quantities(req)
	name := fmt.Sprintf("%s-%d", g.Name, j)
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID("pod-" + name),
			Labels:      map[string]string{gang.DefaultGroupLabel: g.Name, "msched.io/app": g.App},
			Annotations: map[string]string{gang.DefaultMinMemberKey: strconv.Itoa(len(g.Members))}},
		Spec: v1.PodSpec{
			SchedulerName: v1.DefaultSchedulerName,
			Containers:    []v1.Container{{Name: "main", Image: "dlrm", Resources: v1.ResourceRequirements{Requests: r, Limits: r}}},
		},
	}
}

// configYAML returns the KubeSchedulerConfiguration of the profile: one
// profile named default-scheduler scoring every node.
func configYAML(p Profile, permitSeconds int64, gangArgs ...string) string {
	y := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
`
	if p == Gang {
		y += fmt.Sprintf(`  plugins:
    queueSort: {enabled: [{name: Gang}], disabled: [{name: "*"}]}
    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
  pluginConfig:
  - name: Gang
    args:
      permitWaitingTimeSeconds: %d
`, permitSeconds)
		for _, a := range gangArgs {
			y += "      " + a + "\n"
		}
	}
	return y
}
