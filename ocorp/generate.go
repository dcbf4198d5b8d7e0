package ocorp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// GenConfig describes a synthetic job list in the style of the paper's
// Google-trace workload (Section VI: 6487 jobs in 10 hours on servers of
// 64, 32 and 16 cores). Times are in seconds; use Discretize for slots.
//
// Distributions (the trace itself is not available):
//   - arrivals: Jobs arrival times i.i.d. uniform on [0, Horizon), sorted;
//   - processing time: bounded Pareto with shape Shape on [MinProc, MaxProc]
//     (heavy-tailed: most jobs short, a few very long), rounded up;
//   - cores d_j: Cores[i] with probability CoreWeights[i];
//   - memory m_j: d_j times a uniform integer in [MemPerCoreMin, MemPerCoreMax]
//     (GB), so memory is about as binding as CPU on the default cluster.
type GenConfig struct {
	Jobs, Horizon                int
	MinProc, MaxProc             int
	Shape                        float64
	Cores                        []int
	CoreWeights                  []float64
	MemPerCoreMin, MemPerCoreMax int
}

// DefaultGenConfig returns 6500 jobs over 10 h, processing times bounded
// Pareto(0.6) on [10 s, 30000 s] (mean about 400 s), cores in
// {1, 2, 4, 8, 16} with probabilities {0.4, 0.25, 0.2, 0.1, 0.05}, and
// 1-8 GB of memory per core.
func DefaultGenConfig() GenConfig {
	return GenConfig{Jobs: 6500, Horizon: 36000, MinProc: 10, MaxProc: 30000, Shape: 0.6,
		Cores: []int{1, 2, 4, 8, 16}, CoreWeights: []float64{0.4, 0.25, 0.2, 0.1, 0.05},
		MemPerCoreMin: 1, MemPerCoreMax: 8}
}

// Generate draws a job list (times in seconds) from cfg with rng.
func Generate(cfg GenConfig, rng *rand.Rand) ([]Job, error) {
	if cfg.Jobs < 1 || cfg.Horizon < 1 || cfg.MinProc < 1 || cfg.MaxProc < cfg.MinProc || !(cfg.Shape > 0) ||
		len(cfg.Cores) == 0 || len(cfg.Cores) != len(cfg.CoreWeights) || cfg.MemPerCoreMin < 0 || cfg.MemPerCoreMax < cfg.MemPerCoreMin {
		return nil, fmt.Errorf("%w: %+v", ErrSettings, cfg)
	}
	tot := 0.0
	for i, w := range cfg.CoreWeights {
		if !(w >= 0) || math.IsInf(w, 0) || cfg.Cores[i] < 1 {
			return nil, fmt.Errorf("%w: cores[%d] = %d weight %v", ErrSettings, i, cfg.Cores[i], w)
		}
		tot += w
	}
	if !(tot > 0) {
		return nil, fmt.Errorf("%w: core weights sum to %v", ErrSettings, tot)
	}
	arr := make([]int, cfg.Jobs)
	for i := range arr {
		arr[i] = rng.IntN(cfg.Horizon)
	}
	sortInts(arr)
	L, H, a := float64(cfg.MinProc), float64(cfg.MaxProc), cfg.Shape
	ratio := math.Pow(L/H, a)
	jobs := make([]Job, cfg.Jobs)
	for i := range jobs {
		u := rng.Float64()
		p := L / math.Pow(1-u*(1-ratio), 1/a)
		p = math.Min(math.Ceil(p), H)
		x := rng.Float64() * tot
		c := cfg.Cores[len(cfg.Cores)-1]
		for k, w := range cfg.CoreWeights {
			if x < w {
				c = cfg.Cores[k]
				break
			}
			x -= w
		}
		mem := c * (cfg.MemPerCoreMin + rng.IntN(cfg.MemPerCoreMax-cfg.MemPerCoreMin+1))
		jobs[i] = Job{Arrival: arr[i], Cores: c, Memory: mem, Processing: int(p)}
	}
	return jobs, nil
}

func sortInts(a []int) { slices.Sort(a) }

// Cluster returns n machines cycling over the paper's three server types:
// 64 cores / 256 GB, 32 cores / 128 GB, 16 cores / 64 GB.
func Cluster(n int) []Machine {
	types := []Machine{{64, 256}, {32, 128}, {16, 64}}
	ms := make([]Machine, n)
	for i := range ms {
		ms[i] = types[i%3]
	}
	return ms
}
