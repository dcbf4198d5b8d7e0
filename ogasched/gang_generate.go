package ogasched

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/utility"
)

// GangConfig describes a random gang instance in the style of Table II with
// components: Config's graph, node classes, utilities and beta, and job
// types whose components follow the parameter-server pattern of distributed
// training (component 0 needs CPU and memory; the others, the workers, also
// an accelerator type of the job).
type GangConfig struct {
	// Config is the Table II part (Ports = job types, Nodes = servers).
	Config Config
	// MinComponents, MaxComponents bound |Q_l| ~ U{Min..Max}; 1 <= Min <= Max <= 64.
	MinComponents, MaxComponents int
	// ElasticProb is the probability that m_l = |Q_l| - 1 (an elastic job
	// that tolerates one missing worker) instead of |Q_l|.
	ElasticProb float64
}

// DefaultGangConfig returns Table II (DefaultConfig) with 2 to 5 components
// per job type and one job in three elastic.
func DefaultGangConfig() GangConfig {
	return GangConfig{Config: DefaultConfig(), MinComponents: 2, MaxComponents: 5, ElasticProb: 1.0 / 3}
}

// GangInstance is a generated gang instance: the model and the utilities
// and beta of its reward.
type GangInstance struct {
	Model   *bipartite.GangModel
	Utility [][]utility.Utility
	Beta    []float64
}

// Settings returns the zero GangSettings with the instance's utilities and
// beta.
func (in *GangInstance) Settings() GangSettings {
	return GangSettings{Utility: in.Utility, Beta: in.Beta}
}

// GenerateGang draws a gang instance from cfg using rng. The graph,
// capacities, utilities and beta are drawn exactly as Generate draws them
// (so with the same seed a GangInstance has Generate's cluster); each job
// type then draws |Q_l|, its accelerator type (none with probability 1/4)
// and per-component demands: CPU and MEM Contention*(0.1+0.4u)/2 for every
// component, plus the accelerator Contention*(0.1+0.2u)/2 for the workers.
// Errors wrap ErrSettings.
func GenerateGang(cfg GangConfig, rng *rand.Rand) (*GangInstance, error) {
	if cfg.MinComponents < 1 || cfg.MaxComponents < cfg.MinComponents || cfg.MaxComponents > 64 {
		return nil, fmt.Errorf("%w: MinComponents = %d, MaxComponents = %d, want 1 <= Min <= Max <= 64", ErrSettings, cfg.MinComponents, cfg.MaxComponents)
	}
	if !(cfg.ElasticProb >= 0 && cfg.ElasticProb <= 1) {
		return nil, fmt.Errorf("%w: ElasticProb = %v, want [0, 1]", ErrSettings, cfg.ElasticProb)
	}
	if !checked.Within(bipartite.DefaultMaxComponents, cfg.Config.Ports, cfg.MaxComponents) {
		return nil, fmt.Errorf("%w: Ports x MaxComponents = %d x %d above %d", ErrSettings, cfg.Config.Ports, cfg.MaxComponents, bipartite.DefaultMaxComponents)
	}
	p, err := Generate(cfg.Config, rng)
	if err != nil {
		return nil, err
	}
	K := p.K
	scale := cfg.Config.Contention / 2
	jobs := make([]bipartite.GangJob, p.NumPorts())
	for l := range jobs {
		q := cfg.MinComponents + rng.IntN(cfg.MaxComponents-cfg.MinComponents+1)
		acc := -1
		if K > 2 && rng.IntN(4) != 0 {
			acc = 2 + rng.IntN(min(K, len(ResourceNames))-2)
		}
		d := make([]float64, q*K)
		for c := 0; c < q; c++ {
			d[c*K] = scale * (0.1 + 0.4*rng.Float64())
			if K > 1 {
				d[c*K+1] = scale * (0.1 + 0.4*rng.Float64())
			}
			if c > 0 && acc >= 0 {
				d[c*K+acc] = scale * (0.1 + 0.2*rng.Float64())
			}
		}
		jobs[l].Demand = d
		if q > 1 && rng.Float64() < cfg.ElasticProb {
			jobs[l].Min = q - 1
		}
	}
	capacity := make([]float64, 0, p.NumNodes()*K)
	for _, c := range p.Capacity {
		capacity = append(capacity, c...)
	}
	m, err := bipartite.NewGangModel(p.Graph, K, capacity, jobs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSettings, err)
	}
	return &GangInstance{Model: m, Utility: p.Utility, Beta: p.Beta}, nil
}
