package ocorp

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
)

var _ bipartite.OnlinePolicy[Obs, Decision] = (*OCORPPlus)(nil)

// SwitchQP is the per-slot problem of OCORP+ (eq. (31)-(32)) relaxed to
// continuous rates, a strictly convex separable QP over n jobs and m
// machines:
//
//	min  sum_j sum_i c_j x_ji + alpha (x_ji - xbar_ji)^2
//	s.t. sum_i x_ji <= b_j          (tau_j)   per job, (4d) with b_j <= 1
//	     sum_j d_j x_ji <= C_i      (nu_i)    per machine, (4b)
//	     x_ji >= 0.
//
// Prev (xbar, the previous slot's rates) and the solution are job-major:
// x[j*m + i].
type SwitchQP struct {
	Cost     []float64 // c_j, eq. (9)
	Demand   []float64 // d_j > 0
	Bound    []float64 // b_j >= 0
	Capacity []float64 // C_i >= 0
	Prev     []float64 // xbar_ji >= 0, n*m
	Alpha    float64   // alpha > 0
	// Block, if not nil (length n*m), fixes x_ji = 0 where true (a job
	// whose memory exceeds the machine's).
	Block []bool
}

// QPStatus reports how SolveQP stopped.
type QPStatus int

const (
	// QPConverged: the KKT residual is at most Tol.
	QPConverged QPStatus = iota
	// QPIterationLimit: MaxSweeps sweeps were done first; the returned x
	// still satisfies every machine constraint exactly and the job
	// constraints within Residual.
	QPIterationLimit
)

func (s QPStatus) String() string {
	switch s {
	case QPConverged:
		return "Converged"
	case QPIterationLimit:
		return "IterationLimit"
	}
	return fmt.Sprintf("QPStatus(%d)", int(s))
}

// QPSettings configures SolveQP. Zero fields take their defaults.
type QPSettings struct {
	// Tol bounds the KKT residual in rate units (job constraint violation
	// and complementarity |b_j - sum_i x_ji| where tau_j > 0); 0 means 1e-9.
	Tol float64
	// MaxSweeps bounds the number of (tau, nu) sweeps; 0 means 5000.
	MaxSweeps int
}

// QPResult is the solution of SolveQP: the rates X and the multipliers.
// Tau and Nu given on entry (with the right lengths) warm-start the solver.
type QPResult struct {
	X        []float64
	Tau, Nu  []float64
	Sweeps   int
	Residual float64
	Status   QPStatus
}

// QPSolver solves SwitchQP by exact block-coordinate ascent on the dual:
// with nu fixed every tau_j is the exact maximiser (a projection of the
// row onto {x >= 0, sum x <= b_j}: a piecewise-linear root found by
// sorting its breakpoints), then with tau fixed every nu_i likewise. Each
// sweep increases the concave dual; since the primal is strictly convex
// the x(tau, nu) = max(0, xbar - (c_j + tau_j + d_j nu_i)/(2 alpha)) it
// induces converges to the unique optimum. After a sweep, the machine
// constraints and their complementarity hold exactly; the iteration stops
// when the job constraints do too, within Tol. The zero value is ready to
// use; it reuses buffers. Not safe for concurrent use.
type QPSolver struct {
	bp []breakpoint
}

type breakpoint struct{ beta, w, s, z float64 }

// Solve solves q into res (reusing its slices). It returns an error for
// invalid data (NaN, negative demand, alpha <= 0) and panics if the slice
// lengths do not match (n = len(Cost), m = len(Capacity)).
func (qs *QPSolver) Solve(res *QPResult, q *SwitchQP, s QPSettings) error {
	n, m := len(q.Cost), len(q.Capacity)
	if len(q.Demand) != n || len(q.Bound) != n || len(q.Prev) != n*m || (q.Block != nil && len(q.Block) != n*m) {
		panic(panicQPLen)
	}
	if !(q.Alpha > 0) || math.IsInf(q.Alpha, 0) {
		return fmt.Errorf("%w: alpha = %v", ErrSettings, q.Alpha)
	}
	for j := 0; j < n; j++ {
		if !(q.Demand[j] > 0) || math.IsInf(q.Demand[j], 0) || !(q.Bound[j] >= 0) || math.IsNaN(q.Cost[j]) || math.IsInf(q.Cost[j], 0) {
			return fmt.Errorf("%w: job %d: cost %v demand %v bound %v", ErrValue, j, q.Cost[j], q.Demand[j], q.Bound[j])
		}
	}
	for i, c := range q.Capacity {
		if !(c >= 0) || math.IsInf(c, 0) {
			return fmt.Errorf("%w: capacity[%d] = %v", ErrValue, i, c)
		}
	}
	for e, v := range q.Prev {
		if !(v >= 0) || math.IsInf(v, 0) {
			return fmt.Errorf("%w: prev[%d] = %v", ErrValue, e, v)
		}
	}
	tol, maxSweeps := s.Tol, s.MaxSweeps
	if tol <= 0 {
		tol = 1e-9
	}
	if maxSweeps <= 0 {
		maxSweeps = 5000
	}
	if len(res.Tau) != n {
		res.Tau = grow(res.Tau, n)
		clear(res.Tau)
	}
	if len(res.Nu) != m {
		res.Nu = grow(res.Nu, m)
		clear(res.Nu)
	}
	res.X = grow(res.X, n*m)
	a2 := 2 * q.Alpha
	x := res.X
	for sweep := 1; ; sweep++ {
		// tau step: rows.
		for j := 0; j < n; j++ {
			qs.bp = qs.bp[:0]
			sum := 0.0
			for i := 0; i < m; i++ {
				z := q.Prev[j*m+i] - (q.Cost[j]+q.Demand[j]*res.Nu[i])/a2
				if z > 0 && (q.Block == nil || !q.Block[j*m+i]) {
					sum += z
					qs.bp = append(qs.bp, breakpoint{beta: z, w: 1, s: 1, z: z})
				}
			}
			res.Tau[j] = 0
			if sum > q.Bound[j] {
				res.Tau[j] = a2 * qs.root(q.Bound[j])
			}
		}
		// nu step: columns.
		for i := 0; i < m; i++ {
			qs.bp = qs.bp[:0]
			load := 0.0
			for j := 0; j < n; j++ {
				z := q.Prev[j*m+i] - (q.Cost[j]+res.Tau[j])/a2
				if z > 0 && (q.Block == nil || !q.Block[j*m+i]) {
					d := q.Demand[j]
					load += d * z
					qs.bp = append(qs.bp, breakpoint{beta: z / d, w: d, s: d, z: z})
				}
			}
			res.Nu[i] = 0
			if load > q.Capacity[i] {
				res.Nu[i] = a2 * qs.root(q.Capacity[i])
			}
		}
		// primal point and job-side residual.
		r := 0.0
		for j := 0; j < n; j++ {
			sum := 0.0
			for i := 0; i < m; i++ {
				v := max(0, q.Prev[j*m+i]-(q.Cost[j]+res.Tau[j]+q.Demand[j]*res.Nu[i])/a2)
				if q.Block != nil && q.Block[j*m+i] {
					v = 0
				}
				x[j*m+i] = v
				sum += v
			}
			viol := sum - q.Bound[j]
			if res.Tau[j] == 0 {
				viol = max(viol, 0)
			}
			r = max(r, math.Abs(viol))
		}
		res.Sweeps, res.Residual = sweep, r
		if r <= tol {
			res.Status = QPConverged
			return nil
		}
		if sweep >= maxSweeps {
			res.Status = QPIterationLimit
			return nil
		}
	}
}

func cmpBreak(a, b breakpoint) int { return cmp.Compare(b.beta, a.beta) }

// root returns theta >= 0 with sum_k w_k max(0, z_k - s_k theta) = c, for
// breakpoints beta_k = z_k/s_k > 0 whose sum at theta = 0 exceeds c.
func (qs *QPSolver) root(c float64) float64 {
	slices.SortFunc(qs.bp, cmpBreak)
	A, B := 0.0, 0.0
	for k, b := range qs.bp {
		A += b.w * b.z
		B += b.w * b.s
		next := 0.0
		if k+1 < len(qs.bp) {
			next = qs.bp[k+1].beta
		}
		if th := (A - c) / B; th >= next {
			return max(th, 0)
		}
	}
	return 0
}

// PlusSettings configures OCORP+.
type PlusSettings struct {
	Settings
	// Alpha is the switching-cost weight alpha of (32) (paper: 0, 10,
	// 100). Alpha = 0 is OCORP exactly (the QP becomes the LP of Lemma 1).
	Alpha float64
	// Normalize divides the linear costs c_j by max_j |c_j| in every slot
	// before solving, so that Alpha is relative to the slot's costs. The
	// paper's (32) is literal (false); with mu = t^(k+0.5) the costs reach
	// 1e7 and Alpha = 100 then barely matters.
	Normalize bool
	// QP are the solver settings.
	QP QPSettings
}

// OCORPPlus is OCORP+ (Section IV-B): in slot t it minimises the
// Lagrangian with switching cost (32) over the jobs with c_j < 0 or a
// placement in slot t-1 (others stay at 0 in the optimum), relaxing
// integrality: a SwitchQP with b_j = min(1, p_j(t)), warm-started from the
// previous slot's multipliers. The rates are rounded to integral cores
// (floor of d_j x_ji, then the leftover cores of each job — up to
// ceil(d_j sum_i x_ji) — by largest fractional part where the machine has
// cores free, ties by job ID), memory is enforced by the knapsack z step, and lambda is
// updated by (10). Not safe for concurrent use.
type OCORPPlus struct {
	dual
	ps     PlusSettings
	name   string
	lp     *OCORP // Alpha == 0
	ms     []Machine
	pk     *Packer
	ks     Knapsack
	solver QPSolver
	q      SwitchQP
	res    QPResult
	out    Decision
	cnt    []int
	// previous decision by job ID
	prevM     []int // machines, flat
	prevR     []float64
	prevStart []int // by ID: start in prevM, valid if prevCall == call-1 of last Decide
	prevLen   []int
	prevCall  []int
	tauByID   []float64
	decisions int
	cand      []int
	u         []int
	budget    []int
	fr        []keyed
	// Last is the QP result of the last slot (read-only).
	Last *QPResult
}

// NewPlus returns OCORP+ with the given switching weight.
func NewPlus(ms []Machine, ps PlusSettings) (*OCORPPlus, error) {
	if !(ps.Alpha >= 0) || math.IsInf(ps.Alpha, 0) {
		return nil, fmt.Errorf("%w: alpha = %v", ErrSettings, ps.Alpha)
	}
	d, err := newDual(ms, ps.Settings)
	if err != nil {
		return nil, err
	}
	o := &OCORPPlus{dual: d, ps: ps, name: d.s.name(fmt.Sprintf("OCORP+(a=%g)", ps.Alpha)), ms: append([]Machine(nil), ms...)}
	if ps.Alpha == 0 {
		o.lp, err = New(ms, ps.Settings)
		return o, err
	}
	o.pk, err = NewPacker(ms)
	o.Last = &o.res
	o.res.Nu = make([]float64, len(ms))
	return o, err
}

// Name returns "OCORP+(a=<alpha>)".
func (o *OCORPPlus) Name() string { return o.name }

// Decide returns the placements of slot t (owned by the policy).
func (o *OCORPPlus) Decide(t int, obs Obs) (Decision, error) {
	if o.lp != nil {
		return o.lp.Decide(t, obs)
	}
	if err := o.begin(t, obs); err != nil {
		return Decision{}, err
	}
	m := len(o.ms)
	// Candidates: negative cost or placed in the previous slot.
	o.cand = o.cand[:0]
	scale := 0.0
	for k, a := range obs.Jobs {
		if a.ID >= len(o.prevCall) {
			nn := max(a.ID+1, 2*len(o.prevCall))
			o.prevCall = append(o.prevCall, make([]int, nn-len(o.prevCall))...)
			o.prevStart = append(o.prevStart, make([]int, nn-len(o.prevStart))...)
			o.prevLen = append(o.prevLen, make([]int, nn-len(o.prevLen))...)
			o.tauByID = append(o.tauByID, make([]float64, nn-len(o.tauByID))...)
		}
		had := o.prevCall[a.ID] == o.decisions && o.decisions > 0 && o.prevLen[a.ID] > 0
		if o.coef[k] < 0 || had {
			o.cand = append(o.cand, k)
			scale = max(scale, math.Abs(o.coef[k]))
		}
	}
	if !o.ps.Normalize || scale == 0 {
		scale = 1
	}
	n := len(o.cand)
	o.q.Cost = grow(o.q.Cost, n)
	o.q.Demand = grow(o.q.Demand, n)
	o.q.Bound = grow(o.q.Bound, n)
	o.q.Capacity = grow(o.q.Capacity, m)
	o.q.Prev = grow(o.q.Prev, n*m)
	o.q.Alpha = o.ps.Alpha
	clear(o.q.Prev)
	o.q.Block = grow(o.q.Block, n*m)
	o.res.Tau = grow(o.res.Tau, n)
	for i, mc := range o.ms {
		o.q.Capacity[i] = float64(mc.Cores)
	}
	for c, k := range o.cand {
		a := obs.Jobs[k]
		o.q.Cost[c] = o.coef[k] / scale
		o.q.Demand[c] = float64(a.Cores)
		o.q.Bound[c] = float64(o.want[k]) / float64(a.Cores)
		for i, mc := range o.ms {
			o.q.Block[c*m+i] = a.Memory > mc.Memory
		}
		o.res.Tau[c] = 0
		if o.prevCall[a.ID] == o.decisions && o.decisions > 0 {
			o.res.Tau[c] = o.tauByID[a.ID]
			for e := o.prevStart[a.ID]; e < o.prevStart[a.ID]+o.prevLen[a.ID]; e++ {
				o.q.Prev[c*m+o.prevM[e]] = o.prevR[e]
			}
		}
	}
	if err := o.solver.Solve(&o.res, &o.q, o.ps.QP); err != nil {
		return Decision{}, err
	}
	// Round to integral cores.
	x := o.res.X
	o.u = grow(o.u, n*m)
	o.budget = grow(o.budget, n)
	o.fr = o.fr[:0]
	o.pk.Reset(obs.Jobs)
	free := o.pk.freeC
	for c, k := range o.cand {
		d := o.q.Demand[c]
		sum := 0.0
		got := 0
		for i := 0; i < m; i++ {
			v := d * x[c*m+i]
			sum += v
			u := int(math.Floor(v + 1e-9))
			u = min(u, free[i], o.want[k]-got)
			o.u[c*m+i] = u
			free[i] -= u
			got += u
			if f := v - float64(u); f > 1e-9 && u < int(d) {
				o.fr = append(o.fr, keyed{-f, obs.Jobs[k].ID, c*m + i})
			}
		}
		o.budget[c] = min(o.want[k], int(math.Ceil(sum-1e-6))) - got
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
	for i, mc := range o.ms { // hand the cores back to the packer, then Add
		free[i] = mc.Cores
	}
	for c, k := range o.cand {
		for i := 0; i < m; i++ {
			if u := o.u[c*m+i]; u > 0 {
				if err := o.pk.Add(k, i, u); err != nil {
					return Decision{}, err // a bug, not a data error
				}
			}
		}
	}
	o.pk.Knapsack(&o.ks, o.gain)
	o.out.Placements = o.pk.Placements()
	o.cnt = grow(o.cnt, len(obs.Jobs))
	o.end(t, obs, o.out.Placements, o.cnt)
	// Remember rates and multipliers by ID for the next slot.
	o.decisions++
	o.prevM, o.prevR = o.prevM[:0], o.prevR[:0]
	for c, k := range o.cand {
		o.tauByID[obs.Jobs[k].ID] = o.res.Tau[c]
	}
	for _, k := range obs.Jobs { // mark all as decided with no placement
		o.prevCall[k.ID] = o.decisions
		o.prevLen[k.ID] = 0
	}
	// Placements of one job are contiguous: Add appends them job by job
	// and Knapsack's compaction keeps the order.
	for _, p := range o.out.Placements {
		if !p.Admit {
			continue
		}
		id := obs.Jobs[p.Job].ID
		if o.prevLen[id] == 0 {
			o.prevStart[id] = len(o.prevM)
		}
		o.prevM = append(o.prevM, p.Machine)
		o.prevR = append(o.prevR, float64(p.Cores)/float64(obs.Jobs[p.Job].Cores))
		o.prevLen[id]++
	}
	return o.out, nil
}
