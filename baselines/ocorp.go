package baselines

import (
	"cmp"
	"fmt"
	"log/slog"
	"slices"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ocorp"
)

var (
	_ ocorp.OnlinePolicy = (*ocorp.Priority)(nil)
	_ ocorp.OnlinePolicy = (*Tetris)(nil)
)

// NewSRPT returns SRPT, shortest remaining processing time p_j(t) first.
//
// The OCORP-family baselines (paper 004, Section VI-2) observe the
// unfinished jobs of the slot and return integral placements satisfying
// (4b)-(4f), naming jobs by ID, under the rules of package ocorp (0-based,
// strictly increasing slots; snapshots; AddMachine and RemoveMachine).
// SRPT, SRVF, SVF and SRF differ only in the order in which jobs take their
// cores, min(d_j, d_j p_j(t)) each while the cluster has cores (the rate
// step of Lemma 1 with another order), and share OCORP's packing
// (ocorp.Packer: servers largest first, largest jobs first, splitting what
// fits nowhere whole, memory respected), so a comparison with OCORP
// isolates the order. Ties are broken by job ID. None is safe for
// concurrent use.
//
// The four are one concrete type, ocorp.Priority (the family's
// priority-order engine), with its own key: NewSRPT, NewSRVF, NewSVF and
// NewSRF return it, with its snapshot and cluster-change methods. Their
// settings (at most one; the zero value is the paper's) are
// PrioritySettings; the calls without settings are deprecated.
func NewSRPT(ms []ocorp.Machine, s ...PrioritySettings) (*ocorp.Priority, error) {
	set, err := oneSettings(ocorp.ErrSettings, "SRPT", s)
	if err != nil {
		return nil, err
	}
	return ocorp.NewPriority("SRPT", ms, func(_ int, j ocorp.ActiveJob) float64 {
		return float64(j.Remaining) / float64(j.Cores)
	}, ocorp.PrioritySettings(set))
}

// NewSRVF returns SRVF, smallest residual volume d_j p_j(t) first.
func NewSRVF(ms []ocorp.Machine, s ...PrioritySettings) (*ocorp.Priority, error) {
	set, err := oneSettings(ocorp.ErrSettings, "SRVF", s)
	if err != nil {
		return nil, err
	}
	return ocorp.NewPriority("SRVF", ms, func(_ int, j ocorp.ActiveJob) float64 { return float64(j.Remaining) }, ocorp.PrioritySettings(set))
}

// NewSVF returns SVF, smallest volume d_j p_j first (the online use of
// the transient scheduler, ocorp.NewTransient).
func NewSVF(ms []ocorp.Machine, s ...PrioritySettings) (*ocorp.Priority, error) {
	set, err := oneSettings(ocorp.ErrSettings, "SVF", s)
	if err != nil {
		return nil, err
	}
	return ocorp.NewPriority("SVF", ms, ocorp.VolumeKey, ocorp.PrioritySettings(set))
}

// NewSRF returns SRF, smallest resource (CPU cores d_j) first.
func NewSRF(ms []ocorp.Machine, s ...PrioritySettings) (*ocorp.Priority, error) {
	set, err := oneSettings(ocorp.ErrSettings, "SRF", s)
	if err != nil {
		return nil, err
	}
	return ocorp.NewPriority("SRF", ms, func(_ int, j ocorp.ActiveJob) float64 { return float64(j.Cores) }, ocorp.PrioritySettings(set))
}

// Tetris is the multi-resource packing heuristic of Grandl et al. [10]
// in the form the paper describes (Section VII): for every server
// (largest first) it repeatedly places, whole, the job with the highest
// score among those that fit its free cores and memory, where
//
//	score = alignment * srpt,
//	alignment = (u_j/C_i)(F_i/C_i) + (m_j/M_i)(G_i/M_i)   (memory term only if M_i > 0),
//	srpt = 1 / p_j(t),
//
// u_j = min(d_j, d_j p_j(t)) the cores wanted and F_i, G_i the server's
// free cores and memory. Candidates are the jobs in SRPT order whose
// cumulative wanted cores stay within twice the cluster's cores (at least
// one job), which bounds the work per slot. Cores still free afterwards go
// to the remaining jobs in SRPT order, split over servers (as all
// policies of the family may). Not safe for concurrent use.
type Tetris struct {
	ms    []ocorp.Machine
	byCap []int
	total int
	last  int // slot of the last successful Decide, -1 before
	pk    *ocorp.Packer
	order []int
	want  []int
	rt    []float64
	cand  []int
	out   ocorp.Decision
	log   *slog.Logger
}

// NewTetris returns Tetris on the machines with settings s (at most one;
// the zero value is the paper's), an error wrapping ocorp.ErrEmpty for no
// machine, ocorp.ErrValue for an invalid one. NewTetris(ms) without
// settings is deprecated.
func NewTetris(ms []ocorp.Machine, s ...TetrisSettings) (*Tetris, error) {
	set, err := oneSettings(ocorp.ErrSettings, "Tetris", s)
	if err != nil {
		return nil, err
	}
	t, err := newTetris(ms)
	if err != nil {
		return nil, err
	}
	t.log = set.Logger
	return t, nil
}

func newTetris(ms []ocorp.Machine) (*Tetris, error) {
	pk, err := ocorp.NewPacker(ms)
	if err != nil {
		return nil, fmt.Errorf("baselines: tetris: %w", err)
	}
	t := &Tetris{ms: append([]ocorp.Machine(nil), ms...), pk: pk, total: ocorp.TotalCores(ms), last: -1}
	t.byCap = make([]int, len(ms))
	for i := range t.byCap {
		t.byCap[i] = i
	}
	slices.SortStableFunc(t.byCap, func(a, b int) int { return ms[b].Cores - ms[a].Cores })
	return t, nil
}

// Name returns "Tetris".
func (t *Tetris) Name() string { return "Tetris" }

// Decide returns the placements of slot t (owned by the policy, valid
// until its next call), naming jobs by ID. The slot must be >= 0 and
// greater than the previous one (an error wrapping ocorp.ErrSlot); the
// observation is checked with ocorp.ValidateObs (job IDs are arbitrary and
// only break ties; a job whose memory fits no machine is an error wrapping
// ocorp.ErrUnfit). On error the policy is unchanged.
func (t *Tetris) Decide(slot int, obs ocorp.Obs) (ocorp.Decision, error) {
	if slot < 0 || slot <= t.last {
		return ocorp.Decision{}, fmt.Errorf("baselines: tetris: %w: Decide(%d) after Decide(%d): need t >= 0 and t > the previous slot", ocorp.ErrSlot, slot, t.last)
	}
	if err := ocorp.ValidateObs(slot, obs, t.ms); err != nil {
		return ocorp.Decision{}, fmt.Errorf("baselines: tetris: slot %d: %w", slot, err)
	}
	n := len(obs.Jobs)
	t.want = growInts(t.want, n)
	t.rt = growFloats(t.rt, n)
	t.order = t.order[:0]
	for k, a := range obs.Jobs {
		t.want[k] = int(min(int64(a.Cores), a.Remaining))
		t.rt[k] = float64(a.Remaining) / float64(a.Cores)
		t.order = append(t.order, k)
	}
	slices.SortFunc(t.order, func(a, b int) int {
		if c := cmp.Compare(t.rt[a], t.rt[b]); c != 0 {
			return c
		}
		return cmp.Compare(obs.Jobs[a].ID, obs.Jobs[b].ID)
	})
	t.cand = t.cand[:0]
	cum := 0
	for _, k := range t.order {
		if len(t.cand) > 0 && cum+t.want[k] > 2*t.total {
			break
		}
		cum += t.want[k]
		t.cand = append(t.cand, k)
	}
	if err := t.pk.Reset(obs.Jobs); err != nil {
		return ocorp.Decision{}, fmt.Errorf("baselines: tetris: slot %d: %w", slot, err)
	}
	got := t.pk.Got()
	for _, i := range t.byCap {
		m := t.ms[i]
		for {
			F, G := t.pk.Free(i)
			if F == 0 {
				break
			}
			best, bestScore := -1, -1.0
			for _, k := range t.cand {
				a := &obs.Jobs[k]
				if got[k] > 0 || t.want[k] > F || a.Memory > G {
					continue
				}
				al := float64(t.want[k]) / float64(m.Cores) * float64(F) / float64(m.Cores)
				if m.Memory > 0 {
					al += float64(a.Memory) / float64(m.Memory) * float64(G) / float64(m.Memory)
				}
				if s := al / t.rt[k]; s > bestScore {
					best, bestScore = k, s
				}
			}
			if best < 0 {
				break
			}
			if err := t.pk.Add(best, i, t.want[best]); err != nil {
				panic("baselines: tetris: " + err.Error()) // a bug: best fits by construction
			}
		}
	}
	t.pk.Fill(t.order, t.want, false)
	t.out.Placements = t.pk.Placements()
	t.last = slot
	if debugChecks {
		ck, err := ocorp.NewChecker(t.pk.Machines())
		if err == nil {
			err = ck.Check(obs, t.out)
		}
		if err != nil {
			panic("baselines: Tetris: infeasible decision: " + err.Error())
		}
	}
	if t.log != nil {
		logDecide(t.log, "ocorp", "Tetris", slot, slog.Int("jobs", len(obs.Jobs)), slog.Int("placements", len(t.out.Placements)))
	}
	return t.out, nil
}

func growInts(s []int, n int) []int {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int, n, 2*n)
}

func growFloats(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n, 2*n)
}

// formatTetris is the snapshot format of Tetris.
const formatTetris = "msched/baselines.Tetris"

type tetrisSaved struct {
	Last int `json:"last"`
}

func (t *Tetris) fingerprint() string {
	h := snapshot.NewHasher(formatTetris).Int(len(t.ms))
	for _, m := range t.ms {
		h.Int(m.Cores).Int(m.Memory)
	}
	return h.Sum()
}

// MarshalBinary saves the only state Tetris keeps across slots, the slot
// of its last Decide (format "msched/baselines.Tetris", version 1),
// fingerprinted on the machines.
func (t *Tetris) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(formatTetris, 1, t.fingerprint(), tetrisSaved{Last: t.last})
}

// UnmarshalBinary restores a state saved by MarshalBinary into a Tetris
// built on the same machines; a mismatch is an error wrapping
// ocorp.ErrSnapshot and leaves t unchanged.
func (t *Tetris) UnmarshalBinary(data []byte) error {
	var st tetrisSaved
	if err := snapshot.Decode(data, formatTetris, 1, t.fingerprint(), &st); err != nil {
		return fmt.Errorf("baselines: tetris: %w: %w", ocorp.ErrSnapshot, err)
	}
	if st.Last < -1 {
		return fmt.Errorf("baselines: tetris: %w: %w: last = %d < -1", ocorp.ErrSnapshot, snapshot.ErrCorrupt, st.Last)
	}
	t.last = st.Last
	return nil
}

// MarshalJSON is MarshalBinary.
func (t *Tetris) MarshalJSON() ([]byte, error) { return t.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (t *Tetris) UnmarshalJSON(data []byte) error { return t.UnmarshalBinary(data) }

// Machines returns a copy of the current machines.
func (t *Tetris) Machines() []ocorp.Machine { return slices.Clone(t.ms) }

// AddMachine appends machine m (index len(Machines())), with the rules of
// ocorp.Policy.AddMachine.
func (t *Tetris) AddMachine(m ocorp.Machine) error {
	if len(t.ms) >= ocorp.MaxMachines {
		return fmt.Errorf("baselines: tetris: %w: more than ocorp.MaxMachines = %d machines", ocorp.ErrTooLarge, ocorp.MaxMachines)
	}
	return t.setMachines(append(slices.Clip(t.ms), m))
}

// RemoveMachine removes machine i (the machines after it move down one
// index), with the rules of ocorp.Policy.RemoveMachine.
func (t *Tetris) RemoveMachine(i int) error {
	if i < 0 || i >= len(t.ms) || len(t.ms) == 1 {
		return fmt.Errorf("baselines: tetris: %w: remove machine %d of %d", ocorp.ErrMachine, i, len(t.ms))
	}
	return t.setMachines(slices.Delete(slices.Clone(t.ms), i, i+1))
}

func (t *Tetris) setMachines(ms []ocorp.Machine) error {
	nt, err := newTetris(ms)
	if err != nil {
		return err
	}
	nt.last, nt.log = t.last, t.log
	nt.want, nt.rt, nt.order, nt.cand = t.want, t.rt, t.order, t.cand
	*t = *nt
	return nil
}

// ChangeCluster moves t, in place, onto the machines ms with the mapping m
// (new index -> current index, -1 = new), with the rules of
// ocorp.Policy.ChangeCluster (the cluster-change contract of package
// bipartite). On error t is unchanged.
func (t *Tetris) ChangeCluster(ms []ocorp.Machine, m ocorp.Mapping) error {
	if err := m.Validate(ms, len(t.ms)); err != nil {
		return fmt.Errorf("baselines: tetris: %w", err)
	}
	return t.setMachines(slices.Clone(ms))
}
