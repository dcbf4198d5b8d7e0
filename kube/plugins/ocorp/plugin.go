package ocorp

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
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/msched/msched/kube/plugins/internal/statestore"
	core "github.com/msched/msched/ocorp"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "OCORP"

// snapshot is one slot's published duals: omega_j per pod, and the slot
// clock they were computed on (Unix nanoseconds of slot 0), so that every
// profile's instance (the queue may sort with an unmanaged profile's
// Less) prices a pod without a published omega on the managed profile's
// clock, the restored one after a restart.
type snapshot struct {
	slot  int
	epoch int64
	omega map[types.UID]float64
}

// registry: one published snapshot per managed profile, shared by the
// plugin instances of every profile (the queue uses one instance's Less).
var registry sync.Map // profile name -> *atomic.Pointer[snapshot]

func entry(profile string) *atomic.Pointer[snapshot] {
	e, _ := registry.LoadOrStore(profile, new(atomic.Pointer[snapshot]))
	return e.(*atomic.Pointer[snapshot])
}

// Plugin orders the queue by OCORP's duals (QueueSort) and preempts by
// OCORP's rule (PostFilter). The instance in a managed profile runs the
// policy once per slot in a background goroutine and publishes the duals;
// Less and PostFilter only read the published snapshot.
type Plugin struct {
	args    *Args
	h       fwk.Handle
	managed map[string]*atomic.Pointer[snapshot] // immutable after New
	own     *atomic.Pointer[snapshot]            // nil unless this profile is managed
	epochNs atomic.Int64                         // slot 0 of this instance's clock (restore moves it; Less reads it)

	// dual loop state (stepMu)
	stepMu   sync.Mutex
	pol      *core.Policy
	machines []core.Machine
	ids      map[types.UID]int
	nextID   int
	lastSlot int
	pods     corelisters.PodLister
	nodes    corelisters.NodeLister

	// Learned state outside the process (state.go); managed profile only.
	ctx      context.Context // the factory's: the goroutine's lifetime
	store    statestore.Store
	release  func()
	start    sync.Once
	evicting chan struct{}      // one token per preemption evicting (cap maxEvictions)
	ld       *statestore.Loader // the first load attempt, the last refusal
}

var (
	_ fwk.QueueSortPlugin  = (*Plugin)(nil)
	_ fwk.PreFilterPlugin  = (*Plugin)(nil)
	_ fwk.PostFilterPlugin = (*Plugin)(nil)
	_ io.Closer            = (*Plugin)(nil)
)

// New is the plugin factory (app.WithPlugin(ocorp.Name, ocorp.New)). In a
// managed profile the slot goroutine starts at the profile's first
// scheduling cycle (PreFilter, or PostFilter when PreFilter is not
// enabled), which a replica runs only while it holds the leader lease: it
// loads the saved state, then steps once per slot and saves.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	p, err := newPlugin(obj, h, time.Now())
	if err != nil {
		return nil, err
	}
	p.ctx = ctx
	return p, nil
}

// Close releases the profile's claim on its state object.
func (p *Plugin) Close() error {
	p.release()
	return nil
}

// PreFilter only starts the slot goroutine at the first scheduling cycle
// of a managed profile; it never rejects a pod.
func (p *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, _ *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	p.ensureStarted(ctx)
	return nil, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func newPlugin(obj runtime.Object, h fwk.Handle, epoch time.Time) (*Plugin, error) {
	a, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	p := &Plugin{args: a, h: h, managed: map[string]*atomic.Pointer[snapshot]{}, ids: map[types.UID]int{}, lastSlot: -1,
		release: func() {}, ld: statestore.NewLoader(nil, statestore.DefaultRetry), evicting: make(chan struct{}, maxEvictions)}
	p.setEpoch(epoch)
	for _, name := range a.Profiles {
		p.managed[name] = entry(name)
	}
	if h != nil && slices.Contains(a.Profiles, h.ProfileName()) {
		if h.SharedInformerFactory() == nil {
			return nil, fmt.Errorf("%s: needs the framework handle's informer factory", Name)
		}
		p.own = p.managed[h.ProfileName()]
		p.pods = h.SharedInformerFactory().Core().V1().Pods().Lister()
		p.nodes = h.SharedInformerFactory().Core().V1().Nodes().Lister()
		if err := p.openStore(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

// loop steps once per slot and saves the state after each step.
func (p *Plugin) loop(ctx context.Context) {
	logger := klog.FromContext(ctx).WithValues("plugin", Name, "profile", p.h.ProfileName())
	statestore.RunSlots(ctx, time.Duration(p.args.SlotSeconds*float64(time.Second)), logger, "OCORP", p.step, p.save)
}

// Step runs OCORP's decision for the slot containing now (once per slot)
// on the profile's unfinished pods and the nodes, and publishes the duals.
// The loop calls it every slot; tests call it with their own clock.
func (p *Plugin) Step(ctx context.Context, now time.Time) error {
	_, err := p.step(ctx, now)
	return err
}

// step is Step; stepped says whether the policy decided a slot.
func (p *Plugin) step(ctx context.Context, now time.Time) (stepped bool, err error) {
	if p.own == nil {
		return false, nil
	}
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	t := p.slotOf(now)
	if t <= p.lastSlot {
		return false, nil
	}
	nodes, err := p.nodes.List(labels.Everything())
	if err != nil {
		return false, fmt.Errorf("%s: listing nodes: %w", Name, err)
	}
	slices.SortFunc(nodes, func(a, b *v1.Node) int { return strings.Compare(a.Name, b.Name) })
	var ms []core.Machine
	maxCores := 0
	for _, n := range nodes {
		c := int(n.Status.Allocatable.Cpu().MilliValue() / 1000)
		if c >= 1 && !n.Spec.Unschedulable {
			ms = append(ms, core.Machine{Cores: c})
			maxCores = max(maxCores, c)
		}
	}
	if len(ms) == 0 {
		return false, nil
	}
	if p.pol == nil || !slices.Equal(ms, p.machines) {
		pol, err := core.New(ms, core.Settings{K: p.args.K, Fill: true})
		if err != nil {
			return false, fmt.Errorf("%s: building the policy on %d nodes: %w", Name, len(ms), err)
		}
		p.pol, p.machines = pol, ms
	}
	all, err := p.pods.List(labels.Everything())
	if err != nil {
		return false, fmt.Errorf("%s: listing pods: %w", Name, err)
	}
	profile := p.h.ProfileName()
	live := all[:0:0]
	for _, q := range all {
		if q.Spec.SchedulerName == profile && q.DeletionTimestamp == nil && q.Status.Phase != v1.PodSucceeded && q.Status.Phase != v1.PodFailed {
			live = append(live, q)
		}
	}
	slices.SortFunc(live, func(a, b *v1.Pod) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	live = live[:min(len(live), p.args.MaxJobs)]
	seen := make(map[types.UID]int, len(live))
	obs := core.Obs{Jobs: make([]core.ActiveJob, 0, len(live))}
	jobs := make([]core.Job, 0, len(live))
	uids := make([]types.UID, 0, len(live))
	for _, q := range live {
		j := p.jobOf(q, t)
		if j.Cores > maxCores {
			j.Cores = maxCores // split over servers (Remark 1) is not possible for a pod; cap the rate
		}
		id, ok := p.ids[q.UID]
		if !ok {
			id = p.nextID
			p.nextID++
		}
		seen[q.UID] = id
		ran := 0
		if q.Status.StartTime != nil {
			ran = int(now.Sub(q.Status.StartTime.Time).Seconds() / p.args.SlotSeconds)
		}
		rem := int64(j.Cores) * int64(max(1, j.Processing-ran))
		obs.Jobs = append(obs.Jobs, core.ActiveJob{ID: id, Job: j, Remaining: rem})
		jobs = append(jobs, j)
		uids = append(uids, q.UID)
	}
	p.ids = seen
	if _, err := p.pol.Decide(t, obs); err != nil {
		return false, fmt.Errorf("%s: slot %d, %d jobs: %w", Name, t, len(obs.Jobs), err)
	}
	p.lastSlot = t
	s := &snapshot{slot: t, epoch: p.epochNs.Load(), omega: make(map[types.UID]float64, len(uids))}
	for i, uid := range uids {
		// omega_j of the next slot: the order in which Lemma 1 gives cores.
		s.omega[uid] = (core.Weight(jobs[i], t+1, p.args.K) - p.pol.Lambda(obs.Jobs[i].ID)) / float64(jobs[i].Cores)
	}
	p.own.Store(s)
	klog.FromContext(ctx).V(4).Info("OCORP slot", "profile", profile, "slot", t, "jobs", len(uids), "gamma", p.pol.Gamma())
	return true, nil
}

// setEpoch and epoch set and read slot 0 of the instance's clock.
func (p *Plugin) setEpoch(t time.Time) { p.epochNs.Store(t.UnixNano()) }
func (p *Plugin) epoch() time.Time     { return time.Unix(0, p.epochNs.Load()) }

func (p *Plugin) slotOf(now time.Time) int { return p.slotOn(p.epochNs.Load(), now) }

// slotOn is the slot of now on the clock whose slot 0 starts at epoch
// (Unix nanoseconds).
func (p *Plugin) slotOn(epoch int64, now time.Time) int {
	d := now.Sub(time.Unix(0, epoch)).Seconds() / p.args.SlotSeconds
	if !(d > 0) {
		return 0
	}
	if d > math.MaxInt32 {
		return math.MaxInt32
	}
	return int(d)
}

// jobOf maps a pod to OCORP's job in slot t: cores from the CPU request
// (rounded up, at least 1), processing from the work annotation.
func (p *Plugin) jobOf(q *v1.Pod, t int) core.Job { return p.jobOn(p.epochNs.Load(), q, t) }

// jobOn is jobOf on the clock whose slot 0 starts at epoch.
func (p *Plugin) jobOn(epoch int64, q *v1.Pod, t int) core.Job {
	req := resourcehelper.PodRequests(q, resourcehelper.PodResourcesOptions{})
	cores := 1
	if c, ok := req[v1.ResourceCPU]; ok {
		cores = int(min(max(1, (c.MilliValue()+999)/1000), math.MaxInt32))
	}
	work := p.args.DefaultWorkSeconds
	if raw, ok := q.Annotations[p.args.WorkAnnotation]; ok {
		if w, err := strconv.ParseFloat(strings.TrimSpace(raw), 64); err == nil && w >= 1 && w <= MaxWorkSeconds {
			work = w
		}
	}
	arr := min(p.slotOn(epoch, q.CreationTimestamp.Time), t)
	return core.Job{Arrival: arr, Cores: cores, Processing: max(1, int(math.Ceil(work/p.args.SlotSeconds)))}
}

// Omega returns the pod's key in the queue: OCORP's omega_j =
// (w_j - lambda_j)/d_j for a pod of a managed profile (with lambda_j = 0
// before its first slot), 0 for any other pod.
func (p *Plugin) Omega(q *v1.Pod) float64 {
	if q == nil {
		return 0
	}
	e, ok := p.managed[q.Spec.SchedulerName]
	if !ok {
		return 0
	}
	s := e.Load()
	t, ep := 0, p.epochNs.Load()
	if s != nil {
		if o, ok := s.omega[q.UID]; ok && !math.IsNaN(o) {
			return o
		}
		t, ep = s.slot, s.epoch
	}
	j := p.jobOn(ep, q, t)
	return core.Weight(j, t+1, p.args.K) / float64(j.Cores)
}

type podInfoGetter interface{ GetPodInfo() fwk.PodInfo }

func podOf(e fwk.QueuedEntityInfo) *v1.Pod {
	if g, ok := e.(podInfoGetter); ok && g.GetPodInfo() != nil {
		return g.GetPodInfo().GetPod()
	}
	return nil
}

// Less orders by priority (higher first), then omega (lower first: the
// order in which OCORP's Lemma 1 gives cores; pods of unmanaged profiles
// count as 0), then queue timestamp. Without managed pods this is exactly
// PrioritySort.
func (p *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := a.GetPriority(), b.GetPriority()
	if pa != pb {
		return pa > pb
	}
	oa, ob := p.Omega(podOf(a)), p.Omega(podOf(b))
	if oa != ob {
		return oa < ob
	}
	return a.GetTimestamp().Before(b.GetTimestamp())
}

// PostFilter preempts by OCORP's rule (with Fill, cores go to jobs in
// ascending omega): a pod that fits nowhere may evict pods of managed
// profiles with a larger omega (later in OCORP's order) and no higher
// priority. On
// each node not ruled out as unresolvable it removes such pods, largest
// omega first, until the pod passes every Filter plugin; it picks the node
// needing the fewest victims (then the smallest node name), deletes them
// and nominates the node.
func (p *Plugin) PostFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, m fwk.NodeToStatusReader) (*fwk.PostFilterResult, *fwk.Status) {
	p.ensureStarted(ctx)
	if !*p.args.Preemption {
		return nil, fwk.NewStatus(fwk.Unschedulable, "OCORP preemption is disabled")
	}
	op := p.Omega(pod)
	infos, err := p.h.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil, fwk.AsStatus(err)
	}
	logger := klog.FromContext(ctx)
	type cand struct {
		node    string
		victims []*v1.Pod
	}
	var best *cand
	prio := podPriority(pod)
	for _, ni := range infos {
		n := ni.Node()
		if n == nil || m.Get(n.Name).Code() == fwk.UnschedulableAndUnresolvable {
			continue
		}
		type victim struct {
			info  fwk.PodInfo
			omega float64
		}
		var vs []victim
		for _, pi := range ni.GetPods() {
			q := pi.GetPod()
			if _, ok := p.managed[q.Spec.SchedulerName]; !ok || q.DeletionTimestamp != nil || podPriority(q) > prio {
				continue
			}
			if o := p.Omega(q); o > op {
				vs = append(vs, victim{pi, o})
			}
		}
		if len(vs) == 0 {
			continue
		}
		slices.SortStableFunc(vs, func(a, b victim) int {
			if a.omega != b.omega {
				if a.omega > b.omega {
					return -1
				}
				return 1
			}
			return strings.Compare(a.info.GetPod().Name, b.info.GetPod().Name)
		})
		trial, st := ni.Snapshot(), state.Clone()
		for i, v := range vs {
			if best != nil && i+1 > len(best.victims) {
				break
			}
			if err := trial.RemovePod(logger, v.info.GetPod()); err != nil {
				break
			}
			if s := p.h.RunPreFilterExtensionRemovePod(ctx, st, pod, v.info, trial); !s.IsSuccess() {
				break
			}
			if p.h.RunFilterPluginsWithNominatedPods(ctx, st, pod, trial).IsSuccess() {
				c := &cand{node: n.Name}
				for _, w := range vs[:i+1] {
					c.victims = append(c.victims, w.info.GetPod())
				}
				if best == nil || len(c.victims) < len(best.victims) || (len(c.victims) == len(best.victims) && c.node < best.node) {
					best = c
				}
				break
			}
		}
	}
	if best == nil {
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("OCORP: no node frees enough by evicting pods later in OCORP's order (omega > %.4g)", op))
	}
	names := make([]string, len(best.victims))
	for i, v := range best.victims {
		names[i] = v.Namespace + "/" + v.Name
	}
	select {
	case p.evicting <- struct{}{}:
	default:
		return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("OCORP: %d preemptions are still evicting; not preempting for now", maxEvictions))
	}
	logger.V(2).Info("OCORP preempts", "pod", klog.KObj(pod), "omega", op, "node", best.node, "victims", names)
	go func() {
		defer func() { <-p.evicting }()
		ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), evictTimeout)
		defer cancel()
		p.evict(ectx, pod, best.victims)
	}()
	return &fwk.PostFilterResult{NominatingInfo: &fwk.NominatingInfo{NominatedNodeName: best.node, NominatingMode: fwk.ModeOverride}},
		fwk.NewStatus(fwk.Success, fmt.Sprintf("OCORP preempts %d pods on %s", len(names), best.node))
}

// Bounds of the evictions: at most maxEvictions preemptions evict at once
// (a PostFilter past it does not preempt and says so; the pod is retried),
// each within evictTimeout for all its victims.
const (
	maxEvictions = 8
	evictTimeout = 30 * time.Second
)

func (p *Plugin) evict(ctx context.Context, by *v1.Pod, victims []*v1.Pod) {
	cs := p.h.ClientSet()
	for _, v := range victims {
		if rec := p.h.EventRecorder(); rec != nil {
			rec.Eventf(v, by, v1.EventTypeNormal, "Preempted", "Preempting", "OCORP: preempted by %s/%s, earlier in OCORP's order", by.Namespace, by.Name)
		}
		if cs == nil {
			continue
		}
		if err := cs.CoreV1().Pods(v.Namespace).Delete(ctx, v.Name, metav1.DeleteOptions{}); err != nil {
			klog.FromContext(ctx).Error(err, "OCORP: evicting", "pod", klog.KObj(v))
		}
	}
}

func podPriority(q *v1.Pod) int32 {
	if q.Spec.Priority != nil {
		return *q.Spec.Priority
	}
	return 0
}
