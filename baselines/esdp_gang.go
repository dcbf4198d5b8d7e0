package baselines

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/esdpx"
	"github.com/msched/msched/internal/snapshot"
)

var (
	_ esdp.GangOnlinePolicy = (*GangHSWF)(nil)
	_ esdp.GangOnlinePolicy = (*GangLCF)(nil)
	_ esdp.GangOnlinePolicy = (*GangLWTF)(nil)
	_ esdp.GangLearner      = (*GangHSWF)(nil)
	_ esdp.GangLearner      = (*GangLCF)(nil)
	_ esdp.GangLearner      = (*GangLWTF)(nil)
)

// gangBase holds what every gang baseline of the ESDP family needs: the
// model, the per-channel statistics, the decision being built and the
// slot bookkeeping.
type gangBase struct {
	model   *bipartite.GangModel
	ch      *esdp.GangChannels
	format  string
	fp      string
	extra   func(h *snapshot.Hasher)
	stats   esdp.Stats
	x       []int // server per component, -1 (private: see decide)
	out     []int // the returned copy of x
	log     *slog.Logger
	policy  string
	load    []float64 // load per (server, resource) (bipartite's capacity arithmetic)
	save    []float64 // per component c: its server's loads before c was placed
	order   []int     // job order of the slot
	key     []float64 // ranking key per job
	comp    []int     // component order of a job
	ckey    []float64 // best mean per component
	decided bool
	started bool
	lastT   int
}

func newGangBase(m *bipartite.GangModel, name string, extra func(h *snapshot.Hasher)) (gangBase, error) {
	ch, err := esdp.NewGangChannels(m)
	if err != nil {
		return gangBase{}, fmt.Errorf("baselines: %s: %w", name, err)
	}
	b := gangBase{model: m, ch: ch, format: "msched/baselines." + name, extra: extra,
		stats: esdp.NewStats(ch.Len()), x: make([]int, m.NumComponents()), out: make([]int, m.NumComponents()), policy: name,
		load: make([]float64, m.NumServers()*m.K()), save: make([]float64, m.NumComponents()*m.K()), order: make([]int, 0, m.NumJobs()),
		key: make([]float64, m.NumJobs()), comp: make([]int, 0, m.NumComponents()), ckey: make([]float64, m.NumComponents())}
	for c := range b.x {
		b.x[c] = -1
	}
	h := esdpx.GangFingerprint(b.format, m)
	if extra != nil {
		extra(h)
	}
	b.fp = h.Sum()
	return b, nil
}

// reset checks the slot and the observation of a Decide and clears the
// decision being built.
func (b *gangBase) reset(t int, arrived []bool) error {
	if t < 0 || t == math.MaxInt {
		return fmt.Errorf("%w: baselines: slot %d, want 0..%d", esdp.ErrSlot, t, math.MaxInt-1)
	}
	if b.started && t <= b.lastT {
		return fmt.Errorf("%w: baselines: slot %d, want > %d (the previous Decide's)", esdp.ErrSlot, t, b.lastT)
	}
	if len(arrived) != b.model.NumJobs() {
		return fmt.Errorf("%w: baselines: len(arrived) = %d, want %d job types", esdp.ErrDimension, len(arrived), b.model.NumJobs())
	}
	for c := range b.x {
		b.x[c] = -1
	}
	clear(b.load)
	return nil
}

// rank orders the arrived jobs by b.key, descending (ascending if asc),
// ties by job index.
func (b *gangBase) rank(arrived []bool, asc bool) {
	b.order = b.order[:0]
	for l, a := range arrived {
		if a {
			b.order = append(b.order, l)
		}
	}
	sortByKey(b.order, b.key, asc)
}

// sortByKey sorts idx by key[idx] descending (ascending if asc), ties by
// index, in O(n log n) without allocating.
func sortByKey(idx []int, key []float64, asc bool) {
	slices.SortFunc(idx, func(a, c int) int {
		v := cmp.Compare(key[c], key[a])
		if asc {
			v = -v
		}
		if v != 0 {
			return v
		}
		return cmp.Compare(a, c)
	})
}

// placeJob places job l whole or not at all: its components in decreasing
// best estimated mean, each on the channel of highest v^ (ties: lowest
// server) among those that fit on top of the loads (bipartite.FitsAdd); the job is kept if
// at least m_l components were placed, and otherwise undone (no capacity
// held). It reports whether the job was served.
func (b *gangBase) placeJob(l int) bool {
	m, ch := b.model, b.ch
	K := m.K()
	lo, hi := m.Components(l)
	b.comp = b.comp[:0]
	for c := lo; c < hi; c++ {
		best := math.Inf(-1)
		clo, chi := ch.Range(c)
		for i := clo; i < chi; i++ {
			if ch.Fits(i) {
				best = max(best, b.stats.Mean(i))
			}
		}
		b.ckey[c] = best
		b.comp = append(b.comp, c)
	}
	sortByKey(b.comp, b.ckey, false)
	n := 0
	for _, c := range b.comp {
		a := m.Demand(c)
		bi := -1
		clo, chi := ch.Range(c)
		for i := clo; i < chi; i++ {
			if !ch.Fits(i) || (bi >= 0 && b.stats.Mean(i) <= b.stats.Mean(bi)) {
				continue
			}
			r := ch.Server(i)
			if bipartite.FitsAdd(b.load[r*K:(r+1)*K], a, m.Capacity(r)) {
				bi = i
			}
		}
		if bi < 0 {
			continue
		}
		r := ch.Server(bi)
		ld := b.load[r*K : (r+1)*K]
		copy(b.save[c*K:(c+1)*K], ld)
		for k, v := range a {
			ld[k] += v
		}
		b.x[c] = r
		n++
	}
	if n >= m.Min(l) {
		return true
	}
	for j := len(b.comp) - 1; j >= 0; j-- { // roll back in reverse order of placement, restoring the loads exactly
		c := b.comp[j]
		if r := b.x[c]; r >= 0 {
			copy(b.load[r*K:(r+1)*K], b.save[c*K:(c+1)*K])
			b.x[c] = -1
		}
	}
	return false
}

// decide records the decision of slot t and returns a copy of it: the
// policy never reads a returned decision back (Observe checks against its
// own b.x).
func (b *gangBase) decide(t int) ([]int, error) {
	b.decided, b.started, b.lastT = true, true, t
	copy(b.out, b.x)
	if b.log != nil {
		logDecide(b.log, "esdp", b.policy, t)
	}
	return b.out, nil
}

// Observe adds the realised rewards of the reported components to v^; see
// esdp.GangPolicy.Observe for the checks. On error nothing changes.
func (b *gangBase) Observe(t int, fb esdp.GangFeedback) error {
	if err := esdpObserveGang(&b.stats, b.ch, b.x, b.decided, b.lastT, t, fb); err != nil {
		return err
	}
	b.decided = false
	return nil
}

// Count returns the plays of channel i (esdp.GangChannels numbering).
func (b *gangBase) Count(i int) int { return b.stats.Count(i) }

// Mean returns the empirical mean v^ of channel i.
func (b *gangBase) Mean(i int) float64 { return b.stats.Mean(i) }

// Channels returns the channel numbering of the statistics.
func (b *gangBase) Channels() *esdp.GangChannels { return b.ch }

// jobWelfare is HSWF's key of job l: the sum of v^ over the job's
// channels, as HSWF sums v^ over a port's edges.
func (b *gangBase) jobWelfare(l int) float64 {
	lo, hi := b.model.Components(l)
	clo, _ := b.ch.Range(lo)
	_, chi := b.ch.Range(hi - 1)
	s := 0.0
	for i := clo; i < chi; i++ {
		s += b.stats.Mean(i)
	}
	return s
}

// GangHSWF is HSWF for gangs: the arrived jobs are ranked by their
// estimated welfare (the sum of v^ over their channels) in descending
// order, ties by index; each in turn is placed whole or not at all (see
// the package doc: components by decreasing best v^, each on its best
// fitting channel, kept with at least m_l components).
type GangHSWF struct{ gangBase }

// GangHSWFSettings configures GangHSWF. The zero value is the papers'.
type GangHSWFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every GangHSWFSettings is valid.
func (s GangHSWFSettings) Validate() error { return nil }

// NewGangHSWF returns gang HSWF on m with settings s; a nil m is an
// error.
func NewGangHSWF(m *bipartite.GangModel, s GangHSWFSettings) (*GangHSWF, error) {
	set := s
	b, err := newGangBase(m, "GangHSWF", nil)
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "HSWF-gang", set.Logger
	return &GangHSWF{b}, nil
}

// Name returns "HSWF-gang".
func (h *GangHSWF) Name() string { return "HSWF-gang" }

// Decide returns the placement of slot t.
func (h *GangHSWF) Decide(t int, arrived []bool) ([]int, error) {
	if err := h.reset(t, arrived); err != nil {
		return nil, err
	}
	for l := range h.key {
		h.key[l] = h.jobWelfare(l)
	}
	h.rank(arrived, false)
	for _, l := range h.order {
		h.placeJob(l)
	}
	return h.decide(t)
}

// GangLCFSettings configures GangLCF.
type GangLCFSettings struct {
	// Cost holds the unit supply cost f_k of each resource type (len K,
	// finite, >= 0); nil means 0.5 for every type, the mean of the papers'
	// f_k ~ N(0.5, 0.1).
	Cost []float64
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// GangLCF is LCF for gangs: the arrived jobs are ranked by their supply
// cost Σ_q Σ_k f_k a^{q,k} in ascending order, ties by descending
// estimated welfare and then index; each is placed whole or not at all.
type GangLCF struct {
	gangBase
	unit []float64 // f_k
	cost []float64 // per job
}

// NewGangLCF returns gang LCF on m with settings s. A nil m or a Cost of
// the wrong length, NaN, infinite or negative is an error wrapping
// esdp.ErrSettings or esdp.ErrDimension.
func NewGangLCF(m *bipartite.GangModel, s GangLCFSettings) (*GangLCF, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: baselines: GangLCF: nil gang model", esdp.ErrDimension)
	}
	f := s.Cost
	if f == nil {
		f = make([]float64, m.K())
		for k := range f {
			f[k] = 0.5
		}
	}
	var errs []error
	if len(f) != m.K() {
		errs = append(errs, fmt.Errorf("%w: GangLCFSettings.Cost: len %d, want K = %d", esdp.ErrSettings, len(f), m.K()))
	} else {
		for k, v := range f {
			if !(v >= 0 && v <= math.MaxFloat64) {
				errs = append(errs, fmt.Errorf("%w: GangLCFSettings.Cost[%d] = %v, want finite >= 0", esdp.ErrSettings, k, v))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	b, err := newGangBase(m, "GangLCF", func(h *snapshot.Hasher) { h.Floats(f) })
	if err != nil {
		return nil, err
	}
	cost := make([]float64, m.NumJobs())
	for l := range cost {
		lo, hi := m.Components(l)
		for c := lo; c < hi; c++ {
			for k, a := range m.Demand(c) {
				cost[l] += f[k] * a
			}
		}
	}
	b.policy, b.log = "LCF-gang", s.Logger
	return &GangLCF{gangBase: b, unit: append([]float64(nil), f...), cost: cost}, nil
}

// Name returns "LCF-gang".
func (c *GangLCF) Name() string { return "LCF-gang" }

// Cost returns the supply cost of job type l.
func (c *GangLCF) Cost(l int) float64 { return c.cost[l] }

// Decide returns the placement of slot t.
func (c *GangLCF) Decide(t int, arrived []bool) ([]int, error) {
	if err := c.reset(t, arrived); err != nil {
		return nil, err
	}
	// Ascending cost, ties by descending welfare: one key, cost first.
	for l := range c.key {
		c.key[l] = c.jobWelfare(l)
	}
	c.order = c.order[:0]
	for l, a := range arrived {
		if a {
			c.order = append(c.order, l)
		}
	}
	cost, key := c.cost, c.key
	slices.SortFunc(c.order, func(a, b int) int {
		if v := cmp.Compare(cost[a], cost[b]); v != 0 {
			return v
		}
		if v := cmp.Compare(key[b], key[a]); v != 0 {
			return v
		}
		return cmp.Compare(a, b)
	})
	for _, l := range c.order {
		c.placeJob(l)
	}
	return c.decide(t)
}

// GangLWTF is LWTF for gangs: the arrived jobs are ranked by their waiting
// time in descending order, ties by index; each is placed whole or not at
// all. The waiting time of a job type counts the slots in which it had a
// job and was not served since it was last served (reset to 0 when
// served), as LWTF's.
type GangLWTF struct {
	gangBase
	wait []int
}

// GangLWTFSettings configures GangLWTF. The zero value is the papers'.
type GangLWTFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every GangLWTFSettings is valid.
func (s GangLWTFSettings) Validate() error { return nil }

// NewGangLWTF returns gang LWTF on m with settings s; a nil m is an
// error.
func NewGangLWTF(m *bipartite.GangModel, s GangLWTFSettings) (*GangLWTF, error) {
	set := s
	b, err := newGangBase(m, "GangLWTF", nil)
	if err != nil {
		return nil, err
	}
	b.policy, b.log = "LWTF-gang", set.Logger
	return &GangLWTF{gangBase: b, wait: make([]int, m.NumJobs())}, nil
}

// Name returns "LWTF-gang".
func (w *GangLWTF) Name() string { return "LWTF-gang" }

// Wait returns the waiting time of job type l.
func (w *GangLWTF) Wait(l int) int { return w.wait[l] }

// Decide returns the placement of slot t and updates the waiting times.
func (w *GangLWTF) Decide(t int, arrived []bool) ([]int, error) {
	if err := w.reset(t, arrived); err != nil {
		return nil, err
	}
	for l, v := range w.wait {
		w.key[l] = float64(v)
	}
	w.rank(arrived, false)
	for _, l := range w.order {
		if w.placeJob(l) {
			w.wait[l] = 0
		} else if w.wait[l] < math.MaxInt {
			w.wait[l]++
		}
	}
	return w.decide(t)
}
