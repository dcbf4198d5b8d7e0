package gang

import (
	fwk "k8s.io/kube-scheduler/framework"
)

var _ fwk.QueueSortPlugin = (*Plugin)(nil)

// Less orders the scheduling queue smallest group first, when a profile
// enables Gang at queueSort (instead of PrioritySort): higher priority
// first, then the smaller min-member (a pod outside groups counts as 1),
// then the earlier time in the queue. With life-limited groups and a full
// cluster this places more groups than arrival order: the capacity one
// large group waits for serves several small ones (measured on the DLRM
// replay, see package dlrm). A large group can wait behind a stream of
// small ones; it keeps its place among groups of its size.
func (p *Plugin) Less(a, b fwk.QueuedEntityInfo) bool {
	pa, pb := a.GetPriority(), b.GetPriority()
	if pa != pb {
		return pa > pb
	}
	if sa, sb := p.sizeOf(a), p.sizeOf(b); sa != sb {
		return sa < sb
	}
	return a.GetTimestamp().Before(b.GetTimestamp())
}

// sizeOf returns the min-member of the entity's group, 1 outside groups
// (or for a group whose min-member cannot be read).
func (p *Plugin) sizeOf(e fwk.QueuedEntityInfo) int {
	qp, ok := e.(interface{ GetPodInfo() fwk.PodInfo })
	if !ok || qp.GetPodInfo() == nil {
		return 1
	}
	g, ok, err := p.groupOf(qp.GetPodInfo().GetPod())
	if !ok || err != nil {
		return 1
	}
	return g.min
}
