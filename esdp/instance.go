package esdp

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/internal/strictjson"
)

// Cluster is what a scheduler knows about the system: the bipartite graph
// of ports (job types) and servers, whose edges are the channels; K resource
// types with the cluster-wide capacities c_k of (1); the requirement
// a_k^e of every channel, stored flat as Demand[e*K+k]; and the supply cost
// Cost[e] = sum_k f_k(a_k^e) of every channel (in raw units, before the
// normalisation of the rewards; used by the LCF baseline).
type Cluster struct {
	Graph    *bipartite.Graph
	K        int
	Demand   []int
	Capacity []int
	Cost     []float64
}

// Clone returns a deep copy of c (the immutable graph is shared); nil for
// a nil c.
func (c *Cluster) Clone() *Cluster {
	if c == nil {
		return nil
	}
	return &Cluster{Graph: c.Graph, K: c.K, Demand: append([]int(nil), c.Demand...),
		Capacity: append([]int(nil), c.Capacity...), Cost: append([]float64(nil), c.Cost...)}
}

// NumEdges returns |E|.
func (c *Cluster) NumEdges() int { return c.Graph.NumEdges() }

// NumPorts returns |L|.
func (c *Cluster) NumPorts() int { return c.Graph.NumLeft() }

// MaxEdges bounds the channels of a Cluster (and Settings.M): policies keep
// a few slices of this length.
const MaxEdges = 1 << 22

// Validate checks the dimensions and values of c. A nil c is an error.
func (c *Cluster) Validate() error {
	if c == nil {
		return fmt.Errorf("%w: nil cluster", ErrDimension)
	}
	if c.Graph == nil {
		return fmt.Errorf("%w: nil graph", ErrDimension)
	}
	E := c.Graph.NumEdges()
	if E > MaxEdges {
		return fmt.Errorf("%w: |E| = %d, limit MaxEdges = %d", ErrTooLarge, E, MaxEdges)
	}
	if c.K > 64 {
		return fmt.Errorf("%w: K = %d, limit 64", ErrDimension, c.K)
	}
	if err := checkShape(c.K, E, c.Demand, c.Capacity, nil); err != nil {
		return err
	}
	if len(c.Cost) != E {
		return fmt.Errorf("%w: len(Cost) = %d, want |E| = %d", ErrDimension, len(c.Cost), E)
	}
	for e, v := range c.Cost {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: Cost[%d] = %v", ErrValue, e, v)
		}
	}
	return nil
}

// Playable reports whether channel e fits alone in the capacities,
// a_k^e <= c_k for every k. A channel that is not playable can never be
// chosen by any feasible x; policies exclude it from exploration (it would
// stay unplayed forever).
func (c *Cluster) Playable(e int) bool {
	K := c.K
	for k := 0; k < K; k++ {
		if c.Demand[e*K+k] > c.Capacity[k] {
			return false
		}
	}
	return true
}

// Feasible returns nil if x satisfies the capacity constraint (1) and the
// arrival constraint (2) (no edge of a port without a job), and an error
// naming the first violation otherwise. arrived may be nil (no check of (2)).
func (c *Cluster) Feasible(x, arrived []bool) error {
	if len(x) != c.NumEdges() {
		return fmt.Errorf("%w: len(x) = %d, want |E| = %d", ErrDimension, len(x), c.NumEdges())
	}
	K := c.K
	for k := 0; k < K; k++ {
		use := 0
		for e, on := range x {
			if !on {
				continue
			}
			var ok bool
			if use, ok = checked.Add(use, c.Demand[e*K+k]); !ok {
				return fmt.Errorf("%w: type %d: the demand of the chosen edges exceeds math.MaxInt > capacity %d", ErrValue, k, c.Capacity[k])
			}
		}
		if use > c.Capacity[k] {
			return fmt.Errorf("%w: type %d uses %d > capacity %d", ErrValue, k, use, c.Capacity[k])
		}
	}
	if arrived != nil {
		if len(arrived) != c.NumPorts() {
			return fmt.Errorf("%w: len(arrived) = %d, want |L| = %d", ErrDimension, len(arrived), c.NumPorts())
		}
		for e, on := range x {
			if on && !arrived[c.Graph.Edge(e).Left] {
				return fmt.Errorf("%w: edge %d chosen but port %d has no job", ErrValue, e, c.Graph.Edge(e).Left)
			}
		}
	}
	return nil
}

// Instance is a Cluster together with what the scheduler does not know:
// the distribution of the normalised reward Z~_e(t) of every channel and
// the arrival probability rho_l of every port.
//
// Z~_e(t) = clip(N(Mean[e], Std[e]^2), 0, 1), independent over edges and
// slots, so rewards lie in [0,1] as the paper assumes; its mean (the v~_e of
// (6)) is Expected(e). A job arrives at port l in a slot with probability
// Arrival[l], independently. A trace loader builds an Instance from real
// data by filling these fields and calling Validate.
type Instance struct {
	Cluster
	Mean    []float64 // location of the normalised reward, per edge
	Std     []float64 // its standard deviation, >= 0
	Arrival []float64 // rho_l in [0,1], per port
}

// Validate checks the dimensions and values of in. A nil in is an error.
func (in *Instance) Validate() error {
	if in == nil {
		return fmt.Errorf("%w: nil instance", ErrDimension)
	}
	if err := in.Cluster.Validate(); err != nil {
		return err
	}
	E, L := in.NumEdges(), in.NumPorts()
	if len(in.Mean) != E || len(in.Std) != E {
		return fmt.Errorf("%w: len(Mean) = %d, len(Std) = %d, want |E| = %d", ErrDimension, len(in.Mean), len(in.Std), E)
	}
	if len(in.Arrival) != L {
		return fmt.Errorf("%w: len(Arrival) = %d, want |L| = %d", ErrDimension, len(in.Arrival), L)
	}
	for e := 0; e < E; e++ {
		if v := in.Mean[e]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: Mean[%d] = %v", ErrValue, e, v)
		}
		if v := in.Std[e]; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%w: Std[%d] = %v", ErrValue, e, v)
		}
	}
	for l, v := range in.Arrival {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("%w: Arrival[%d] = %v", ErrValue, l, v)
		}
	}
	return nil
}

// Expected returns E[Z~_e] = E[clip(N(m, s^2), 0, 1)] in closed form:
// m (Phi(b) - Phi(a)) + s (phi(a) - phi(b)) + 1 - Phi(b), a = -m/s,
// b = (1-m)/s.
func (in *Instance) Expected(e int) float64 { return clippedMean(in.Mean[e], in.Std[e]) }

// ExpectedRewards writes E[Z~_e] of every edge into dst (len |E|, reused
// when long enough) and returns it.
func (in *Instance) ExpectedRewards(dst []float64) []float64 {
	dst = grow(dst, in.NumEdges())
	for e := range dst {
		dst[e] = in.Expected(e)
	}
	return dst
}

func clippedMean(m, s float64) float64 {
	if s == 0 {
		return math.Min(math.Max(m, 0), 1)
	}
	a, b := -m/s, (1-m)/s
	Phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	phi := func(x float64) float64 { return math.Exp(-x*x/2) / math.Sqrt(2*math.Pi) }
	return m*(Phi(b)-Phi(a)) + s*(phi(a)-phi(b)) + 1 - Phi(b)
}

// SampleRewards draws Z~(t) for every edge into dst (len |E|) using rng.
// It panics if len(dst) != |E| or rng is nil.
func (in *Instance) SampleRewards(dst []float64, rng *rand.Rand) {
	if len(dst) != in.NumEdges() {
		panic("esdp: len(dst) != NumEdges")
	}
	for e := range dst {
		dst[e] = math.Min(math.Max(in.Mean[e]+in.Std[e]*rng.NormFloat64(), 0), 1)
	}
}

// SampleArrivals draws the arrival indicators 1_l(t) into dst (len |L|).
// It panics if len(dst) != |L| or rng is nil.
func (in *Instance) SampleArrivals(dst []bool, rng *rand.Rand) {
	if len(dst) != in.NumPorts() {
		panic("esdp: len(dst) != NumPorts")
	}
	for l := range dst {
		dst[l] = rng.Float64() < in.Arrival[l]
	}
}

// instanceJSON is the version-1 schema of an Instance.
type instanceJSON struct {
	Version  int              `json:"version"`
	Graph    *bipartite.Graph `json:"graph"`
	K        int              `json:"k"`
	Demand   [][]int          `json:"demand"` // per edge, K entries
	Capacity []int            `json:"capacity"`
	Cost     []float64        `json:"cost"`
	Mean     []float64        `json:"mean"`
	Std      []float64        `json:"std"`
	Arrival  []float64        `json:"arrival"`
}

// MarshalJSON encodes in as {"version":1,"graph":{...},"k":K,
// "demand":[[a_1^e,...,a_K^e],...],"capacity":[...],"cost":[...],
// "mean":[...],"std":[...],"arrival":[...]} with per-edge arrays in edge-id
// order (the graph's (left, right) order).
func (in *Instance) MarshalJSON() ([]byte, error) {
	j := instanceJSON{Version: 1, Graph: in.Graph, K: in.K, Capacity: in.Capacity, Cost: in.Cost,
		Mean: in.Mean, Std: in.Std, Arrival: in.Arrival}
	j.Demand = make([][]int, in.NumEdges())
	for e := range j.Demand {
		j.Demand[e] = in.Demand[e*in.K : (e+1)*in.K]
	}
	return json.Marshal(j)
}

// MaxVertices bounds the ports and servers an encoded instance may declare.
const MaxVertices = 1 << 22

// UnmarshalJSON decodes and validates an instance written by MarshalJSON.
// The graph's declared sizes are checked against MaxVertices and MaxEdges
// before the graph is built; anything after the JSON object is an error.
func (in *Instance) UnmarshalJSON(b []byte) error {
	if err := strictjson.Check(b, &instanceJSON{}); err != nil {
		return fmt.Errorf("%w: %w", ErrValue, err)
	}
	var head struct {
		Version int             `json:"version"`
		Graph   json.RawMessage `json:"graph"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return fmt.Errorf("%w: %w", ErrValue, err)
	}
	if head.Version != 1 {
		return fmt.Errorf("%w: version %d", ErrVersion, head.Version)
	}
	if len(head.Graph) == 0 || string(head.Graph) == "null" {
		return fmt.Errorf("%w: missing graph", ErrDimension)
	}
	var gsize struct {
		Left, Right float64
		Edges       []json.RawMessage
	}
	if err := json.Unmarshal(head.Graph, &gsize); err != nil {
		return fmt.Errorf("%w: graph: %w", ErrValue, err)
	}
	if !(gsize.Left >= 0 && gsize.Left <= MaxVertices) || !(gsize.Right >= 0 && gsize.Right <= MaxVertices) {
		return fmt.Errorf("%w: graph left = %v, right = %v, limit MaxVertices = %d", ErrTooLarge, gsize.Left, gsize.Right, MaxVertices)
	}
	if len(gsize.Edges) > MaxEdges {
		return fmt.Errorf("%w: graph has %d edges, limit MaxEdges = %d", ErrTooLarge, len(gsize.Edges), MaxEdges)
	}
	var j instanceJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("%w: %w", ErrValue, err)
	}
	if j.Graph == nil {
		return fmt.Errorf("%w: missing graph", ErrDimension)
	}
	if j.K < 0 || j.K > 64 {
		return fmt.Errorf("%w: k = %d", ErrDimension, j.K)
	}
	if len(j.Demand) != j.Graph.NumEdges() {
		return fmt.Errorf("%w: %d demand rows, want |E| = %d", ErrDimension, len(j.Demand), j.Graph.NumEdges())
	}
	out := Instance{Cluster: Cluster{Graph: j.Graph, K: j.K, Capacity: j.Capacity, Cost: j.Cost},
		Mean: j.Mean, Std: j.Std, Arrival: j.Arrival}
	out.Demand = make([]int, 0, len(j.Demand)*j.K)
	for e, row := range j.Demand {
		if len(row) != j.K {
			return fmt.Errorf("%w: demand[%d] has %d entries, want k = %d", ErrDimension, e, len(row), j.K)
		}
		out.Demand = append(out.Demand, row...)
	}
	if err := out.Validate(); err != nil {
		return err
	}
	*in = out
	return nil
}
