package esdp

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/informers"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/msched/msched/bipartite"
	core "github.com/msched/msched/esdp"
	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "ESDP"

const stateKey fwk.StateKey = "msched.io/esdp"

// maxFinished bounds the finished pods remembered against double counting.
const maxFinished = 1 << 16

// snapshot is what one slot publishes: the score of every (port, node).
type snapshot struct {
	slot   int
	ports  map[string]int // shape key -> port
	nodes  map[string]int // node name -> server
	scores [][]int64      // [port][server], 0..100
	chosen int            // channels in x(t)
}

// outcome is one finished pod: its channel and reward.
type outcome struct {
	shape, node string
	reward      float64
	rv          string // the pod's resourceVersion when it was seen finished
}

// Plugin scores nodes by ESDP (paper 002) learned per (pod shape, node)
// from the outcomes of finished pods. Informer handlers record arrivals
// and outcomes; a background goroutine runs ESDP once per slot and
// publishes the scores; PreScore and Score only read the snapshot.
type Plugin struct {
	args  *Args
	h     fwk.Handle
	units []float64
	nodes corelisters.NodeLister
	pods  corelisters.PodLister
	epoch time.Time
	snap  atomic.Pointer[snapshot]

	mu       sync.Mutex // arrivals and outcomes
	arrivals map[string][]int
	outcomes []outcome
	finished map[types.UID]struct{} // outcomes taken (a relist re-delivers them)
	finOrder []types.UID

	stepMu   sync.Mutex // the policy and its model
	pol      *core.Policy
	portKeys []string
	portDem  [][]int
	servers  []string
	alloc    [][]int // [server] allocatable in units
	edgeOf   [][]int // [port][server] edge id or -1
	capacity []int
	lastSlot int
	dropped  int    // outcomes whose channel is not in the model
	observed int    // outcomes fed to the policy
	takenRV  string // the largest resourceVersion of the outcomes taken

	// Learned state outside the process (state.go).
	ctx     context.Context // the factory's: the background goroutine's lifetime
	store   statestore.Store
	release func()
	skipRV  atomic.Pointer[string] // outcomes up to this resourceVersion were taken before the restore
	start   sync.Once
	ld      *statestore.Loader // the first load attempt, the last refusal
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.PreScorePlugin  = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.SignPlugin      = (*Plugin)(nil)
	_ io.Closer           = (*Plugin)(nil)
)

// New is the plugin factory (app.WithPlugin(esdp.Name, esdp.New)). The
// background goroutine starts at the profile's first scoring cycle, which
// a replica runs only while it holds the leader lease: it loads the saved
// state, then watches outcomes and steps once per slot.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	p, err := newPlugin(obj, h, time.Now())
	if err != nil {
		return nil, err
	}
	if h.ClientSet() == nil {
		p.release()
		return nil, fmt.Errorf("%s: needs the framework handle's clientset", Name)
	}
	p.ctx = ctx
	return p, nil
}

// Close releases the profile's claim on its state object.
func (p *Plugin) Close() error {
	p.release()
	return nil
}

func newPlugin(obj runtime.Object, h fwk.Handle, epoch time.Time) (*Plugin, error) {
	a, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("%s: needs the framework handle's informer factory", Name)
	}
	p := &Plugin{args: a, h: h, epoch: epoch, arrivals: map[string][]int{}, lastSlot: -1, finished: map[types.UID]struct{}{},
		nodes:   h.SharedInformerFactory().Core().V1().Nodes().Lister(),
		pods:    h.SharedInformerFactory().Core().V1().Pods().Lister(),
		release: func() {}, ld: statestore.NewLoader(nil, statestore.DefaultRetry)}
	for _, r := range a.Resources {
		q := resource.MustParse(r.Unit)
		p.units = append(p.units, q.AsApproximateFloat64())
	}
	profile := h.ProfileName()
	if err := p.openStore(); err != nil {
		return nil, err
	}
	_, err = h.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			if pod, ok := o.(*v1.Pod); ok && pod.Spec.SchedulerName == profile && pod.Spec.NodeName == "" {
				p.Arrive(pod)
			}
		},
	})
	if err != nil {
		p.release()
		return nil, fmt.Errorf("%s: pod informer: %w", Name, err)
	}
	return p, nil
}

// watchOutcomes starts an informer on the profile's finished pods. The
// scheduler's own pod informer excludes terminated pods (a pod leaving it
// is delivered in its previous, running state), so outcomes need their
// own watch: a pod entering this selector arrives in its final state.
func (p *Plugin) watchOutcomes(ctx context.Context) error {
	cs := p.h.ClientSet()
	if cs == nil {
		return fmt.Errorf("%s: needs the framework handle's clientset", Name)
	}
	sel := "spec.schedulerName=" + p.h.ProfileName() + ",status.phase!=Pending,status.phase!=Running,status.phase!=Unknown"
	f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.FieldSelector = sel }))
	_, err := f.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { p.finishObj(o) },
		UpdateFunc: func(_, n any) { p.finishObj(n) },
	})
	if err != nil {
		return fmt.Errorf("%s: outcome informer: %w", Name, err)
	}
	f.Start(ctx.Done())
	return nil
}

func (p *Plugin) finishObj(o any) {
	if pod, ok := o.(*v1.Pod); ok {
		p.Finish(pod)
	}
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

// shape returns the pod's demand in units (rounded up) and its key.
func (p *Plugin) shape(pod *v1.Pod) ([]int, string) {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	d := make([]int, len(p.args.Resources))
	var b strings.Builder
	for k, r := range p.args.Resources {
		if q, ok := req[v1.ResourceName(r.Name)]; ok {
			d[k] = int(min(math.Ceil(q.AsApproximateFloat64()/p.units[k]-1e-9), math.MaxInt32))
		}
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(d[k]))
	}
	return d, b.String()
}

// Arrive records a pending pod of the profile as an arrival of its shape
// in the current slot (the informer calls it).
func (p *Plugin) Arrive(pod *v1.Pod) {
	d, key := p.shape(pod)
	p.mu.Lock()
	p.arrivals[key] = d
	p.mu.Unlock()
}

// Finish records the outcome of a pod that ran on a node and ended: the
// reward annotation if valid, else 1 for Succeeded and 0 for Failed.
// Pods deleted while running give no outcome.
func (p *Plugin) Finish(pod *v1.Pod) {
	if pod.Spec.NodeName == "" || (pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed) {
		return
	}
	r := 0.0
	if pod.Status.Phase == v1.PodSucceeded {
		r = 1
	}
	if raw, ok := pod.Annotations[p.args.RewardAnnotation]; ok {
		if v, err := strconv.ParseFloat(strings.TrimSpace(raw), 64); err == nil && v >= 0 && v <= 1 {
			r = v
		}
	}
	if skip := p.skipRV.Load(); skip != nil {
		if c, err := resourceversion.CompareResourceVersion(pod.ResourceVersion, *skip); err == nil && c <= 0 {
			return // taken before the restart: in the restored statistics
		}
	}
	_, key := p.shape(pod)
	p.mu.Lock()
	if _, dup := p.finished[pod.UID]; dup {
		p.mu.Unlock()
		return
	}
	p.finished[pod.UID] = struct{}{}
	p.finOrder = append(p.finOrder, pod.UID)
	if len(p.finOrder) > maxFinished { // forget the oldest, never double count a recent one
		delete(p.finished, p.finOrder[0])
		p.finOrder = p.finOrder[1:]
	}
	if len(p.outcomes) < 1<<16 { // bounded between slots
		p.outcomes = append(p.outcomes, outcome{shape: key, node: pod.Spec.NodeName, reward: r, rv: pod.ResourceVersion})
	}
	p.mu.Unlock()
}

// loop steps once per slot and saves the state after each step.
func (p *Plugin) loop(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("plugin", Name, "profile", p.h.ProfileName())
	statestore.RunSlots(ctx, time.Duration(p.args.SlotSeconds*float64(time.Second)), logger, "ESDP", p.step, p.save)
}

// Step ends the slot containing now (once per slot): it brings the model
// up to date (new shapes, nodes joining or leaving, via Policy.ChangeCluster),
// feeds the finished pods' rewards to the policy, decides x(t) for the
// shapes that had arrivals, and publishes the scores. The loop calls it
// every slot; tests call it with their own clock.
func (p *Plugin) Step(ctx context.Context, now time.Time) error {
	_, err := p.step(ctx, now)
	return err
}

// step is Step; stepped says whether the slot changed the learned state
// (outcomes taken or a decision made), so that it is worth saving.
func (p *Plugin) step(ctx context.Context, now time.Time) (stepped bool, err error) {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	t := p.slotOf(now)
	if t <= p.lastSlot {
		return false, nil
	}
	p.mu.Lock()
	arr, outs := p.arrivals, p.outcomes
	p.arrivals, p.outcomes = map[string][]int{}, nil
	p.mu.Unlock()
	for _, o := range outs {
		if c, err := resourceversion.CompareResourceVersion(o.rv, p.takenRV); p.takenRV == "" || (err == nil && c > 0) {
			p.takenRV = o.rv
		}
	}
	stepped = len(outs) > 0

	if err := p.refresh(arr); err != nil {
		return stepped, err
	}
	if p.pol == nil {
		return stepped, nil
	}
	p.feed(outs)
	cl := p.pol.Cluster()
	arrived := make([]bool, len(p.portKeys))
	for l, key := range p.portKeys {
		_, arrived[l] = arr[key]
	}
	x, err := p.pol.Decide(t, arrived)
	if err != nil {
		return stepped, fmt.Errorf("%s: slot %d: %w", Name, t, err)
	}
	p.lastSlot = t
	s := &snapshot{slot: t, ports: make(map[string]int, len(p.portKeys)), nodes: make(map[string]int, len(p.servers)), scores: make([][]int64, len(p.portKeys))}
	for r, n := range p.servers {
		s.nodes[n] = r
	}
	for l, key := range p.portKeys {
		s.ports[key] = l
		row := make([]int64, len(p.servers))
		for r := range p.servers {
			e := p.edgeOf[l][r]
			if e < 0 {
				continue
			}
			row[r] = score(x[e], p.pol.Mean(e), p.pol.Variance(t, e))
			if x[e] {
				s.chosen++
			}
		}
		s.scores[l] = row
	}
	p.snap.Store(s)
	klog.FromContext(ctx).V(2).Info("ESDP slot", "slot", t, "ports", len(p.portKeys), "nodes", len(p.servers), "edges", cl.NumEdges(),
		"arrivedPorts", len(arr), "outcomes", len(outs), "chosen", s.chosen, "scalable", p.pol.Last().Scalable)
	return true, nil
}

func (p *Plugin) slotOf(now time.Time) int {
	return int(max(0, min(now.Sub(p.epoch).Seconds()/p.args.SlotSeconds, math.MaxInt32)))
}

// score maps a channel to [0, 100]: 50 for being in this slot's decision
// x(t), plus 50 for an unplayed channel (its index is infinite: explore)
// or 49 i/(1+i) for a played one with index i = v^_e + sqrt(sigma^2_e),
// increasing in i and below the unplayed score.
func score(chosen bool, mean, variance float64) int64 {
	var s int64
	switch idx := mean + math.Sqrt(variance); {
	case math.IsInf(idx, 1):
		s = 50
	case idx > 0:
		s = int64(math.Round(49 * idx / (1 + idx)))
	}
	if chosen {
		s += 50
	}
	return s
}

// refresh adds new shapes (up to MaxPorts) and follows the nodes; p.stepMu held.
func (p *Plugin) refresh(arr map[string][]int) error {
	keys := slices.Clone(p.portKeys)
	dem := slices.Clone(p.portDem)
	newKeys := make([]string, 0, len(arr))
	for k := range arr {
		if !slices.Contains(keys, k) {
			newKeys = append(newKeys, k)
		}
	}
	slices.Sort(newKeys)
	for _, k := range newKeys {
		if len(keys) >= p.args.MaxPorts {
			break
		}
		keys = append(keys, k)
		dem = append(dem, arr[k])
	}
	nodes, err := p.nodes.List(labels.Everything())
	if err != nil {
		return fmt.Errorf("%s: listing nodes: %w", Name, err)
	}
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	// Requested per node (bound, unfinished pods of every profile): the
	// knapsack capacity c_k of (1) is the cluster's free capacity.
	used := map[string][]float64{}
	if pods, err := p.pods.List(labels.Everything()); err == nil {
		for _, q := range pods {
			if q.Spec.NodeName == "" || q.Status.Phase == v1.PodSucceeded || q.Status.Phase == v1.PodFailed {
				continue
			}
			u := used[q.Spec.NodeName]
			if u == nil {
				u = make([]float64, len(p.args.Resources))
				used[q.Spec.NodeName] = u
			}
			req := resourcehelper.PodRequests(q, resourcehelper.PodResourcesOptions{})
			for k, r := range p.args.Resources {
				if v, ok := req[v1.ResourceName(r.Name)]; ok {
					u[k] += v.AsApproximateFloat64() / p.units[k]
				}
			}
		}
	}
	var servers []string
	var alloc [][]int
	capacity := make([]int, len(p.args.Resources))
	for _, n := range nodes {
		if n.Spec.Unschedulable {
			continue
		}
		servers = append(servers, n.Name)
		a := make([]int, len(p.args.Resources))
		for k, r := range p.args.Resources {
			if q, ok := n.Status.Allocatable[v1.ResourceName(r.Name)]; ok {
				a[k] = int(min(q.AsApproximateFloat64()/p.units[k], math.MaxInt32))
				free := a[k]
				if u := used[n.Name]; u != nil {
					free = int(max(0, math.Floor(q.AsApproximateFloat64()/p.units[k]-u[k])))
				}
				capacity[k] = int(min(int64(capacity[k])+int64(free), math.MaxInt32))
			}
		}
		alloc = append(alloc, a)
	}
	if len(keys) == 0 || len(servers) == 0 {
		return nil
	}
	if p.pol != nil && slices.Equal(keys, p.portKeys) && slices.Equal(servers, p.servers) && slices.Equal(capacity, p.capacity) {
		return nil
	}
	edgeOf, cl, err := p.model(keys, dem, alloc, capacity)
	if err != nil {
		return err
	}
	if p.pol == nil {
		pol, err := core.New(cl, p.settings())
		if err != nil {
			return fmt.Errorf("%s: %w", Name, err)
		}
		p.pol = pol
	} else {
		portMap := make([]int, len(keys))
		for l, k := range keys {
			portMap[l] = slices.Index(p.portKeys, k)
		}
		serverMap := make([]int, len(servers))
		for r, n := range servers {
			serverMap[r] = slices.Index(p.servers, n)
		}
		if err := p.pol.ChangeCluster(cl, core.Mapping{Ports: portMap, Servers: serverMap}); err != nil {
			return fmt.Errorf("%s: rebuilding on %d shapes and %d nodes: %w", Name, len(keys), len(servers), err)
		}
	}
	p.portKeys, p.portDem, p.servers, p.alloc, p.edgeOf, p.capacity = keys, dem, servers, alloc, edgeOf, capacity
	return nil
}

func (p *Plugin) settings() core.Settings {
	return core.Settings{Oracle: core.OracleSettings{MaxBytes: p.args.OracleMiB << 20, MaxCells: p.args.OracleMiB << 20}}
}

// model builds ESDP's cluster on the shapes (demands dem) and the nodes
// (allocatable alloc): a channel where one pod of the shape fits the
// node's allocatable, knapsack capacity the cluster's free capacity.
func (p *Plugin) model(keys []string, dem, alloc [][]int, capacity []int) ([][]int, *core.Cluster, error) {
	K := len(p.args.Resources)
	servers := alloc
	edgeOf := make([][]int, len(keys))
	var edges []bipartite.Edge
	var demand []int
	for l := range keys {
		edgeOf[l] = make([]int, len(servers))
		for r := range servers {
			edgeOf[l][r] = -1
			fits := true
			for k := range K {
				fits = fits && dem[l][k] <= alloc[r][k]
			}
			if fits {
				edgeOf[l][r] = len(edges)
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
				demand = append(demand, dem[l]...)
			}
		}
	}
	g, err := bipartite.NewGraph(len(keys), len(servers), edges)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: graph of %d shapes and %d nodes: %w", Name, len(keys), len(servers), err)
	}
	return edgeOf, &core.Cluster{Graph: g, K: K, Demand: demand, Capacity: capacity, Cost: make([]float64, len(edges))}, nil
}

// feed gives the finished pods' rewards to the policy (Warm: they belong
// to pods placed in earlier slots, not to this slot's decision), each
// channel at most once per call; p.stepMu held.
func (p *Plugin) feed(outs []outcome) {
	E := p.pol.Cluster().NumEdges()
	for len(outs) > 0 {
		chosen, reward := make([]bool, E), make([]float64, E)
		var rest []outcome
		n := 0
		for _, o := range outs {
			l := slices.Index(p.portKeys, o.shape)
			r := slices.Index(p.servers, o.node)
			if l < 0 || r < 0 || p.edgeOf[l][r] < 0 {
				p.dropped++
				continue
			}
			e := p.edgeOf[l][r]
			if chosen[e] {
				rest = append(rest, o)
				continue
			}
			chosen[e], reward[e] = true, o.reward
			n++
		}
		if n > 0 {
			if err := p.pol.Warm(core.Feedback{Chosen: chosen, Reward: reward}); err == nil {
				p.observed += n
			}
		}
		outs = rest
	}
}

// PreFilter only starts the background goroutine at the profile's first
// scheduling cycle; it never rejects a pod. Enable it beside PreScore:
// kube-scheduler skips PreScore and Score when a single node passes the
// filters, so a profile whose pods all have one feasible node would
// otherwise never start learning.
func (p *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	p.ensureStarted(ctx)
	return nil, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

type nodeIdx struct {
	nodes map[string]int
	row   []int64
}

func (c *nodeIdx) Clone() fwk.StateData { return c }

// PreScore looks up the pod's shape in the published snapshot. A pod whose
// shape has no port yet (first seen this slot, or past MaxPorts) skips
// Score.
func (p *Plugin) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	p.ensureStarted(ctx)
	s := p.snap.Load()
	if s == nil {
		return fwk.NewStatus(fwk.Skip)
	}
	_, key := p.shape(pod)
	l, ok := s.ports[key]
	if !ok {
		return fwk.NewStatus(fwk.Skip)
	}
	state.Write(stateKey, &nodeIdx{nodes: s.nodes, row: s.scores[l]})
	return nil
}

// Score returns the published score of the pod's (shape, node) channel:
// 0 for a node the shape does not fit or that joined after the slot.
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	d, err := state.Read(stateKey)
	if err != nil {
		return 0, fwk.AsStatus(fmt.Errorf("%s: reading PreScore state: %w", Name, err))
	}
	c, ok := d.(*nodeIdx)
	if !ok {
		return 0, fwk.AsStatus(fmt.Errorf("%s: PreScore state has type %T", Name, d))
	}
	if n := ni.Node(); n != nil {
		if r, ok := c.nodes[n.Name]; ok {
			return c.row[r], nil
		}
	}
	return 0, nil
}

// ScoreExtensions implements fwk.ScorePlugin (scores are already in [0, 100]).
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return nil }

// SignPod: the score depends only on the pod's shape.
func (p *Plugin) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	_, key := p.shape(pod)
	return []fwk.SignFragment{{Key: "msched.io/esdp.shape", Value: key}}, nil
}

// Stats reports the rewards fed to the policy and those dropped (their
// shape or node was not in the model).
func (p *Plugin) Stats() (observed, dropped int) {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	return p.observed, p.dropped
}
