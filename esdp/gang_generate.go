package esdp

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
)

// GangInstance is a gang instance of the ESDP family: the gang model, and
// per channel (GangChannels order) the reward distribution
// Z~ = clip(N(Mean, Std^2), 0, 1) of a component placed on that server
// (mean GangInstance.Expected), and per job type the arrival probability.
// A job that is served earns the rewards of its placed components; an
// unserved one earns nothing.
type GangInstance struct {
	Model   *bipartite.GangModel
	Mean    []float64 // location of the normalised reward, per channel
	Std     []float64 // its standard deviation, >= 0, per channel
	Arrival []float64 // per job type, in [0,1]
}

// Channels returns the channel numbering of in's model.
func (in *GangInstance) Channels() (*GangChannels, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: nil gang instance", ErrDimension)
	}
	return NewGangChannels(in.Model)
}

// Validate checks the dimensions and values of in.
func (in *GangInstance) Validate() error {
	ch, err := in.Channels()
	if err != nil {
		return err
	}
	N, L := ch.Len(), in.Model.NumJobs()
	if len(in.Mean) != N || len(in.Std) != N {
		return fmt.Errorf("%w: len(Mean) = %d, len(Std) = %d, want %d channels", ErrDimension, len(in.Mean), len(in.Std), N)
	}
	if len(in.Arrival) != L {
		return fmt.Errorf("%w: len(Arrival) = %d, want %d job types", ErrDimension, len(in.Arrival), L)
	}
	for i := range in.Mean {
		if v := in.Mean[i]; math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: Mean[%d] = %v", ErrValue, i, v)
		}
		if v := in.Std[i]; math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("%w: Std[%d] = %v", ErrValue, i, v)
		}
	}
	for l, v := range in.Arrival {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("%w: Arrival[%d] = %v", ErrValue, l, v)
		}
	}
	return nil
}

// Expected returns E[Z~] of channel i (the clipped normal's mean, in
// closed form).
func (in *GangInstance) Expected(i int) float64 { return clippedMean(in.Mean[i], in.Std[i]) }

// GangConfig parametrises GenerateGang. DefaultGangConfig gives the
// papers' Table 2/3 defaults carried to gangs.
type GangConfig struct {
	Jobs, Servers, K int
	// EdgeProb is the probability of each (job type, server) edge.
	EdgeProb float64
	// ArrivalProb is every job type's arrival probability.
	ArrivalProb float64
	// MinComponents..MaxComponents bound |Q_l| (uniform); m_l is uniform
	// in [ceil(|Q_l|/2), |Q_l|].
	MinComponents, MaxComponents int
	// Demands a^{q,k} and capacities c_{(k,r)} are uniform integers in
	// [DemandLo, DemandHi] and [CapLo, CapHi].
	DemandLo, DemandHi, CapLo, CapHi int
	// Channel means are uniform in [MeanLo, MeanHi]; Std = Mean/2 (the
	// papers' v_e ~ N(mu_e, mu_e/2)).
	MeanLo, MeanHi float64
}

// DefaultGangConfig returns the defaults of papers 002/003 Table 2/3 with
// components: 8 job types, 40 servers, K = 3, arrival probability 0.9,
// demands and per-server capacities in {1, 2}, channel means in
// [0.1, 1]; 2-4 components per job type with m_l uniform in
// [ceil(|Q_l|/2), |Q_l|]; edge probability 0.3 instead of the papers' 0.1,
// which gives a job type about 4 eligible servers, fewer than a
// 4-component gang needs once capacities are per server.
func DefaultGangConfig() GangConfig {
	return GangConfig{Jobs: 8, Servers: 40, K: 3, EdgeProb: 0.3, ArrivalProb: 0.9,
		MinComponents: 2, MaxComponents: 4, DemandLo: 1, DemandHi: 2, CapLo: 1, CapHi: 2, MeanLo: 0.1, MeanHi: 1}
}

// Validate returns every problem of cfg, joined, each wrapping ErrSettings.
func (cfg GangConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("%w: "+format, append([]any{ErrSettings}, args...)...))
	}
	if cfg.Jobs < 1 || cfg.Servers < 1 || cfg.Jobs > MaxGeneratePairs/cfg.Servers {
		bad("GangConfig.Jobs = %d, Servers = %d, want >= 1 each and Jobs*Servers <= %d", cfg.Jobs, cfg.Servers, MaxGeneratePairs)
	}
	if cfg.K < 1 || cfg.K > 64 {
		bad("GangConfig.K = %d, want 1..64", cfg.K)
	}
	if !(cfg.EdgeProb >= 0 && cfg.EdgeProb <= 1) {
		bad("GangConfig.EdgeProb = %v, want [0,1]", cfg.EdgeProb)
	}
	if !(cfg.ArrivalProb >= 0 && cfg.ArrivalProb <= 1) {
		bad("GangConfig.ArrivalProb = %v, want [0,1]", cfg.ArrivalProb)
	}
	if cfg.MinComponents < 1 || cfg.MaxComponents < cfg.MinComponents || cfg.MaxComponents > 64 {
		bad("GangConfig.MinComponents = %d, MaxComponents = %d, want 1 <= min <= max <= 64", cfg.MinComponents, cfg.MaxComponents)
	}
	if cfg.DemandLo < 0 || cfg.DemandHi < cfg.DemandLo || cfg.DemandHi > MaxGenerateInt {
		bad("GangConfig.DemandLo = %d, DemandHi = %d, want 0 <= lo <= hi <= %d", cfg.DemandLo, cfg.DemandHi, MaxGenerateInt)
	}
	if cfg.CapLo < 0 || cfg.CapHi < cfg.CapLo || cfg.CapHi > MaxGenerateInt {
		bad("GangConfig.CapLo = %d, CapHi = %d, want 0 <= lo <= hi <= %d", cfg.CapLo, cfg.CapHi, MaxGenerateInt)
	}
	if !(cfg.MeanLo >= 0 && cfg.MeanHi >= cfg.MeanLo && cfg.MeanHi <= 1) {
		bad("GangConfig.MeanLo = %v, MeanHi = %v, want 0 <= lo <= hi <= 1", cfg.MeanLo, cfg.MeanHi)
	}
	return errors.Join(errs...)
}

// GenerateGang draws a gang instance from cfg with rng: the same cfg and
// rng state give the same instance bit for bit. Every job type gets at
// least one edge (a server drawn uniformly if the Bernoulli draws gave
// none).
func GenerateGang(cfg GangConfig, rng *rand.Rand) (*GangInstance, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: nil rng", ErrSettings)
	}
	var edges []bipartite.Edge
	for l := 0; l < cfg.Jobs; l++ {
		n := 0
		for r := 0; r < cfg.Servers; r++ {
			if rng.Float64() < cfg.EdgeProb {
				edges = append(edges, bipartite.Edge{Left: l, Right: r})
				n++
			}
		}
		if n == 0 {
			edges = append(edges, bipartite.Edge{Left: l, Right: rng.IntN(cfg.Servers)})
		}
	}
	g, err := bipartite.NewGraph(cfg.Jobs, cfg.Servers, edges)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSettings, err)
	}
	uni := func(lo, hi int) float64 { return float64(lo + rng.IntN(hi-lo+1)) }
	capv := make([]float64, cfg.Servers*cfg.K)
	for i := range capv {
		capv[i] = uni(cfg.CapLo, cfg.CapHi)
	}
	jobs := make([]bipartite.GangJob, cfg.Jobs)
	for l := range jobs {
		q := cfg.MinComponents + rng.IntN(cfg.MaxComponents-cfg.MinComponents+1)
		d := make([]float64, q*cfg.K)
		for i := range d {
			d[i] = uni(cfg.DemandLo, cfg.DemandHi)
		}
		lo := (q + 1) / 2
		jobs[l] = bipartite.GangJob{Demand: d, Min: lo + rng.IntN(q-lo+1)}
	}
	m, err := bipartite.NewGangModel(g, cfg.K, capv, jobs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSettings, err)
	}
	ch, err := NewGangChannels(m)
	if err != nil {
		return nil, err
	}
	in := &GangInstance{Model: m, Mean: make([]float64, ch.Len()), Std: make([]float64, ch.Len()), Arrival: make([]float64, cfg.Jobs)}
	for i := range in.Mean {
		mu := cfg.MeanLo + (cfg.MeanHi-cfg.MeanLo)*rng.Float64()
		in.Mean[i], in.Std[i] = mu, mu/2
	}
	for l := range in.Arrival {
		in.Arrival[l] = cfg.ArrivalProb
	}
	return in, nil
}
