package esdp

import (
	"context"
	"fmt"
	"log/slog"
	"math"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/esdpx"
	"github.com/msched/msched/internal/snapshot"
)

const (
	gangFormat  = "msched/esdp.GangPolicy"
	gangVersion = 1
)

// gangState is what a GangPolicy learns and its slot bookkeeping.
type gangState struct {
	Stats   Stats `json:"stats"`
	Started bool  `json:"started"`
	LastT   int   `json:"last_t"`
	// Pending is the placement awaiting its Observe (server per
	// component), nil if none.
	Pending []int `json:"pending"`
}

func init() {
	esdpx.CarryGang = carryGang
	esdpx.ObserveGang = observeGang
	esdpx.CheckGangState = checkGangState
}

func (p *GangPolicy) fingerprint() string {
	h := esdpx.GangFingerprint(gangFormat, p.model)
	o := p.set.Oracle
	h.Int(p.m).Int(p.set.Rounds).Int(int(o.Method)).Int(int(o.nodes())).Int(o.iterations())
	if o.TimeLimit != 0 { // only then: the fingerprints of earlier snapshots stay valid
		h.Int(int(o.TimeLimit))
	}
	if o.BoundShare != 0 { // likewise
		h.Float(o.BoundShare)
	}
	for _, t := range [...]int{1, 2, 10, 1000} {
		h.Float(p.set.Delta(t)).Float(p.set.G(t, float64(p.m)))
	}
	return h.Sum()
}

// MarshalBinary saves the learned state of p (n_i, the reward sums per
// channel, the slot of the last Decide and a placement awaiting its
// Observe) in the envelope
// {"format":"msched/esdp.GangPolicy","version":1,"model":…,"state":…}. The
// fingerprint covers the gang model (graph, K, capacities, demands, m_l),
// m, Rounds, the oracle settings (TimeLimit and BoundShare when set) and delta and g at a few slots.
func (p *GangPolicy) MarshalBinary() ([]byte, error) {
	st := gangState{Stats: p.stats, Started: p.started, LastT: p.lastT}
	if p.decided {
		st.Pending = p.x
	}
	b, err := snapshot.Encode(gangFormat, gangVersion, p.fp, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into p, built by
// NewGang on the same model with the same settings. Besides the envelope
// it checks the values: statistics of one entry per channel
// (0 <= sum <= count), no play of a channel that can never be played (its
// component does not fit the server), the slot bookkeeping, and a pending
// placement that satisfies every gang constraint (GangModel.Check). Any
// mismatch is an error wrapping ErrSnapshot, and p is then unchanged.
func (p *GangPolicy) UnmarshalBinary(data []byte) error {
	var st gangState
	if err := snapshot.Decode(data, gangFormat, gangVersion, p.fp, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if err := checkGangState(p.ch, &st.Stats, st.Started, st.LastT, st.Pending); err != nil {
		return err
	}
	p.stats = st.Stats
	p.started, p.lastT = st.Started, st.LastT
	p.decided = st.Pending != nil
	pend := st.Pending
	if pend == nil {
		pend = p.sol[:0]
	}
	for c := range p.x {
		p.x[c] = -1
		if c < len(pend) {
			p.x[c] = pend[c]
		}
	}
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (p *GangPolicy) MarshalJSON() ([]byte, error) { return p.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (p *GangPolicy) UnmarshalJSON(data []byte) error { return p.UnmarshalBinary(data) }

// checkGangState validates the common part of a saved state of a gang
// policy of this family on the channels ch: statistics of ch.Len()
// channels with no play of a channel that does not fit, the slot
// bookkeeping, and a pending placement (nil, or one server or -1 per
// component) that GangModel.Check passes with the jobs it places as
// arrived. Errors wrap ErrSnapshot.
func checkGangState(ch *GangChannels, st *Stats, started bool, lastT int, pending []int) error {
	if ch == nil || st == nil {
		return fmt.Errorf("%w: %w: nil channels or statistics", ErrSnapshot, ErrDimension)
	}
	if st.Len() != ch.Len() {
		return fmt.Errorf("%w: %w: statistics of %d channels, want %d", ErrSnapshot, ErrDimension, st.Len(), ch.Len())
	}
	for i, n := range st.count {
		if n > 0 && !ch.fits[i] {
			return fmt.Errorf("%w: %w: count[%d] = %d, but channel %d's component never fits server %d", ErrSnapshot, ErrValue, i, n, i, ch.Server(i))
		}
	}
	if lastT < 0 || lastT == math.MaxInt || (!started && lastT != 0) {
		return fmt.Errorf("%w: %w: last_t = %d (started = %v)", ErrSnapshot, ErrSlot, lastT, started)
	}
	if err := checkGangPlays(ch, st, started, lastT, pending != nil); err != nil {
		return err
	}
	if pending == nil {
		return nil
	}
	if !started {
		return fmt.Errorf("%w: %w: a pending decision before any Decide", ErrSnapshot, ErrSlot)
	}
	m := ch.model
	if len(pending) != m.NumComponents() {
		return fmt.Errorf("%w: %w: len(pending) = %d, want %d components", ErrSnapshot, ErrDimension, len(pending), m.NumComponents())
	}
	arrived := make([]bool, m.NumJobs())
	for c, s := range pending {
		if s < -1 || s >= m.NumServers() {
			return fmt.Errorf("%w: %w: pending[%d] = %d, want -1..%d", ErrSnapshot, ErrValue, c, s, m.NumServers()-1)
		}
		if s >= 0 {
			if i, ok := ch.Channel(c, s); !ok || !ch.fits[i] {
				return fmt.Errorf("%w: %w: pending[%d] = %d, not a channel of component %d that fits", ErrSnapshot, ErrValue, c, s, c)
			}
			arrived[m.Job(c)] = true
		}
	}
	chk, err := m.Check(arrived, pending)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if chk.Violations > 0 {
		return fmt.Errorf("%w: %w: pending placement breaks %d gang constraints: %s", ErrSnapshot, ErrValue, chk.Violations, chk.First)
	}
	return nil
}

// ChangeCluster moves p, in place, onto the gang model model, built from
// p's current model by a bipartite.GangModel edit method (AddServer,
// RemoveServer, AddJob, RemoveJob) with its mapping mp, under the
// cluster-change contract of package bipartite, keeping what it learned
// about the channels that remain. mp.Jobs[l'] is the index in the current
// model of job type l' of model, mp.Servers[r'] that of server r', -1 for
// a new one; a nil slice is the identity on the indices both models have.
// Component q of job type l' continues component q of mp.Jobs[l'] (if it
// has one); the channel (l', q, r') keeps n and the reward sum of
// (mp.Jobs[l'], q, mp.Servers[r']) if that channel exists now and fits in
// the new model, and starts unplayed otherwise (ESDP-gang explores it
// first). The settings stay those given to NewGang.
//
// The slot bookkeeping is kept (the next Decide still needs a later t); a
// decision awaiting its Observe is dropped; m is recomputed from the
// settings. A snapshot taken after the change restores into a policy
// built by NewGang on model; snapshots taken before it no longer restore
// into p. On error (a nil or invalid model, a bad mapping: ErrDimension)
// p is unchanged.
func (p *GangPolicy) ChangeCluster(model *bipartite.GangModel, mp bipartite.GangMapping) error {
	np, err := NewGang(model, p.set)
	if err != nil {
		return err
	}
	st, err := carryGang(p.ch, np.ch, &p.stats, mp.Jobs, mp.Servers)
	if err != nil {
		return err
	}
	np.stats = st
	np.started, np.lastT = p.started, p.lastT
	*p = *np
	if p.set.Logger != nil {
		p.set.Logger.LogAttrs(context.Background(), slog.LevelInfo, "rebuild", slog.String("family", "esdp"),
			slog.String("policy", p.Name()), slog.Int("slot", p.lastT), slog.Int("jobs", model.NumJobs()), slog.Int("servers", model.NumServers()))
	}
	return nil
}

// carryGang returns the per-channel statistics st of channels from carried
// to the channels to, mapping job types and servers as
// GangPolicy.ChangeCluster does. Errors wrap ErrDimension.
func carryGang(from, to *GangChannels, st *Stats, jobs, servers []int) (Stats, error) {
	if from == nil || to == nil || st == nil {
		return Stats{}, fmt.Errorf("%w: ChangeCluster: nil channels or statistics", ErrDimension)
	}
	if st.Len() != from.Len() {
		return Stats{}, fmt.Errorf("%w: ChangeCluster: statistics of %d channels, want %d", ErrDimension, st.Len(), from.Len())
	}
	fm, tm := from.model, to.model
	jm, err := vertexMap("jobs", jobs, tm.NumJobs(), fm.NumJobs())
	if err != nil {
		return Stats{}, err
	}
	sm, err := vertexMap("servers", servers, tm.NumServers(), fm.NumServers())
	if err != nil {
		return Stats{}, err
	}
	out := NewStats(to.Len())
	for i := range out.count {
		if !to.fits[i] {
			continue
		}
		c := to.Component(i)
		l := tm.Job(c)
		ol, or := jm(l), sm(to.Server(i))
		if ol < 0 || or < 0 {
			continue
		}
		lo, _ := tm.Components(l)
		olo, ohi := fm.Components(ol)
		oc := olo + (c - lo)
		if oc >= ohi {
			continue
		}
		if j, ok := from.Channel(oc, or); ok {
			out.count[i], out.sum[i] = st.count[j], st.sum[j]
		}
	}
	return out, nil
}
