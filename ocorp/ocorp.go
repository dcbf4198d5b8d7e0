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
// lambda_j by job ID, the running Gamma, and per-slot coefficients.
type dual struct {
	s          Settings
	totalCores float64
	lambda     []float64
	seen       []int // call number in which the ID was last seen; 0 = never
	calls      int
	gMax, vol  float64 // running terms of (27)
	gamma      float64
	coef       []float64 // c_j = w_j(t) - lambda_j(t) per obs job, eq. (9)
	gain       []float64 // max(0, -c_j)
	want       []int     // min(d_j, remaining volume)
	keys       []keyed
	order      []int
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
	if a.id != b.id {
		return a.id - b.id
	}
	return a.idx - b.idx
}

func newDual(ms []Machine, s Settings) (dual, error) {
	if err := s.norm(); err != nil {
		return dual{}, err
	}
	if err := ValidateMachines(ms); err != nil {
		return dual{}, err
	}
	return dual{s: s, totalCores: float64(TotalCores(ms))}, nil
}

// validate checks the observation and registers new jobs.
func validateObs(t int, obs Obs) error {
	for k, a := range obs.Jobs {
		if a.ID < 0 {
			return fmt.Errorf("%w: job %d: id %d", ErrValue, k, a.ID)
		}
		if err := a.Job.Validate(); err != nil {
			return fmt.Errorf("job %d (id %d): %w", k, a.ID, err)
		}
		if a.Remaining < 1 || a.Remaining > a.Volume() {
			return fmt.Errorf("%w: job %d (id %d): remaining %d not in [1, %d]", ErrValue, k, a.ID, a.Remaining, a.Volume())
		}
		if a.Arrival >= t {
			return fmt.Errorf("%w: job %d (id %d): arrival %d not before slot %d", ErrValue, k, a.ID, a.Arrival, t)
		}
	}
	return nil
}

// begin validates obs, updates Gamma and computes coef, gain and want.
func (d *dual) begin(t int, obs Obs) error {
	if t < 1 {
		return fmt.Errorf("%w: slot %d < 1", ErrValue, t)
	}
	if err := validateObs(t, obs); err != nil {
		return err
	}
	d.calls++
	for k, a := range obs.Jobs {
		if a.ID >= len(d.lambda) {
			n := max(a.ID+1, 2*len(d.lambda))
			d.lambda = append(d.lambda, make([]float64, n-len(d.lambda))...)
			d.seen = append(d.seen, make([]int, n-len(d.seen))...)
		}
		switch d.seen[a.ID] {
		case d.calls:
			return fmt.Errorf("%w: job %d: duplicate id %d", ErrValue, k, a.ID)
		case 0:
			d.lambda[a.ID] = d.s.InitLambda
			d.gMax = math.Max(d.gMax, gammaTerm(a.Job))
			d.vol += float64(a.Volume())
		}
		d.seen[a.ID] = d.calls
	}
	d.gamma = d.s.Gamma
	if d.gamma == 0 {
		d.gamma = math.Max(d.gMax, 4*d.vol/d.totalCores)
	}
	n := len(obs.Jobs)
	d.coef = grow(d.coef, n)
	d.gain = grow(d.gain, n)
	d.want = grow(d.want, n)
	for k, a := range obs.Jobs {
		if float64(a.Arrival) >= d.gamma {
			return fmt.Errorf("%w: job %d (id %d): arrival %d >= Gamma %v", ErrSettings, k, a.ID, a.Arrival, d.gamma)
		}
		c := Weight(a.Job, t, d.s.K) - d.lambda[a.ID]
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
		d.lambda[a.ID] = max(0, d.lambda[a.ID]+mu*LongTerm(a.Job, d.gamma, y))
	}
}

// Lambda returns lambda_j of the job with the given ID (0 if unseen).
func (d *dual) Lambda(id int) float64 {
	if id < 0 || id >= len(d.lambda) {
		return 0
	}
	return d.lambda[id]
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
