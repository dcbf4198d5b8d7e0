package ocorp

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
)

// OnlinePolicy is the contract of every OCORP-family policy and baseline.
// OCORP computes its dual update (10) from its own decision, so no policy
// of the family takes feedback (none is a bipartite.Learner).
type OnlinePolicy = bipartite.OnlinePolicy[Obs, Decision]

var (
	_ OnlinePolicy = (*Policy)(nil)
	_ OnlinePolicy = (*M)(nil)
	_ OnlinePolicy = (*Plus)(nil)
)

// Settings configures OCORP and OCORP+M (and, as PlusSettings.Base,
// OCORP+). The zero value is the paper's experimental setting: k = 2,
// mu = t^(k+0.5), Gamma from the jobs seen so far, the printed rule that
// may leave cores idle.
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
	// The paper's policy leaves them idle (false, the zero value); Fill is
	// a work-conserving deviation.
	Fill bool
	// InitLambda is lambda_j of a job's first slot, which Algorithm 1
	// leaves unspecified; 0 (the zero value) by default.
	InitLambda float64
	// Packing is how OCORP+M places the x step's rates on servers:
	// PackPooled (the zero value, the paper's) or PackFirstFit
	// (server-aware). OCORP and OCORP+ ignore it.
	Packing Packing
	// Name overrides the policy's name ("" keeps the default, with
	// "-fill" appended when Fill is set).
	Name string
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family, policy, slot, then jobs, placements, Gamma; OCORP+ adds
	// the QP's status, sweeps and residual), in the log vocabulary of
	// package bipartite. nil (the zero value) logs nothing and costs nothing.
	Logger *slog.Logger
}

// Validate reports every invalid field, joined with errors.Join, each
// error wrapping ErrSettings and naming the field and its value.
func (s Settings) Validate() error {
	var errs []error
	if s.K != 0 && (!(s.K >= 1) || math.IsInf(s.K, 0)) {
		errs = append(errs, fmt.Errorf("%w: K = %v, want 0 or a finite k >= 1", ErrSettings, s.K))
	}
	if !(s.Gamma >= 0) || math.IsInf(s.Gamma, 0) {
		errs = append(errs, fmt.Errorf("%w: Gamma = %v, want finite >= 0", ErrSettings, s.Gamma))
	}
	if !(s.InitLambda >= 0) || math.IsInf(s.InitLambda, 0) {
		errs = append(errs, fmt.Errorf("%w: InitLambda = %v, want finite >= 0", ErrSettings, s.InitLambda))
	}
	if s.Packing < PackPooled || s.Packing > PackFirstFit {
		errs = append(errs, fmt.Errorf("%w: Packing = %d, want PackPooled or PackFirstFit", ErrSettings, int(s.Packing)))
	}
	return errors.Join(errs...)
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
	if err := s.Validate(); err != nil {
		return err
	}
	if s.K == 0 {
		s.K = 2
	}
	if s.Step == nil {
		s.Step = ExperimentStep{K: s.K}
	}
	return nil
}

// hash adds what decisions depend on (not Name or Logger).
func (s *Settings) hash(h *snapshot.Hasher) {
	h.Float(s.K).Float(s.Gamma).Float(s.InitLambda).String(fmt.Sprintf("%T%+v", s.Step, s.Step))
	if s.Fill {
		h.Int(1)
	} else {
		h.Int(0)
	}
}

// dual holds the online dual state shared by OCORP, OCORP+M and OCORP+:
// per-job state (lambda_j, OCORP+'s previous rates) for the jobs of the
// last observation, found by ID through a map and stored densely, the
// running Gamma, and per-slot coefficients. A job absent from an
// observation is forgotten (its state is released), so memory is
// proportional to the jobs alive, whatever their IDs.
type dual struct {
	s          Settings
	ms         []Machine
	totalCores float64
	maxMem     int
	last       int         // slot of the last successful Decide, -1 before
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
	d := dual{s: s, last: -1, idx: map[int]int{}}
	d.setMachines(ms)
	return d, nil
}

// setMachines installs a validated machine list (copied).
func (d *dual) setMachines(ms []Machine) {
	d.ms = append([]Machine(nil), ms...)
	d.totalCores = float64(TotalCores(ms))
	d.maxMem = maxMemory(ms)
}

func maxMemory(ms []Machine) int {
	mm := 0
	for _, m := range ms {
		mm = max(mm, m.Memory)
	}
	return mm
}

// ValidateObs checks an observation of slot t for the machines ms as every
// policy of the package does before deciding: t >= 0, every job valid
// (Job.Validate), 1 <= Remaining <= p_j d_j, a_j <= t (a job that arrives
// at time a_j can run from slot a_j on), and m_j at most the largest
// machine memory (a job that fits no machine could never run; the error is
// an *UnfitError naming the job, so a caller can drop it). Job IDs are
// arbitrary ints; duplicates are rejected by the policies that keep
// per-job state. The order of slots is the policies' business (ErrSlot).
func ValidateObs(t int, obs Obs, ms []Machine) error {
	return validateObs(t, obs, maxMemory(ms))
}

func validateObs(t int, obs Obs, maxMem int) error {
	if t < 0 {
		return fmt.Errorf("%w: slot %d < 0", ErrSlot, t)
	}
	for k, a := range obs.Jobs {
		if err := a.Job.Validate(); err != nil {
			return fmt.Errorf("job %d (id %d): %w", k, a.ID, err)
		}
		if a.Remaining < 1 || a.Remaining > a.Volume() {
			return fmt.Errorf("%w: job %d (id %d): remaining %d not in [1, %d]", ErrValue, k, a.ID, a.Remaining, a.Volume())
		}
		if a.Arrival > t {
			return fmt.Errorf("%w: job %d (id %d): arrival %d after slot %d", ErrValue, k, a.ID, a.Arrival, t)
		}
		if a.Memory > maxMem {
			return &UnfitError{Index: k, ID: a.ID, Memory: a.Memory, MaxMemory: maxMem}
		}
	}
	return nil
}

// checkSlot enforces the slot order of bipartite's conventions.
func checkSlot(t, last int) error {
	if t < 0 || t <= last {
		return fmt.Errorf("%w: Decide(%d) after Decide(%d): need t >= 0 and t > the previous slot", ErrSlot, t, last)
	}
	return nil
}

// begin validates obs, registers new jobs, forgets jobs no longer
// observed, updates Gamma and computes coef, gain and want. On error the
// policy is unchanged (the call counter only marks IDs seen in a call).
func (d *dual) begin(t int, obs Obs) error {
	if err := checkSlot(t, d.last); err != nil {
		return err
	}
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
	d.last = t
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
		c = max(-math.MaxFloat64, min(c, math.MaxFloat64)) // w_j may overflow for huge t or k
		d.coef[k] = c
		d.gain[k] = max(0, -c)
		d.want[k] = int(min(int64(a.Cores), a.Remaining))
	}
	return nil
}

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
// (only admitted placements count; pl names jobs by index into obs).
// lambda_j saturates at math.MaxFloat64.
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
		v := st.lambda + mu*LongTerm(a.Job, d.gamma, y)
		if v != v { // Inf * 0 for a huge step: keep lambda
			v = st.lambda
		}
		st.lambda = min(max(0, v), math.MaxFloat64)
	}
}

func (d *dual) lambda(id int) float64 {
	if e, ok := d.idx[id]; ok {
		return d.st[e].lambda
	}
	return 0
}

func (d *dual) log(name string, t, jobs, placements int) {
	d.s.Logger.Debug("decide", "family", "ocorp", "policy", name, "slot", t, "jobs", jobs, "placements", placements, "gamma", d.gamma)
}

// core is what OCORP and OCORP+M share: the dual state, the packer and
// the decision buffers.
type core struct {
	d    dual
	name string
	pk   *Packer
	out  Decision
	cnt  []int
}

func newCore(ms []Machine, s Settings, def string) (core, error) {
	d, err := newDual(ms, s)
	if err != nil {
		return core{}, err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return core{}, err
	}
	return core{d: d, name: d.s.name(def), pk: pk}, nil
}

func (c *core) finish(t int, obs Obs) Decision {
	c.out.Placements = c.pk.Placements()
	c.cnt = grow(c.cnt, len(obs.Jobs))
	c.d.end(t, obs, c.pk.place, c.cnt)
	if c.d.s.Logger != nil {
		c.d.log(c.name, t, len(obs.Jobs), len(c.out.Placements))
	}
	if debugChecks {
		mustBeFeasible(c.name, c.d.ms, obs, c.out)
	}
	return c.out
}

// mustBeFeasible panics if d breaks (4b)-(4f) for obs on ms: the debug
// build's invariant check (-tags mscheddebug).
func mustBeFeasible(name string, ms []Machine, obs Obs, d Decision) {
	ck, err := NewChecker(ms)
	if err == nil {
		err = ck.Check(obs, d)
	}
	if err != nil {
		panic("ocorp: " + name + ": infeasible decision: " + err.Error())
	}
}

// Policy is OCORP, the single-resource online policy of Section IV-A: in
// slot t it minimises the Lagrangian (9) with z = 1 by the greedy rule of
// Lemma 1 (eq. (22)) — jobs with omega_j = c_j/d_j < 0 in ascending order,
// each taking min(d_j, d_j p_j(t)) cores while the cluster has cores left —
// packs the rates largest first onto servers (Packer), and updates lambda
// by (10). Packing respects memory, so the decision is feasible for jobs
// with memory too; with Memory = 0 it is exactly the paper's policy. Not
// safe for concurrent use.
type Policy struct {
	c core
}

// New returns OCORP on the machines (copied). It returns an error wrapping
// ErrSettings for invalid settings (every problem, see Settings.Validate),
// ErrEmpty for no machines and ErrValue for an invalid machine.
func New(ms []Machine, s Settings) (*Policy, error) {
	c, err := newCore(ms, s, "OCORP")
	if err != nil {
		return nil, err
	}
	return &Policy{c: c}, nil
}

// Name returns "OCORP" (or Settings.Name).
func (o *Policy) Name() string { return o.c.name }

// Decide returns the placements of slot t (owned by the policy, valid
// until the next call of any of its methods). t must be >= 0 and greater
// than the previous Decide's (ErrSlot); a gap of skipped slots leaves
// every lambda_j as it was (no decision, no dual update). On error the
// policy is unchanged.
func (o *Policy) Decide(t int, obs Obs) (Decision, error) {
	c := &o.c
	if err := c.d.begin(t, obs); err != nil {
		return Decision{}, err
	}
	c.d.sortOmega(obs, c.d.s.Fill)
	mustReset(c.pk, obs.Jobs)
	c.pk.Pack(c.d.order, c.d.want, false)
	return c.finish(t, obs), nil
}

// Lambda returns lambda_j of the job with the given ID (0 if it was not in
// the last observation).
func (o *Policy) Lambda(id int) float64 { return o.c.d.lambda(id) }

// Gamma returns the Gamma used in the last slot.
func (o *Policy) Gamma() float64 { return o.c.d.gamma }

// Live returns the number of jobs whose state the policy holds (the jobs
// of the last observation).
func (o *Policy) Live() int { return len(o.c.d.st) }

// Machines returns a copy of the current machines.
func (o *Policy) Machines() []Machine { return slices.Clone(o.c.d.ms) }

// M is OCORP+M, Algorithm 1 for CPU and memory: the x step (11) with
// z = 1 is OCORP's rate allocation and packing ignoring memory; the z step
// (12) solves one exact 0/1 knapsack per machine on memory (KnapsackDP),
// dropping the placements it does not admit; the next x step re-packs the
// freed cores in omega order onto machines where the job's memory fits
// (which the following z step admits as is, so the alternation stops after
// two rounds, as in the proof of Theorem 1). Then lambda is updated by (10).
// Not safe for concurrent use.
type M struct {
	c  core
	ks KnapsackDP
}

// NewM returns OCORP+M on the machines, with the errors of New.
func NewM(ms []Machine, s Settings) (*M, error) {
	c, err := newCore(ms, s, "OCORP+M")
	if err != nil {
		return nil, err
	}
	return &M{c: c}, nil
}

// Name returns "OCORP+M" (or Settings.Name).
func (o *M) Name() string { return o.c.name }

// Decide returns the placements of slot t, under the rules of
// Policy.Decide.
func (o *M) Decide(t int, obs Obs) (Decision, error) {
	c := &o.c
	if err := c.d.begin(t, obs); err != nil {
		return Decision{}, err
	}
	c.d.sortOmega(obs, c.d.s.Fill)
	mustReset(c.pk, obs.Jobs)
	if c.d.s.Packing == PackFirstFit {
		c.pk.FirstFit(c.d.order, c.d.want)
	} else {
		c.pk.Pack(c.d.order, c.d.want, true)
		c.pk.Knapsack(&o.ks, c.d.gain)
	}
	c.pk.Fill(c.d.order, c.d.want, false)
	return c.finish(t, obs), nil
}

// Lambda returns lambda_j of the job with the given ID (0 if it was not in
// the last observation).
func (o *M) Lambda(id int) float64 { return o.c.d.lambda(id) }

// Gamma returns the Gamma used in the last slot.
func (o *M) Gamma() float64 { return o.c.d.gamma }

// Live returns the number of jobs whose state the policy holds.
func (o *M) Live() int { return len(o.c.d.st) }

// Machines returns a copy of the current machines.
func (o *M) Machines() []Machine { return slices.Clone(o.c.d.ms) }
