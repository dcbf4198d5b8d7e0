package gang

import (
	"slices"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

// reservation is the capacity held for one blocked group (Args.
// ReserveBlockedMillis): phantom copies of its members still to place,
// each on a node chosen by reserveNodes. While it lives, other groups'
// plans do not use its nodes (or, with Args.Backfill, use only what is
// free beside the phantoms).
type reservation struct {
	key  string
	made time.Time
	on   map[string][]*v1.Pod // node name -> phantom members
}

// reservationTTL returns the reservation timeout (0: reservation off).
func (p *Plugin) reservationTTL() time.Duration {
	return time.Duration(p.args.ReserveBlockedMillis) * time.Millisecond
}

// liveReservation returns the live reservation, dropping an expired one
// (locked by the caller).
func (p *Plugin) liveReservation() *reservation {
	if p.resv != nil && time.Since(p.resv.made) >= p.reservationTTL() {
		p.lastResv = p.resv.key
		p.resv = nil
	}
	return p.resv
}

// withReservation returns the nodes group self may plan on: without a live
// reservation of another group, nodes; else nodes without the reserved
// ones or, with Backfill, with the reserved nodes as copies that also hold
// the phantom members (a member fits there only beside the reservation).
// nodes is not modified.
func (p *Plugin) withReservation(self string, nodes []fwk.NodeInfo) []fwk.NodeInfo {
	if p.reservationTTL() == 0 {
		return nodes
	}
	p.mu.Lock()
	r := p.liveReservation()
	p.mu.Unlock()
	if r == nil || r.key == self {
		return nodes
	}
	out := make([]fwk.NodeInfo, 0, len(nodes))
	for _, ni := range nodes {
		n := ni.Node()
		if n == nil || len(r.on[n.Name]) == 0 {
			out = append(out, ni)
			continue
		}
		if !p.args.Backfill {
			continue
		}
		c, ok := ni.Snapshot().(*framework.NodeInfo)
		if !ok {
			continue
		}
		for _, m := range r.on[n.Name] {
			c.AddPod(m)
		}
		out = append(out, c)
	}
	return out
}

// reserveFor makes a reservation for the blocked group g (its members
// todo do not fit together now) when none is live and g's own last one
// did not just expire (a group gets a new reservation only after another
// group had one: the timeout bounds what a group that cannot be served
// takes from the others). The nodes are chosen by reserveNodes; nothing
// is reserved when some member fits no node's allocatable.
func (p *Plugin) reserveFor(g group, todo []*v1.Pod, nodes []fwk.NodeInfo) {
	if p.reservationTTL() == 0 || len(todo) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.liveReservation() != nil || p.lastResv == g.key {
		return
	}
	on := reserveNodes(todo, nodes)
	if on == nil {
		return
	}
	p.resv = &reservation{key: g.key, made: time.Now(), on: on}
	p.lastResv = ""
}

// releaseReservation drops g's reservation (g was placed or released).
func (p *Plugin) releaseReservation(key string) {
	p.mu.Lock()
	if p.resv != nil && p.resv.key == key {
		p.resv = nil
	}
	p.mu.Unlock()
}

// reserveNodes chooses a node per member of todo, greedily in order: among
// schedulable nodes whose allocatable holds the member's request, the one
// with the most room left now for it after what is already reserved
// there (min over its requested resources of free/request, then the sum,
// then node order). It looks at resources only: the member's other
// filters run when the group plans for real. It returns nil when some
// member fits no node.
func reserveNodes(todo []*v1.Pod, nodes []fwk.NodeInfo) map[string][]*v1.Pod {
	type left struct{ free, alloc map[v1.ResourceName]int64 }
	state := make(map[string]*left, len(nodes))
	on := map[string][]*v1.Pod{}
	for _, m := range todo {
		req := podRequests(m)
		keys := make([]v1.ResourceName, 0, len(req))
		for k := range req {
			keys = append(keys, k)
		}
		slices.Sort(keys) // a fixed order of the float sums below
		best, bestMin, bestSum := -1, 0.0, 0.0
		for j, ni := range nodes {
			n := ni.Node()
			if n == nil || n.Spec.Unschedulable {
				continue
			}
			s := state[n.Name]
			if s == nil {
				s = &left{free: map[v1.ResourceName]int64{}, alloc: map[v1.ResourceName]int64{}}
				a, r := ni.GetAllocatable(), ni.GetRequested()
				s.alloc[v1.ResourceCPU], s.free[v1.ResourceCPU] = a.GetMilliCPU(), a.GetMilliCPU()-r.GetMilliCPU()
				s.alloc[v1.ResourceMemory], s.free[v1.ResourceMemory] = a.GetMemory(), a.GetMemory()-r.GetMemory()
				s.alloc[v1.ResourceEphemeralStorage], s.free[v1.ResourceEphemeralStorage] = a.GetEphemeralStorage(), a.GetEphemeralStorage()-r.GetEphemeralStorage()
				for k, v := range a.GetScalarResources() {
					s.alloc[k], s.free[k] = v, v-r.GetScalarResources()[k]
				}
				state[n.Name] = s
			}
			ok, mn, sum := true, 0.0, 0.0
			first := true
			for _, k := range keys {
				q := req[k]
				if q <= 0 {
					continue
				}
				if s.alloc[k] < q {
					ok = false
					break
				}
				f := float64(s.free[k]) / float64(q)
				sum += f
				if first || f < mn {
					mn, first = f, false
				}
			}
			if ok && (best < 0 || mn > bestMin || (mn == bestMin && sum > bestSum)) {
				best, bestMin, bestSum = j, mn, sum
			}
		}
		if best < 0 {
			return nil
		}
		name := nodes[best].Node().Name
		for k, q := range req {
			state[name].free[k] -= q
		}
		ph := m.DeepCopy()
		ph.Spec.NodeName = name
		on[name] = append(on[name], ph)
	}
	return on
}

// podRequests returns the pod's container requests in the units NodeInfo
// uses (milli-CPU, bytes, counts), init containers' maximum included.
func podRequests(pod *v1.Pod) map[v1.ResourceName]int64 {
	out := map[v1.ResourceName]int64{}
	add := func(rl v1.ResourceList, f func(a, b int64) int64) {
		for k, q := range rl {
			out[k] = f(out[k], value(k, q))
		}
	}
	for _, c := range pod.Spec.Containers {
		add(c.Resources.Requests, func(a, b int64) int64 { return a + b })
	}
	for _, c := range pod.Spec.InitContainers {
		add(c.Resources.Requests, func(a, b int64) int64 { return max(a, b) })
	}
	return out
}

func value(k v1.ResourceName, q resource.Quantity) int64 {
	if k == v1.ResourceCPU {
		return q.MilliValue()
	}
	return q.Value()
}
