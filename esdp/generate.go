package esdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
)

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
	// papers' alpha of m = alpha |E| (Settings.Alpha), so it must be in (0, 1]
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
			return nil, fmt.Errorf("%w: generated graph: %w", ErrSettings, err)
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
