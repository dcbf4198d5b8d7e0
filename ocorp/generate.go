package ocorp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/internal/checked"
)

// Config describes a synthetic job list in the style of the paper's
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
//
// Load and ClusterCores (both zero by default) make the load explicit:
// with Load > 0 the arrival window is not Horizon but the time in which
// ClusterCores cores would serve the drawn volume at utilisation Load,
// ceil(sum_j p_j d_j / (Load * ClusterCores)) seconds. That is how a
// workload is made busy enough for the baselines to queue (see
// TestableConfig).
type Config struct {
	Jobs, Horizon                int
	MinProc, MaxProc             int
	Shape                        float64
	Cores                        []int
	CoreWeights                  []float64
	MemPerCoreMin, MemPerCoreMax int
	// Load is the offered utilisation of ClusterCores cores over the
	// arrival window (e.g. 0.9); 0 uses Horizon.
	Load float64
	// ClusterCores is the number of cores Load refers to (required with
	// Load > 0; ocorp.TotalCores of the cluster).
	ClusterCores int
	// Bursts, if positive (with Load > 0), makes arrivals bursty: Bursts
	// instants are drawn uniformly in the arrival window and every job
	// arrives at one of them, chosen uniformly. 0 draws every arrival
	// independently.
	Bursts int
}

// MaxGenJobs bounds Config.Jobs (the job list is allocated up front).
const MaxGenJobs = 1 << 24

// TestableConfig returns a workload on which the paper's claimed
// reductions can be measured. On the default synthetic workload the l2
// norm is dominated by the few very long jobs, which every policy runs at
// once, so SRPT stays within about 1.1-1.2x of the lower bound
// (sum_j p_j^k)^(1/k) and a 34 % cut would go below the bound. Here:
//   - load: the arrival window is set for a utilisation of 0.95 of
//     clusterCores (Load, ClusterCores);
//   - bursts: jobs arrive in jobs/100 bursts (Bursts), so queues form;
//   - tails: processing times are a lighter bounded Pareto (shape 1.2 on
//     [10 s, 2000 s]), so the l2 norm is not one job's processing time;
//   - heterogeneity: cores in {1, 2, 4, 8, 16, 32} with weights {0.3,
//     0.2, 0.2, 0.15, 0.1, 0.05}; memory 1-8 GB per core as by default.
//
// On 5 machines (208 cores) the best baseline's l2 flowtime is about 2x
// the bound in 1-D and 3x in 2-D (examples/reproduce).
func TestableConfig(jobs, clusterCores int) Config {
	return Config{Jobs: jobs, Horizon: 36000, MinProc: 10, MaxProc: 2000, Shape: 1.2,
		Cores: []int{1, 2, 4, 8, 16, 32}, CoreWeights: []float64{0.3, 0.2, 0.2, 0.15, 0.1, 0.05},
		MemPerCoreMin: 1, MemPerCoreMax: 8, Load: 0.95, ClusterCores: clusterCores, Bursts: max(1, jobs/100)}
}

// DefaultConfig returns 6500 jobs over 10 h, processing times bounded
// Pareto(0.6) on [10 s, 30000 s] (mean about 400 s), cores in
// {1, 2, 4, 8, 16} with probabilities {0.4, 0.25, 0.2, 0.1, 0.05}, and
// 1-8 GB of memory per core.
func DefaultConfig() Config {
	return Config{Jobs: 6500, Horizon: 36000, MinProc: 10, MaxProc: 30000, Shape: 0.6,
		Cores: []int{1, 2, 4, 8, 16}, CoreWeights: []float64{0.4, 0.25, 0.2, 0.1, 0.05},
		MemPerCoreMin: 1, MemPerCoreMax: 8}
}

// Validate reports every invalid field of the configuration, joined with
// errors.Join, each wrapping ErrSettings and naming the field and value.
func (cfg Config) Validate() error {
	var errs []error
	bad := func(format string, a ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrSettings}, a...)...))
	}
	if cfg.Jobs < 1 || cfg.Jobs > MaxGenJobs {
		bad("Jobs = %d, want 1..MaxGenJobs = %d", cfg.Jobs, MaxGenJobs)
	}
	if cfg.Horizon < 1 {
		bad("Horizon = %d, want >= 1", cfg.Horizon)
	}
	if cfg.MinProc < 1 || cfg.MaxProc < cfg.MinProc {
		bad("MinProc = %d, MaxProc = %d, want 1 <= MinProc <= MaxProc", cfg.MinProc, cfg.MaxProc)
	}
	if !(cfg.Shape > 0) || math.IsInf(cfg.Shape, 0) {
		bad("Shape = %v, want finite > 0", cfg.Shape)
	}
	if len(cfg.Cores) == 0 || len(cfg.Cores) != len(cfg.CoreWeights) {
		bad("len(Cores) = %d, len(CoreWeights) = %d, want equal and > 0", len(cfg.Cores), len(cfg.CoreWeights))
	}
	if cfg.MemPerCoreMin < 0 || cfg.MemPerCoreMax < cfg.MemPerCoreMin || cfg.MemPerCoreMax == math.MaxInt {
		bad("MemPerCoreMin = %d, MemPerCoreMax = %d, want 0 <= min <= max < MaxInt", cfg.MemPerCoreMin, cfg.MemPerCoreMax)
	}
	if !(cfg.Load >= 0) || math.IsInf(cfg.Load, 0) || (cfg.Load > 0 && cfg.ClusterCores < 1) {
		bad("Load = %v with ClusterCores = %d, want Load finite >= 0 and ClusterCores >= 1 if Load > 0", cfg.Load, cfg.ClusterCores)
	}
	if cfg.Bursts < 0 {
		bad("Bursts = %d, want >= 0", cfg.Bursts)
	}
	return errors.Join(errs...)
}

// Generate draws a job list (times in seconds) from cfg with rng; an
// invalid cfg gives the errors of Config.Validate.
func Generate(cfg Config, rng *rand.Rand) ([]Job, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: nil *rand.Rand", ErrSettings)
	}
	for i, c := range cfg.Cores {
		// memory d * MemPerCoreMax and volume p * d must fit
		if c < 1 || !checkedFits(c, cfg.MemPerCoreMax) || !checkedFits(c, cfg.MaxProc) {
			return nil, fmt.Errorf("%w: cores[%d] = %d (memory or volume overflows with max memory per core %d, max processing %d)",
				ErrSettings, i, c, cfg.MemPerCoreMax, cfg.MaxProc)
		}
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
	L, H, a := float64(cfg.MinProc), float64(cfg.MaxProc), cfg.Shape
	ratio := math.Pow(L/H, a)
	draw := func() Job {
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
		return Job{Cores: c, Memory: mem, Processing: int(p)}
	}
	jobs := make([]Job, cfg.Jobs)
	arr := make([]int, cfg.Jobs)
	if cfg.Load == 0 {
		// The original order of draws (arrivals first), so that the
		// default workload is unchanged.
		for i := range arr {
			arr[i] = rng.IntN(cfg.Horizon)
		}
		sortInts(arr)
		for i := range jobs {
			jobs[i] = draw()
			jobs[i].Arrival = arr[i]
		}
		return jobs, nil
	}
	vol := 0.0
	for i := range jobs {
		jobs[i] = draw()
		vol += float64(jobs[i].Volume())
	}
	h := math.Ceil(vol / (cfg.Load * float64(cfg.ClusterCores)))
	if !(h < 1<<53) {
		return nil, fmt.Errorf("%w: arrival window %v s for load %v", ErrSettings, h, cfg.Load)
	}
	window := max(1, int(h))
	if cfg.Bursts > 0 {
		at := make([]int, min(cfg.Bursts, cfg.Jobs))
		for b := range at {
			at[b] = rng.IntN(window)
		}
		for i := range arr {
			arr[i] = at[rng.IntN(len(at))]
		}
	} else {
		for i := range arr {
			arr[i] = rng.IntN(window)
		}
	}
	sortInts(arr)
	for i := range jobs {
		jobs[i].Arrival = arr[i]
	}
	return jobs, nil
}

// checkedFits reports whether a*b fits in an int (a, b >= 0).
func checkedFits(a, b int) bool {
	_, ok := checked.Mul(a, b)
	return ok
}

func sortInts(a []int) { slices.Sort(a) }

// MaxClusterMachines bounds Cluster's n.
const MaxClusterMachines = 1 << 20

// Cluster returns n machines cycling over the paper's three server types:
// 64 cores / 256 GB, 32 cores / 128 GB, 16 cores / 64 GB. For n outside
// [1, MaxClusterMachines] it returns nil (which ValidateMachines and every
// constructor reject with ErrEmpty).
func Cluster(n int) []Machine {
	if n < 1 || n > MaxClusterMachines {
		return nil
	}
	types := []Machine{{64, 256}, {32, 128}, {16, 64}}
	ms := make([]Machine, n)
	for i := range ms {
		ms[i] = types[i%3]
	}
	return ms
}
