package esdp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"

	"github.com/msched/msched/bipartite"
)

// GangOnlinePolicy is the contract of the gang policies of the ESDP family
// (ESDP-gang and the gang baselines): the observation is arrived[l], one
// bool per gang job type, the decision the server of every flat component
// of the model (-1 for an unplaced one).
type GangOnlinePolicy = bipartite.OnlinePolicy[[]bool, []int]

// GangLearner is implemented by the gang policies that learn from the
// semi-bandit feedback of their placed components.
type GangLearner = bipartite.Learner[GangFeedback]

// GangFeedback is the semi-bandit feedback of a gang slot: the realised
// normalised rewards of the placed components.
type GangFeedback struct {
	// Server is the placement observed, len NumComponents: for every
	// component, the server the decision placed it on, or -1 for a
	// component whose reward is not reported (unplaced, or unobserved).
	Server []int
	// Reward[c] in [0,1] is the reward Z~ of component c on Server[c];
	// entries where Server[c] = -1 are ignored. len NumComponents.
	Reward []float64
}

// GangSettings configures a GangPolicy. The zero value is the paper's
// setup carried to gangs: m = the number of components (the exact maximum
// of ||x||_1), delta = DeltaLogLog, g = GDefault, the gang oracle in
// GangAuto mode, 4 tangent rounds, no logging.
type GangSettings struct {
	// M, if positive, sets m of (10) and (15); at most MaxGangChannels.
	// Zero means the model's number of components, the largest number of
	// channels a placement can hold.
	M int
	// Delta is delta(t) of P3(t), t = 1, 2, ...; nil means DeltaLogLog. It
	// shifts the index by a constant and does not change the decision (no
	// budget rounding here, see the package doc).
	Delta func(t int) float64
	// G is g(t) of (9)-(10); nil means GDefault.
	G func(t int, m float64) float64
	// Oracle configures the gang knapsack solved in every round; its zero
	// value is GangAuto. With GangExact a slot whose search exceeds the
	// node budget fails with an error wrapping ErrNodeLimit.
	Oracle GangOracleSettings
	// Rounds bounds the tangent rounds per slot (each one gang knapsack),
	// 0..64; 0 means 4.
	Rounds int
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "esdp", policy, slot, then explore, index, gap, rounds,
	// nodes) and an Info record "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns every problem of s, joined, each wrapping ErrSettings
// and naming its field and value.
func (s GangSettings) Validate() error {
	var errs []error
	if s.M < 0 || s.M > MaxGangChannels {
		errs = append(errs, fmt.Errorf("%w: GangSettings.M = %d, want 0..MaxGangChannels = %d", ErrSettings, s.M, MaxGangChannels))
	}
	if s.Rounds < 0 || s.Rounds > 64 {
		errs = append(errs, fmt.Errorf("%w: GangSettings.Rounds = %d, want 0..64", ErrSettings, s.Rounds))
	}
	if err := s.Oracle.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// GangSlotInfo describes the last decision of a GangPolicy.
type GangSlotInfo struct {
	// Explore reports a slot spent on unplayed channels.
	Explore bool
	Delta   float64 // delta(t)
	G       float64 // g(t)
	// Index is delta(t) + v^.x + sqrt(sigma^2.x) of the decision (in an
	// exploration slot, the exploration knapsack's value).
	Index float64
	// Gap certifies the decision: the maximum of the index over gang
	// placements is at most Index + Gap.
	Gap float64
	// Rounds counts the gang knapsacks solved, Nodes their search nodes.
	Rounds int
	Nodes  int64
	// Status is Optimal when every knapsack of the slot was solved to
	// optimality, NodeLimit otherwise.
	Status Status
}

// GangPolicy is ESDP-gang: ESDP's combinatorial semi-bandit over the
// component channels (l, q, r) of a bipartite.GangModel (paper 003 §3.4),
// whose per-slot oracle is the gang knapsack (GangOracle). It implements
// GangOnlinePolicy and GangLearner.
//
// Decision lifetime: a decision returned by Decide, and every slice in it,
// is owned by the policy and valid until the next call of any method of
// that policy; copy what you keep. The policy never reads a returned
// decision back, so a caller that modifies it changes nothing the policy
// does later. After every playable channel has been played, Decide and
// Observe allocate nothing. A GangPolicy is not safe for concurrent use.
type GangPolicy struct {
	model *bipartite.GangModel
	ch    *GangChannels
	set   GangSettings
	m     int
	stats Stats // per channel
	fp    string

	oracle GangOracle
	kp     GangKnapsack
	val    []float64 // knapsack values per channel
	mean   []float64 // v^ per channel
	sig    []float64 // sigma^2 per channel (0 unplayed)
	x      []int     // the decision: server per component (private)
	out    []int     // the returned copy of x, never read back
	sol    []int     // scratch solution
	best   []int     // the best placement of the tangent rounds
	last   GangSlotInfo

	decided, started bool
	lastT            int
}

var (
	_ GangOnlinePolicy = (*GangPolicy)(nil)
	_ GangLearner      = (*GangPolicy)(nil)
)

// NewGang returns ESDP-gang for the gang model with settings s. It calls
// s.Validate first; a nil model, or one with more than MaxGangChannels
// channels, is an error. The model is immutable, so the policy keeps it;
// to schedule on a changed cluster call ChangeCluster.
func NewGang(model *bipartite.GangModel, s GangSettings) (*GangPolicy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	ch, err := NewGangChannels(model)
	if err != nil {
		return nil, err
	}
	opt := s
	if opt.Delta == nil {
		opt.Delta = DeltaLogLog
	}
	if opt.G == nil {
		opt.G = GDefault
	}
	if opt.Rounds == 0 {
		opt.Rounds = 4
	}
	m := opt.M
	if m == 0 {
		m = max(1, model.NumComponents())
	}
	N, C := ch.Len(), model.NumComponents()
	p := &GangPolicy{model: model, ch: ch, set: opt, m: m, stats: NewStats(N),
		oracle: GangOracle{Settings: opt.Oracle},
		val:    make([]float64, N), mean: make([]float64, N), sig: make([]float64, N),
		x: make([]int, C), out: make([]int, C), sol: make([]int, C), best: make([]int, C)}
	p.kp = GangKnapsack{Channels: ch, Value: p.val}
	for c := range p.x {
		p.x[c] = -1
	}
	p.fp = p.fingerprint()
	return p, nil
}

// Name returns "ESDP-gang".
func (p *GangPolicy) Name() string { return "ESDP-gang" }

// Model returns the gang model the policy schedules on.
func (p *GangPolicy) Model() *bipartite.GangModel { return p.model }

// Channels returns the channel numbering of the policy's statistics.
func (p *GangPolicy) Channels() *GangChannels { return p.ch }

// M returns m, the bound on ||x||_1 used by g(t).
func (p *GangPolicy) M() int { return p.m }

// Count returns n_i, the plays of channel i. It panics if i is not a
// channel (a programmer error).
func (p *GangPolicy) Count(i int) int { return p.stats.Count(i) }

// Mean returns the empirical mean v^_i of channel i (0 if unplayed).
func (p *GangPolicy) Mean(i int) float64 { return p.stats.Mean(i) }

// Last returns information on the last decision.
func (p *GangPolicy) Last() GangSlotInfo { return p.last }

// Decide returns the placement of slot t (the paper's t+1): the server of
// every component, -1 for an unplaced one, given arrived[l] (a job of type
// l in the slot). t must be >= 0 and greater than the previous Decide's,
// or the error wraps ErrSlot; a gap advances delta and g only.
//
// While some channel of an arrived job that fits its server has never
// been played, Decide first solves the exploration knapsack (value
// (C+1)·[unplayed] + v^ per channel, C the number of components:
// lexicographically, the most unplayed channels, then v^); if that places
// an unplayed channel it is the decision (an exploration slot). Otherwise
// (no unplayed channel can be placed in this slot) it maximises
// v^.x + sqrt(sigma^2.x), sigma^2_i = g(t)/(2 n_i) (0 for unplayed
// channels), over gang placements by tangent rounds: for lambda > 0,
// sqrt(S) <= S/(2 lambda) + lambda/2, so each round solves the gang
// knapsack with values v^ + sigma^2/(2 lambda), certifies
// lambda/2 + its bound, and moves lambda to sqrt(sigma^2.x) of its
// solution; the best placement found is played (GangSlotInfo.Gap).
func (p *GangPolicy) Decide(t int, arrived []bool) ([]int, error) {
	if len(arrived) != p.model.NumJobs() {
		return nil, fmt.Errorf("%w: len(arrived) = %d, want %d job types", ErrDimension, len(arrived), p.model.NumJobs())
	}
	if t < 0 || t == math.MaxInt {
		return nil, fmt.Errorf("%w: slot %d, want 0..%d", ErrSlot, t, math.MaxInt-1)
	}
	if p.started && t <= p.lastT {
		return nil, fmt.Errorf("%w: slot %d, want > %d (the previous Decide's)", ErrSlot, t, p.lastT)
	}
	tau := t + 1
	delta := p.set.Delta(tau)
	gt := p.set.G(tau, float64(p.m))
	if !(gt > 0) || math.IsInf(gt, 0) {
		return nil, fmt.Errorf("%w: g(%d) = %v, want finite > 0", ErrSettings, tau, gt)
	}
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return nil, fmt.Errorf("%w: delta(%d) = %v, want finite", ErrSettings, tau, delta)
	}
	p.kp.Arrived = arrived
	m := p.model
	unplayed := false
	for l := 0; l < m.NumJobs() && !unplayed; l++ {
		if !arrived[l] {
			continue
		}
		lo, hi := m.Components(l)
		clo, _ := p.ch.Range(lo)
		_, chi := p.ch.Range(hi - 1)
		for i := clo; i < chi; i++ {
			if p.ch.fits[i] && p.stats.count[i] == 0 {
				unplayed = true
				break
			}
		}
	}
	info := GangSlotInfo{Delta: delta, G: gt, Status: Optimal}
	if unplayed {
		big := float64(m.NumComponents() + 1)
		for i := range p.val {
			p.val[i] = p.stats.Mean(i)
			if p.stats.count[i] == 0 && p.ch.fits[i] {
				p.val[i] += big
			}
		}
		r, err := p.solve(&info)
		if err != nil {
			return nil, err
		}
		explored := false
		for c, s := range p.sol {
			if s >= 0 {
				if i, _ := p.ch.Channel(c, s); p.stats.count[i] == 0 {
					explored = true
					break
				}
			}
		}
		if explored {
			info.Explore, info.Index, info.Gap = true, r.Value, r.Gap
			return p.finish(t, p.sol, info), nil
		}
	}
	total := 0.0
	for i := range p.sig {
		p.mean[i] = p.stats.Mean(i)
		p.sig[i] = 0
		if n := p.stats.count[i]; n > 0 {
			p.sig[i] = gt / (2 * float64(n)) // (9)
			if p.ch.fits[i] && arrived[m.Job(int(p.ch.comp[i]))] {
				total += p.sig[i]
			}
		}
	}
	lam := math.Sqrt(total) / 2
	if !(lam > 0) {
		lam = 1
	}
	f, ub := math.Inf(-1), math.Inf(1)
	for round := 0; round < p.set.Rounds; round++ {
		for i := range p.val {
			p.val[i] = p.mean[i] + p.sig[i]/(2*lam)
		}
		r, err := p.solve(&info)
		if err != nil {
			return nil, err
		}
		ub = math.Min(ub, lam/2+r.Bound)
		v, s2 := 0.0, 0.0
		for c, s := range p.sol {
			if s >= 0 {
				i, _ := p.ch.Channel(c, s)
				v += p.mean[i]
				s2 += p.sig[i]
			}
		}
		if fx := v + math.Sqrt(s2); fx > f {
			f = fx
			copy(p.best, p.sol)
		}
		next := math.Sqrt(s2)
		if !(next > 0) || math.Abs(next-lam) <= 1e-12*lam {
			break
		}
		lam = next
	}
	info.Index, info.Gap = delta+f, math.Max(0, ub-f)
	return p.finish(t, p.best, info), nil
}

// solve runs the gang oracle into p.sol and accounts for it in info.
func (p *GangPolicy) solve(info *GangSlotInfo) (GangKnapsackResult, error) {
	r, err := p.oracle.Solve(p.sol, &p.kp)
	if err != nil {
		return r, err
	}
	info.Rounds++
	info.Nodes += r.Nodes
	if r.Status != Optimal {
		if p.set.Oracle.Method == GangExact {
			budget := "GangOracleSettings.MaxNodes"
			if r.TimeLimited {
				budget = "GangOracleSettings.TimeLimit = " + p.set.Oracle.TimeLimit.String()
			}
			return r, fmt.Errorf("%w: gang knapsack after %d nodes (%s), gap %v", ErrNodeLimit, r.Nodes, budget, r.Gap)
		}
		info.Status = r.Status
	}
	return r, nil
}

// finish installs the decision x of slot t.
func (p *GangPolicy) finish(t int, x []int, info GangSlotInfo) []int {
	copy(p.x, x)
	copy(p.out, p.x)
	p.last = info
	p.decided, p.started, p.lastT = true, true, t
	if p.set.Logger != nil {
		p.set.Logger.LogAttrs(context.Background(), slog.LevelDebug, "decide",
			slog.String("family", "esdp"), slog.String("policy", p.Name()), slog.Int("slot", t), slog.Bool("explore", info.Explore), slog.Float64("index", info.Index),
			slog.Float64("gap", info.Gap), slog.Int("rounds", info.Rounds), slog.Int64("nodes", info.Nodes))
	}
	return p.out
}

// Observe adds the rewards of the reported components to their channels'
// statistics (7)-(8). The feedback must be that of the last Decide (slot
// t, once; else ErrSlot); a component reported on a server other than the
// decision's is an error wrapping ErrValue, as is a reward outside [0,1];
// on any error the policy is unchanged.
func (p *GangPolicy) Observe(t int, fb GangFeedback) error {
	if err := observeGang(&p.stats, p.ch, p.x, p.decided, p.lastT, t, fb); err != nil {
		return err
	}
	p.decided = false
	return nil
}
