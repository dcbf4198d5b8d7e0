package ocorp

import (
	"fmt"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
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
	// QPConverged: the KKT residual is at most max(Tol, Floor).
	QPConverged QPStatus = iota
	// QPIterationLimit: MaxSweeps sweeps were done first; the returned x
	// satisfies the job constraints and the machine constraints within
	// Residual.
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
	// Tol bounds the KKT residual in cores: the machine constraint
	// violation, and |C_i - load_i| where nu_i > 0 (complementarity); 0
	// means 1e-7. When the multipliers are large (costs much larger than
	// alpha) the rounding floor QPResult.Floor replaces Tol if larger. The job constraints, stationarity and the signs of the
	// multipliers hold exactly (to rounding) by construction.
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
	// Floor is the rounding-error floor of the loads, about 1e-13
	// max_i sum_j d_j (|c_j| + tau_j + d_j nu_i + 2 alpha xbar_ji)/(2 alpha);
	// the solver stops at a residual below max(Tol, Floor).
	Floor  float64
	Status QPStatus
}

// QPSolver solves SwitchQP on its dual over the machine prices nu, with
// the job prices tau eliminated: for fixed nu each row x_j is the exact
// projection of xbar_j - (c_j + d_j nu)/(2 alpha) onto
// {x >= 0, sum x <= b_j} (Michelot's finite method), which gives tau_j.
// The concave dual is maximised by exact coordinate ascent (each nu_i by
// false position on its monotone load, re-projecting only the rows that
// can use machine i) followed,
// every sweep, by exact line searches along the common shift of the
// active prices of each group of machines linked by binding rows, and of
// all machines — the directions along which the dual is nearly linear when
// alpha is small relative to the costs and coordinate steps would crawl.
// Stationarity, the job constraints and tau >= 0 hold by construction;
// the solver stops when the machine constraints and their complementarity
// hold within Tol (in cores). The zero value is ready to use; it reuses
// buffers. Not safe for concurrent use.
type QPSolver struct {
	load, base []float64
	inS        []bool
	comp, size []int
	aff        []int
	zbuf       []float64
}

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
		tol = 1e-7
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
	x := res.X
	a2 := 2 * q.Alpha
	qs.load = grow(qs.load, m)
	for j := 0; j < n; j++ {
		qs.row(q, j, res.Nu, res.Tau, x)
	}
	for sweep := 1; ; sweep++ {
		r := 0.0
		qs.loads(q, x) // afresh each sweep, then kept current by rowUpdate
		for i := 0; i < m; i++ {
			viol := qs.load[i] - q.Capacity[i]
			if res.Nu[i] == 0 {
				viol = max(viol, 0)
			}
			if math.Abs(viol) <= tol {
				continue
			}
			r = max(r, math.Abs(viol))
			qs.coordinate(q, i, res.Nu, res.Tau, x, tol)
		}
		// Shift each group of machines linked by binding rows, then all.
		qs.components(q, res.Tau, x)
		for c := 0; c < m; c++ {
			if qs.comp[c] == c && qs.size[c] > 1 && qs.size[c] < m {
				qs.shift(q, res.Nu, res.Tau, x, qs.comp, c)
			}
		}
		qs.shift(q, res.Nu, res.Tau, x, nil, 0)
		qs.loads(q, x)
		r = 0
		for i := 0; i < m; i++ {
			viol := qs.load[i] - q.Capacity[i]
			if res.Nu[i] == 0 {
				viol = max(viol, 0)
			}
			r = max(r, math.Abs(viol))
		}
		res.Sweeps, res.Residual = sweep, r
		// The loads are sums of terms (c_j + tau_j + d_j nu_i)/(2 alpha)
		// that cancel; their rounding error bounds what can be reached.
		fl := 0.0
		for i := 0; i < m; i++ {
			e := 0.0
			for j, d := range q.Demand {
				if x[j*m+i] > 0 {
					e += d * (math.Abs(q.Cost[j]) + res.Tau[j] + d*res.Nu[i] + a2*q.Prev[j*m+i])
				}
			}
			fl = math.Max(fl, e/a2)
		}
		res.Floor = 1e-13 * fl
		if r <= math.Max(tol, res.Floor) {
			res.Status = QPConverged
			return nil
		}
		if sweep >= maxSweeps {
			res.Status = QPIterationLimit
			return nil
		}
	}
}

// row sets tau_j and row j of x to the exact minimiser for the given nu:
// the projection of z_i = xbar_ji - (c_j + d_j nu_i)/(2 alpha) onto
// {x >= 0, sum x <= b_j}.
func (qs *QPSolver) row(q *SwitchQP, j int, nu, tau, x []float64) {
	m := len(q.Capacity)
	a2 := 2 * q.Alpha
	vals := qs.zbuf[:0]
	sum := 0.0
	for i := 0; i < m; i++ {
		z := q.Prev[j*m+i] - (q.Cost[j]+q.Demand[j]*nu[i])/a2
		if z > 0 && (q.Block == nil || !q.Block[j*m+i]) {
			sum += z
			vals = append(vals, z)
		}
	}
	// Michelot's finite method: theta = (sum of the active z - b)/count,
	// drop the z <= theta, repeat; theta only grows and stops at the root.
	th := 0.0
	if b := q.Bound[j]; sum > b {
		th = (sum - b) / float64(len(vals))
		for {
			w, s := 0, 0.0
			for _, v := range vals {
				if v > th {
					vals[w] = v
					w++
					s += v
				}
			}
			if w == len(vals) {
				break
			}
			vals = vals[:w]
			th = (s - b) / float64(w)
		}
	}
	qs.zbuf = vals[:0]
	tau[j] = a2 * th
	for i := 0; i < m; i++ {
		v := 0.0
		if q.Block == nil || !q.Block[j*m+i] {
			v = max(0, q.Prev[j*m+i]-(q.Cost[j]+q.Demand[j]*nu[i])/a2-th)
		}
		x[j*m+i] = v
	}
}

// shift is an exact line search of the dual along u = 1 on
// S = {i : nu_i > 0 or load_i > C_i}: raising every price of S by delta
// while the tau_j absorb it leaves x unchanged for rows with tau_j > 0, so
// the dual is nearly linear along u and coordinate steps crawl. The
// derivative sum_{i in S} (load_i - C_i) is non-increasing in delta; its
// root is bracketed by doubling and found by false position.
func (qs *QPSolver) shift(q *SwitchQP, nu, tau, x []float64, comp []int, c int) {
	m := len(q.Capacity)
	qs.loads(q, x)
	qs.inS = grow(qs.inS, m)
	qs.base = grow(qs.base, m)
	lo := math.Inf(-1)
	copy(qs.base, nu)
	for i := 0; i < m; i++ {
		qs.inS[i] = (comp == nil || comp[i] == c) && (nu[i] > 0 || qs.load[i] > q.Capacity[i])
		if qs.inS[i] {
			lo = math.Max(lo, -nu[i])
		}
	}
	if math.IsInf(lo, -1) {
		return
	}
	// Only rows that use a machine of S, or could start to at the lowest
	// shift tried, change; the others keep their x (and load).
	a2 := 2 * q.Alpha
	affect := func(low float64) {
		qs.aff = qs.aff[:0]
		for j, d := range q.Demand {
			for i := 0; i < m; i++ {
				if !qs.inS[i] || (q.Block != nil && q.Block[j*m+i]) {
					continue
				}
				if x[j*m+i] > 0 || (a2*q.Prev[j*m+i]-tau[j]-q.Cost[j])/d > qs.base[i]+low {
					qs.aff = append(qs.aff, j)
					break
				}
			}
		}
	}
	affect(0)
	deriv := func(delta float64) float64 {
		for i := 0; i < m; i++ {
			if qs.inS[i] {
				nu[i] = qs.base[i] + delta
			}
		}
		for _, j := range qs.aff {
			qs.rowUpdate(q, j, nu, tau, x)
		}
		d := 0.0
		for i := 0; i < m; i++ {
			if qs.inS[i] {
				d += qs.load[i] - q.Capacity[i]
			}
		}
		return d
	}
	d0 := deriv(0)
	var a, b float64
	switch {
	case d0 > 0:
		a, b = 0, 1
		for deriv(b) > 0 {
			a, b = b, 2*b
			if b > 1e300 {
				return
			}
		}
	case d0 < 0 && lo < 0:
		a, b = lo, 0
		affect(lo)
		if deriv(lo) < 0 {
			deriv(lo)
			return
		}
	default:
		return
	}
	fa, fb := deriv(a), deriv(b)
	ta, tb := fa, fb // true values; fa, fb are halved by Illinois
	side := 0
	for it := 0; it < 200 && b-a > 1e-15*math.Max(math.Abs(a), math.Abs(b)) && fa > 1e-12 && fb < -1e-12; it++ {
		mid := b - fb*(b-a)/(fb-fa)
		if !(mid > a && mid < b) || it%8 == 7 {
			mid = a + (b-a)/2
		}
		fm := deriv(mid)
		if fm > 0 {
			a, fa, ta = mid, fm, fm
			if side == -1 {
				fb /= 2
			}
			side = -1
		} else {
			b, fb, tb = mid, fm, fm
			if side == 1 {
				fa /= 2
			}
			side = 1
		}
	}
	if ta < -tb {
		b = a // a is the closer end (the loop may not have run)
	}
	deriv(b)
}

// components labels machines by the connected components of the graph
// in which a binding row (tau_j > 0) links the machines it uses:
// comp[i] is the component's smallest machine index, size[c] its size.
func (qs *QPSolver) components(q *SwitchQP, tau, x []float64) {
	m := len(q.Capacity)
	qs.comp = grow(qs.comp, m)
	qs.size = grow(qs.size, m)
	for i := range qs.comp {
		qs.comp[i] = i
	}
	find := func(i int) int {
		for qs.comp[i] != i {
			qs.comp[i] = qs.comp[qs.comp[i]]
			i = qs.comp[i]
		}
		return i
	}
	for j := range q.Cost {
		if tau[j] <= 0 {
			continue
		}
		first := -1
		for i := 0; i < m; i++ {
			if x[j*m+i] > 0 {
				if first < 0 {
					first = find(i)
					continue
				}
				a, b := first, find(i)
				if a != b {
					if b < a {
						a, b = b, a
					}
					qs.comp[b] = a
					first = a
				}
			}
		}
	}
	clear(qs.size)
	for i := range qs.comp {
		qs.comp[i] = find(i)
		qs.size[qs.comp[i]]++
	}
}

func (qs *QPSolver) loads(q *SwitchQP, x []float64) {
	m := len(q.Capacity)
	clear(qs.load)
	for j, d := range q.Demand {
		for i := 0; i < m; i++ {
			qs.load[i] += d * x[j*m+i]
		}
	}
}

// rowUpdate re-projects row j, keeping qs.load current.
func (qs *QPSolver) rowUpdate(q *SwitchQP, j int, nu, tau, x []float64) {
	m := len(q.Capacity)
	d := q.Demand[j]
	r := x[j*m : (j+1)*m]
	for i, v := range r {
		if v != 0 {
			qs.load[i] -= d * v
		}
	}
	qs.row(q, j, nu, tau, x)
	for i, v := range r {
		if v != 0 {
			qs.load[i] += d * v
		}
	}
}

// affected lists the rows that can have x_ji > 0 for some nu_i >= low:
// those with x_ji > 0 now, and those whose support would grow to machine
// i below crit_j = (2 alpha (xbar_ji - tau_j/(2 alpha)) - c_j)/d_j. The
// other rows do not change while nu_i stays >= low.
func (qs *QPSolver) affected(q *SwitchQP, i int, low float64, tau, x []float64) {
	m := len(q.Capacity)
	a2 := 2 * q.Alpha
	qs.aff = qs.aff[:0]
	for j, d := range q.Demand {
		if q.Block != nil && q.Block[j*m+i] {
			continue
		}
		if x[j*m+i] > 0 || (a2*(q.Prev[j*m+i]-tau[j]/a2)-q.Cost[j])/d > low {
			qs.aff = append(qs.aff, j)
		}
	}
}

// coordinate maximises the dual over nu_i >= 0 with every tau_j
// re-optimised (tau eliminated): the load of machine i is non-increasing
// and piecewise linear in nu_i, so nu_i is 0 if that load fits, else the
// root of load_i(nu_i) = C_i, bracketed from the current value and found
// by false position (Illinois) with a bisection safeguard, to a load within
// tol/4 or relative precision 1e-15. Only the rows that can use machine i
// in the bracket are re-projected.
func (qs *QPSolver) coordinate(q *SwitchQP, i int, nu, tau, x []float64, tol float64) {
	C := q.Capacity[i]
	f := func(v float64) float64 {
		nu[i] = v
		for _, j := range qs.aff {
			qs.rowUpdate(q, j, nu, tau, x)
		}
		return qs.load[i] - C
	}
	cur := nu[i]
	qs.affected(q, i, cur, tau, x)
	fc := f(cur)
	// A first step from the slope bound |dload_i/dnu_i| <= sum_j d_j^2/(2 alpha)
	// over the rows on machine i, then doubling: the bracket stays near the
	// current price, so few rows need re-projecting.
	m := len(q.Capacity)
	slope := 0.0
	for _, j := range qs.aff {
		if x[j*m+i] > 0 {
			slope += q.Demand[j] * q.Demand[j] / (2 * q.Alpha)
		}
	}
	step := math.Max(cur*1e-9, 1e-12)
	if slope > 0 {
		step = math.Max(step, math.Abs(fc)/slope)
	}
	var lo, flo, hi, fhi float64
	switch {
	case fc > 0:
		lo, flo = cur, fc
		hi = cur + step
		// load_i is updated incrementally, so a machine every row has left
		// may keep a rounding residue: stop within tol/4.
		for fhi = f(hi); fhi > tol/4 && step < 1e300; fhi = f(hi) {
			lo, flo = hi, fhi
			step *= 2
			hi = cur + step
		}
		if fhi > 0 {
			fhi = 0 // within tol/4: accept hi
		}
	case cur == 0 || -fc <= tol/4:
		return
	default:
		hi, fhi = cur, fc
		for {
			lo = math.Max(cur-step, 0)
			qs.affected(q, i, lo, tau, x)
			flo = f(lo)
			if flo > 0 {
				break
			}
			if lo == 0 {
				return // nu_i = 0 fits
			}
			hi, fhi = lo, flo
			step *= 2
		}
	}
	side := 0
	for it := 0; it < 200 && hi-lo > 1e-15*hi && -fhi > tol/4; it++ {
		mid := hi - fhi*(hi-lo)/(fhi-flo)
		if !(mid > lo && mid < hi) || it%8 == 7 {
			mid = lo + (hi-lo)/2
		}
		fm := f(mid)
		if fm > 0 {
			lo, flo = mid, fm
			if side == -1 {
				fhi /= 2
			}
			side = -1
		} else {
			hi, fhi = mid, fm
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
	}
	f(hi)
}

// MaxQPCells bounds the candidate jobs x machines of OCORP+'s QP in one
// slot (each cell costs about 40 bytes across the QP's arrays); beyond it
// Decide returns an error wrapping ErrTooLarge.
const MaxQPCells = 1 << 22

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
	// previous decision: machines and rates, flat; each live job's
	// jobState holds its start and length in them (valid if its prevDec
	// is the last decision) and its multiplier tau
	prevM     []int
	prevR     []float64
	decisions int
	cand      []int
	inCand    []bool
	scale     float64
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

// solveCand builds the QP over o.cand (warm-started from the previous
// slot's multipliers by job ID) and solves it.
func (o *OCORPPlus) solveCand(obs Obs) error {
	m := len(o.ms)
	n := len(o.cand)
	if !checked.Within(MaxQPCells, n, m) {
		return fmt.Errorf("%w: OCORP+ QP of %d candidate jobs x %d machines exceeds %d cells", ErrTooLarge, n, m, MaxQPCells)
	}
	o.scale = 0
	for _, k := range o.cand {
		o.scale = max(o.scale, math.Abs(o.coef[k]))
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
	for i, mc := range o.ms {
		o.q.Capacity[i] = float64(mc.Cores)
	}
	for c, k := range o.cand {
		a := obs.Jobs[k]
		o.q.Cost[c] = o.coef[k] / o.scale
		o.q.Demand[c] = float64(a.Cores)
		o.q.Bound[c] = float64(o.want[k]) / float64(a.Cores)
		for i, mc := range o.ms {
			o.q.Block[c*m+i] = a.Memory > mc.Memory
		}
		o.res.Tau[c] = 0
		if st := &o.st[o.slot[k]]; st.prevDec == o.decisions && o.decisions > 0 {
			o.res.Tau[c] = st.tau
			for e := st.prevStart; e < st.prevStart+st.prevLen; e++ {
				o.q.Prev[c*m+o.prevM[e]] = o.prevR[e]
			}
		}
	}
	return o.solver.Solve(&o.res, &o.q, o.ps.QP)
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
	// Candidates: the jobs placed in the previous slot and the first jobs
	// in omega order (negative cost) until their cores cover twice the
	// cluster; the others are checked against the KKT conditions after
	// the solve and added if x = 0 is not optimal for them.
	o.sortOmega(obs, false)
	o.inCand = grow(o.inCand, len(obs.Jobs))
	clear(o.inCand)
	o.cand = o.cand[:0]
	for k := range obs.Jobs {
		if st := &o.st[o.slot[k]]; st.prevDec == o.decisions && o.decisions > 0 && st.prevLen > 0 {
			o.cand = append(o.cand, k)
			o.inCand[k] = true
		}
	}
	cum, next := 0, 0
	for ; next < len(o.order) && cum < 2*int(o.totalCores); next++ {
		k := o.order[next]
		cum += o.want[k]
		if !o.inCand[k] {
			o.cand = append(o.cand, k)
			o.inCand[k] = true
		}
	}
	for round := 0; ; round++ {
		if err := o.solveCand(obs); err != nil {
			return Decision{}, err
		}
		added := false
		for _, k := range o.order[next:] {
			if o.inCand[k] {
				continue
			}
			a := obs.Jobs[k]
			minNu := math.Inf(1)
			for i, mc := range o.ms {
				if a.Memory <= mc.Memory {
					minNu = math.Min(minNu, o.res.Nu[i])
				}
			}
			if c := o.coef[k] / o.scale; c+float64(a.Cores)*minNu < 0 {
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
		o.st[o.slot[k]].tau = o.res.Tau[c]
	}
	for k := range obs.Jobs { // mark all as decided with no placement
		st := &o.st[o.slot[k]]
		st.prevDec = o.decisions
		st.prevLen = 0
	}
	// Placements of one job are contiguous: Add appends them job by job
	// and Knapsack's compaction keeps the order.
	for _, p := range o.out.Placements {
		if !p.Admit {
			continue
		}
		st := &o.st[o.slot[p.Job]]
		if st.prevLen == 0 {
			st.prevStart = len(o.prevM)
		}
		o.prevM = append(o.prevM, p.Machine)
		o.prevR = append(o.prevR, float64(p.Cores)/float64(obs.Jobs[p.Job].Cores))
		st.prevLen++
	}
	return o.out, nil
}
