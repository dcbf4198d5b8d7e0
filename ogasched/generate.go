package ogasched

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/utility"
)

// ResourceNames are the K = 6 resource types of the paper's experiments.
var ResourceNames = []string{"CPU", "MEM", "GPU", "NPU", "TPU", "FPGA"}

// Config describes a random instance in the style of the paper's Section IV
// (Table II). DefaultConfig and LargeConfig give the paper's two sizes.
type Config struct {
	Ports, Nodes, K int
	// EdgeProb is the probability of each port-node edge (every port and
	// node keeps at least one edge).
	EdgeProb float64
	// Contention multiplies every demand a_l^k (Table II: 10).
	Contention float64
	// Utility is "mix" (each f_r^k drawn from linear, log, reciprocal, poly)
	// or one kind name accepted by utility.ParseKind.
	Utility string
	// ALo, AHi: a ~ U[ALo, AHi] per (r,k) in (54); BetaLo, BetaHi: beta_k ~ U.
	ALo, AHi, BetaLo, BetaHi float64
}

// DefaultConfig returns Table II: |L| = 10, |R| = 128, K = 6, contention 10,
// alpha in [1, 1.5], beta in [0.3, 0.5].
func DefaultConfig() Config {
	return Config{Ports: 10, Nodes: 128, K: 6, EdgeProb: 0.3, Contention: 10,
		Utility: "mix", ALo: 1, AHi: 1.5, BetaLo: 0.3, BetaHi: 0.5}
}

// LargeConfig returns the large-scale setting |L| = 100, |R| = 1024.
func LargeConfig() Config {
	c := DefaultConfig()
	c.Ports, c.Nodes, c.EdgeProb = 100, 1024, 0.05
	return c
}

// nodeClass are heterogeneous machine shapes (normalised units per type,
// CPU, MEM, GPU, NPU, TPU, FPGA), loosely following Alibaba node specs.
var nodeClass = [][]float64{
	{8, 16, 0, 0, 0, 0},  // CPU server
	{16, 32, 0, 0, 0, 0}, // large CPU server
	{8, 24, 4, 0, 0, 0},  // GPU node
	{12, 32, 8, 0, 0, 0}, // large GPU node
	{8, 16, 0, 4, 0, 0},  // NPU node
	{8, 16, 0, 0, 4, 0},  // TPU node
	{8, 16, 0, 0, 0, 2},  // FPGA node
	{16, 48, 4, 2, 2, 1}, // mixed accelerator node
}

// Generate draws an instance from cfg using rng.
func Generate(cfg Config, rng *rand.Rand) (*Problem, error) {
	if rng == nil {
		return nil, fmt.Errorf("%w: rng is a nil *rand.Rand", ErrSettings)
	}
	if cfg.Ports <= 0 || cfg.Nodes <= 0 || cfg.K <= 0 {
		return nil, fmt.Errorf("%w: Ports = %d, Nodes = %d, K = %d, want > 0", ErrSettings, cfg.Ports, cfg.Nodes, cfg.K)
	}
	if cfg.K > MaxK {
		return nil, fmt.Errorf("%w: K = %d, limit %d", ErrSettings, cfg.K, MaxK)
	}
	if !checked.Within(MaxGenerateCells, cfg.Ports, cfg.Nodes) {
		return nil, fmt.Errorf("%w: Ports x Nodes = %d x %d above the limit %d", ErrSettings, cfg.Ports, cfg.Nodes, MaxGenerateCells)
	}
	if !(cfg.EdgeProb > 0 && cfg.EdgeProb <= 1) {
		return nil, fmt.Errorf("%w: EdgeProb = %v, want in (0, 1]", ErrSettings, cfg.EdgeProb)
	}
	if !(cfg.Contention > 0 && cfg.Contention <= MaxValue) {
		return nil, fmt.Errorf("%w: Contention = %v, want in (0, %g]", ErrSettings, cfg.Contention, MaxValue)
	}
	if !(cfg.ALo > 0 && cfg.AHi >= cfg.ALo && cfg.AHi <= MaxValue) {
		return nil, fmt.Errorf("%w: ALo = %v, AHi = %v, want 0 < ALo <= AHi <= %g", ErrSettings, cfg.ALo, cfg.AHi, MaxValue)
	}
	if !(cfg.BetaLo >= 0 && cfg.BetaHi >= cfg.BetaLo && cfg.BetaHi <= 1) {
		return nil, fmt.Errorf("%w: BetaLo = %v, BetaHi = %v, want 0 <= BetaLo <= BetaHi <= 1", ErrSettings, cfg.BetaLo, cfg.BetaHi)
	}
	var kinds []utility.Kind
	if cfg.Utility == "" || cfg.Utility == "mix" {
		kinds = []utility.Kind{utility.Linear, utility.Log, utility.Reciprocal, utility.Poly}
	} else {
		k, err := utility.ParseKind(cfg.Utility)
		if err != nil {
			return nil, fmt.Errorf("%w: utility %q: %w", ErrSettings, cfg.Utility, err)
		}
		if k == utility.Sqrt || k == utility.AlphaFair {
			return nil, fmt.Errorf("%w: utility %q: Generate draws linear, log, reciprocal or poly (sqrt has an infinite derivative at 0, which OGASched rejects; alphafair needs an alpha)", ErrSettings, cfg.Utility)
		}
		kinds = []utility.Kind{k}
	}
	L, R, K := cfg.Ports, cfg.Nodes, cfg.K
	var edges []bipartite.Edge
	degL, degR := make([]int, L), make([]int, R)
	for l := 0; l < L; l++ {
		for r := 0; r < R; r++ {
			if rng.Float64() < cfg.EdgeProb {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
				degL[l]++
				degR[r]++
			}
		}
	}
	for l := 0; l < L; l++ {
		if degL[l] == 0 {
			r := rng.IntN(R)
			edges = append(edges, bipartite.Edge{Left: l, Right: r})
			degR[r]++
		}
	}
	for r := 0; r < R; r++ {
		if degR[r] == 0 {
			edges = append(edges, bipartite.Edge{Left: rng.IntN(L), Right: r})
		}
	}
	g, err := bipartite.NewGraph(L, R, edges)
	if err != nil {
		return nil, fmt.Errorf("%w: generated graph: %w", ErrSettings, err)
	}
	capacity := make([][]float64, R)
	util := make([][]utility.Utility, R)
	for r := range capacity {
		cls := nodeClass[rng.IntN(len(nodeClass))]
		capacity[r] = make([]float64, K)
		util[r] = make([]utility.Utility, K)
		for k := 0; k < K; k++ {
			capacity[r][k] = cls[k%len(cls)]
			a := cfg.ALo + (cfg.AHi-cfg.ALo)*rng.Float64()
			u, err := utility.New(kinds[rng.IntN(len(kinds))], a)
			if err != nil {
				return nil, fmt.Errorf("%w: generated utility: %w", ErrSettings, err)
			}
			util[r][k] = u
		}
	}
	demand := make([][]float64, L)
	for l := range demand {
		demand[l] = make([]float64, K)
		for k := 0; k < K; k++ {
			// CPU and MEM always; an accelerator type with probability 1/2.
			if k%len(ResourceNames) >= 2 && rng.IntN(2) == 0 {
				continue
			}
			demand[l][k] = cfg.Contention * (0.1 + 0.4*rng.Float64())
		}
	}
	beta := make([]float64, K)
	for k := range beta {
		beta[k] = cfg.BetaLo + (cfg.BetaHi-cfg.BetaLo)*rng.Float64()
	}
	return NewProblem(g, demand, capacity, util, beta)
}
