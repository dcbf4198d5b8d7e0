package esdp

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
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

// NumEdges returns |E|.
func (c *Cluster) NumEdges() int { return c.Graph.NumEdges() }

// NumPorts returns |L|.
func (c *Cluster) NumPorts() int { return c.Graph.NumLeft() }

// MaxEdges bounds the channels of a Cluster (and Options.M): policies keep
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
// It panics if len(dst) != |E|.
func (in *Instance) SampleRewards(dst []float64, rng *rand.Rand) {
	if len(dst) != in.NumEdges() {
		panic("esdp: len(dst) != NumEdges")
	}
	for e := range dst {
		dst[e] = math.Min(math.Max(in.Mean[e]+in.Std[e]*rng.NormFloat64(), 0), 1)
	}
}

// SampleArrivals draws the arrival indicators 1_l(t) into dst (len |L|).
// It panics if len(dst) != |L|.
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

// CapacityRule selects how Generate draws the capacities c_k.
type CapacityRule int

const (
	// CapacityTable2 is Table 2 of the papers: the capacities are bounded
	// like the demands, c_k uniform integers in [CapLo, CapHi] ([1, 2] in
	// Table 2 and in paper 003's default scenario). Only one or two
	// channels fit per slot and some channels never fit (their demand
	// exceeds the capacity). This is the faithful default: the papers'
	// welfare axis (about 2 200 over T = 2000) has this scale.
	CapacityTable2 CapacityRule = iota
	// CapacityAlpha sets c_k = max(1, round(Alpha sum_e a_k^e)), so about
	// Alpha |E| channels fit per slot (msched's earlier reading of
	// "alpha = 0.5"; accumulated welfare about 10x the papers').
	CapacityAlpha
)

var capacityRuleNames = [...]string{CapacityTable2: "table2", CapacityAlpha: "alpha"}

func (r CapacityRule) String() string {
	if r >= 0 && int(r) < len(capacityRuleNames) {
		return capacityRuleNames[r]
	}
	return fmt.Sprintf("CapacityRule(%d)", int(r))
}

// ParseCapacityRule returns the rule named s ("table2" or "alpha").
func ParseCapacityRule(s string) (CapacityRule, error) {
	for r, name := range capacityRuleNames {
		if name == s {
			return CapacityRule(r), nil
		}
	}
	return 0, fmt.Errorf("%w: capacity rule %q, want \"table2\" or \"alpha\"", ErrSettings, s)
}

// Limits of Generate: the largest sizes a Config may declare.
const (
	// MaxGeneratePairs bounds Ports*Servers (the candidate edges drawn).
	MaxGeneratePairs = 1 << 22
	// MaxGenerateInt bounds DemandHi and CapHi.
	MaxGenerateInt = 1 << 30
)

// Config describes a random instance in the style of the paper's Tables 2
// and 3. DefaultConfig returns the defaults.
type Config struct {
	Ports, Servers, K int     // |L|, |R|, K (K <= 64)
	EdgeProb          float64 // probability of each port-server edge
	ArrivalProb       float64 // rho_l of every port
	// Demands a_k^e are uniform integers in [DemandLo, DemandHi] (Table 2:
	// lower and upper bounds 1 and 2 of the entries of A).
	DemandLo, DemandHi int
	// Cost: f_k(a_k^e) ~ N(CostMean, CostStd^2) per edge and type, clipped
	// at 0; Cost[e] is their sum over k.
	CostMean, CostStd float64
	// Valuations: Z_e(t) ~ N(mu_e, (mu_e/2)^2), mu_e ~ U[MeanLo, MeanHi].
	MeanLo, MeanHi float64
	// CapacityRule selects the capacities; its zero value is
	// CapacityTable2.
	CapacityRule CapacityRule
	// CapLo, CapHi bound the capacities under CapacityTable2 (Table 2: 1
	// and 2); 0 <= CapLo <= CapHi, CapHi >= 1.
	CapLo, CapHi int
	// Alpha: under CapacityAlpha the capacities fit about Alpha |E|
	// channels, c_k = max(1, round(Alpha sum_e a_k^e)). Alpha is also the
	// papers' alpha of m = alpha |E| (Options.Alpha), so it must be in (0, 1]
	// under either rule.
	Alpha float64
}

// DefaultConfig returns Table 2: |L| = 8, |R| = 40, K = 3, edge probability
// 0.1, arrival probability 0.9, a in {1, 2}, c in {1, 2} (CapacityTable2),
// f ~ N(0.5, 0.1), mu ~ U[0.1, 1], alpha = 0.5.
func DefaultConfig() Config {
	return Config{Ports: 8, Servers: 40, K: 3, EdgeProb: 0.1, ArrivalProb: 0.9,
		DemandLo: 1, DemandHi: 2, CostMean: 0.5, CostStd: 0.1, MeanLo: 0.1, MeanHi: 1,
		CapacityRule: CapacityTable2, CapLo: 1, CapHi: 2, Alpha: 0.5}
}

// Validate checks cfg and returns every problem found, each naming its
// field, value and limit.
func (cfg Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrSettings}, a...)...))
	}
	if cfg.Ports <= 0 {
		bad("Ports = %d, want > 0", cfg.Ports)
	}
	if cfg.Servers <= 0 {
		bad("Servers = %d, want > 0", cfg.Servers)
	}
	if cfg.Ports > 0 && cfg.Servers > 0 && !checked.Within(MaxGeneratePairs, cfg.Ports, cfg.Servers) {
		bad("Ports*Servers = %d*%d, limit %d", cfg.Ports, cfg.Servers, MaxGeneratePairs)
	}
	if cfg.K <= 0 || cfg.K > 64 {
		bad("K = %d, want 1..64", cfg.K)
	}
	if !(cfg.EdgeProb > 0 && cfg.EdgeProb <= 1) {
		bad("EdgeProb = %v, want (0, 1]", cfg.EdgeProb)
	}
	if !(cfg.ArrivalProb >= 0 && cfg.ArrivalProb <= 1) {
		bad("ArrivalProb = %v, want [0, 1]", cfg.ArrivalProb)
	}
	if cfg.DemandLo < 0 || cfg.DemandHi < cfg.DemandLo || cfg.DemandHi > MaxGenerateInt {
		bad("DemandLo, DemandHi = %d, %d, want 0 <= DemandLo <= DemandHi <= %d", cfg.DemandLo, cfg.DemandHi, MaxGenerateInt)
	}
	if !(cfg.CostStd >= 0) || math.IsInf(cfg.CostStd, 0) || math.IsInf(cfg.CostMean, 0) || math.IsNaN(cfg.CostMean) {
		bad("CostMean, CostStd = %v, %v, want finite, CostStd >= 0", cfg.CostMean, cfg.CostStd)
	}
	if !(cfg.MeanLo >= 0 && cfg.MeanHi >= cfg.MeanLo) || math.IsInf(cfg.MeanHi, 0) {
		bad("MeanLo, MeanHi = %v, %v, want 0 <= MeanLo <= MeanHi < Inf", cfg.MeanLo, cfg.MeanHi)
	}
	if !(cfg.Alpha > 0 && cfg.Alpha <= 1) {
		bad("Alpha = %v, want (0, 1]", cfg.Alpha)
	}
	switch cfg.CapacityRule {
	case CapacityTable2:
		if cfg.CapLo < 0 || cfg.CapHi < max(cfg.CapLo, 1) || cfg.CapHi > MaxGenerateInt {
			bad("CapLo, CapHi = %d, %d, want 0 <= CapLo <= CapHi, 1 <= CapHi <= %d", cfg.CapLo, cfg.CapHi, MaxGenerateInt)
		}
	case CapacityAlpha:
	default:
		bad("CapacityRule = %d, want CapacityTable2 or CapacityAlpha", int(cfg.CapacityRule))
	}
	return errors.Join(errs...)
}

// Generate draws an instance from cfg with rng.
//
// The raw welfare of a channel is Z_e(t) - Cost[e]. The paper normalises
// the rewards into [0,1] without saying how; msched maps the raw welfare
// affinely so that the means span [0,1] exactly — lo = min_e (mu_e -
// Cost[e]), hi = max_e (mu_e - Cost[e]), Mean[e] = (mu_e - Cost[e] - lo) /
// (hi - lo), Std[e] = (mu_e/2) / (hi - lo) — and clips each draw to [0,1]
// (Instance). The graph is bipartite.Bernoulli (isolated vertices allowed);
// an instance with no edge is redrawn (at most 100 times). The capacities
// of CapacityTable2 are drawn last, so the two rules give the same graph,
// demands, costs and means for the same rng state.
func Generate(cfg Config, rng *rand.Rand) (*Instance, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: nil *rand.Rand", ErrSettings)
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var g *bipartite.Graph
	for try := 0; ; try++ {
		var err error
		g, err = bipartite.Bernoulli(cfg.Ports, cfg.Servers, cfg.EdgeProb, rng)
		if err != nil {
			return nil, err
		}
		if g.NumEdges() > 0 {
			break
		}
		if try == 100 {
			return nil, fmt.Errorf("%w: no edge in 100 draws with EdgeProb = %v", ErrSettings, cfg.EdgeProb)
		}
	}
	E, K := g.NumEdges(), cfg.K
	in := &Instance{Cluster: Cluster{Graph: g, K: K, Demand: make([]int, E*K), Capacity: make([]int, K), Cost: make([]float64, E)},
		Mean: make([]float64, E), Std: make([]float64, E), Arrival: make([]float64, cfg.Ports)}
	for i := range in.Demand {
		in.Demand[i] = cfg.DemandLo + rng.IntN(cfg.DemandHi-cfg.DemandLo+1)
	}
	if cfg.CapacityRule == CapacityAlpha {
		for k := 0; k < K; k++ {
			sum := 0 // <= MaxGeneratePairs * MaxGenerateInt: no overflow
			for e := 0; e < E; e++ {
				sum += in.Demand[e*K+k]
			}
			in.Capacity[k] = max(1, int(math.Round(cfg.Alpha*float64(sum))))
		}
	}
	mu := make([]float64, E)
	lo, hi := math.Inf(1), math.Inf(-1)
	for e := 0; e < E; e++ {
		for k := 0; k < K; k++ {
			in.Cost[e] += math.Max(0, cfg.CostMean+cfg.CostStd*rng.NormFloat64())
		}
		mu[e] = cfg.MeanLo + (cfg.MeanHi-cfg.MeanLo)*rng.Float64()
		w := mu[e] - in.Cost[e]
		lo, hi = math.Min(lo, w), math.Max(hi, w)
	}
	span := hi - lo
	if !(span > 0) {
		span = 1
	}
	for e := 0; e < E; e++ {
		in.Mean[e] = (mu[e] - in.Cost[e] - lo) / span
		in.Std[e] = mu[e] / 2 / span
	}
	for l := range in.Arrival {
		in.Arrival[l] = cfg.ArrivalProb
	}
	if cfg.CapacityRule == CapacityTable2 {
		for k := range in.Capacity {
			in.Capacity[k] = cfg.CapLo + rng.IntN(cfg.CapHi-cfg.CapLo+1)
		}
	}
	return in, in.Validate()
}
