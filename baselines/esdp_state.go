package baselines

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/snapshot"
)

// esdpStateVersion is the schema version of the ESDP-family baselines'
// snapshots.
const esdpStateVersion = 1

func oracleHash(h *snapshot.Hasher, o esdp.OracleSettings) {
	h.Int(int(o.MaxBytes)).Int(int(o.MaxNodes)).Int(int(o.Knapsack)).Int(int(o.MaxCells))
}

// esdpState is the saved state of an ESDP-family baseline: the statistics
// (7)-(8), the slot bookkeeping, a decision awaiting its Observe, and the
// policy's own state (LWTF's waiting times, Thompson's generator).
type esdpState struct {
	Stats   esdp.Stats `json:"stats"`
	Started bool       `json:"started"`
	LastT   int        `json:"last_t"`
	Pending []int      `json:"pending"`
	Wait    []int      `json:"wait,omitempty"`
	RNG     []byte     `json:"rng,omitempty"`
}

func (b *esdpBase) state() esdpState {
	st := esdpState{Stats: b.stats, Started: b.started, LastT: b.lastT}
	if b.decided {
		st.Pending = []int{}
		for e, on := range b.x {
			if on {
				st.Pending = append(st.Pending, e)
			}
		}
	}
	return st
}

func (b *esdpBase) encode(st esdpState) ([]byte, error) {
	data, err := snapshot.Encode(b.format, esdpStateVersion, b.model, st)
	if err != nil {
		return nil, fmt.Errorf("%w: baselines: %w", esdp.ErrSnapshot, err)
	}
	return data, nil
}

// decode decodes data into a fresh state and checks its common part; it
// returns the pending decision (nil if none). b is not changed.
func (b *esdpBase) decode(data []byte) (esdpState, []bool, error) {
	var st esdpState
	if err := snapshot.Decode(data, b.format, esdpStateVersion, b.model, &st); err != nil {
		return st, nil, fmt.Errorf("%w: baselines: %w", esdp.ErrSnapshot, err)
	}
	x, err := esdp.CheckState(&st.Stats, st.Started, st.LastT, st.Pending, b.cl.NumEdges())
	if err != nil {
		return st, nil, fmt.Errorf("baselines: %w", err)
	}
	if err := esdp.CheckPending(b.cl, x); err != nil {
		return st, nil, fmt.Errorf("baselines: %w", err)
	}
	return st, x, nil
}

// install replaces the common state of b by st (already checked).
func (b *esdpBase) install(st esdpState, x []bool) {
	b.stats, b.started, b.lastT = st.Stats, st.Started, st.LastT
	b.decided = x != nil
	clear(b.x)
	if x != nil {
		copy(b.x, x)
	}
}

func noExtra(st esdpState) error {
	if st.Wait != nil || st.RNG != nil {
		return fmt.Errorf("%w: baselines: unexpected wait or rng in the state", esdp.ErrSnapshot)
	}
	return nil
}

func (b *esdpBase) unmarshalPlain(data []byte) error {
	st, x, err := b.decode(data)
	if err != nil {
		return err
	}
	if err := noExtra(st); err != nil {
		return err
	}
	b.install(st, x)
	return nil
}

// carry moves the statistics and slot bookkeeping of b onto nb, built on
// the new cluster; ports and servers as in esdp.Policy.Rebuild.
func (b *esdpBase) carry(nb *esdpBase, ports, servers []int) error {
	st, err := b.stats.Carry(b.cl.Graph, nb.cl.Graph, ports, servers)
	if err != nil {
		return fmt.Errorf("baselines: %w", err)
	}
	nb.stats, nb.started, nb.lastT = st, b.started, b.lastT
	nb.log = b.log
	return nil
}

// MarshalBinary saves the learned state of h: the statistics, the slot of
// the last Decide and a decision awaiting its Observe, in the envelope of
// format "msched/baselines.HSWF" with a fingerprint of the cluster.
func (h *HSWF) MarshalBinary() ([]byte, error) { return h.encode(h.state()) }

// UnmarshalBinary restores a state of MarshalBinary into h, built by
// NewHSWF on the same cluster; any mismatch is an error wrapping
// esdp.ErrSnapshot and leaves h unchanged.
func (h *HSWF) UnmarshalBinary(data []byte) error { return h.unmarshalPlain(data) }

// MarshalJSON returns the bytes of MarshalBinary.
func (h *HSWF) MarshalJSON() ([]byte, error) { return h.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (h *HSWF) UnmarshalJSON(data []byte) error { return h.UnmarshalBinary(data) }

// Rebuild moves h onto cl keeping the statistics of the channels that
// remain (see esdp.Policy.Rebuild for ports, servers and the slots); on
// error h is unchanged.
func (h *HSWF) Rebuild(cl *esdp.Cluster, ports, servers []int) error {
	nh, err := NewHSWF(cl)
	if err != nil {
		return err
	}
	if err := h.carry(&nh.esdpBase, ports, servers); err != nil {
		return err
	}
	*h = *nh
	return nil
}

// MarshalBinary saves the learned state of c (format
// "msched/baselines.LCF"); see HSWF.MarshalBinary.
func (c *LCF) MarshalBinary() ([]byte, error) { return c.encode(c.state()) }

// UnmarshalBinary restores a state of MarshalBinary into c, built by
// NewLCF on the same cluster; see HSWF.UnmarshalBinary.
func (c *LCF) UnmarshalBinary(data []byte) error { return c.unmarshalPlain(data) }

// MarshalJSON returns the bytes of MarshalBinary.
func (c *LCF) MarshalJSON() ([]byte, error) { return c.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (c *LCF) UnmarshalJSON(data []byte) error { return c.UnmarshalBinary(data) }

// Rebuild moves c onto cl; see HSWF.Rebuild.
func (c *LCF) Rebuild(cl *esdp.Cluster, ports, servers []int) error {
	nc, err := NewLCF(cl)
	if err != nil {
		return err
	}
	if err := c.carry(&nc.esdpBase, ports, servers); err != nil {
		return err
	}
	*c = *nc
	return nil
}

// MarshalBinary saves the learned state of w and its waiting times
// (format "msched/baselines.LWTF"); see HSWF.MarshalBinary.
func (w *LWTF) MarshalBinary() ([]byte, error) {
	st := w.state()
	st.Wait = w.wait
	return w.encode(st)
}

// UnmarshalBinary restores a state of MarshalBinary into w, built by
// NewLWTF on the same cluster; see HSWF.UnmarshalBinary.
func (w *LWTF) UnmarshalBinary(data []byte) error {
	st, x, err := w.decode(data)
	if err != nil {
		return err
	}
	if len(st.Wait) != len(w.wait) || st.RNG != nil {
		return fmt.Errorf("%w: baselines: LWTF: len(wait) = %d, want |L| = %d", esdp.ErrSnapshot, len(st.Wait), len(w.wait))
	}
	// A port's waiting time grows by at most one per Decide, and slots
	// are 0..last_t: at most last_t+1, and 0 before the first Decide.
	limit := 0
	if st.Started {
		limit = st.LastT + 1 // last_t < math.MaxInt (CheckState)
	}
	for l, v := range st.Wait {
		if v < 0 || v > limit {
			return fmt.Errorf("%w: %w: baselines: LWTF: wait[%d] = %d, want 0..%d (one per slot up to last_t = %d)", esdp.ErrSnapshot, snapshot.ErrCorrupt, l, v, limit, st.LastT)
		}
	}
	w.install(st, x)
	copy(w.wait, st.Wait)
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (w *LWTF) MarshalJSON() ([]byte, error) { return w.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (w *LWTF) UnmarshalJSON(data []byte) error { return w.UnmarshalBinary(data) }

// Rebuild moves w onto cl; see HSWF.Rebuild. A port of cl mapped to an old
// port keeps its waiting time; a new port starts at 0.
func (w *LWTF) Rebuild(cl *esdp.Cluster, ports, servers []int) error {
	nw, err := NewLWTF(cl)
	if err != nil {
		return err
	}
	if err := w.carry(&nw.esdpBase, ports, servers); err != nil {
		return err
	}
	for l := range nw.wait { // the maps were checked by carry
		old := l
		if ports != nil {
			old = ports[l]
		}
		if old >= 0 && old < len(w.wait) {
			nw.wait[l] = w.wait[old]
		}
	}
	*w = *nw
	return nil
}

// MarshalBinary saves the learned state of c (format
// "msched/baselines.CUCB"; the fingerprint covers the oracle settings);
// see HSWF.MarshalBinary.
func (c *CUCB) MarshalBinary() ([]byte, error) { return c.encode(c.state()) }

// UnmarshalBinary restores a state of MarshalBinary into c, built by
// NewCUCB on the same cluster and settings; see HSWF.UnmarshalBinary.
func (c *CUCB) UnmarshalBinary(data []byte) error { return c.unmarshalPlain(data) }

// MarshalJSON returns the bytes of MarshalBinary.
func (c *CUCB) MarshalJSON() ([]byte, error) { return c.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (c *CUCB) UnmarshalJSON(data []byte) error { return c.UnmarshalBinary(data) }

// Rebuild moves c onto cl with the same settings; see HSWF.Rebuild.
func (c *CUCB) Rebuild(cl *esdp.Cluster, ports, servers []int) error {
	nc, err := NewCUCB(cl, c.set)
	if err != nil {
		return err
	}
	if err := c.carry(&nc.esdpBase, ports, servers); err != nil {
		return err
	}
	*c = *nc
	return nil
}

// MarshalBinary saves the learned state of th and the state of its
// generator (format "msched/baselines.Thompson"; the fingerprint covers
// the seed and the oracle settings), so a restored sampler continues the
// same stream; see HSWF.MarshalBinary.
func (th *Thompson) MarshalBinary() ([]byte, error) {
	st := th.state()
	rng, err := th.pcg.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("%w: baselines: Thompson generator: %w", esdp.ErrSnapshot, err)
	}
	st.RNG = rng
	return th.encode(st)
}

// UnmarshalBinary restores a state of MarshalBinary into th, built by
// NewThompson on the same cluster and settings; see HSWF.UnmarshalBinary.
func (th *Thompson) UnmarshalBinary(data []byte) error {
	st, x, err := th.decode(data)
	if err != nil {
		return err
	}
	if st.Wait != nil {
		return fmt.Errorf("%w: baselines: Thompson: unexpected wait in the state", esdp.ErrSnapshot)
	}
	var pcg rand.PCG
	if err := pcg.UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("%w: baselines: Thompson generator: %w", esdp.ErrSnapshot, err)
	}
	th.install(st, x)
	*th.pcg = pcg
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (th *Thompson) MarshalJSON() ([]byte, error) { return th.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (th *Thompson) UnmarshalJSON(data []byte) error { return th.UnmarshalBinary(data) }

// Rebuild moves th onto cl with the same settings, continuing its
// generator's stream; see HSWF.Rebuild.
func (th *Thompson) Rebuild(cl *esdp.Cluster, ports, servers []int) error {
	nt, err := NewThompson(cl, th.set)
	if err != nil {
		return err
	}
	if err := th.carry(&nt.esdpBase, ports, servers); err != nil {
		return err
	}
	*nt.pcg = *th.pcg
	*th = *nt
	return nil
}

// ChangeCluster moves h, in place, onto cl built from its current cluster
// with the Mapping m (esdp.Cluster.RemoveServer and the other edit
// methods), under the cluster-change contract of package bipartite: the
// statistics of the surviving channels carry over; on error h is
// unchanged. It is Rebuild(cl, m.Ports, m.Servers).
func (h *HSWF) ChangeCluster(cl *esdp.Cluster, m esdp.Mapping) error {
	return h.Rebuild(cl, m.Ports, m.Servers)
}

// ChangeCluster moves c onto cl in place; see HSWF.ChangeCluster.
func (c *LCF) ChangeCluster(cl *esdp.Cluster, m esdp.Mapping) error {
	return c.Rebuild(cl, m.Ports, m.Servers)
}

// ChangeCluster moves w onto cl in place (waiting times follow their
// ports); see HSWF.ChangeCluster.
func (w *LWTF) ChangeCluster(cl *esdp.Cluster, m esdp.Mapping) error {
	return w.Rebuild(cl, m.Ports, m.Servers)
}

// ChangeCluster moves c onto cl in place with the same settings; see
// HSWF.ChangeCluster.
func (c *CUCB) ChangeCluster(cl *esdp.Cluster, m esdp.Mapping) error {
	return c.Rebuild(cl, m.Ports, m.Servers)
}

// ChangeCluster moves th onto cl in place with the same settings,
// continuing its generator's stream; see HSWF.ChangeCluster.
func (th *Thompson) ChangeCluster(cl *esdp.Cluster, m esdp.Mapping) error {
	return th.Rebuild(cl, m.Ports, m.Servers)
}
