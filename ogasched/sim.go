package ogasched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

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
		return nil, err
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
				return nil, err
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

// Trace is a recorded arrival matrix: Arrivals[t][l] = x_l(t) >= 0.
type Trace struct {
	Ports    int
	Arrivals [][]float64
}

// BernoulliTrace draws T slots of independent Bernoulli(rho) arrivals per port.
func BernoulliTrace(ports, T int, rho float64, rng *rand.Rand) (*Trace, error) {
	if ports <= 0 || T < 0 || !(rho >= 0 && rho <= 1) {
		return nil, fmt.Errorf("%w: ports = %d, T = %d, rho = %v", ErrSettings, ports, T, rho)
	}
	if !checked.Within(MaxTraceCells, ports, T) {
		return nil, fmt.Errorf("%w: ports x T = %d x %d above the limit %d", ErrSettings, ports, T, MaxTraceCells)
	}
	tr := &Trace{Ports: ports, Arrivals: make([][]float64, T)}
	flat := make([]float64, ports*T)
	for t := range tr.Arrivals {
		x := flat[t*ports : (t+1)*ports : (t+1)*ports]
		for l := range x {
			if rng.Float64() < rho {
				x[l] = 1
			}
		}
		tr.Arrivals[t] = x
	}
	return tr, nil
}

// Validate checks shapes and values of the trace: 1 <= Ports <= MaxVertices,
// Ports x T <= MaxTraceCells, every row of length Ports, every count finite,
// non-negative and at most MaxValue.
func (tr *Trace) Validate() error {
	if tr.Ports < 1 || tr.Ports > MaxVertices {
		return fmt.Errorf("%w: ports = %d, want 1..%d", ErrDimension, tr.Ports, MaxVertices)
	}
	if !checked.Within(MaxTraceCells, tr.Ports, len(tr.Arrivals)) {
		return fmt.Errorf("%w: ports x T = %d x %d above the limit %d", ErrDimension, tr.Ports, len(tr.Arrivals), MaxTraceCells)
	}
	for t, x := range tr.Arrivals {
		if len(x) != tr.Ports {
			return fmt.Errorf("%w: len(arrivals[%d]) = %d, want %d", ErrDimension, t, len(x), tr.Ports)
		}
		for l, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return fmt.Errorf("%w: arrivals[%d][%d] = %v, want finite in [0, %g]", ErrValue, t, l, v, MaxValue)
			}
		}
	}
	return nil
}

// Series is the per-slot record of one policy in a Run.
type Series struct {
	Name                  string
	Reward, Gain, Penalty []float64 // per slot: q(x(t), y(t)) = Gain - Penalty
	Total                 float64   // sum of Reward
	Wall                  time.Duration
}

// RunSettings configures Run. The zero value runs policies one at a time
// and does not check feasibility.
type RunSettings struct {
	// Workers is the number of policies simulated concurrently; 0 means 1.
	// Results do not depend on it.
	Workers int
	// CheckTol, if positive, checks every decision against (5)-(6) with this
	// tolerance and fails the run on a violation.
	CheckTol float64
	// Progress, if not nil, is called after every ProgressEvery slots of
	// each policy (from the goroutine simulating it) and at its end.
	Progress func(policy string, t, T int)
	// ProgressEvery is the slot interval of Progress; 0 means T/10.
	ProgressEvery int
}

// Run replays tr through every policy: at slot t it calls Decide(t, x(t)),
// records q(x(t), y), and, if the policy is a bipartite.Learner[[]float64],
// calls Observe(t, x(t)). Policies are independent and see the same
// arrivals.
func Run(p *Problem, tr *Trace, pols []bipartite.OnlinePolicy[[]float64, []float64], s RunSettings) ([]Series, error) {
	if p == nil || tr == nil {
		return nil, fmt.Errorf("%w: nil problem or trace", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	for i, pol := range pols {
		if pol == nil {
			return nil, fmt.Errorf("%w: policy %d is nil", ErrSettings, i)
		}
	}
	if s.Workers < 0 || s.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, s.Workers, MaxWorkers)
	}
	if math.IsNaN(s.CheckTol) || s.CheckTol < 0 {
		return nil, fmt.Errorf("%w: CheckTol = %v, want >= 0", ErrSettings, s.CheckTol)
	}
	if tr.Ports != p.NumPorts() {
		return nil, fmt.Errorf("%w: trace has %d ports, problem %d", ErrDimension, tr.Ports, p.NumPorts())
	}
	if err := tr.Validate(); err != nil {
		return nil, err
	}
	w := s.Workers
	if w <= 0 {
		w = 1
	}
	out := make([]Series, len(pols))
	errs := make([]error, len(pols))
	sem := make(chan struct{}, w)
	var wg sync.WaitGroup
	for i, pol := range pols {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = runOne(p, tr, pol, s)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func runOne(p *Problem, tr *Trace, pol bipartite.OnlinePolicy[[]float64, []float64], rs RunSettings) (Series, error) {
	T := len(tr.Arrivals)
	tol := rs.CheckTol
	every := rs.ProgressEvery
	if every <= 0 {
		every = max(1, T/10)
	}
	s := Series{Name: pol.Name(), Reward: make([]float64, T), Gain: make([]float64, T), Penalty: make([]float64, T)}
	learner, _ := pol.(bipartite.Learner[[]float64])
	start := time.Now()
	for t, x := range tr.Arrivals {
		y, err := pol.Decide(t, x)
		if err != nil {
			return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
		}
		if tol > 0 {
			if err := p.Feasible(y, tol); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
			}
		}
		g, pen := p.RewardParts(x, y)
		s.Gain[t], s.Penalty[t], s.Reward[t] = g, pen, g-pen
		s.Total += g - pen
		if learner != nil {
			if err := learner.Observe(t, x); err != nil {
				return s, fmt.Errorf("%s: slot %d: %w", pol.Name(), t, err)
			}
		}
		if rs.Progress != nil && ((t+1)%every == 0 || t+1 == T) {
			rs.Progress(s.Name, t+1, T)
		}
	}
	s.Wall = time.Since(start)
	return s, nil
}
