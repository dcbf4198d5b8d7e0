package dlrm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	config "k8s.io/kubernetes/pkg/scheduler/apis/config"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"

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
	// Logger receives progress (nil = none).
	Logger klog.Logger
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
	mu         sync.Mutex
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
	live       int // pods created and not deleted (Run's goroutine only)
	slot       int // the slot being replayed
}

// Run replays groups on nodes with the real kube-scheduler configured as
// profile p; see the package documentation.
func Run(ctx context.Context, groups []Group, nodes []Node, p Profile, o Options) (*Result, error) {
	if p != Default && p != Gang {
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
	var objs []runtime.Object
	for i, n := range nodes {
		s.index[n.Name] = i
		objs = append(objs, nodeObject(n))
	}
	sgs := make([]*simGroup, len(groups))
	for i, g := range groups {
		sg := &simGroup{g: g}
		for j, req := range g.Members {
			pod := podObject(g, j, req)
			sg.pods = append(sg.pods, pod)
			s.byPod[pod.Name] = sg
			s.podReq[pod.Name] = req
		}
		sgs[i] = sg
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	client := fake.NewClientset(objs...)
	client.PrependReactor("create", "pods", func(a clienttesting.Action) (bool, runtime.Object, error) {
		ca, ok := a.(clienttesting.CreateAction)
		if !ok || a.GetSubresource() != "binding" {
			return false, nil, nil
		}
		b, ok := ca.GetObject().(*v1.Binding)
		if !ok {
			return true, nil, fmt.Errorf("dlrm: binding object %T", ca.GetObject())
		}
		return true, b, s.bind(client, b.Name, b.Target.Name)
	})
	logger := o.Logger
	if logger.GetSink() == nil {
		logger = klog.NewKlogr().V(10)
	}
	cfg, err := loadConfig(logger, configYAML(p, o.PermitSeconds))
	if err != nil {
		return nil, fmt.Errorf("dlrm: config: %w", err)
	}
	informerFactory := scheduler.NewInformerFactory(client, 0, nil)
	recorders := func(string) events.EventRecorderLogger { return &events.FakeRecorder{} }
	ctx = klog.NewContext(ctx, logger)
	sched, err := scheduler.New(ctx, client, informerFactory, nil, profile.RecorderFactory(recorders),
		scheduler.WithProfiles(cfg.Profiles...),
		scheduler.WithFrameworkOutOfTreeRegistry(frameworkruntime.Registry{gang.Name: gang.New}),
		scheduler.WithPercentageOfNodesToScore(cfg.PercentageOfNodesToScore),
		scheduler.WithPodInitialBackoffSeconds(0),
		scheduler.WithPodMaxBackoffSeconds(0),
	)
	if err != nil {
		return nil, fmt.Errorf("dlrm: scheduler.New: %w", err)
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	go sched.Run(ctx)
	podStore := informerFactory.Core().V1().Pods().Informer().GetStore()
	for sched.Cache.NodeCount() != len(nodes) {
		if err := sleep(ctx, time.Millisecond); err != nil {
			return nil, err
		}
	}
	res := &Result{Profile: p, Groups: len(sgs)}
	gone := 0 // sgs[:gone] are deleted
	for i := 0; i < len(sgs); {
		slot := sgs[i].g.Slot
		s.mu.Lock()
		s.slot = slot
		s.mu.Unlock()
		for ; o.LifeSlots > 0 && gone < i && sgs[gone].g.Slot+o.LifeSlots <= slot; gone++ {
			if err := s.remove(ctx, client, sgs[gone], podStore); err != nil {
				return nil, err
			}
		}
		for ; i < len(sgs) && sgs[i].g.Slot == slot; i++ {
			sg := sgs[i]
			s.mu.Lock()
			sg.created = time.Now()
			s.pending += len(sg.pods)
			s.mu.Unlock()
			for _, pod := range sg.pods {
				if _, err := client.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
					return nil, fmt.Errorf("dlrm: creating %s: %w", pod.Name, err)
				}
				res.Pods++
				s.live++
				if err := s.pace(ctx, podStore); err != nil {
					return nil, err
				}
			}
		}
		if err := s.settle(ctx, sched); err != nil {
			return nil, err
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
		if sg.half {
			res.HalfBound++
		}
		if counts[i][0] == len(sg.pods) {
			res.PlaceSlots = append(res.PlaceSlots, sg.waited)
			if sg.waited == 0 {
				res.PlaceTimes = append(res.PlaceTimes, sg.placed)
			}
		}
	}
	res.Placed, res.PartialEnd, res.StrandedPods = countGroups(counts)
	res.PodsBound, res.Violations = s.totalBound, s.violations
	res.Wall = time.Since(wall)
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

func sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// bind is the fake API server's binding: it checks the node's allocatable
// independently of the scheduler, then sets spec.nodeName.
func (s *sim) bind(client *fake.Clientset, podName, nodeName string) error {
	s.mu.Lock()
	sg, ok := s.byPod[podName]
	ni, nok := s.index[nodeName]
	if ok && sg.removed {
		s.mu.Unlock()
		return apierrors.NewNotFound(v1.Resource("pods"), podName)
	}
	if !ok || !nok || s.podBound[podName] {
		s.mu.Unlock()
		return fmt.Errorf("dlrm: binding %s to %s: unknown pod or node, or pod bound", podName, nodeName)
	}
	req := s.podReq[podName]
	for k := range nres {
		if s.used[ni][k]+req[k] > s.nodes[ni].Alloc[k] {
			s.violations++
			s.mu.Unlock()
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
	var obj *v1.Pod
	for _, p := range sg.pods {
		if p.Name == podName {
			obj = p.DeepCopy()
		}
	}
	s.mu.Unlock()
	obj.Spec.NodeName = nodeName
	return client.Tracker().Update(v1.SchemeGroupVersion.WithResource("pods"), obj, obj.Namespace)
}

// remove deletes every pod of a group: bound pods free their node,
// pending pods leave the queue. The group's bound count is kept as its
// final state.
func (s *sim) remove(ctx context.Context, client *fake.Clientset, sg *simGroup, store cache.Store) error {
	s.mu.Lock()
	sg.final = sg.bound
	sg.removed = true
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
		if err := client.CoreV1().Pods(pod.Namespace).Delete(ctx, pod.Name, metav1.DeleteOptions{}); err != nil {
			return fmt.Errorf("dlrm: deleting %s: %w", pod.Name, err)
		}
		s.live--
		if err := s.pace(ctx, store); err != nil {
			return err
		}
	}
	return nil
}

// maxLag bounds the pod events the informers may lag behind: the fake
// clientset's watch channels hold 100 events and panic when full.
const maxLag = 32

// pace waits until the pod informer's store is within maxLag pods of the
// live pod count.
func (s *sim) pace(ctx context.Context, store cache.Store) error {
	deadline := time.Now().Add(settleTimeout)
	for d := len(store.ListKeys()) - s.live; d > maxLag || d < -maxLag; d = len(store.ListKeys()) - s.live {
		if time.Now().After(deadline) {
			return fmt.Errorf("dlrm: the pod informer lags %d pods after %v", d, settleTimeout)
		}
		if err := sleep(ctx, 100*time.Microsecond); err != nil {
			return err
		}
	}
	return nil
}

// settleTimeout bounds the wait for an idle scheduler after one slot.
const settleTimeout = 2 * time.Minute

// settle waits until the scheduler is idle: every pending pod is in its
// queue, none is active, backing off or in flight (waiting at Permit
// counts as in flight), and its cache holds exactly the bound pods; three
// times in a row.
func (s *sim) settle(ctx context.Context, sched *scheduler.Scheduler) error {
	stable := 0
	deadline := time.Now().Add(settleTimeout)
	last := ""
	for stable < 3 {
		if time.Now().After(deadline) {
			return fmt.Errorf("dlrm: the scheduler did not settle within %v: %s", settleTimeout, last)
		}
		pending, summary := sched.SchedulingQueue.PendingPods()
		var active, backoff int
		if _, err := fmt.Sscanf(summary, "activeQ:%d; backoffQ:%d;", &active, &backoff); err != nil {
			return fmt.Errorf("dlrm: queue summary %q: %w", summary, err)
		}
		inflight := len(sched.SchedulingQueue.InFlightPods())
		cached, _ := sched.Cache.PodCount()
		s.mu.Lock()
		ok := active == 0 && backoff == 0 && inflight == 0 && len(pending) == s.pending && cached == s.bound
		last = fmt.Sprintf("queue %q, %d in flight, %d pending in queue, %d pending in replay, %d pods cached, %d bound", summary, inflight, len(pending), s.pending, cached, s.bound)
		s.mu.Unlock()
		if ok {
			stable++
		} else {
			stable = 0
		}
		if err := sleep(ctx, time.Millisecond); err != nil {
			return err
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
func configYAML(p Profile, permitSeconds int64) string {
	y := `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
`
	if p == Gang {
		y += fmt.Sprintf(`  plugins:
    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
  pluginConfig:
  - name: Gang
    args:
      permitWaitingTimeSeconds: %d
`, permitSeconds)
	}
	return y
}

func loadConfig(logger klog.Logger, yaml string) (*config.KubeSchedulerConfiguration, error) {
	dir, err := os.MkdirTemp("", "dlrm-config")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		return nil, err
	}
	return options.LoadConfigFromFile(logger, path)
}
