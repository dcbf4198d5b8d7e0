package gang

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/features"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "Gang"

// Plugin places pod groups all or nothing: PreFilter plans the group with
// its GangPlacer and pins the pod to its planned node, Permit holds
// members until min-member of them are permitted and then allows them
// together, Unreserve rejects the whole group when one member fails or
// times out.
type Plugin struct {
	args     *Args
	h        fwk.Handle
	podIndex cache.Indexer // the pod informer's store, with the group index
	placer   GangPlacer

	mu sync.Mutex
	// allowed holds, per group, the members Permit let through that are
	// not yet seen bound by the lister (their binding cycle is running).
	allowed map[string]sets.Set[types.UID]
	// plans holds, per group, its current plan (see plan).
	plans map[string]*plan
	// repairs marks the groups with a repair pending (see repairLater).
	repairs map[string]bool
	// resv is the live reservation of a blocked group (nil: none), and
	// lastResv the group whose reservation last expired.
	resv     *reservation
	lastResv string
	ctx      context.Context
}

var (
	_ fwk.PreFilterPlugin   = (*Plugin)(nil)
	_ fwk.PermitPlugin      = (*Plugin)(nil)
	_ fwk.ReservePlugin     = (*Plugin)(nil)
	_ fwk.PostBindPlugin    = (*Plugin)(nil)
	_ fwk.EnqueueExtensions = (*Plugin)(nil)
	_ fwk.SignPlugin        = (*Plugin)(nil)
)

// New is the plugin factory (app.WithPlugin(gang.Name, gang.New)); it
// places groups with Knapsack, the core library's gang oracle.
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return NewWithPlacer(&Knapsack{})(ctx, obj, h)
}

// NewWithPlacer returns a factory whose plugin chooses nodes with placer.
func NewWithPlacer(placer GangPlacer) func(context.Context, runtime.Object, fwk.Handle) (fwk.Plugin, error) {
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		a, err := decodeArgs(obj)
		if err != nil {
			return nil, err
		}
		if h == nil || h.SharedInformerFactory() == nil {
			return nil, fmt.Errorf("%s: needs the framework handle's informer factory", Name)
		}
		if placer == nil {
			placer = &Knapsack{}
		}
		inf := h.SharedInformerFactory().Core().V1().Pods().Informer()
		p := &Plugin{
			args:     a,
			h:        h,
			podIndex: inf.GetIndexer(),
			placer:   placer,
			allowed:  map[string]sets.Set[types.UID]{},
			plans:    map[string]*plan{},
			repairs:  map[string]bool{},
			ctx:      ctx,
		}
		if err := p.addIndex(inf); err != nil {
			return nil, fmt.Errorf("%s: pod informer index: %w", Name, err)
		}
		profile := h.ProfileName()
		// kube-scheduler emits no event for an unscheduled pod being added
		// (unless the GenericWorkload gate is on), so a new member
		// activates its pending siblings itself, as coscheduling does.
		_, err = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(o any) {
				if pod, ok := o.(*v1.Pod); ok && pod.Spec.NodeName == "" && pod.Spec.SchedulerName == profile {
					p.activateSiblings(ctx, pod)
				}
			},
		})
		if err != nil {
			return nil, fmt.Errorf("%s: pod informer: %w", Name, err)
		}
		return p, nil
	}
}

// activateSiblings moves the pending members of pod's group (other than
// pod) to the active queue: the group may be complete now.
func (p *Plugin) activateSiblings(ctx context.Context, pod *v1.Pod) {
	g, ok, err := p.groupOf(pod)
	if !ok || err != nil {
		return
	}
	members, err := p.members(g)
	if err != nil {
		return
	}
	act := map[string]*v1.Pod{}
	for _, m := range members {
		if m.UID != pod.UID && m.Spec.NodeName == "" && p.h.GetWaitingPod(m.UID) == nil {
			act[m.Namespace+"/"+m.Name] = m
		}
	}
	if len(act) > 0 {
		p.h.Activate(klog.FromContext(ctx), act)
	}
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

// placedAndWaiting returns the UIDs of the group's members that are bound,
// assumed (upstream PodGroups: the scheduler cache's pod group state),
// permitted (binding) or waiting at Permit.
func (p *Plugin) placedAndWaiting(g group, members []*v1.Pod) sets.Set[types.UID] {
	held := sets.New[types.UID]()
	for _, m := range members {
		if m.Spec.NodeName != "" {
			held.Insert(m.UID)
		}
	}
	if g.upstream {
		if mgr := p.h.PodGroupManager(); mgr != nil {
			if st, err := mgr.PodGroupStates().Get(g.ns, g.name); err == nil {
				held = held.Union(st.AssumedPods())
			}
		}
	}
	p.mu.Lock()
	for uid := range p.allowed[g.key] {
		held.Insert(uid)
	}
	p.mu.Unlock()
	p.h.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if q := wp.GetPod(); p.inGroup(q, g) {
			held.Insert(q.UID)
		}
	})
	return held
}

// PreFilter rejects a member whose group has fewer than min-member live
// pods, or whose group's still unplaced members do not fit the cluster
// whole; otherwise it restricts the pod to the node the group's plan gives
// it. The plan places the members still needed to reach min-member (the
// pod being scheduled first) with the GangPlacer, only on nodes that pass
// each member's PreFilter and Filter plugins (see feasibility); the other
// members of the plan get their nodes at their own PreFilter without
// replanning. A member that comes back after using its planned node drops
// the plan, and that (member, node) pair is never planned again. Pods
// outside groups are skipped, and so is the plugin's own planning cycle.
func (p *Plugin) PreFilter(ctx context.Context, state fwk.CycleState, pod *v1.Pod, nodes []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	if state != nil {
		if _, err := state.Read(planningKey); err == nil {
			return nil, fwk.NewStatus(fwk.Skip)
		}
	}
	g, ok, err := p.groupOf(pod)
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	members, err := p.members(g)
	if err != nil {
		return nil, fwk.AsStatus(fmt.Errorf("gang %s: listing members: %w", g.key, err))
	}
	if len(members) < g.min {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable,
			fmt.Sprintf("gang %s: %d of min-member %d pods exist", g.key, len(members), g.min))
	}
	if n, ok := p.planned(g, pod, nodes); ok {
		return &fwk.PreFilterResult{NodeNames: sets.New(n)}, nil
	}
	held := p.placedAndWaiting(g, members)
	held.Delete(pod.UID)
	need := g.min - held.Len() // members still to place, this pod included
	todo := []*v1.Pod{pod}
	if need > 1 {
		rest := make([]*v1.Pod, 0, len(members))
		for _, m := range members {
			if m.UID != pod.UID && !held.Has(m.UID) {
				rest = append(rest, m)
			}
		}
		slices.SortFunc(rest, func(a, b *v1.Pod) int { return strings.Compare(a.Name, b.Name) })
		todo = append(todo, rest[:min(len(rest), need-1)]...)
	}
	dst := make([]string, len(todo))
	avoid := p.avoidOf(g.key)
	everyNode := nodes
	nodes = p.withReservation(g.key, p.withReservations(g.key, nodes))
	placed := false
	for _, all := range []bool{false, true} {
		cand, fits, scannedAll, err := p.feasibility(ctx, todo, nodes, avoid, all)
		if err != nil {
			return nil, fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gang %s: %v", g.key, err))
		}
		if placed = p.placer.Place(dst, todo, cand, fits); placed || scannedAll {
			break
		}
	}
	if !placed {
		p.reserveFor(g, todo, everyNode)
		return nil, fwk.NewStatus(fwk.Unschedulable,
			fmt.Sprintf("gang %s: the %d members still to place (min-member %d, %d held) do not fit the cluster together", g.key, len(todo), g.min, held.Len()))
	}
	p.keepPlan(g, todo, dst)
	p.releaseReservation(g.key)
	klog.FromContext(ctx).V(4).Info("gang plan", "group", g.key, "pod", klog.KObj(pod), "node", dst[0], "planned", len(todo), "held", held.Len())
	return &fwk.PreFilterResult{NodeNames: sets.New(dst[0])}, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// Permit lets the pod through at once when, with it, min-member members of
// its group are bound, binding or waiting, and then allows every waiting
// member; otherwise the pod waits (PermitWaitingTimeSeconds).
func (p *Plugin) Permit(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.Status, time.Duration) {
	g, ok, err := p.groupOf(pod)
	if !ok {
		return nil, 0
	}
	if err != nil {
		return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error()), 0
	}
	members, err := p.members(g)
	if err != nil {
		return fwk.AsStatus(fmt.Errorf("gang %s: listing members: %w", g.key, err)), 0
	}
	held := p.placedAndWaiting(g, members)
	held.Insert(pod.UID)
	if held.Len() < g.min {
		p.activateSiblings(ctx, pod) // members in backoff: try them now
		return fwk.NewStatus(fwk.Wait, fmt.Sprintf("gang %s: %d of min-member %d permitted", g.key, held.Len(), g.min)),
			time.Duration(p.args.PermitWaitingTimeSeconds) * time.Second
	}
	p.mu.Lock()
	set := p.allowed[g.key]
	if set == nil {
		set = sets.New[types.UID]()
		p.allowed[g.key] = set
	}
	set.Insert(pod.UID)
	var waiting []fwk.WaitingPod
	p.h.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if q := wp.GetPod(); p.inGroup(q, g) {
			set.Insert(q.UID)
			waiting = append(waiting, wp)
		}
	})
	delete(p.plans, g.key)
	p.mu.Unlock()
	for _, wp := range waiting {
		wp.Allow(Name)
	}
	klog.FromContext(ctx).V(2).Info("gang complete, allowing the group", "group", g.key, "members", held.Len(), "minMember", g.min, "released", len(waiting))
	return nil, 0
}

// Reserve implements fwk.ReservePlugin (nothing to reserve: the scheduler
// cache holds the resources).
func (p *Plugin) Reserve(context.Context, fwk.CycleState, *v1.Pod, string) *fwk.Status { return nil }

// Unreserve runs when a member failed after Reserve: rejected, timed out at
// Permit, or failed to bind. It rejects every other waiting member of the
// group so that they release their nodes at once: the group goes back to
// the queue whole. A member whose binding fails after the group was allowed
// cannot unbind the others: that case is logged (the API server refused a
// binding the scheduler had reserved), the member is retried, and
// repairLater evicts the bound members if the group is still half-bound
// one Permit timeout later.
func (p *Plugin) Unreserve(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	g, ok, err := p.groupOf(pod)
	if !ok || err != nil {
		return
	}
	p.mu.Lock()
	wasAllowed := p.allowed[g.key].Has(pod.UID)
	if wasAllowed {
		p.allowed[g.key].Delete(pod.UID)
	}
	p.mu.Unlock()
	if wasAllowed {
		klog.FromContext(ctx).Error(nil, "gang member failed after its group was allowed", "group", g.key, "pod", klog.KObj(pod))
		p.repairLater(g)
		return
	}
	msg := fmt.Sprintf("gang %s: member %s was rejected or timed out; releasing the group", g.key, pod.Name)
	p.dropPlan(g.key)
	n := 0
	p.h.IterateOverWaitingPods(func(wp fwk.WaitingPod) {
		if q := wp.GetPod(); q.UID != pod.UID && p.inGroup(q, g) {
			if wp.Reject(Name, msg) {
				n++
			}
		}
	})
	klog.FromContext(ctx).V(2).Info("gang released", "group", g.key, "pod", klog.KObj(pod), "rejected", n)
}

// PostBind forgets the bound member in the allowed set (the lister shows
// it bound from now on).
func (p *Plugin) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	g, ok, err := p.groupOf(pod)
	if !ok || err != nil {
		return
	}
	p.mu.Lock()
	if s := p.allowed[g.key]; s != nil {
		s.Delete(pod.UID)
		if s.Len() == 0 {
			delete(p.allowed, g.key)
		}
	}
	p.mu.Unlock()
}

// EventsToRegister: a new member (Pod Add) can complete a group; nodes
// joining or changing, and pods leaving, can make a group fit; with the
// GenericWorkload gate, a PodGroup created or changed (minCount) can too.
func (p *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	ev := []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Add | fwk.Delete}},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable | fwk.UpdateNodeTaint | fwk.UpdateNodeLabel}},
	}
	if utilfeature.DefaultFeatureGate.Enabled(features.GenericWorkload) {
		ev = append(ev, fwk.ClusterEventWithHint{Event: fwk.ClusterEvent{Resource: fwk.PodGroup, ActionType: fwk.Add | fwk.Update}})
	}
	return ev, nil
}

// SignPod refuses to sign group members (their placement depends on the
// rest of the group, so no result may be reused) and signs every other pod
// with nothing (the plugin skips it).
func (p *Plugin) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	if p.indexKeyOf(pod) != "" {
		return nil, fwk.NewStatus(fwk.Unschedulable, "gang members are not batched")
	}
	return nil, nil
}
