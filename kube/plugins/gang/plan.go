package gang

import (
	"context"
	"fmt"
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/sets"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// planningKey marks the CycleState in which the plugin evaluates a
// member's PreFilter and Filter plugins while planning; Gang's own
// PreFilter skips in it (no recursion).
const planningKey fwk.StateKey = "msched.io/gang-planning"

type planningMark struct{}

func (planningMark) Clone() fwk.StateData { return planningMark{} }

// preFilterRunner is the part of the framework the plugin runs to prepare
// a member's filters (the framework.Handle the scheduler passes is the
// profile's framework, which implements it).
type preFilterRunner interface {
	RunPreFilterPlugins(ctx context.Context, state fwk.CycleState, pod *v1.Pod) (*fwk.PreFilterResult, *fwk.Status, sets.Set[string])
}

// Bounds of the plan search and of the plugin's memory.
const (
	// minCandidates is the number of nodes passing a member's filters
	// that the plan first looks for (scanning nodes in snapshot order);
	// when the group does not fit on them the plan scans every node. It
	// mirrors kube-scheduler's minFeasibleNodesToFind.
	minCandidates = 100
	// maxSpecClasses bounds the distinct member specs whose filters are
	// evaluated per plan; members past it are evaluated one by one.
	maxSpecClasses = 16
	// maxPlans bounds the groups with a live plan; past it every plan is
	// dropped (they are only a cache: a member without a plan replans).
	maxPlans = 1 << 14
	// maxAvoid bounds the (member, node) pairs remembered as failed per
	// group; past it the oldest knowledge is dropped.
	maxAvoid = 4096
)

// plan is a group's placement, made at one member's PreFilter and handed
// out to the other members at theirs, so that a group costs one plan, not
// one per member.
type plan struct {
	node  map[types.UID]string
	pods  map[types.UID]*v1.Pod // the planned members (their requests reserve their nodes)
	used  sets.Set[types.UID]   // members that were pinned to their node
	made  time.Time
	avoid sets.Set[string] // "uid/node" pairs that failed: never planned again
}

// planned returns the node planned for pod in g's live plan, and marks it
// used. A member that comes back to PreFilter after using its node, a
// member outside the plan, or a plan older than the Permit timeout, drops
// the plan; in the first case the (member, node) pair is remembered and
// never planned again (a failed plan is replanned, not repeated).
func (p *Plugin) planned(g group, pod *v1.Pod, nodes []fwk.NodeInfo) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl := p.plans[g.key]
	if pl == nil {
		return "", false
	}
	n, ok := pl.node[pod.UID]
	if ok && !pl.used.Has(pod.UID) && time.Since(pl.made) < time.Duration(p.args.PermitWaitingTimeSeconds)*time.Second && hasNode(nodes, n) {
		pl.used.Insert(pod.UID)
		return n, true
	}
	if ok && pl.used.Has(pod.UID) {
		if pl.avoid.Len() >= maxAvoid {
			pl.avoid = sets.New[string]()
		}
		pl.avoid.Insert(string(pod.UID) + "/" + n)
	}
	pl.node, pl.used, pl.pods = nil, nil, nil // keep avoid
	return "", false
}

func hasNode(nodes []fwk.NodeInfo, name string) bool {
	for _, ni := range nodes {
		if n := ni.Node(); n != nil && n.Name == name {
			return true
		}
	}
	return false
}

// keepPlan stores a new plan for g: todo[i] on dst[i], todo[0] used.
func (p *Plugin) keepPlan(g group, todo []*v1.Pod, dst []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl := p.plans[g.key]
	if pl == nil {
		if len(p.plans) >= maxPlans {
			clear(p.plans)
		}
		pl = &plan{avoid: sets.New[string]()}
		p.plans[g.key] = pl
	}
	pl.node = make(map[types.UID]string, len(todo))
	pl.pods = make(map[types.UID]*v1.Pod, len(todo))
	for i, m := range todo {
		pl.node[m.UID] = dst[i]
		pl.pods[m.UID] = m
	}
	pl.used = sets.New(todo[0].UID)
	pl.made = time.Now()
}

// withReservations returns nodes where every node that other groups'
// live plans give to members not yet scheduled (not used) also holds
// those members: a plan reserves its nodes until its members come or the
// plan expires (one Permit timeout), so that the members of two groups
// interleaved in the queue do not take each other's planned capacity. The
// nodes concerned are copies (Snapshot); nodes is not modified. Expired
// plans are dropped here.
func (p *Plugin) withReservations(self string, nodes []fwk.NodeInfo) []fwk.NodeInfo {
	ttl := time.Duration(p.args.PermitWaitingTimeSeconds) * time.Second
	p.mu.Lock()
	var held map[string][]*v1.Pod
	for key, pl := range p.plans {
		if pl.node == nil || time.Since(pl.made) >= ttl {
			if pl.avoid.Len() == 0 {
				delete(p.plans, key)
			} else {
				pl.node, pl.used, pl.pods = nil, nil, nil
			}
			continue
		}
		if key == self {
			continue
		}
		for uid, n := range pl.node {
			if !pl.used.Has(uid) {
				if held == nil {
					held = map[string][]*v1.Pod{}
				}
				held[n] = append(held[n], pl.pods[uid])
			}
		}
	}
	p.mu.Unlock()
	if len(held) == 0 {
		return nodes
	}
	out := slices.Clone(nodes)
	for i, ni := range out {
		n := ni.Node()
		if n == nil || len(held[n.Name]) == 0 {
			continue
		}
		c, ok := ni.Snapshot().(*framework.NodeInfo)
		if !ok {
			continue
		}
		for _, m := range held[n.Name] {
			q := *m
			q.Spec.NodeName = n.Name
			c.AddPod(&q)
		}
		out[i] = c
	}
	return out
}

// dropPlan forgets g's plan and what failed (the group was placed or
// released whole).
func (p *Plugin) dropPlan(key string) {
	p.mu.Lock()
	delete(p.plans, key)
	p.mu.Unlock()
}

// avoidOf returns a copy of g's failed (member, node) pairs.
func (p *Plugin) avoidOf(key string) sets.Set[string] {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pl := p.plans[key]; pl != nil {
		return pl.avoid.Clone()
	}
	return nil
}

// feasibility evaluates, for every pod of todo, the profile's PreFilter
// and Filter plugins (all of them but Gang: resources, node selector and
// affinity, taints, ports, volume limits, topology spread, ...) on the
// nodes of the snapshot, in order, in a fresh CycleState per distinct
// member spec, and returns the candidate nodes (those passing the filters
// of some member) and fits[i][j], whether todo[i] passes every filter on
// cand[j]. It scans nodes until every spec has minCandidates feasible
// nodes, or all of them when all is set. A member that passes on no node
// fails the plan: err names it and the filters' reasons.
func (p *Plugin) feasibility(ctx context.Context, todo []*v1.Pod, nodes []fwk.NodeInfo, avoid sets.Set[string], all bool) (cand []fwk.NodeInfo, fits [][]bool, scannedAll bool, err error) {
	runner, ok := p.h.(preFilterRunner)
	if !ok {
		return nil, nil, false, fmt.Errorf("the framework handle %T cannot run PreFilter plugins", p.h)
	}
	// Members with equal specs share one evaluation.
	type class struct {
		rep   *v1.Pod
		state *framework.CycleState
		res   *fwk.PreFilterResult
		count int
		found int
	}
	var classes []*class
	of := make([]int, len(todo))
	for i, m := range todo {
		of[i] = -1
		for c, cl := range classes[:min(len(classes), maxSpecClasses)] {
			if equality.Semantic.DeepEqual(cl.rep.Spec, m.Spec) {
				of[i] = c
				break
			}
		}
		if of[i] < 0 {
			state := framework.NewCycleState()
			state.Write(planningKey, planningMark{})
			res, st, _ := runner.RunPreFilterPlugins(ctx, state, m)
			if !st.IsSuccess() {
				return nil, nil, false, fmt.Errorf("member %s passes no node (PreFilter: %s)", m.Name, st.Message())
			}
			classes = append(classes, &class{rep: m, state: state, res: res})
			of[i] = len(classes) - 1
		}
		classes[of[i]].count++
	}
	ok2 := make([]bool, len(classes))
	fits = make([][]bool, len(todo))
	scanned := 0
	for _, ni := range nodes {
		if !all && scanned > 0 {
			enough := true
			for _, cl := range classes {
				if cl.found < max(minCandidates, cl.count) {
					enough = false
					break
				}
			}
			if enough {
				break
			}
		}
		scanned++
		n := ni.Node()
		if n == nil {
			continue
		}
		some := false
		for c, cl := range classes {
			ok2[c] = false
			if cl.res != nil && !cl.res.AllNodes() && !cl.res.NodeNames.Has(n.Name) {
				continue
			}
			if st := p.h.RunFilterPlugins(ctx, cl.state, cl.rep, ni); st.IsSuccess() {
				ok2[c] = true
				cl.found++
				some = true
			}
		}
		if !some {
			continue
		}
		cand = append(cand, ni)
		for i, m := range todo {
			fits[i] = append(fits[i], ok2[of[i]] && !avoid.Has(string(m.UID)+"/"+n.Name))
		}
	}
	for c, cl := range classes {
		if cl.found == 0 && (all || scanned == len(nodes)) {
			return nil, nil, true, fmt.Errorf("member %s passes the filters of no node", classes[c].rep.Name)
		}
	}
	return cand, fits, scanned == len(nodes), nil
}
