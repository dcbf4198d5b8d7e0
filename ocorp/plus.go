package ocorp

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/internal/checked"
)

// MaxQPCells bounds the candidate jobs x machines of OCORP+'s QP in one
// slot (each cell costs about 40 bytes across the QP's arrays); beyond it
// Decide returns an error wrapping ErrTooLarge.
const MaxQPCells = 1 << 22

// PlusSettings configures OCORP+. The zero value is the paper's OCORP+
// with alpha = 0, which is OCORP exactly.
type PlusSettings struct {
	// Base are the settings OCORP+ shares with OCORP (the zero value: the
	// paper's setup, see Settings).
	Base Settings
	// Alpha is the switching-cost weight alpha of (32) (paper: 0, 10,
	// 100). Alpha = 0 is OCORP exactly (the QP becomes the LP of Lemma 1).
	Alpha float64
	// Normalize divides the linear costs c_j by max_j |c_j| in every slot
	// before solving, so that Alpha is relative to the slot's costs. The
	// paper's (32) is literal (false); with mu = t^(k+0.5) the costs reach
	// 1e7 and Alpha = 100 then barely matters.
	Normalize bool
	// QP are the solver settings (the zero value: Tol 1e-7 cores, at most
	// 5000 sweeps per slot, the documented work budget of the QP, solved
	// serially; QP.Workers splits its row passes across goroutines without
	// changing any decision).
	QP QPSettings
}

// MaxAlpha bounds PlusSettings.Alpha (1e12, five orders of magnitude above
// the literal slot costs of about 1e7): with Alpha = 1e308 the switching
// cost froze every allocation at zero and a run spun to its slot limit.
const MaxAlpha = 1e12

// Validate reports every invalid field (Base's too), joined with
// errors.Join, each wrapping ErrSettings and naming the field and value.
func (ps PlusSettings) Validate() error {
	errs := []error{ps.Base.Validate()}
	if !(ps.Alpha >= 0) || ps.Alpha > MaxAlpha {
		errs = append(errs, fmt.Errorf("%w: Alpha = %v, want in [0, MaxAlpha = %g]", ErrSettings, ps.Alpha, MaxAlpha))
	}
	if !(ps.QP.Tol >= 0) || math.IsInf(ps.QP.Tol, 0) {
		errs = append(errs, fmt.Errorf("%w: QP.Tol = %v, want finite >= 0", ErrSettings, ps.QP.Tol))
	}
	if ps.QP.MaxSweeps < 0 || ps.QP.MaxSweeps > MaxQPSweeps {
		errs = append(errs, fmt.Errorf("%w: QP.MaxSweeps = %d, want in [0, MaxQPSweeps = %d]", ErrSettings, ps.QP.MaxSweeps, MaxQPSweeps))
	}
	if ps.QP.Workers < 0 || ps.QP.Workers > MaxQPWorkers {
		errs = append(errs, fmt.Errorf("%w: QP.Workers = %d, want in [0, MaxQPWorkers = %d]", ErrSettings, ps.QP.Workers, MaxQPWorkers))
	}
	return errors.Join(errs...)
}

// Plus is OCORP+ (Section IV-B): in slot t it minimises the Lagrangian
// with switching cost (32) over the jobs with c_j < 0 or a placement in
// the previous decision (others stay at 0 in the optimum), relaxing
// integrality: a SwitchQP with b_j = min(1, p_j(t)), warm-started from the
// previous slot's multipliers. The rates are rounded to integral cores
// (floor of d_j x_ji, then the leftover cores of each job — up to
// ceil(d_j sum_i x_ji) — by largest fractional part where the machine has
// cores free, ties by job ID), memory is enforced by the knapsack z step,
// and lambda is updated by (10). With Alpha = 0 it is OCORP. A gap of
// skipped slots keeps the previous decision as xbar of (32). Not safe for
// concurrent use.
type Plus struct {
	d      dual
	ps     PlusSettings
	name   string
	pk     *Packer
	ks     KnapsackDP
	solver QPSolver
	q      SwitchQP
	res    QPResult
	out    Decision
	cnt    []int
	// previous decision: machines and rates, flat; each live job's
	// jobState holds its start and length in them (valid if its prevDec
	// is the last decision) and its multiplier tau. A machine removed
	// since is -1 in prevM.
	prevM     []int
	prevR     []float64
	decisions int
	cand      []int
	inCand    []bool
	scale     float64
	u         []int
	budget    []int
	fr        []keyed
}

// NewPlus returns OCORP+ on the machines (copied). Errors are those of New,
// for every invalid field of ps (PlusSettings.Validate).
func NewPlus(ms []Machine, ps PlusSettings) (*Plus, error) {
	if err := ps.Validate(); err != nil {
		return nil, err
	}
	d, err := newDual(ms, ps.Base)
	if err != nil {
		return nil, err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return nil, err
	}
	o := &Plus{d: d, ps: ps, name: d.s.name(fmt.Sprintf("OCORP+(a=%g)", ps.Alpha)), pk: pk}
	o.res.Nu = make([]float64, len(ms))
	return o, nil
}

// LastQP returns the QP result of the last slot (owned by the policy,
// read-only, valid until its next call; Status NotTerminated before the
// first slot or with Alpha = 0).
func (o *Plus) LastQP() *QPResult { return &o.res }

// Lambda returns lambda_j of the job with the given ID (0 if it was not in
// the last observation).
func (o *Plus) Lambda(id int) float64 { return o.d.lambda(id) }

// Gamma returns the Gamma used in the last slot.
func (o *Plus) Gamma() float64 { return o.d.gamma }

// Live returns the number of jobs whose state the policy holds.
func (o *Plus) Live() int { return len(o.d.st) }

// Machines returns a copy of the current machines.
func (o *Plus) Machines() []Machine { return slices.Clone(o.d.ms) }

// solveCand builds the QP over o.cand (warm-started from the previous
// slot's multipliers by job ID) and solves it.
func (o *Plus) solveCand(obs Obs) error {
	ms := o.d.ms
	m := len(ms)
	n := len(o.cand)
	o.scale = 0
	for _, k := range o.cand {
		o.scale = max(o.scale, math.Abs(o.d.coef[k]))
	}
	if !o.ps.Normalize || o.scale == 0 {
		o.scale = 1
	}
	o.q.Cost = grow(o.q.Cost, n)
	o.q.Demand = grow(o.q.Demand, n)
	o.q.Bound = grow(o.q.Bound, n)
	o.q.Capacity = grow(o.q.Capacity, m)
	o.q.Prev = grow(o.q.Prev, n*m)
	o.q.Alpha = o.ps.Alpha
	clear(o.q.Prev)
	o.q.Block = grow(o.q.Block, n*m)
	o.res.Tau = grow(o.res.Tau, n)
	for i, mc := range ms {
		o.q.Capacity[i] = float64(mc.Cores)
	}
	for c, k := range o.cand {
		a := obs.Jobs[k]
		o.q.Cost[c] = o.d.coef[k] / o.scale
		o.q.Demand[c] = float64(a.Cores)
		o.q.Bound[c] = float64(o.d.want[k]) / float64(a.Cores)
		for i, mc := range ms {
			o.q.Block[c*m+i] = a.Memory > mc.Memory
		}
		o.res.Tau[c] = 0
		if st := &o.d.st[o.d.slot[k]]; st.prevDec == o.decisions && o.decisions > 0 {
			o.res.Tau[c] = st.tau
			for e := st.prevStart; e < st.prevStart+st.prevLen; e++ {
				if i := o.prevM[e]; i >= 0 {
					o.q.Prev[c*m+i] = o.prevR[e]
				}
			}
		}
	}
	return o.solver.Solve(&o.res, &o.q, o.ps.QP)
}

// Name returns "OCORP+(a=<alpha>)" (or Settings.Name).
func (o *Plus) Name() string { return o.name }

// Decide returns the placements of slot t, under the rules of
// Policy.Decide. With Alpha > 0, an observation of more than
// MaxQPCells / machines jobs is an error wrapping ErrTooLarge (checked
// before anything changes, on all jobs, as any of them may enter the QP).
// The QP stops at QPSettings.MaxSweeps sweeps (LastQP().Status =
// IterationLimit): its rates are then rounded as they are.
func (o *Plus) Decide(t int, obs Obs) (Decision, error) {
	m := len(o.d.ms)
	if o.ps.Alpha > 0 && !checked.Within(MaxQPCells, len(obs.Jobs), m) {
		return Decision{}, fmt.Errorf("%w: OCORP+ QP of up to %d jobs x %d machines exceeds MaxQPCells = %d cells", ErrTooLarge, len(obs.Jobs), m, MaxQPCells)
	}
	if err := o.d.begin(t, obs); err != nil {
		return Decision{}, err
	}
	if o.ps.Alpha == 0 { // OCORP exactly
		o.d.sortOmega(obs, o.d.s.Fill)
		mustReset(o.pk, obs.Jobs)
		o.pk.Pack(o.d.order, o.d.want, false)
		return o.finish(t, obs), nil
	}
	// Candidates: the jobs placed in the previous slot and the first jobs
	// in omega order (negative cost) until their cores cover twice the
	// cluster; the others are checked against the KKT conditions after
	// the solve and added if x = 0 is not optimal for them.
	o.d.sortOmega(obs, false)
	o.inCand = grow(o.inCand, len(obs.Jobs))
	clear(o.inCand)
	o.cand = o.cand[:0]
	for k := range obs.Jobs {
		if st := &o.d.st[o.d.slot[k]]; st.prevDec == o.decisions && o.decisions > 0 && st.prevLen > 0 {
			o.cand = append(o.cand, k)
			o.inCand[k] = true
		}
	}
	cum, next := 0, 0
	for ; next < len(o.d.order) && cum < 2*int(o.d.totalCores); next++ {
		k := o.d.order[next]
		cum += o.d.want[k]
		if !o.inCand[k] {
			o.cand = append(o.cand, k)
			o.inCand[k] = true
		}
	}
	for round := 0; ; round++ {
		if err := o.solveCand(obs); err != nil {
			// Unreachable for validated data (costs are clamped finite,
			// demands and bounds come from valid jobs).
			return Decision{}, err
		}
		added := false
		for _, k := range o.d.order[next:] {
			if o.inCand[k] {
				continue
			}
			a := obs.Jobs[k]
			minNu := math.Inf(1)
			for i, mc := range o.d.ms {
				if a.Memory <= mc.Memory {
					minNu = math.Min(minNu, o.res.Nu[i])
				}
			}
			if c := o.d.coef[k] / o.scale; c+float64(a.Cores)*minNu < 0 {
				o.cand = append(o.cand, k)
				o.inCand[k] = true
				added = true
			}
		}
		if !added {
			break
		}
	}
	n := len(o.cand)
	// Round to integral cores.
	x := o.res.X
	o.u = grow(o.u, n*m)
	o.budget = grow(o.budget, n)
	o.fr = o.fr[:0]
	mustReset(o.pk, obs.Jobs)
	free := o.pk.freeC
	for c, k := range o.cand {
		d := o.q.Demand[c]
		sum := 0.0
		got := 0
		for i := 0; i < m; i++ {
			v := d * x[c*m+i]
			sum += v
			u := int(math.Floor(v + 1e-9))
			u = min(u, free[i], o.d.want[k]-got)
			o.u[c*m+i] = u
			free[i] -= u
			got += u
			if f := v - float64(u); f > 1e-9 && u < int(d) {
				o.fr = append(o.fr, keyed{-f, obs.Jobs[k].ID, c*m + i})
			}
		}
		o.budget[c] = min(o.d.want[k], int(math.Ceil(sum-1e-6))) - got
	}
	slices.SortFunc(o.fr, cmpKeyed)
	for _, e := range o.fr {
		c, i := e.idx/m, e.idx%m
		if o.budget[c] > 0 && free[i] > 0 {
			o.u[e.idx]++
			o.budget[c]--
			free[i]--
		}
	}
	for i, mc := range o.d.ms { // hand the cores back to the packer, then Add
		free[i] = mc.Cores
	}
	for c, k := range o.cand {
		for i := 0; i < m; i++ {
			if u := o.u[c*m+i]; u > 0 {
				if err := o.pk.Add(k, i, u); err != nil {
					panic("ocorp: OCORP+ rounding broke a constraint: " + err.Error()) // a bug, not a data error
				}
			}
		}
	}
	o.pk.Knapsack(&o.ks, o.d.gain)
	out := o.finish(t, obs)
	// Remember rates and multipliers by ID for the next slot.
	o.decisions++
	o.prevM, o.prevR = o.prevM[:0], o.prevR[:0]
	for c, k := range o.cand {
		o.d.st[o.d.slot[k]].tau = o.res.Tau[c]
	}
	for k := range obs.Jobs { // mark all as decided with no placement
		st := &o.d.st[o.d.slot[k]]
		st.prevDec = o.decisions
		st.prevLen = 0
	}
	// Placements of one job are contiguous: Add appends them job by job
	// and Knapsack's compaction keeps the order.
	for _, p := range o.pk.place {
		if !p.Admit {
			continue
		}
		st := &o.d.st[o.d.slot[p.Job]]
		if st.prevLen == 0 {
			st.prevStart = len(o.prevM)
		}
		o.prevM = append(o.prevM, p.Machine)
		o.prevR = append(o.prevR, float64(p.Cores)/float64(obs.Jobs[p.Job].Cores))
		st.prevLen++
	}
	return out, nil
}

func (o *Plus) finish(t int, obs Obs) Decision {
	o.out.Placements = o.pk.Placements()
	o.cnt = grow(o.cnt, len(obs.Jobs))
	o.d.end(t, obs, o.pk.place, o.cnt)
	if l := o.d.s.Logger; l != nil {
		l.Debug("decide", "family", "ocorp", "policy", o.name, "slot", t, "jobs", len(obs.Jobs), "placements", len(o.out.Placements),
			"gamma", o.d.gamma, "qp", o.res.Status.String(), "sweeps", o.res.Sweeps, "residual", o.res.Residual)
	}
	if debugChecks {
		mustBeFeasible(o.name, o.d.ms, obs, o.out)
	}
	return o.out
}
