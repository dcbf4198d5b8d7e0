package gang

import (
	"context"
	"time"

	v1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// repairLater handles a member whose binding failed after its group was
// allowed (the API server refused it: an admission policy, a node gone, a
// conflict): the bound members would hold their nodes for a group that
// cannot run. The failed member goes back to the queue and is retried
// (PreFilter plans it alone: the others hold their nodes). If, one Permit
// timeout later, the group still has some but fewer than min-member
// members bound, the plugin evicts the bound ones (the Eviction API, which
// respects PodDisruptionBudgets and graceful termination), so the group is
// not left half-bound: its owner recreates it whole, or it stays gone.
// One repair is pending per group at a time.
func (p *Plugin) repairLater(g group) {
	p.mu.Lock()
	if p.repairs[g.key] {
		p.mu.Unlock()
		return
	}
	p.repairs[g.key] = true
	p.mu.Unlock()
	time.AfterFunc(time.Duration(p.args.PermitWaitingTimeSeconds)*time.Second, func() {
		p.mu.Lock()
		delete(p.repairs, g.key)
		inFlight := p.allowed[g.key].Len()
		p.mu.Unlock()
		p.repair(g, inFlight)
	})
}

// repair evicts the bound members of g when it is half-bound and nothing
// of it is binding (inFlight members allowed and not yet bound).
func (p *Plugin) repair(g group, inFlight int) {
	logger := klog.FromContext(p.ctx)
	members, err := p.members(g)
	if err != nil {
		return
	}
	var bound []*v1.Pod
	for _, m := range members {
		if m.Spec.NodeName != "" {
			bound = append(bound, m)
		}
	}
	if len(bound) == 0 || len(bound) >= g.min {
		logger.V(2).Info("gang whole again after a refused binding", "group", g.key, "bound", len(bound), "minMember", g.min)
		return
	}
	if inFlight > 0 {
		p.repairLater(g) // a retry is binding: look again later
		return
	}
	logger.Error(nil, "gang half-bound after a refused binding: evicting its bound members", "group", g.key, "bound", len(bound), "minMember", g.min)
	cs := p.h.ClientSet()
	if cs == nil {
		return
	}
	for _, m := range bound {
		ctx, cancel := context.WithTimeout(p.ctx, 10*time.Second)
		err := cs.CoreV1().Pods(m.Namespace).EvictV1(ctx, &policyv1.Eviction{
			ObjectMeta: metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace},
		})
		cancel()
		if err != nil && !apierrors.IsNotFound(err) {
			logger.Error(err, "gang eviction failed", "group", g.key, "pod", klog.KObj(m))
			continue
		}
		logger.V(1).Info("gang member evicted", "group", g.key, "pod", klog.KObj(m), "node", m.Spec.NodeName)
	}
}
