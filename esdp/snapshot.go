package esdp

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/esdpx"
	"github.com/msched/msched/internal/snapshot"
)

// Snapshot formats and versions of the family's policies.
const (
	policyFormat  = "msched/esdp.Policy"
	policyVersion = 1
)

// policyState is what a Policy learns and the slot bookkeeping of the
// convention: everything Decide and Observe read across slots.
type policyState struct {
	Stats   Stats `json:"stats"`
	Started bool  `json:"started"`
	LastT   int   `json:"last_t"`
	// Pending lists the edges chosen by a decision awaiting its Observe
	// (nil if none), so that a restored policy accepts that feedback.
	Pending []int `json:"pending"`
}

func (p *Policy) fingerprint() string {
	h := esdpx.ClusterFingerprint(policyFormat, p.cl.Graph, p.cl.K, p.cl.Demand, p.cl.Capacity, p.cl.Cost)
	o := p.set.Oracle
	h.Int(p.m).Float(p.set.Alpha).Int(boolInt(p.set.SolveThenZero)).
		Int(int(o.maxBytes())).Int(int(o.maxNodes())).Int(int(o.Knapsack)).Int(int(o.MaxCells)).Int(int(p.set.Mode))
	// delta and g are functions: their values at a few slots tell the
	// usual sequences apart (a restore with other functions is an error).
	for _, t := range [...]int{1, 2, 10, 1000} {
		h.Float(p.set.Delta(t)).Float(p.set.G(t, float64(p.m)))
	}
	return h.Sum()
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// MarshalBinary saves the learned state of p (n_e, the reward sums, the
// slot of the last Decide and a decision awaiting its Observe) in the
// envelope {"format":"msched/esdp.Policy","version":1,"model":…,"state":…}.
// The model fingerprint covers the cluster (graph, K, demands,
// capacities, costs), m, Alpha, SolveThenZero, the oracle settings and the
// values of delta and g at a few slots.
func (p *Policy) MarshalBinary() ([]byte, error) {
	st := policyState{Stats: p.stats, Started: p.started, LastT: p.lastT}
	if p.decided {
		st.Pending = chosen(p.x)
	}
	b, err := snapshot.Encode(policyFormat, policyVersion, p.model, st)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	return b, nil
}

// UnmarshalBinary restores a state saved by MarshalBinary into p, which
// must have been built by New on the same cluster with the same settings.
// Any mismatch, truncation or alteration is an error wrapping ErrSnapshot
// (and the internal cause), and p is then unchanged. The restored state is
// one a run can reach: 0 <= n_e <= MaxCount (Warm adds plays without a
// Decide, so n_e is not bounded by the slots), 0 <= sum_e <= n_e, the slot
// of the last Decide in 0..math.MaxInt-1 (0 before the first), and a
// pending decision of increasing edge ids that satisfies the capacities
// (1).
func (p *Policy) UnmarshalBinary(data []byte) error {
	var st policyState
	if err := snapshot.Decode(data, policyFormat, policyVersion, p.model, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	x, err := checkState(&st.Stats, st.Started, st.LastT, st.Pending, p.cl.NumEdges())
	if err != nil {
		return err
	}
	if err := CheckPending(p.cl, x); err != nil {
		return err
	}
	p.stats = st.Stats
	p.started, p.lastT = st.Started, st.LastT
	p.decided = st.Pending != nil
	clear(p.x)
	if p.decided {
		copy(p.x, x)
	}
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (p *Policy) MarshalJSON() ([]byte, error) { return p.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (p *Policy) UnmarshalJSON(data []byte) error { return p.UnmarshalBinary(data) }

// chosen returns the ids of the chosen edges of x (non-nil).
func chosen(x []bool) []int {
	ids := []int{}
	for e, on := range x {
		if on {
			ids = append(ids, e)
		}
	}
	return ids
}

// CheckState validates the common part of a saved state of an ESDP-family
// policy on E edges: statistics of E edges, the slot bookkeeping, and the
// pending decision (strictly increasing edge ids in 0..E-1). It returns the
// pending decision as x (nil if none) or an error wrapping ErrSnapshot
// (also for a nil st).
// Baselines call it from their UnmarshalBinary.
func CheckState(st *Stats, started bool, lastT int, pending []int, E int) ([]bool, error) {
	if st == nil {
		return nil, fmt.Errorf("%w: %w: CheckState: nil statistics", ErrSnapshot, ErrDimension)
	}
	return checkState(st, started, lastT, pending, E)
}

// CheckPending returns an error wrapping ErrSnapshot if the pending
// decision x (nil: none) of a restored state violates the capacities (1)
// of cl, or if cl is nil while x is not. Baselines call it from their
// UnmarshalBinary.
func CheckPending(cl *Cluster, x []bool) error {
	if x == nil {
		return nil
	}
	if cl == nil {
		return fmt.Errorf("%w: %w: CheckPending: nil cluster", ErrSnapshot, ErrDimension)
	}
	if err := cl.Feasible(x, nil); err != nil {
		return fmt.Errorf("%w: pending decision: %w", ErrSnapshot, err)
	}
	return nil
}

func checkState(st *Stats, started bool, lastT int, pending []int, E int) ([]bool, error) {
	if st.Len() != E {
		return nil, fmt.Errorf("%w: %w: statistics of %d edges, want |E| = %d", ErrSnapshot, ErrDimension, st.Len(), E)
	}
	if lastT < 0 || lastT == math.MaxInt || (!started && lastT != 0) {
		return nil, fmt.Errorf("%w: %w: last_t = %d (started = %v)", ErrSnapshot, ErrSlot, lastT, started)
	}
	if pending == nil {
		return nil, nil
	}
	if !started {
		return nil, fmt.Errorf("%w: %w: a pending decision before any Decide", ErrSnapshot, ErrSlot)
	}
	if len(pending) > E {
		return nil, fmt.Errorf("%w: %w: %d pending edges, |E| = %d", ErrSnapshot, ErrDimension, len(pending), E)
	}
	x := make([]bool, E)
	for i, e := range pending {
		if e < 0 || e >= E || (i > 0 && e <= pending[i-1]) {
			return nil, fmt.Errorf("%w: %w: pending[%d] = %d, want increasing edge ids in 0..%d", ErrSnapshot, ErrDimension, i, e, E-1)
		}
		x[e] = true
	}
	return x, nil
}
