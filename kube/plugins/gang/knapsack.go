package gang

import (
	"slices"
	"sync"

	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// Knapsack places a group with the core library's gang oracle
// (esdp.GangOracle, the gang knapsack of ESDP-gang): one gang job whose
// components are the pods, with min-member = all of them (the plugin asks
// only for the members it needs), the schedulable nodes as servers with
// their free allocatable (CPU in millicores, memory and ephemeral storage
// in MiB, pod slots, and every extended resource the pods ask for) as
// capacities. Every channel is worth 1 plus a small preference for nodes
// earlier in the snapshot, so the oracle finds a placement of the whole
// group whenever one exists within its budget (GangAuto: branch and bound
// with a certified Lagrangian bound), where first fit may miss it; ties go
// to earlier nodes. A channel (pod, node) whose node fails the pod's
// filters (fits) is worth -(n+1) for n pods, so that any placement using
// one is worth less than leaving the group unplaced; the result is checked
// against fits all the same. A group the oracle does not place whole is
// not placed.
//
// Knapsack is safe for concurrent use (one oracle behind a mutex).
type Knapsack struct {
	// Settings configure the oracle; the zero value is GangAuto with its
	// default budget.
	Settings esdp.GangOracleSettings

	mu     sync.Mutex
	oracle esdp.GangOracle
}

// Place implements GangPlacer.
func (k *Knapsack) Place(dst []string, pods []*v1.Pod, nodes []fwk.NodeInfo, fits [][]bool) bool {
	clear(dst)
	if len(pods) == 0 {
		return true
	}
	// Resource axes: cpu, memory, ephemeral storage, pod slots, then the
	// extended resources the pods ask for, in name order.
	reqs := make([]v1.ResourceList, len(pods))
	var ext []v1.ResourceName
	for i, p := range pods {
		reqs[i] = resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		for name := range reqs[i] {
			switch name {
			case v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage:
			default:
				if !slices.Contains(ext, name) {
					ext = append(ext, name)
				}
			}
		}
	}
	slices.Sort(ext)
	K := 4 + len(ext)
	var servers []int
	var capacity []float64
	for j, ni := range nodes {
		n := ni.Node()
		if n == nil || n.Spec.Unschedulable || (fits != nil && !fitsAny(fits, j)) {
			continue
		}
		a, r := ni.GetAllocatable(), ni.GetRequested()
		row := []float64{
			float64(max(0, a.GetMilliCPU()-r.GetMilliCPU())),
			float64(max(0, a.GetMemory()-r.GetMemory())) / (1 << 20),
			float64(max(0, a.GetEphemeralStorage()-r.GetEphemeralStorage())) / (1 << 20),
			float64(max(0, a.GetAllowedPodNumber()-len(ni.GetPods()))),
		}
		for _, name := range ext {
			row = append(row, float64(max(0, a.GetScalarResources()[name]-r.GetScalarResources()[name])))
		}
		servers = append(servers, j)
		capacity = append(capacity, row...)
	}
	if len(servers) == 0 {
		return false
	}
	demand := make([]float64, 0, len(pods)*K)
	for _, req := range reqs {
		cpu, mem, eph := req[v1.ResourceCPU], req[v1.ResourceMemory], req[v1.ResourceEphemeralStorage]
		demand = append(demand, float64(cpu.MilliValue()), float64(mem.Value())/(1<<20), float64(eph.Value())/(1<<20), 1)
		for _, name := range ext {
			q := req[name]
			demand = append(demand, float64(q.Value()))
		}
	}
	edges := make([]bipartite.Edge, len(servers))
	for r := range servers {
		edges[r] = bipartite.Edge{Left: 0, Right: r}
	}
	g, err := bipartite.NewGraph(1, len(servers), edges)
	if err != nil {
		return false
	}
	model, err := bipartite.NewGangModel(g, K, capacity, []bipartite.GangJob{{Demand: demand, Min: len(pods)}})
	if err != nil {
		return false
	}
	ch, err := esdp.NewGangChannels(model)
	if err != nil {
		return false
	}
	value := make([]float64, ch.Len())
	for i := range value {
		if fits != nil && !fits[ch.Component(i)][servers[ch.Server(i)]] {
			value[i] = -float64(len(pods) + 1)
			continue
		}
		value[i] = 1 + 1e-3*float64(len(servers)-ch.Server(i))/float64(len(servers))
	}
	at := make([]int, len(pods))
	k.mu.Lock()
	k.oracle.Settings = k.Settings
	_, err = k.oracle.Solve(at, &esdp.GangKnapsack{Channels: ch, Value: value})
	k.mu.Unlock()
	if err != nil {
		return false
	}
	for i, r := range at {
		if r < 0 || (fits != nil && !fits[i][servers[r]]) {
			clear(dst)
			return false
		}
		dst[i] = nodes[servers[r]].Node().Name
	}
	return true
}

// fitsAny reports whether some pod passes its filters on node j.
func fitsAny(fits [][]bool, j int) bool {
	for _, row := range fits {
		if row[j] {
			return true
		}
	}
	return false
}
