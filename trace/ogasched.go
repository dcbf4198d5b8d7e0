package trace

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/utility"
)

// OGASchedSettings configures the OGASched mapping. Zero fields take the
// defaults in brackets.
type OGASchedSettings struct {
	Ports int // job types kept, most frequent shapes first [10]
	Nodes int // nodes sampled uniformly from the node list [128]; -1: all
	T     int // time slots the trace's creation span is cut into [2000]
	// Counts makes x_l(t) the number of pods of type l created in slot t
	// (the reward then scales with it, III-D); by default x_l(t) is the
	// indicator that at least one was created, as in the paper's model.
	Counts bool
	// Contention multiplies every demand [1: the trace's requests as they are].
	Contention float64
	// Utility is "mix" or one utility kind name ["mix"]; a ~ U[1, 1.5] per
	// (node, type) and beta_k ~ U[0.3, 0.5] as in Table II, since the trace
	// carries no utilities.
	Utility string
	Seed    uint64
	// Limits bounds the trace's values and T, T × Ports [Limits{}: the
	// defaults].
	Limits Limits
}

// Resource units of the K = 3 types of the trace mappings.
const (
	CPUUnitMilli = 1000 // one CPU core
	MemUnitMiB   = 4096 // 4 GiB: a median pod's memory and CPU demands are then of the same magnitude
	GPUUnitMilli = 1000 // one GPU
)

// TraceResourceNames are the K = 3 resource types of the mappings.
var TraceResourceNames = []string{"CPU", "MEM", "GPU"}

// OGASchedInstance is the OGASched view of a trace.
type OGASchedInstance struct {
	Problem  *ogasched.Problem
	Arrivals *ogasched.Trace
	Types    []JobType // port l is Types[l]; Pods index the pods with times
	Nodes    []int     // node r is the trace's Nodes[Nodes[r]]
	// SlotSeconds is the length of one slot; Covered counts the pods of the
	// kept types, Total all pods with times.
	SlotSeconds    float64
	Covered, Total int
}

// OGASched maps a trace to an OGASched instance: ports are the most
// frequent pod shapes, servers a uniform sample of nodes with capacities
// (cores, 4 GiB units, GPUs), an edge wherever one pod of the shape fits the
// empty node and its GPU model is allowed, and x_l(t) from the creation
// times. See the package documentation for the assumptions.
func OGASched(tr *Trace, opt OGASchedSettings) (*OGASchedInstance, error) {
	if err := opt.Limits.CheckTrace(tr); err != nil {
		return nil, err
	}
	if err := checkScale("OGASchedSettings.Contention", opt.Contention); err != nil {
		return nil, err
	}
	if err := checkOptions(option{"OGASchedSettings.Ports", int64(opt.Ports), 0}, option{"OGASchedSettings.Nodes", int64(opt.Nodes), -1},
		option{"OGASchedSettings.T", int64(opt.T), 0}); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	if err := opt.Limits.checkSlots("OGASchedSettings.T", int64(opt.T)); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x06a5))
	first, last, ok := CreationSpan(tr.Pods)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no creation times", ErrEmpty, tr.PodFile)
	}
	pods := timed(tr.Pods)
	types := JobTypes(pods, opt.Ports)
	if err := opt.Limits.checkCells("OGASched arrivals T × ports", opt.T, len(types)); err != nil {
		return nil, err
	}
	nodes := SampleNodes(tr.Nodes, opt.Nodes, rng)
	if err := opt.Limits.checkCells("OGASched job types × nodes (the fit test)", len(types), len(nodes)); err != nil {
		return nil, err
	}
	const K = 3
	var edges []bipartite.Edge
	demand := make([][]float64, len(types))
	for l, jt := range types {
		demand[l] = []float64{
			opt.Contention * float64(jt.CPUMilli) / CPUUnitMilli,
			opt.Contention * float64(jt.MemoryMiB) / MemUnitMiB,
			opt.Contention * float64(jt.GPUMilli) / GPUUnitMilli,
		}
		for r, ni := range nodes {
			if jt.Fits(tr.Nodes[ni]) {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
			}
		}
	}
	g, err := bipartite.NewGraph(len(types), len(nodes), edges)
	if err != nil {
		return nil, fmt.Errorf("trace: OGASched graph: %w", err)
	}
	capacity := make([][]float64, len(nodes))
	for r, ni := range nodes {
		capacity[r] = NodeCapacity(tr.Nodes[ni])
	}
	kinds := []utility.Kind{utility.Linear, utility.Log, utility.Reciprocal, utility.Poly}
	if opt.Utility != "mix" {
		k, err := utility.ParseKind(opt.Utility)
		if err != nil {
			return nil, err
		}
		kinds = []utility.Kind{k}
	}
	util := make([][]utility.Utility, len(nodes))
	for r := range util {
		util[r] = make([]utility.Utility, K)
		for k := range util[r] {
			u, err := utility.New(kinds[rng.IntN(len(kinds))], 1+0.5*rng.Float64())
			if err != nil {
				return nil, err
			}
			util[r][k] = u
		}
	}
	beta := make([]float64, K)
	for k := range beta {
		beta[k] = 0.3 + 0.2*rng.Float64()
	}
	p, err := ogasched.NewProblem(g, demand, capacity, util, beta)
	if err != nil {
		return nil, err
	}
	width := float64(last-first+1) / float64(opt.T)
	arr := make([][]float64, opt.T)
	for t := range arr {
		arr[t] = make([]float64, len(types))
	}
	covered := 0
	for l, jt := range types {
		for _, pi := range jt.Pods {
			t := min(int(float64(pods[pi].Creation-first)/width), opt.T-1)
			if opt.Counts {
				arr[t][l]++
			} else {
				arr[t][l] = 1
			}
			covered++
		}
	}
	return &OGASchedInstance{Problem: p, Arrivals: &ogasched.Trace{Ports: len(types), Arrivals: arr},
		Types: types, Nodes: nodes, SlotSeconds: width, Covered: covered, Total: len(pods)}, nil
}

func (o OGASchedSettings) withDefaults() OGASchedSettings {
	if o.Ports <= 0 {
		o.Ports = 10
	}
	if o.Nodes == 0 {
		o.Nodes = 128
	}
	if o.T <= 0 {
		o.T = 2000
	}
	if o.Contention <= 0 {
		o.Contention = 1
	}
	if o.Utility == "" {
		o.Utility = "mix"
	}
	return o
}

// NodeCapacity returns a node's capacity in the mapping units (cores,
// 4 GiB, GPUs).
func NodeCapacity(n Node) []float64 {
	return []float64{float64(n.CPUMilli) / CPUUnitMilli, float64(n.MemoryMiB) / MemUnitMiB, float64(n.GPU)}
}

// timed returns the pods that carry times.
func timed(pods []Pod) []Pod {
	out := make([]Pod, 0, len(pods))
	for _, p := range pods {
		if p.HasTimes {
			out = append(out, p)
		}
	}
	return out
}
