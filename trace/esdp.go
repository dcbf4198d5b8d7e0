package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
)

// ESDPSettings configures the ESDP mapping. Zero fields take the defaults in
// brackets (Table 2 of the ESDP paper where it has one).
type ESDPSettings struct {
	Ports   int // job types kept, most frequent shapes first [8]
	Servers int // nodes sampled uniformly [40]
	// Degree is the number of fitting servers each job type keeps as its
	// service locality [4, i.e. edge density 0.1 of 40 servers].
	Degree int
	T      int     // slots the creation span is cut into, for arrival rates [200]
	Alpha  float64 // capacities fit about Alpha |E| channels, in (0, 1] [0.5]
	Seed   uint64
	// Limits bounds the trace's values and T [Limits{}: the defaults].
	Limits Limits
}

// ESDPInstance is the ESDP view of a trace.
type ESDPInstance struct {
	Instance *esdp.Instance
	Types    []JobType
	Nodes    []int
}

// ESDP maps a trace to an ESDP instance. From the trace: job types (pod
// shapes), servers (sampled nodes), which servers a type fits (resources
// and GPU model), each type's arrival probability (the fraction of slots in
// which a pod of it was created), and demand levels: a_k^e =
// ceil(2*request_k/max request_k) in {0, 1, 2} (the paper's entries of A
// are 1 or 2; a job that asks none of a type gets 0). From the paper's
// generator, seeded: the valuations v_e ~ N(mu_e, (mu_e/2)^2) with
// mu_e ~ U[0.1, 1] and the costs f_k ~ N(0.5, 0.1), since the trace has no
// rewards, and cluster-wide capacities c_k = round(Alpha sum_e a_k^e),
// since the trace's nodes are far larger than its pods (a capacity from
// them would never bind, and the DP table grows with prod_k (c_k+1)).
// A pod fits most nodes, so each type keeps Degree of its fitting servers
// (seeded), which keeps |E| near Table 2's 32. Arrival rates are measured
// on T = 200 slots of the creation span (about 18 hours each): with finer
// slots every type arrives in under 2 % of them and the knapsack never
// binds; the simulated horizon is independent of T.
func ESDP(tr *Trace, opt ESDPSettings) (*ESDPInstance, error) {
	if err := opt.Limits.CheckTrace(tr); err != nil {
		return nil, err
	}
	if err := checkOptions(option{"ESDPSettings.Ports", int64(opt.Ports), 0}, option{"ESDPSettings.Servers", int64(opt.Servers), 0},
		option{"ESDPSettings.Degree", int64(opt.Degree), 0}, option{"ESDPSettings.T", int64(opt.T), 0}); err != nil {
		return nil, err
	}
	if opt.Alpha != 0 && !(opt.Alpha > 0 && opt.Alpha <= 1) {
		return nil, fmt.Errorf("%w: ESDPSettings.Alpha = %v, want (0, 1] (or 0 for 0.5)", ErrValue, opt.Alpha)
	}
	if opt.Ports <= 0 {
		opt.Ports = 8
	}
	if opt.Servers <= 0 {
		opt.Servers = 40
	}
	if opt.Degree <= 0 {
		opt.Degree = 4
	}
	if opt.T <= 0 {
		opt.T = 200
	}
	if opt.Alpha == 0 {
		opt.Alpha = 0.5
	}
	if err := opt.Limits.checkSlots("ESDPSettings.T", int64(opt.T)); err != nil {
		return nil, err
	}
	// The arrival-rate pass keeps one flag per slot: bounded by MaxCells
	// too, so that raising MaxSlots alone cannot allocate without limit.
	if err := opt.Limits.checkCells("ESDP arrival slots T", opt.T); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0xe5d9))
	first, last, ok := CreationSpan(tr.Pods)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no creation times", ErrEmpty, tr.PodFile)
	}
	pods := timed(tr.Pods)
	types := JobTypes(pods, opt.Ports)
	nodes := SampleNodes(tr.Nodes, opt.Servers, rng)
	if err := opt.Limits.checkCells("ESDP job types × nodes (the fit test)", len(types), len(nodes)); err != nil {
		return nil, err
	}
	var edges []bipartite.Edge
	for l, jt := range types {
		var fit []int
		for r, ni := range nodes {
			if jt.Fits(tr.Nodes[ni]) {
				fit = append(fit, r)
			}
		}
		if len(fit) > opt.Degree {
			rng.Shuffle(len(fit), func(i, j int) { fit[i], fit[j] = fit[j], fit[i] })
			fit = fit[:opt.Degree]
			slices.Sort(fit)
		}
		for _, r := range fit {
			edges = append(edges, bipartite.Edge{Left: l, Right: r})
		}
	}
	g, err := bipartite.NewGraph(len(types), len(nodes), edges)
	if err != nil {
		return nil, fmt.Errorf("trace: ESDP graph: %w", err)
	}
	if g.NumEdges() == 0 {
		return nil, fmt.Errorf("%w: no job type fits any sampled server", ErrEmpty)
	}
	const K = 3
	var maxReq [K]float64
	req := make([][K]float64, len(types))
	for l, jt := range types {
		req[l] = [K]float64{float64(jt.CPUMilli), float64(jt.MemoryMiB), float64(jt.GPUMilli)}
		for k := range K {
			maxReq[k] = math.Max(maxReq[k], req[l][k])
		}
	}
	E := g.NumEdges()
	in := &esdp.Instance{Cluster: esdp.Cluster{Graph: g, K: K, Demand: make([]int, E*K), Capacity: make([]int, K), Cost: make([]float64, E)},
		Mean: make([]float64, E), Std: make([]float64, E), Arrival: make([]float64, len(types))}
	for e := range E {
		l := g.Edge(e).Left
		for k := range K {
			if maxReq[k] > 0 {
				in.Demand[e*K+k] = int(math.Ceil(2 * req[l][k] / maxReq[k]))
			}
		}
	}
	for k := range K {
		sum := 0
		for e := range E {
			sum += in.Demand[e*K+k]
		}
		in.Capacity[k] = max(1, int(math.Round(opt.Alpha*float64(sum))))
	}
	// Valuations and costs as esdp.Generate draws them, normalised to [0,1].
	mu := make([]float64, E)
	lo, hi := math.Inf(1), math.Inf(-1)
	for e := range E {
		for range K {
			in.Cost[e] += math.Max(0, 0.5+0.1*rng.NormFloat64())
		}
		mu[e] = 0.1 + 0.9*rng.Float64()
		w := mu[e] - in.Cost[e]
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	span := hi - lo
	if !(span > 0) {
		span = 1
	}
	for e := range E {
		in.Mean[e] = (mu[e] - in.Cost[e] - lo) / span
		in.Std[e] = mu[e] / 2 / span
	}
	width := float64(last-first+1) / float64(opt.T)
	seen := make([]bool, opt.T)
	for l, jt := range types {
		clear(seen)
		n := 0
		for _, pi := range jt.Pods {
			t := min(int(float64(pods[pi].Creation-first)/width), opt.T-1)
			if !seen[t] {
				seen[t] = true
				n++
			}
		}
		in.Arrival[l] = float64(n) / float64(opt.T)
	}
	if err := in.Validate(); err != nil {
		return nil, err
	}
	return &ESDPInstance{Instance: in, Types: types, Nodes: nodes}, nil
}
