package ocorp

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
)

var _ OnlinePolicy = (*Priority)(nil)

// Key is the priority of a job in a slot: smaller is served first (ties by
// ID). It must not return NaN.
type Key func(t int, j ActiveJob) float64

// Priority is a work-conserving priority scheduler on the Packer: in every
// slot the unfinished jobs are sorted by Key, take min(d_j, d_j p_j(t))
// cores each in that order while the cluster has cores (Lemma 1 with a
// different order), and are packed like OCORP. It is the transient
// smallest-volume-first scheduler (NewTransient) and the engine of the
// package baselines' SRPT, SRVF, SVF and SRF. Not safe for concurrent use.
type Priority struct {
	name   string
	key    Key
	pk     *Packer
	maxMem int
	last   int // slot of the last successful Decide, -1 before
	keys   []keyed
	order  []int
	want   []int
	out    Decision
	log    *slog.Logger
}

// PrioritySettings configures a Priority scheduler. The zero value is
// ready.
type PrioritySettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family, policy, slot, jobs, placements).
	Logger *slog.Logger
}

// NewPriority returns a priority scheduler with the given name and key,
// and settings s (at most one; more is an error wrapping ErrSettings).
func NewPriority(name string, ms []Machine, key Key, s ...PrioritySettings) (*Priority, error) {
	if key == nil {
		return nil, fmt.Errorf("%w: nil key", ErrSettings)
	}
	if len(s) > 1 {
		return nil, fmt.Errorf("%w: %d settings values, want at most 1", ErrSettings, len(s))
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return nil, err
	}
	p := &Priority{name: name, key: key, pk: pk, maxMem: maxMemory(ms), last: -1}
	if len(s) == 1 {
		p.log = s[0].Logger
	}
	return p, nil
}

// Name returns the name given to NewPriority.
func (p *Priority) Name() string { return p.name }

// Decide returns the placements of slot t (owned by the policy, valid
// until the next call of any of its methods). t must be >= 0 and greater
// than the previous Decide's (ErrSlot); a gap means nothing to a priority
// rule. On error the policy is unchanged.
func (p *Priority) Decide(t int, obs Obs) (Decision, error) {
	if err := checkSlot(t, p.last); err != nil {
		return Decision{}, err
	}
	if err := validateObs(t, obs, p.maxMem); err != nil {
		return Decision{}, err
	}
	n := len(obs.Jobs)
	p.keys = p.keys[:0]
	p.want = grow(p.want, n)
	for k, a := range obs.Jobs {
		v := p.key(t, a)
		if v != v {
			return Decision{}, fmt.Errorf("%w: job %d (id %d): key is NaN", ErrValue, k, a.ID)
		}
		p.keys = append(p.keys, keyed{v, a.ID, k})
		p.want[k] = int(min(int64(a.Cores), a.Remaining))
	}
	slices.SortFunc(p.keys, cmpKeyed)
	p.order = p.order[:0]
	for _, e := range p.keys {
		p.order = append(p.order, e.idx)
	}
	if err := p.pk.Reset(obs.Jobs); err != nil {
		return Decision{}, err
	}
	p.pk.Pack(p.order, p.want, false)
	p.out.Placements = p.pk.Placements()
	p.last = t
	if debugChecks {
		mustBeFeasible(p.name, p.pk.ms, obs, p.out)
	}
	if p.log != nil {
		p.log.LogAttrs(context.Background(), slog.LevelDebug, "decide", slog.String("family", "ocorp"), slog.String("policy", p.name),
			slog.Int("slot", t), slog.Int("jobs", n), slog.Int("placements", len(p.out.Placements)))
	}
	return p.out, nil
}

// VolumeKey orders jobs by volume p_j d_j (smallest volume first).
func VolumeKey(_ int, j ActiveJob) float64 { return float64(j.Volume()) }

// NewTransient returns the transient scheduler of Section IV-C (Lemma 2,
// Theorem 6): smallest volume p_j d_j first, each job taking
// y_j = min{1, p_j(t)} (d_j y_j integral cores) while gamma_j >= d_j and
// gamma_j / d_j for the first job that no longer fits — eq. (39) with the
// max corrected to min — then packed like OCORP. For jobs that all arrive
// at time 0 it solves P3 (eq. (35)) optimally; online it is SVF. Its
// settings are those of NewPriority (the zero value: no logging).
func NewTransient(ms []Machine, s PrioritySettings) (*Priority, error) {
	return NewPriority("Transient-SVF", ms, VolumeKey, s)
}
