package baselines

import (
	"fmt"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/snapshot"
)

const gangBaselineVersion = 1

// gangState is the saved state of a gang baseline.
type gangState struct {
	Stats   esdp.Stats `json:"stats"`
	Started bool       `json:"started"`
	LastT   int        `json:"last_t"`
	Pending []int      `json:"pending"`
	Wait    []int      `json:"wait,omitempty"` // GangLWTF only
}

func (b *gangBase) marshal(wait []int) ([]byte, error) {
	st := gangState{Stats: b.stats, Started: b.started, LastT: b.lastT, Wait: wait}
	if b.decided {
		st.Pending = b.x
	}
	data, err := snapshot.Encode(b.format, gangBaselineVersion, b.fp, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", esdp.ErrSnapshot, err)
	}
	return data, nil
}

// unmarshal restores data; wait, if not nil, receives the saved waiting
// times (checked: one per job type, >= 0). On error nothing changes.
func (b *gangBase) unmarshal(data []byte, wait []int) error {
	var st gangState
	if err := snapshot.Decode(data, b.format, gangBaselineVersion, b.fp, &st); err != nil {
		return fmt.Errorf("%w: %w", esdp.ErrSnapshot, err)
	}
	if err := esdpCheckGangState(b.ch, &st.Stats, st.Started, st.LastT, st.Pending); err != nil {
		return err
	}
	if wait != nil {
		if len(st.Wait) != len(wait) {
			return fmt.Errorf("%w: %w: len(wait) = %d, want %d job types", esdp.ErrSnapshot, esdp.ErrDimension, len(st.Wait), len(wait))
		}
		// A waiting time grows by at most one per Decide, and slots are
		// 0..last_t: at most last_t+1, and 0 before the first Decide.
		limit := 0
		if st.Started {
			limit = st.LastT + 1 // last_t < math.MaxInt (CheckGangState)
		}
		for l, v := range st.Wait {
			if v < 0 || v > limit {
				return fmt.Errorf("%w: %w: %w: wait[%d] = %d, want 0..%d (one per slot up to last_t = %d)", esdp.ErrSnapshot, esdp.ErrValue, snapshot.ErrCorrupt, l, v, limit, st.LastT)
			}
		}
		copy(wait, st.Wait)
	} else if st.Wait != nil {
		return fmt.Errorf("%w: %w: waiting times in the snapshot of a policy without them", esdp.ErrSnapshot, esdp.ErrDimension)
	}
	b.stats, b.started, b.lastT = st.Stats, st.Started, st.LastT
	b.decided = st.Pending != nil
	for c := range b.x {
		b.x[c] = -1
		if b.decided {
			b.x[c] = st.Pending[c]
		}
	}
	return nil
}

// rebuild moves b onto nb (a fresh base on the new model), carrying the
// statistics of the channels that remain (see esdp.GangPolicy.ChangeCluster).
func (b *gangBase) rebuild(nb *gangBase, jobs, servers []int) error {
	st, err := esdpCarryGang(b.ch, nb.ch, &b.stats, jobs, servers)
	if err != nil {
		return err
	}
	nb.stats = st
	nb.started, nb.lastT = b.started, b.lastT
	nb.policy, nb.log = b.policy, b.log
	*b = *nb
	return nil
}

// MarshalBinary saves the learned state (v^ per channel, the slot
// bookkeeping and a pending placement) in the envelope of format
// "msched/baselines.GangHSWF", version 1.
func (h *GangHSWF) MarshalBinary() ([]byte, error) { return h.marshal(nil) }

// UnmarshalBinary restores a state saved by MarshalBinary into h, built on
// the same model; errors wrap esdp.ErrSnapshot and leave h unchanged.
func (h *GangHSWF) UnmarshalBinary(data []byte) error { return h.unmarshal(data, nil) }

// MarshalJSON returns the bytes of MarshalBinary.
func (h *GangHSWF) MarshalJSON() ([]byte, error) { return h.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (h *GangHSWF) UnmarshalJSON(data []byte) error { return h.UnmarshalBinary(data) }

// ChangeCluster moves h, in place, onto the gang model m built from its
// current model by a bipartite.GangModel edit method with its mapping mp,
// carrying the statistics of the channels that remain (see
// esdp.GangPolicy.ChangeCluster); the settings stay h's. On error h is
// unchanged.
func (h *GangHSWF) ChangeCluster(m *bipartite.GangModel, mp bipartite.GangMapping) error {
	n, err := NewGangHSWF(m, GangHSWFSettings{Logger: h.log})
	if err != nil {
		return err
	}
	return h.rebuild(&n.gangBase, mp.Jobs, mp.Servers)
}

// MarshalBinary saves the learned state in the envelope of format
// "msched/baselines.GangLCF", version 1 (the fingerprint covers the costs).
func (c *GangLCF) MarshalBinary() ([]byte, error) { return c.marshal(nil) }

// UnmarshalBinary restores a state saved by MarshalBinary into c; errors
// wrap esdp.ErrSnapshot and leave c unchanged.
func (c *GangLCF) UnmarshalBinary(data []byte) error { return c.unmarshal(data, nil) }

// MarshalJSON returns the bytes of MarshalBinary.
func (c *GangLCF) MarshalJSON() ([]byte, error) { return c.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (c *GangLCF) UnmarshalJSON(data []byte) error { return c.UnmarshalBinary(data) }

// ChangeCluster moves c, in place, onto the gang model m with the same
// unit costs; see GangHSWF.ChangeCluster. m must have the same K.
func (c *GangLCF) ChangeCluster(m *bipartite.GangModel, mp bipartite.GangMapping) error {
	n, err := NewGangLCF(m, GangLCFSettings{Cost: c.unit, Logger: c.log})
	if err != nil {
		return err
	}
	if err := c.rebuild(&n.gangBase, mp.Jobs, mp.Servers); err != nil {
		return err
	}
	c.cost = n.cost
	return nil
}

// MarshalBinary saves the learned state and the waiting times in the
// envelope of format "msched/baselines.GangLWTF", version 1.
func (w *GangLWTF) MarshalBinary() ([]byte, error) { return w.marshal(w.wait) }

// UnmarshalBinary restores a state saved by MarshalBinary into w; errors
// wrap esdp.ErrSnapshot and leave w unchanged.
func (w *GangLWTF) UnmarshalBinary(data []byte) error {
	wait := make([]int, len(w.wait))
	if err := w.unmarshal(data, wait); err != nil {
		return err
	}
	w.wait = wait
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (w *GangLWTF) MarshalJSON() ([]byte, error) { return w.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (w *GangLWTF) UnmarshalJSON(data []byte) error { return w.UnmarshalBinary(data) }

// ChangeCluster moves w, in place, onto the gang model m; waiting times
// follow their job types (0 for new ones). See GangHSWF.ChangeCluster.
func (w *GangLWTF) ChangeCluster(m *bipartite.GangModel, mp bipartite.GangMapping) error {
	n, err := NewGangLWTF(m, GangLWTFSettings{Logger: w.log})
	if err != nil {
		return err
	}
	old, jobs := w.wait, mp.Jobs
	if err := w.rebuild(&n.gangBase, mp.Jobs, mp.Servers); err != nil {
		return err
	}
	w.wait = n.wait
	for l := range w.wait {
		o := l
		if jobs != nil {
			o = jobs[l]
		}
		if o >= 0 && o < len(old) {
			w.wait[l] = old[o]
		}
	}
	return nil
}
