package baselines

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ocorp"
)

var _ ocorp.OnlinePolicy = (*FirstFit)(nil)

// Order is the priority order of an OCORP-family baseline (paper 004,
// Section VI-2): smaller keys are served first, ties by job ID.
type Order int

const (
	// OrderSRPT: shortest remaining processing time p_j(t) first (the
	// zero value).
	OrderSRPT Order = iota
	// OrderSRVF: smallest residual volume d_j p_j(t) first.
	OrderSRVF
	// OrderSVF: smallest volume d_j p_j first.
	OrderSVF
	// OrderSRF: smallest resource (CPU cores d_j) first.
	OrderSRF
)

// String returns the baseline's name: "SRPT", "SRVF", "SVF" or "SRF".
func (o Order) String() string {
	switch o {
	case OrderSRPT:
		return "SRPT"
	case OrderSRVF:
		return "SRVF"
	case OrderSVF:
		return "SVF"
	case OrderSRF:
		return "SRF"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// Key returns the order's key, the one NewSRPT, NewSRVF, NewSVF and NewSRF
// give ocorp.NewPriority (so ocorp.NewPriority("SRPT-pooled", ms,
// OrderSRPT.Key()) is NewSRPT under another name). It returns nil for an
// unknown order.
func (o Order) Key() ocorp.Key {
	switch o {
	case OrderSRPT:
		return func(_ int, j ocorp.ActiveJob) float64 { return float64(j.Remaining) / float64(j.Cores) }
	case OrderSRVF:
		return func(_ int, j ocorp.ActiveJob) float64 { return float64(j.Remaining) }
	case OrderSVF:
		return ocorp.VolumeKey
	case OrderSRF:
		return func(_ int, j ocorp.ActiveJob) float64 { return float64(j.Cores) }
	}
	return nil
}

// FirstFitSettings configures a server-aware baseline (NewFirstFit). The
// zero value is SRPT.
type FirstFitSettings struct {
	// Order is the priority order; OrderSRPT (the zero value) by default.
	Order Order
	// Name overrides the policy's name ("" = "FirstFit-" + Order.String(),
	// e.g. "FirstFit-SRPT", so that it differs from the pooled NewSRPT's
	// "SRPT").
	Name string
	// Logger receives a "decide" record per slot at Debug level (family,
	// policy, slot, jobs, placements); nil disables logging.
	Logger *slog.Logger
}

// Validate reports an unknown Order, wrapping ocorp.ErrSettings.
func (s FirstFitSettings) Validate() error {
	if s.Order < OrderSRPT || s.Order > OrderSRF {
		return fmt.Errorf("%w: Order = %d, want OrderSRPT, OrderSRVF, OrderSVF or OrderSRF", ocorp.ErrSettings, int(s.Order))
	}
	return nil
}

// FirstFit is the server-aware form of SRPT, SRVF, SVF and SRF for jobs
// with cores and memory: in every slot the unfinished jobs, in the
// order's priority (ties by job ID), are placed whole, one at a time, each
// with u_j = min(d_j, d_j p_j(t)) cores on the first server that has both
// u_j free cores and m_j free memory, servers taken by cores, largest
// first, ties by index (ocorp.Packer's order). A job that fits on no
// server in this slot waits, and the next job is tried (backfilling). A
// job that could not fit whole even on an empty server (u_j above the
// cores of every server whose memory holds it; Remark 1 of the paper) is
// split instead over the servers, in the same order, that have free cores
// and its memory free, so it is never starved by its shape.
//
// This is what a scheduler that knows the servers does, and what the
// pooled baselines (NewSRPT, NewSRVF, NewSVF, NewSRF: cores set on the
// pooled cluster by Lemma 1's rate step, then packed largest first) do
// not: under memory pressure packing by size places large low-priority
// jobs before small high-priority ones. The 2-D comparison of
// examples/reproduce uses FirstFit; the 1-D one (memory 0) keeps the
// pooled baselines, which read Lemma 1 with the paper's packing as OCORP
// does.
//
// A slot costs O(n log n + n M) for n jobs on M servers, and allocates
// nothing once the buffers have grown. The policy's only state across
// slots is the slot of its last Decide; it follows the rules of package
// ocorp for slots, snapshots and cluster changes. Not safe for concurrent
// use.
type FirstFit struct {
	ms    []ocorp.Machine
	s     FirstFitSettings
	name  string
	key   ocorp.Key
	byCap []int
	last  int // slot of the last successful Decide, -1 before
	pk    *ocorp.Packer
	keys  []fitKey
	order []int
	want  []int
	out   ocorp.Decision
}

type fitKey struct {
	key float64
	id  int
	idx int
}

// NewFirstFit returns the server-aware baseline of s.Order on the machines
// (copied). It returns an error wrapping ocorp.ErrSettings for an unknown
// order, ocorp.ErrEmpty for no machines and ocorp.ErrValue for an invalid
// machine.
func NewFirstFit(ms []ocorp.Machine, s FirstFitSettings) (*FirstFit, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("baselines: first fit: %w", err)
	}
	pk, err := ocorp.NewPacker(ms)
	if err != nil {
		return nil, fmt.Errorf("baselines: first fit: %w", err)
	}
	f := &FirstFit{ms: slices.Clone(ms), s: s, name: s.Name, key: s.Order.Key(), pk: pk, last: -1}
	if f.name == "" {
		f.name = "FirstFit-" + s.Order.String()
	}
	f.byCap = make([]int, len(ms))
	for i := range f.byCap {
		f.byCap[i] = i
	}
	slices.SortStableFunc(f.byCap, func(a, b int) int { return ms[b].Cores - ms[a].Cores })
	return f, nil
}

// Name returns "FirstFit-" and the order's name ("FirstFit-SRPT", ...) or
// FirstFitSettings.Name.
func (f *FirstFit) Name() string { return f.name }

// Decide returns the placements of slot t (owned by the policy, valid
// until its next call), naming jobs by ID. The slot must be >= 0 and
// greater than the previous one (an error wrapping ocorp.ErrSlot); the
// observation is checked with ocorp.ValidateObs (a job whose memory fits
// no machine is an error wrapping ocorp.ErrUnfit; duplicate IDs wrap
// ocorp.ErrValue). On error the policy is unchanged.
func (f *FirstFit) Decide(t int, obs ocorp.Obs) (ocorp.Decision, error) {
	if t < 0 || t <= f.last {
		return ocorp.Decision{}, fmt.Errorf("baselines: %s: %w: Decide(%d) after Decide(%d): need t >= 0 and t > the previous slot", f.name, ocorp.ErrSlot, t, f.last)
	}
	if err := ocorp.ValidateObs(t, obs, f.ms); err != nil {
		return ocorp.Decision{}, fmt.Errorf("baselines: %s: slot %d: %w", f.name, t, err)
	}
	if err := f.pk.Reset(obs.Jobs); err != nil {
		return ocorp.Decision{}, fmt.Errorf("baselines: %s: slot %d: %w", f.name, t, err)
	}
	n := len(obs.Jobs)
	f.keys = f.keys[:0]
	f.want = growInts(f.want, n)
	for k, a := range obs.Jobs {
		f.keys = append(f.keys, fitKey{f.key(t, a), a.ID, k}) // keys are finite: validated jobs
		f.want[k] = int(min(int64(a.Cores), a.Remaining))
	}
	slices.SortFunc(f.keys, func(a, b fitKey) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	f.order = f.order[:0]
	for _, e := range f.keys {
		f.order = append(f.order, e.idx)
	}
	f.pk.FirstFit(f.order, f.want)
	f.out.Placements = f.pk.Placements()
	f.last = t
	if f.s.Logger != nil {
		logDecide(f.s.Logger, "ocorp", f.name, t, slog.Int("jobs", n), slog.Int("placements", len(f.out.Placements)))
	}
	return f.out, nil
}

// formatFirstFit is the snapshot format of FirstFit.
const formatFirstFit = "msched/baselines.FirstFit"

func (f *FirstFit) fingerprint() string {
	h := snapshot.NewHasher(formatFirstFit).Int(int(f.s.Order)).Int(len(f.ms))
	for _, m := range f.ms {
		h.Int(m.Cores).Int(m.Memory)
	}
	return h.Sum()
}

// MarshalBinary saves the only state FirstFit keeps across slots, the
// slot of its last Decide (format "msched/baselines.FirstFit", version 1),
// fingerprinted on the order and the machines.
func (f *FirstFit) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(formatFirstFit, 1, f.fingerprint(), tetrisSaved{Last: f.last})
}

// UnmarshalBinary restores a state saved by MarshalBinary into a FirstFit
// built with the same order on the same machines; a mismatch is an error
// wrapping ocorp.ErrSnapshot and leaves f unchanged.
func (f *FirstFit) UnmarshalBinary(data []byte) error {
	var st tetrisSaved
	if err := snapshot.Decode(data, formatFirstFit, 1, f.fingerprint(), &st); err != nil {
		return fmt.Errorf("baselines: %s: %w: %w", f.name, ocorp.ErrSnapshot, err)
	}
	if st.Last < -1 {
		return fmt.Errorf("baselines: %s: %w: %w: last = %d < -1", f.name, ocorp.ErrSnapshot, snapshot.ErrCorrupt, st.Last)
	}
	f.last = st.Last
	return nil
}

// MarshalJSON is MarshalBinary.
func (f *FirstFit) MarshalJSON() ([]byte, error) { return f.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (f *FirstFit) UnmarshalJSON(data []byte) error { return f.UnmarshalBinary(data) }

// Machines returns a copy of the current machines.
func (f *FirstFit) Machines() []ocorp.Machine { return slices.Clone(f.ms) }

// AddMachine appends machine m (index len(Machines())), with the rules of
// ocorp.Policy.AddMachine.
func (f *FirstFit) AddMachine(m ocorp.Machine) error {
	if len(f.ms) >= ocorp.MaxMachines {
		return fmt.Errorf("baselines: %s: %w: more than ocorp.MaxMachines = %d machines", f.name, ocorp.ErrTooLarge, ocorp.MaxMachines)
	}
	return f.setMachines(append(slices.Clip(f.ms), m))
}

// RemoveMachine removes machine i (the machines after it move down one
// index), with the rules of ocorp.Policy.RemoveMachine.
func (f *FirstFit) RemoveMachine(i int) error {
	if i < 0 || i >= len(f.ms) || len(f.ms) == 1 {
		return fmt.Errorf("baselines: %s: %w: remove machine %d of %d", f.name, ocorp.ErrMachine, i, len(f.ms))
	}
	return f.setMachines(slices.Delete(slices.Clone(f.ms), i, i+1))
}

// ChangeCluster moves f, in place, onto the machines ms with m mapping
// each new machine to the current one it continues (-1 = new), under the
// cluster-change contract of package bipartite (see
// ocorp.Policy.ChangeCluster). FirstFit keeps no per-machine state, so
// only the slot of the last Decide carries over. On error (invalid
// machines: ocorp.ErrValue, ErrEmpty, ErrTooLarge; a bad mapping:
// ErrDimension, ErrMachine) f is unchanged.
func (f *FirstFit) ChangeCluster(ms []ocorp.Machine, m ocorp.Mapping) error {
	if err := m.Validate(ms, len(f.ms)); err != nil {
		return fmt.Errorf("baselines: %s: %w", f.name, err)
	}
	return f.setMachines(ms)
}

func (f *FirstFit) setMachines(ms []ocorp.Machine) error {
	nf, err := NewFirstFit(ms, f.s)
	if err != nil {
		return err
	}
	nf.last = f.last
	nf.keys, nf.order, nf.want = f.keys, f.order, f.want
	*f = *nf
	return nil
}
