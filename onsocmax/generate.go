package onsocmax

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/utility"
)

// Size limits of Generate and of the mesh of an Instance, checked with
// overflow-safe arithmetic before anything is allocated.
const (
	// MaxUnits bounds Nodes*Slots of a generated mesh (128 MiB of
	// capacities) and of any mesh the package accepts.
	MaxUnits = 1 << 24
	// MaxJobs bounds Config.Jobs.
	MaxJobs = 1 << 20
	// MaxArrivalRate bounds Config.ArrivalRate: arrivals are drawn by
	// inversion, whose e^-lambda underflows beyond about 745 (the draw
	// would then be silently wrong).
	MaxArrivalRate = 500
	// MaxGeneratedUnits bounds the total number of (job, unit) pairs that
	// Generate draws (about 3 GiB of job data).
	MaxGeneratedUnits = 1 << 26
)

// maxGeneratedUnits is MaxGeneratedUnits, lowered by tests.
var maxGeneratedUnits = MaxGeneratedUnits

// Config parameterises Generate. DefaultConfig is Section IV-A of paper 001.
type Config struct {
	Nodes, Slots int     // mesh size; 10 x 24
	Jobs         int     // maximum number of jobs; 20
	ArrivalRate  float64 // Poisson mean of arrivals per slot, at most MaxArrivalRate; 2.03
	MeanDuration float64 // mean of the Exp service duration, slots; 4
	CapMean      float64 // node capacity C ~ N(CapMean, CapStd); 20
	CapStd       float64 // 2
	RhoMean      float64 // workload rho ~ N(RhoMean, RhoStd); 18
	RhoStd       float64 // 3
	XBarMean     float64 // per (job, node) cap xbar ~ N(XBarMean, XBarStd); 7
	XBarStd      float64 // 1
	AMin, AMax   float64 // utility scale a ~ U[AMin, AMax]; 1, 3
	BetaMin      float64 // beta ~ U[BetaMin, BetaMax]; 0.1
	BetaMax      float64 // 0.5
	// Kinds are the utility kinds; each job draws one uniformly. The
	// paper's "poly" a*sqrt(x) is utility.Sqrt. Default {Linear}.
	Kinds []utility.Kind
	// Locality is the probability that a node serves a job (service
	// locality K_n, at least one node); 0.5.
	Locality float64
	// PerJobUtility is the literal reading of our first generator: one
	// coefficient a ~ U[AMin, AMax] per job, shared by all its units. The
	// default (false) is Section IV-A's "for each n in N, r in R_n,
	// f_nr(x) = a x, a ~ U[1, 3]": one a per (job, unit), like beta. With
	// per-job coefficients every unit of a job is worth the same to it,
	// which hides the advantage of choosing units by value.
	PerJobUtility bool
}

// DefaultConfig returns the experimental setup of Section IV-A.
func DefaultConfig() Config {
	return Config{Nodes: 10, Slots: 24, Jobs: 20, ArrivalRate: 2.03, MeanDuration: 4,
		CapMean: 20, CapStd: 2, RhoMean: 18, RhoStd: 3, XBarMean: 7, XBarStd: 1,
		AMin: 1, AMax: 3, BetaMin: 0.1, BetaMax: 0.5, Kinds: []utility.Kind{utility.Linear}, Locality: 0.5}
}

// Validate reports an invalid or too large configuration: sizes must be
// positive with Nodes*Slots <= MaxUnits and Jobs <= MaxJobs, means and
// standard deviations finite and non-negative, the a and beta ranges
// ordered, at least one utility kind, Locality in (0, 1].
func (c Config) Validate() error { return c.validate() }

func (c *Config) validate() error {
	switch {
	case c.Nodes <= 0 || c.Slots <= 0 || c.Jobs < 0:
		return fmt.Errorf("%w: nodes %d slots %d jobs %d", ErrValue, c.Nodes, c.Slots, c.Jobs)
	case !checked.Within(MaxUnits, c.Nodes, c.Slots):
		return fmt.Errorf("%w: Config nodes %d x slots %d > MaxUnits = %d", ErrTooLarge, c.Nodes, c.Slots, MaxUnits)
	case c.Jobs > MaxJobs:
		return fmt.Errorf("%w: Config.Jobs = %d > MaxJobs = %d", ErrTooLarge, c.Jobs, MaxJobs)
	case !finiteNonNeg(c.ArrivalRate) || !finiteNonNeg(c.MeanDuration):
		return fmt.Errorf("%w: arrival rate %v mean duration %v", ErrValue, c.ArrivalRate, c.MeanDuration)
	case c.ArrivalRate > MaxArrivalRate:
		return fmt.Errorf("%w: Config.ArrivalRate = %v > MaxArrivalRate = %v (Poisson by inversion)", ErrValue, c.ArrivalRate, MaxArrivalRate)
	case !finiteNonNeg(c.CapMean) || !finiteNonNeg(c.CapStd) || !finiteNonNeg(c.RhoMean) || !finiteNonNeg(c.RhoStd) ||
		!finiteNonNeg(c.XBarMean) || !finiteNonNeg(c.XBarStd):
		return fmt.Errorf("%w: a mean or standard deviation is negative or not finite", ErrValue)
	case !(c.AMin > 0 && c.AMin <= c.AMax) || math.IsInf(c.AMax, 0):
		return fmt.Errorf("%w: a range [%v, %v]", ErrValue, c.AMin, c.AMax)
	case !(c.BetaMin >= 0 && c.BetaMin <= c.BetaMax) || math.IsInf(c.BetaMax, 0):
		return fmt.Errorf("%w: beta range [%v, %v]", ErrValue, c.BetaMin, c.BetaMax)
	case len(c.Kinds) == 0:
		return fmt.Errorf("%w: no utility kind", ErrValue)
	case !(c.Locality > 0 && c.Locality <= 1):
		return fmt.Errorf("%w: locality %v outside (0, 1]", ErrValue, c.Locality)
	}
	return nil
}

// Generate draws an instance following Section IV-A of paper 001 (see
// Config): per node a capacity C ~ N(CapMean, CapStd) for all its slots
// (clipped to CapMean ± GenerateSigmas·CapStd and below at 1e-3); per
// slot Poisson(ArrivalRate) arrivals until Jobs jobs exist (fewer if the
// horizon ends first); deadline = arrival + floor(Exp(MeanDuration))
// clipped to the horizon; rho ~ N(RhoMean, RhoStd) truncated at 0;
// service locality K_n: each node independently with probability
// Locality (at least one); R_n by eq. (1); xbar_nr ~ N(XBarMean, XBarStd)
// per (job, node) (clipped to XBarMean ± GenerateSigmas·XBarStd and below
// at 0) for all slots of the node; one utility kind per job; per (job,
// unit) beta_nr ~ U[BetaMin, BetaMax] and a ~ U[AMin, AMax] (one a per job
// for all its units with PerJobUtility, the literal reading of our first
// generator). All randomness comes from rng, in a fixed order. Every job
// drawn lies within Config.MarginalBounds.
func Generate(c Config, rng *rand.Rand) (*Instance, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, fmt.Errorf("%w: nil *rand.Rand", ErrValue)
	}
	capacity := make([]float64, c.Nodes*c.Slots)
	for i := range c.Nodes {
		ci := clipNormal(rng, c.CapMean, c.CapStd, 1e-3)
		for t := range c.Slots {
			capacity[i*c.Slots+t] = ci
		}
	}
	m, err := bipartite.NewMesh(c.Nodes, c.Slots, capacity)
	if err != nil {
		return nil, fmt.Errorf("%w: generated mesh: %w", ErrSettings, err)
	}
	in := &Instance{Mesh: m}
	total := 0
	nodes := make([]int, 0, c.Nodes)
	xbarNode := make([]float64, c.Nodes)
	for t := 0; t < c.Slots && len(in.Jobs) < c.Jobs; t++ {
		k := poisson(rng, c.ArrivalRate)
		for ; k > 0 && len(in.Jobs) < c.Jobs; k-- {
			// Clip in float64 first: Exp times a huge mean overflows int.
			dl := c.Slots - 1
			if dur := math.Floor(rng.ExpFloat64() * c.MeanDuration); dur < float64(c.Slots-1-t) {
				dl = t + int(dur)
			}
			rho := math.Max(0, c.RhoMean+c.RhoStd*rng.NormFloat64())
			nodes = nodes[:0]
			for i := range c.Nodes {
				if rng.Float64() < c.Locality {
					nodes = append(nodes, i)
				}
			}
			if len(nodes) == 0 {
				nodes = append(nodes, rng.IntN(c.Nodes))
			}
			for _, i := range nodes {
				xbarNode[i] = clipNormal(rng, c.XBarMean, c.XBarStd, 0)
			}
			kind := c.Kinds[rng.IntN(len(c.Kinds))]
			var u utility.Utility
			if c.PerJobUtility {
				if u, err = utility.New(kind, c.AMin+(c.AMax-c.AMin)*rng.Float64()); err != nil {
					return nil, fmt.Errorf("%w: generated utility: %w", ErrSettings, err)
				}
			}
			units, err := m.Available(nil, nodes, t, dl)
			if err != nil {
				return nil, err
			}
			if total += len(units); total > maxGeneratedUnits {
				return nil, fmt.Errorf("%w: the generated jobs hold more than MaxGeneratedUnits = %d units (nodes %d, slots %d, jobs %d)", ErrTooLarge, maxGeneratedUnits, c.Nodes, c.Slots, c.Jobs)
			}
			j := Job{ID: len(in.Jobs), Arrival: t, Deadline: dl, Rho: rho, Units: units,
				XBar: make([]float64, len(units)), Beta: make([]float64, len(units)), Utility: make([]utility.Utility, len(units))}
			for q, r := range units {
				node, _ := m.NodeSlot(r)
				j.XBar[q] = xbarNode[node]
				j.Beta[q] = c.BetaMin + (c.BetaMax-c.BetaMin)*rng.Float64()
				if !c.PerJobUtility {
					if u, err = utility.New(kind, c.AMin+(c.AMax-c.AMin)*rng.Float64()); err != nil {
						return nil, fmt.Errorf("%w: generated utility: %w", ErrSettings, err)
					}
				}
				j.Utility[q] = u
			}
			in.Jobs = append(in.Jobs, j)
		}
	}
	return in, nil
}

// poisson draws Poisson(lambda) by inversion (lambda is small here).
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda <= 0 {
		return 0
	}
	l := math.Exp(-lambda)
	k, p := 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
		if k > 10000 {
			break
		}
	}
	return k
}
