package ocorp

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
)

var (
	_ bipartite.OnlinePolicy[Obs, Decision] = (*OCORP)(nil)
	_ bipartite.OnlinePolicy[Obs, Decision] = (*OCORPM)(nil)
)

// Settings configures the OCORP-family policies. The zero value is the
// paper's experimental setting: k = 2, mu = t^(k+0.5), Gamma from the jobs
// seen so far.
type Settings struct {
	// K is the order k of the l_k norm of flowtime; 0 means 2.
	K float64
	// Gamma is Gamma of (7) and (27). 0 means the running value of (27)
	// over the jobs seen so far (online); a positive value is used as is
	// (the paper's experiments fix it offline) and a job with a_j >= Gamma
	// is then an error.
	Gamma float64
	// Step is the dual step mu; nil means ExperimentStep{K}.
	Step Step
	// Fill lets jobs whose Lagrangian coefficient (9) is non-negative use
	// cores that would otherwise stay idle (ordered by omega_j as well).
	// The paper's policy leaves them idle (false); Fill is a
	// work-conserving deviation.
	Fill bool
	// InitLambda is lambda_j(a_j + 1), which Algorithm 1 leaves
	// unspecified; 0 by default.
	InitLambda float64
	// Name overrides the policy's name ("" keeps the default, with
	// "-fill" appended when Fill is set).
	Name string
}

func (s *Settings) name(def string) string {
	if s.Name != "" {
		return s.Name
	}
	if s.Fill {
		return def + "-fill"
	}
	return def
}

func (s *Settings) norm() error {
	if s.K == 0 {
		s.K = 2
	}
	if !(s.K >= 1) || math.IsInf(s.K, 0) || math.IsNaN(s.Gamma) || s.Gamma < 0 || math.IsInf(s.Gamma, 0) ||
		math.IsNaN(s.InitLambda) || s.InitLambda < 0 || math.IsInf(s.InitLambda, 0) {
		return fmt.Errorf("%w: k = %v, gamma = %v, init lambda = %v", ErrSettings, s.K, s.Gamma, s.InitLambda)
	}
	if s.Step == nil {
		s.Step = ExperimentStep{K: s.K}
	}
	return nil
}

// dual holds the online dual state shared by OCORP, OCORP+M and OCORP+:
// per-job state (lambda_j, OCORP+'s previous rates) for the jobs of the
// last observation, found by ID through a map and stored densely, the
// running Gamma, and per-slot coefficients. A job absent from an
// observation is forgotten (its state is released), so memory is
// proportional to the jobs alive, whatever their IDs.
type dual struct {
	s          Settings
	totalCores float64
	maxMem     int
	idx        map[int]int // job ID -> index into st
	st         []jobState
	slot       []int // per obs job: index into st in this call
	remap      []int
	fresh      []int // obs indices of IDs not in idx (validation)
	calls      int
	gMax, vol  float64 // running terms of (27)
	gamma      float64
	coef       []float64 // c_j = w_j(t) - lambda_j(t) per obs job, eq. (9)
	gain       []float64 // max(0, -c_j)
	want       []int     // min(d_j, remaining volume)
	keys       []keyed
	order      []int
}

// jobState is the state of one live job.
type jobState struct {
	id     int
	seen   int // call number in which the ID was last seen
	lambda float64
	// OCORP+: rates of the previous decision and the job's multiplier.
	tau                         float64
	prevStart, prevLen, prevDec int
}

type keyed struct {
	key float64
	id  int
	idx int
}

func cmpKeyed(a, b keyed) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	if c := cmp.Compare(a.id, b.id); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

func newDual(ms []Machine, s Settings) (dual, error) {
	if err := s.norm(); err != nil {
		return dual{}, err
	}
	if err := ValidateMachines(ms); err != nil {
		return dual{}, err
	}
	mm := 0
	for _, m := range ms {
		mm = max(mm, m.Memory)
	}
	return dual{s: s, totalCores: float64(TotalCores(ms)), maxMem: mm, idx: map[int]int{}}, nil
}

// ValidateObs checks an observation of slot t for the machines ms as every
// policy of the package does before deciding: t >= 1, every job valid
// (Job.Validate), 1 <= Remaining <= p_j d_j, a_j < t, and m_j at most the
// largest machine memory (a job that fits no machine could never run; the
// error is an *UnfitError naming the job, so a caller can drop it). Job IDs
// are arbitrary ints; duplicates are rejected by the policies that keep
// per-job state.
func ValidateObs(t int, obs Obs, ms []Machine) error {
	mm := 0
	for _, m := range ms {
		mm = max(mm, m.Memory)
	}
	return validateObs(t, obs, mm)
}

func validateObs(t int, obs Obs, maxMem int) error {
	if t < 1 {
		return fmt.Errorf("%w: slot %d < 1", ErrValue, t)
	}
	for k, a := range obs.Jobs {
		if err := a.Job.Validate(); err != nil {
			return fmt.Errorf("job %d (id %d): %w", k, a.ID, err)
		}
		if a.Remaining < 1 || a.Remaining > a.Volume() {
			return fmt.Errorf("%w: job %d (id %d): remaining %d not in [1, %d]", ErrValue, k, a.ID, a.Remaining, a.Volume())
		}
		if a.Arrival >= t {
			return fmt.Errorf("%w: job %d (id %d): arrival %d not before slot %d", ErrValue, k, a.ID, a.Arrival, t)
		}
		if a.Memory > maxMem {
			return &UnfitError{Index: k, ID: a.ID, Memory: a.Memory, MaxMemory: maxMem}
		}
	}
	return nil
}

// begin validates obs, registers new jobs, forgets jobs no longer
// observed, updates Gamma and computes coef, gain and want. On error the
// per-job state is unchanged (apart from the call counter).
func (d *dual) begin(t int, obs Obs) error {
	if err := validateObs(t, obs, d.maxMem); err != nil {
		return err
	}
	if d.s.Gamma > 0 {
		for k, a := range obs.Jobs {
			if float64(a.Arrival) >= d.s.Gamma {
				return fmt.Errorf("%w: job %d (id %d): arrival %d >= Gamma %v", ErrSettings, k, a.ID, a.Arrival, d.s.Gamma)
			}
		}
	}
	d.calls++
	n := len(obs.Jobs)
	// Duplicates, before any change: known IDs through their mark, new
	// ones by sorting. One map lookup per job; slot holds the old index
	// (-1 for a new job) until the compaction below.
	d.slot = grow(d.slot, n)
	d.fresh = d.fresh[:0]
	for k, a := range obs.Jobs {
		e, ok := d.idx[a.ID]
		if !ok {
			d.slot[k] = -1
			d.fresh = append(d.fresh, k)
			continue
		}
		if d.st[e].seen == d.calls {
			return fmt.Errorf("%w: job %d: duplicate id %d", ErrValue, k, a.ID)
		}
		d.st[e].seen = d.calls
		d.slot[k] = e
	}
	slices.SortFunc(d.fresh, func(x, y int) int { return cmp.Compare(obs.Jobs[x].ID, obs.Jobs[y].ID) })
	for i := 1; i < len(d.fresh); i++ {
		if obs.Jobs[d.fresh[i]].ID == obs.Jobs[d.fresh[i-1]].ID {
			return fmt.Errorf("%w: job %d: duplicate id %d", ErrValue, d.fresh[i], obs.Jobs[d.fresh[i]].ID)
		}
	}
	// Forget the jobs not observed, compacting the state; the map is
	// written only for the entries that move or go.
	d.remap = grow(d.remap, len(d.st))
	w := 0
	for e := range d.st {
		if d.st[e].seen != d.calls {
			delete(d.idx, d.st[e].id)
			continue
		}
		if w != e {
			d.st[w] = d.st[e]
			d.idx[d.st[w].id] = w
		}
		d.remap[e] = w
		w++
	}
	clear(d.st[w:])
	d.st = d.st[:w]
	for k, e := range d.slot {
		if e >= 0 {
			d.slot[k] = d.remap[e]
		}
	}
	// Register the new jobs (their terms of (27) count once).
	for _, k := range d.fresh {
		a := obs.Jobs[k]
		d.slot[k] = len(d.st)
		d.idx[a.ID] = len(d.st)
		d.st = append(d.st, jobState{id: a.ID, seen: d.calls, lambda: d.s.InitLambda})
		d.gMax = math.Max(d.gMax, gammaTerm(a.Job))
		d.vol += float64(a.Volume())
	}
	d.gamma = d.s.Gamma
	if d.gamma == 0 {
		d.gamma = math.Max(d.gMax, 4*d.vol/d.totalCores)
	}
	d.coef = grow(d.coef, n)
	d.gain = grow(d.gain, n)
	d.want = grow(d.want, n)
	for k, a := range obs.Jobs {
		c := Weight(a.Job, t, d.s.K) - d.st[d.slot[k]].lambda
		d.coef[k] = c
		d.gain[k] = max(0, -c)
		d.want[k] = int(min(int64(a.Cores), a.Remaining))
	}
	return nil
}

// Live returns the number of jobs whose state the policy holds (the jobs
// of the last observation).
func (d *dual) Live() int { return len(d.st) }

// sortOmega fills d.order with the jobs sorted by omega_j = c_j / d_j
// ascending (ties by ID), keeping only omega_j < 0 unless all.
func (d *dual) sortOmega(obs Obs, all bool) {
	d.keys = d.keys[:0]
	for k, a := range obs.Jobs {
		if all || d.coef[k] < 0 {
			d.keys = append(d.keys, keyed{d.coef[k] / float64(a.Cores), a.ID, k})
		}
	}
	slices.SortFunc(d.keys, cmpKeyed)
	d.order = d.order[:0]
	for _, e := range d.keys {
		d.order = append(d.order, e.idx)
	}
}

// end applies the dual update (10) with the realised rates y_j = got/d_j
// (only admitted placements count).
func (d *dual) end(t int, obs Obs, pl []Placement, got []int) {
	clear(got)
	for _, p := range pl {
		if p.Admit {
			got[p.Job] += p.Cores
		}
	}
	mu := d.s.Step.Mu(t)
	for k, a := range obs.Jobs {
		y := float64(got[k]) / float64(a.Cores)
		st := &d.st[d.slot[k]]
		st.lambda = max(0, st.lambda+mu*LongTerm(a.Job, d.gamma, y))
	}
}

// Lambda returns lambda_j of the job with the given ID (0 if it was not in
// the last observation).
func (d *dual) Lambda(id int) float64 {
	if e, ok := d.idx[id]; ok {
		return d.st[e].lambda
	}
	return 0
}

// Gamma returns the Gamma used in the last slot.
func (d *dual) Gamma() float64 { return d.gamma }

// OCORP is the single-resource online policy of Section IV-A (the paper's
// "OCORP"): in slot t it minimises the Lagrangian (9) with z = 1 by the
// greedy rule of Lemma 1 (eq. (22)) — jobs with omega_j = c_j/d_j < 0 in
// ascending order, each taking min(d_j, d_j p_j(t)) cores while the
// cluster has cores left — packs the rates largest first onto servers
// (Packer), and updates lambda by (10). Packing respects memory, so the
// decision is feasible for jobs with memory too; with Memory = 0 it is
// exactly the paper's policy. Not safe for concurrent use.
type OCORP struct {
	dual
	name string
	pk   *Packer
	out  Decision
	cnt  []int
}

// New returns OCORP on the machines.
func New(ms []Machine, s Settings) (*OCORP, error) {
	d, err := newDual(ms, s)
	if err != nil {
		return nil, err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return nil, err
	}
	return &OCORP{dual: d, name: d.s.name("OCORP"), pk: pk}, nil
}

// Name returns "OCORP".
func (o *OCORP) Name() string { return o.name }

// Decide returns the placements of slot t (owned by the policy, valid
// until the next call).
func (o *OCORP) Decide(t int, obs Obs) (Decision, error) {
	if err := o.begin(t, obs); err != nil {
		return Decision{}, err
	}
	o.sortOmega(obs, o.s.Fill)
	o.pk.Reset(obs.Jobs)
	o.pk.Pack(o.order, o.want, false)
	o.out.Placements = o.pk.Placements()
	o.cnt = grow(o.cnt, len(obs.Jobs))
	o.end(t, obs, o.out.Placements, o.cnt)
	return o.out, nil
}

// OCORPM is OCORP+M, Algorithm 1 for CPU and memory: the x step (11) with
// z = 1 is OCORP's rate allocation and packing ignoring memory; the z step
// (12) solves one exact 0/1 knapsack per machine on memory (Knapsack),
// dropping the placements it does not admit; the next x step re-packs the
// freed cores in omega order onto machines where the job's memory fits
// (which the following z step admits as is, so the alternation stops after
// two rounds, as in the proof of Theorem 1). Then lambda is updated by (10).
// Not safe for concurrent use.
type OCORPM struct {
	OCORP
	ks Knapsack
}

// NewM returns OCORP+M on the machines.
func NewM(ms []Machine, s Settings) (*OCORPM, error) {
	o, err := New(ms, s)
	if err != nil {
		return nil, err
	}
	o.name = o.s.name("OCORP+M")
	return &OCORPM{OCORP: *o}, nil
}

// Decide returns the placements of slot t (owned by the policy).
func (o *OCORPM) Decide(t int, obs Obs) (Decision, error) {
	if err := o.begin(t, obs); err != nil {
		return Decision{}, err
	}
	o.sortOmega(obs, o.s.Fill)
	o.pk.Reset(obs.Jobs)
	o.pk.Pack(o.order, o.want, true)
	o.pk.Knapsack(&o.ks, o.gain)
	o.pk.Fill(o.order, o.want, false)
	o.out.Placements = o.pk.Placements()
	o.cnt = grow(o.cnt, len(obs.Jobs))
	o.end(t, obs, o.out.Placements, o.cnt)
	return o.out, nil
}
