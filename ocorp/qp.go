package ocorp

import (
	"context"
	"fmt"
	"math"
	"sync"
)

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

// Status reports how a solver of the package stopped. The zero value,
// NotTerminated, is that of a result no solver has written (an empty
// QPResult claims nothing).
type Status int

const (
	// NotTerminated: the solver has not run (or not finished).
	NotTerminated Status = iota
	// Success: the KKT residual is at most max(Tol, Floor).
	Success
	// IterationLimit: MaxSweeps sweeps were done first; the returned x
	// satisfies the job constraints and the machine constraints within
	// Residual.
	IterationLimit
	// Canceled: the context was done between two sweeps; x is the last
	// sweep's iterate (job constraints exact, machines within Residual).
	Canceled
	// Failure: an iterate (a price, a multiplier or the residual) was NaN
	// or infinite, which finite data within the documented ranges does not
	// produce; the returned x, Tau and Nu are not a solution. Solve also
	// returns an error wrapping ErrNotConverged.
	Failure
)

var statusNames = [...]string{"NotTerminated", "Success", "IterationLimit", "Canceled", "Failure"}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Err returns nil for Success and an error wrapping ErrNotConverged naming
// the status otherwise.
func (s Status) Err() error {
	if s == Success {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrNotConverged, s)
}

// QPSettings configures QPSolver.Solve. Zero fields take their defaults.
type QPSettings struct {
	// Tol bounds the KKT residual in cores: the machine constraint
	// violation, and |C_i - load_i| where nu_i > 0 (complementarity); 0
	// means 1e-7. When the multipliers are large (costs much larger than
	// alpha) the rounding floor QPResult.Floor replaces Tol if larger. The job constraints, stationarity and the signs of the
	// multipliers hold exactly (to rounding) by construction.
	Tol float64
	// MaxSweeps bounds the number of (tau, nu) sweeps, the solver's work
	// budget: a sweep costs O(n m) plus the re-projections of its line
	// searches, about 10 rows per coordinate step; 0 means 5000.
	MaxSweeps int
	// Workers is the number of goroutines (the caller's included) that
	// share the solver's whole-row passes: the re-projection of every row
	// at the start and once per sweep, the re-projections of the rows a
	// common-shift line search moves, and the computation of the loads
	// and of Floor. Rows are split in contiguous ranges, the per-machine
	// sums by machine, each machine's sum taken over the rows in the
	// serial order, so the result is bit for bit the same for every
	// Workers. The coordinate steps stay serial. 0 or 1 means serial, at
	// most MaxQPWorkers; a pass of fewer than QPParallelCells rows x
	// machines runs serially, and a solve that small starts no goroutine
	// (the workers live for one solve). With workers the line searches
	// keep up to 2 MiB of saved rows.
	Workers int
}

// QPMaxCostRatio caps the conditioning of the QP: the ratio
// max_j |c_j| / (2 alpha) between the linear and the quadratic terms. In
// the dual the loads are differences of terms of size |c_j|/(2 alpha), so
// their rounding error grows with it (Floor), and beyond about 1e15 no
// price reproduces the loads to a core: coordinate steps and line searches
// then spin until MaxSweeps with no progress (OCORP+ with Alpha = 10 at a
// slot numbered 1.7e9 has costs of 1e23, because mu(t) = t^2.5). When the
// ratio exceeds QPMaxCostRatio, Solve raises alpha to
// alpha_eff = max_j |c_j| / (2 QPMaxCostRatio) (reported in
// QPResult.Alpha): the switching term then weighs at most 1e-8 of the
// linear term per unit of rate, so the optimal objective of (32) changes by
// at most alpha_eff sum_j max(b_j, max_i xbar_ji)^2, a relative 1e-8 of
// its linear part.
const QPMaxCostRatio = 1e8

// qpScaleAbove is the magnitude max(max_j |c_j|, alpha) above which Solve
// works in scaled prices: costs, alpha, nu and tau divided by a power of
// two sigma (exact in floating point), so that the iterates stay far from
// overflow whatever the slot number; results are returned unscaled.
const qpScaleAbove = 1 << 32

// MaxQPWorkers bounds QPSettings.Workers (a larger value is an error
// wrapping ErrSettings).
const MaxQPWorkers = 1024

// MaxQPSweeps bounds QPSettings.MaxSweeps (a larger value is an error
// wrapping ErrSettings): 10^6 sweeps, minutes of one slot's QP.
const MaxQPSweeps = 1_000_000

// QPParallelCells is the size (rows x machines) below which a pass of
// QPSolver runs serially whatever QPSettings.Workers: 30-150 us of work
// (a load pass to a re-projection of the rows), against several
// microseconds to hand a pass to the workers and wait for them.
const QPParallelCells = 1 << 15

// QPResult is the solution of QPSolver.Solve: the rates X and the multipliers.
// Tau and Nu given on entry (with the right lengths) warm-start the solver.
type QPResult struct {
	X        []float64
	Tau, Nu  []float64
	Sweeps   int
	Residual float64
	// Floor is the rounding-error floor of the loads, about 1e-13
	// max_i sum_j d_j (|c_j| + tau_j + d_j nu_i + 2 alpha xbar_ji)/(2 alpha);
	// the solver stops at a residual below max(Tol, Floor).
	Floor float64
	// Alpha is the alpha the solver used: SwitchQP.Alpha, or the larger
	// alpha_eff when max_j |c_j| / (2 alpha) exceeds QPMaxCostRatio.
	Alpha  float64
	Status Status
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
// buffers. Not safe for concurrent use. With QPSettings.Workers > 1 a
// large solve runs its whole-row passes on Workers-1 goroutines of its
// own besides the caller's, started at its beginning and stopped before
// it returns.
type QPSolver struct {
	load, base []float64
	inS        []bool
	comp, size []int
	aff        []int
	scr        []qpScratch // per worker; scr[0] is the caller's
	cnt        []int       // per row: active entries if its sum is binding, else 0
	psum       []float64   // per row: sum of its positive z (valid if cnt == 0)
	th         []float64   // per row: theta = tau_j/(2 alpha) (valid if cnt > 0)
	maxIn      []float64   // per row: an upper bound on its inactive z (valid if cnt > 0)
	efl        []float64   // per machine: the sum behind Floor
	old        []float64   // rowUpdates: the rows of the block before re-projection
	blk        []int       // rowUpdates: the block of qs.aff being re-projected
	inv2a      float64     // 1 / (2 alpha)
	sq         SwitchQP    // the scaled problem (scaled)
	cost       []float64   // its costs

	// The solve in progress, read by the workers (set before they start).
	q          *SwitchQP
	nu, tau, x []float64
	workers    int            // goroutines that share a pass, >= 1
	minCells   int            // QPParallelCells if 0 (tests lower it)
	blockCells int            // qpBlockCells if 0 (tests lower it)
	tasks      chan qpTask    // to the workers; qs.workers-1 are running during a parallel solve
	wg         sync.WaitGroup // the current pass's tasks
}

// qpScratch is a worker's scratch for row.
type qpScratch struct {
	z    []float64 // z of the row being projected
	vals []float64 // its positive z (Michelot's active set)
}

// qpOp names a pass that QPSolver splits across its workers.
type qpOp uint8

const (
	opStop    qpOp = iota // the worker returns
	opRows                // re-project rows from scratch (split by row)
	opLoads               // recompute qs.load (split by machine)
	opFloor               // qs.efl, Floor's per-machine sums (split by machine)
	opProject             // re-project the rows qs.blk, saving them in qs.old (split by row)
	opApply               // update qs.load by the rows qs.blk (split by machine)
)

// qpChunks is the number of parts per worker a pass is split into: the
// workers and the caller take parts as they come, so a worker that the
// operating system holds back delays a pass by one part at most.
const qpChunks = 4

// qpBlockCells bounds the rows x machines of one block of rowUpdates
// (2 MiB of saved rows).
const qpBlockCells = 1 << 18

// qpTask is part k of parts of a pass.
type qpTask struct {
	op       qpOp
	k, parts int
}

// Solve solves q into res (reusing its slices). It returns an error for
// invalid data (NaN, negative demand, alpha <= 0) and panics if the slice
// lengths do not match (n = len(Cost), m = len(Capacity)). Stopping at
// MaxSweeps is not an error: see res.Status (and Status.Err). Any finite
// costs are accepted: above 2^32 the solver works in prices scaled by a
// power of two, and beyond QPMaxCostRatio it raises alpha (res.Alpha). A
// warm start (res.Tau, res.Nu) that is negative, NaN or infinite is
// ignored. An iterate that becomes NaN or infinite (previous rates near
// MaxFloat64 can do it) stops the solve with res.Status = Failure and an
// error wrapping ErrNotConverged. Every loop of the solver is bounded:
// MaxSweeps sweeps, each of at most m coordinate steps and m+1 line
// searches of at most about 2300 evaluations.
func (qs *QPSolver) Solve(res *QPResult, q *SwitchQP, s QPSettings) error {
	return qs.SolveContext(context.Background(), res, q, s)
}

// SolveContext is Solve, checking ctx between sweeps: once ctx is done it
// stops with res.Status = Canceled and returns ctx's error (wrapped with
// ErrNotConverged).
func (qs *QPSolver) SolveContext(ctx context.Context, res *QPResult, q *SwitchQP, s QPSettings) error {
	res.Status = NotTerminated
	n, m := len(q.Cost), len(q.Capacity)
	if len(q.Demand) != n || len(q.Bound) != n || len(q.Prev) != n*m || (q.Block != nil && len(q.Block) != n*m) {
		panic(panicQPLen)
	}
	if !(q.Alpha > 0) || math.IsInf(q.Alpha, 0) {
		return fmt.Errorf("%w: alpha = %v", ErrSettings, q.Alpha)
	}
	if s.Workers < 0 || s.Workers > MaxQPWorkers {
		return fmt.Errorf("%w: Workers = %d, want in [0, MaxQPWorkers = %d]", ErrSettings, s.Workers, MaxQPWorkers)
	}
	if s.MaxSweeps > MaxQPSweeps || math.IsNaN(s.Tol) || math.IsInf(s.Tol, 0) {
		return fmt.Errorf("%w: MaxSweeps = %d (want at most MaxQPSweeps = %d), Tol = %v (want finite)", ErrSettings, s.MaxSweeps, MaxQPSweeps, s.Tol)
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
	for _, v := range res.Tau { // a warm start must be finite and >= 0
		if !(v >= 0) || math.IsInf(v, 0) {
			clear(res.Tau)
			break
		}
	}
	for _, v := range res.Nu {
		if !(v >= 0) || math.IsInf(v, 0) {
			clear(res.Nu)
			break
		}
	}
	q, sigma := qs.scaled(q, res)
	alphaUsed := q.Alpha * sigma
	defer func() {
		if sigma != 1 {
			for j := range res.Tau {
				res.Tau[j] *= sigma
			}
			for i := range res.Nu {
				res.Nu[i] *= sigma
			}
		}
		res.Alpha = alphaUsed
	}()
	res.X = grow(res.X, n*m)
	x := res.X
	a2 := 2 * q.Alpha
	qs.inv2a = 1 / a2
	qs.cnt = grow(qs.cnt, n)
	qs.psum = grow(qs.psum, n)
	qs.th = grow(qs.th, n)
	qs.maxIn = grow(qs.maxIn, n)
	qs.load = grow(qs.load, m)
	qs.efl = grow(qs.efl, m)
	qs.workers = max(1, s.Workers)
	if n*m < qs.parallelCells() {
		qs.workers = 1 // no pass is large enough to split
	}
	qs.scr = grow(qs.scr, qs.workers)
	for k := range qs.scr {
		sc := &qs.scr[k]
		sc.z = grow(sc.z, m)
		if cap(sc.vals) < m {
			sc.vals = make([]float64, 0, m)
		}
	}
	qs.q, qs.nu, qs.tau, qs.x = q, res.Nu, res.Tau, x
	defer qs.stop()
	if qs.workers > 1 {
		if cap(qs.tasks) < qpChunks*qs.workers {
			qs.tasks = make(chan qpTask, qpChunks*qs.workers)
		}
		for w := 1; w < qs.workers; w++ {
			go qs.work(qs.tasks, w)
		}
	}
	qs.rows()
	for sweep := 1; ; sweep++ {
		r := 0.0
		qs.loads() // afresh each sweep, then kept current by rowUpdate
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
		// Re-project every row from scratch once per sweep: the
		// incremental row updates of the coordinate steps (rowUpdateAt)
		// then never accumulate rounding, and x, tau are exactly the
		// projections for the sweep's nu.
		qs.rows()
		qs.loads()
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
		qs.pass(opFloor, m)
		fl := 0.0
		for _, e := range qs.efl {
			fl = math.Max(fl, e/a2)
		}
		res.Floor = 1e-13 * fl
		if !qpFinite(r, res.Floor, res.Nu, res.Tau) {
			res.Status = Failure
			return fmt.Errorf("%w: non-finite iterate after %d sweeps (residual %v)", ErrNotConverged, sweep, r)
		}
		if r <= math.Max(tol, res.Floor) {
			res.Status = Success
			return nil
		}
		if sweep >= maxSweeps {
			res.Status = IterationLimit
			return nil
		}
		if err := ctx.Err(); err != nil {
			res.Status = Canceled
			return fmt.Errorf("%w: after %d sweeps: %w", ErrNotConverged, sweep, err)
		}
	}
}

// scaled returns the problem the solver works on, and the scale sigma of
// its prices: q itself if max(max_j |c_j|, alpha) <= qpScaleAbove and the
// cost ratio is within QPMaxCostRatio; otherwise a copy (in the solver's
// buffers) with alpha raised to alpha_eff and, above qpScaleAbove, costs
// and alpha divided by a power of two sigma, the warm start in res divided
// by sigma too.
func (qs *QPSolver) scaled(q *SwitchQP, res *QPResult) (*SwitchQP, float64) {
	maxc := 0.0
	for _, c := range q.Cost {
		maxc = math.Max(maxc, math.Abs(c))
	}
	alpha := q.Alpha
	if maxc/(2*QPMaxCostRatio) > alpha {
		alpha = maxc / (2 * QPMaxCostRatio)
	}
	big := math.Max(maxc, alpha)
	if alpha == q.Alpha && big <= qpScaleAbove {
		return q, 1
	}
	sigma := 1.0
	if big > qpScaleAbove {
		_, e := math.Frexp(big) // big = f 2^e, f in [0.5, 1)
		sigma = math.Ldexp(1, e-1)
	}
	qs.sq = *q
	qs.cost = grow(qs.cost, len(q.Cost))
	for j, c := range q.Cost {
		qs.cost[j] = c / sigma
	}
	qs.sq.Cost = qs.cost
	qs.sq.Alpha = alpha / sigma
	if sigma != 1 {
		for j := range res.Tau {
			res.Tau[j] /= sigma
		}
		for i := range res.Nu {
			res.Nu[i] /= sigma
		}
	}
	return &qs.sq, sigma
}

// qpFinite reports whether the residual, the floor and every price are
// finite (the NaN/Inf check on each sweep's iterate).
func qpFinite(r, floor float64, nu, tau []float64) bool {
	if math.IsNaN(r) || math.IsInf(r, 0) || math.IsNaN(floor) || math.IsInf(floor, 0) {
		return false
	}
	for _, v := range nu {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	for _, v := range tau {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// row sets tau_j and row j of x to the exact minimiser for the given nu:
// the projection of z_i = xbar_ji - (c_j + d_j nu_i)/(2 alpha) onto
// {x >= 0, sum x <= b_j}. z is computed once per row (with the
// precomputed 1/(2 alpha)); qs.cnt[j] records the active set's size when
// the sum is binding (0 otherwise), which gives the slope of the row in
// nu_i (coordinate's Newton steps).
func (qs *QPSolver) row(q *SwitchQP, j int, nu, tau, x []float64, sc *qpScratch) {
	m := len(q.Capacity)
	inv := qs.inv2a
	cj, dj := q.Cost[j], q.Demand[j]
	prev := q.Prev[j*m : (j+1)*m]
	z := sc.z[:m]
	vals := sc.vals[:0]
	sum := 0.0
	var block []bool
	if q.Block != nil {
		block = q.Block[j*m : (j+1)*m]
	}
	for i := range z {
		v := prev[i] - (cj+dj*nu[i])*inv
		if block != nil && block[i] {
			v = math.Inf(-1)
		}
		z[i] = v
		if v > 0 {
			sum += v
			vals = append(vals, v)
		}
	}
	// Michelot's finite method: theta = (sum of the active z - b)/count,
	// drop the z <= theta, repeat; theta only grows and stops at the root.
	th := 0.0
	qs.cnt[j] = 0
	qs.psum[j] = sum
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
		qs.cnt[j] = len(vals)
	}
	sc.vals = vals[:0]
	tau[j] = 2 * q.Alpha * th
	qs.th[j] = th
	r := x[j*m : (j+1)*m]
	mi := math.Inf(-1)
	for i, v := range z {
		r[i] = max(0, v-th)
		if v <= th {
			mi = max(mi, v)
		}
	}
	qs.maxIn[j] = mi
}

// slopeAt returns d load_i / d nu_i at the current x: each row using
// machine i moves with slope -d_j^2/(2 alpha) times 1 (sum not binding)
// or (cnt-1)/cnt (binding, cnt active entries: tau_j absorbs the rest).
func (qs *QPSolver) slopeAt(q *SwitchQP, i int, x []float64) float64 {
	m := len(q.Capacity)
	s := 0.0
	for _, j := range qs.aff {
		if x[j*m+i] <= 0 {
			continue
		}
		d := q.Demand[j]
		f := 1.0
		if c := qs.cnt[j]; c > 0 {
			f = float64(c-1) / float64(c)
		}
		s -= d * d * qs.inv2a * f
	}
	return s
}

// shift is an exact line search of the dual along u = 1 on
// S = {i : nu_i > 0 or load_i > C_i}: raising every price of S by delta
// while the tau_j absorb it leaves x unchanged for rows with tau_j > 0, so
// the dual is nearly linear along u and coordinate steps crawl. The
// derivative sum_{i in S} (load_i - C_i) is non-increasing in delta; its
// root is bracketed by doubling and found by false position.
func (qs *QPSolver) shift(q *SwitchQP, nu, tau, x []float64, comp []int, c int) {
	m := len(q.Capacity)
	qs.loads()
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
		qs.rowUpdates()
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

// loads recomputes qs.load[i] = sum_j d_j x_ji, summed over j in
// ascending order, by machine across the workers.
func (qs *QPSolver) loads() {
	qs.pass(opLoads, len(qs.load))
}

// parallelCells is the threshold QPParallelCells (or the tests' qs.minCells).
func (qs *QPSolver) parallelCells() int {
	if qs.minCells > 0 {
		return qs.minCells
	}
	return QPParallelCells
}

// rows re-projects every row from scratch (row), by row across the workers.
func (qs *QPSolver) rows() {
	qs.pass(opRows, len(qs.q.Cost))
}

// pass runs op over count rows or machines, split in qpChunks
// contiguous parts per worker that the workers and the caller take from
// qs.tasks as they come; serially with one worker (Workers <= 1 or a
// solve smaller than QPParallelCells). Each part writes its own rows or
// machines only, so which goroutine runs it does not matter.
func (qs *QPSolver) pass(op qpOp, count int) {
	parts := min(qpChunks*qs.workers, count)
	if qs.workers == 1 || parts <= 1 {
		qs.run(qpTask{op, 0, 1}, 0)
		return
	}
	qs.wg.Add(parts)
	for k := range parts {
		qs.tasks <- qpTask{op, k, parts}
	}
	for drained := false; !drained; {
		select {
		case t := <-qs.tasks:
			qs.run(t, 0)
			qs.wg.Done()
		default:
			drained = true
		}
	}
	qs.wg.Wait()
}

// work is worker w's loop, until opStop.
func (qs *QPSolver) work(tasks <-chan qpTask, w int) {
	for t := range tasks {
		if t.op == opStop {
			qs.wg.Done()
			return
		}
		qs.run(t, w)
		qs.wg.Done()
	}
}

// stop ends the workers of the solve (and waits for them: no goroutine
// touches the solver once Solve has returned) and drops the solver's
// references to the caller's data.
func (qs *QPSolver) stop() {
	if qs.workers > 1 {
		qs.wg.Add(qs.workers - 1)
		for range qs.workers - 1 {
			qs.tasks <- qpTask{op: opStop}
		}
		qs.wg.Wait()
	}
	qs.workers = 1
	qs.q, qs.nu, qs.tau, qs.x = nil, nil, nil, nil
	qs.sq = SwitchQP{}
}

// run does part t.k of t.parts of pass t.op, a contiguous range of rows
// or machines, on worker w (w's scratch).
func (qs *QPSolver) run(t qpTask, w int) {
	q, x := qs.q, qs.x
	m := len(q.Capacity)
	switch t.op {
	case opRows:
		lo, hi := part(len(q.Cost), t.k, t.parts)
		sc := &qs.scr[w]
		for j := lo; j < hi; j++ {
			qs.row(q, j, qs.nu, qs.tau, x, sc)
		}
	case opLoads:
		lo, hi := part(m, t.k, t.parts)
		load := qs.load[lo:hi]
		clear(load)
		for j, d := range q.Demand {
			for i, v := range x[j*m+lo : j*m+hi] {
				load[i] += d * v
			}
		}
	case opProject:
		lo, hi := part(len(qs.blk), t.k, t.parts)
		sc := &qs.scr[w]
		for p := lo; p < hi; p++ {
			j := qs.blk[p]
			copy(qs.old[p*m:(p+1)*m], x[j*m:(j+1)*m])
			qs.row(q, j, qs.nu, qs.tau, x, sc)
		}
	case opApply:
		lo, hi := part(m, t.k, t.parts)
		load := qs.load[lo:hi]
		for p, j := range qs.blk {
			d := q.Demand[j]
			old, r := qs.old[p*m+lo:p*m+hi], x[j*m+lo:j*m+hi]
			for i, v := range old {
				if v != 0 {
					load[i] -= d * v
				}
				if v := r[i]; v != 0 {
					load[i] += d * v
				}
			}
		}
	case opFloor:
		// The loads are sums of terms (c_j + tau_j + d_j nu_i)/(2 alpha)
		// that cancel: efl_i = sum_j d_j (|c_j| + tau_j + d_j nu_i +
		// 2 alpha xbar_ji) over the rows using machine i bounds their
		// rounding error.
		lo, hi := part(m, t.k, t.parts)
		e := qs.efl[lo:hi]
		clear(e)
		a2 := 2 * q.Alpha
		for j, d := range q.Demand {
			c, tj := math.Abs(q.Cost[j]), qs.tau[j]
			for i, v := range x[j*m+lo : j*m+hi] {
				if v > 0 {
					e[i] += d * (c + tj + d*qs.nu[lo+i] + a2*q.Prev[j*m+lo+i])
				}
			}
		}
	}
}

// rowUpdates re-projects the rows qs.aff (rowUpdate on each, in order),
// keeping qs.load current. With workers, it goes by blocks of rows: the
// block's rows are saved and re-projected, split by row, then the loads
// updated, split by machine, each machine subtracting the old and adding
// the new value of each row in the order of qs.aff, as rowUpdate does.
func (qs *QPSolver) rowUpdates() {
	q := qs.q
	m := len(q.Capacity)
	if qs.workers == 1 || len(qs.aff)*m < qs.parallelCells() {
		for _, j := range qs.aff {
			qs.rowUpdate(q, j, qs.nu, qs.tau, qs.x)
		}
		return
	}
	cells := qpBlockCells
	if qs.blockCells > 0 {
		cells = qs.blockCells
	}
	rows := max(1, cells/m)
	qs.old = grow(qs.old, min(rows, len(qs.aff))*m)
	for b := 0; b < len(qs.aff); b += rows {
		qs.blk = qs.aff[b:min(b+rows, len(qs.aff))]
		qs.pass(opProject, len(qs.blk))
		qs.pass(opApply, m)
	}
	qs.blk = nil
}

// part returns the k-th of parts contiguous ranges of [0, n).
func part(n, k, parts int) (lo, hi int) {
	return k * n / parts, (k + 1) * n / parts
}

// rowUpdateAt is rowUpdate after a change of nu_i alone, exact on the
// row's current linear piece: a row whose sum is not binding and stays so
// only changes x_ji (O(1)); a binding row on which i is inactive and stays
// so does not change (O(1)); a binding row on which i is active and whose
// active set does not change shifts its active entries by the change of
// theta, (z_ji' - z_ji)/cnt (O(m), no projection). Any other row is
// re-projected.
func (qs *QPSolver) rowUpdateAt(q *SwitchQP, j, i int, nu, tau, x []float64) {
	m := len(q.Capacity)
	if c := qs.cnt[j]; c > 0 && (q.Block == nil || !q.Block[j*m+i]) {
		e := j*m + i
		th := qs.th[j]
		zn := q.Prev[e] - (q.Cost[j]+q.Demand[j]*nu[i])*qs.inv2a
		if x[e] == 0 {
			if zn <= th {
				qs.maxIn[j] = max(qs.maxIn[j], zn)
				return
			}
		} else if thn := th + (zn-(x[e]+th))/float64(c); thn > 0 && zn > thn && qs.maxIn[j] <= thn {
			r := x[j*m : (j+1)*m]
			dth := thn - th
			ok := true
			if dth > 0 {
				for k, v := range r {
					if k != i && v > 0 && v <= dth {
						ok = false
						break
					}
				}
			}
			if ok {
				d := q.Demand[j]
				for k, v := range r {
					if v > 0 {
						nv := v - dth
						if k == i {
							nv = zn - thn
						}
						r[k] = nv
						qs.load[k] += d * (nv - v)
					}
				}
				qs.th[j] = thn
				tau[j] = 2 * q.Alpha * thn
				return
			}
		}
	}
	if qs.cnt[j] == 0 && (q.Block == nil || !q.Block[j*m+i]) {
		e := j*m + i
		z := q.Prev[e] - (q.Cost[j]+q.Demand[j]*nu[i])*qs.inv2a
		old := x[e]
		if ns := qs.psum[j] - old + max(0, z); ns <= q.Bound[j] {
			x[e] = max(0, z)
			qs.psum[j] = ns
			qs.load[i] += q.Demand[j] * (x[e] - old)
			return
		}
	}
	qs.rowUpdate(q, j, nu, tau, x)
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
	qs.row(q, j, nu, tau, x, &qs.scr[0])
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
// qpMaxDoublings bounds a bracketing search: 1e-12 doubled 1100 times
// exceeds MaxFloat64.
const qpMaxDoublings = 1100

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func (qs *QPSolver) coordinate(q *SwitchQP, i int, nu, tau, x []float64, tol float64) {
	C := q.Capacity[i]
	f := func(v float64) float64 {
		nu[i] = v
		for _, j := range qs.aff {
			qs.rowUpdateAt(q, j, i, nu, tau, x)
		}
		return qs.load[i] - C
	}
	cur := nu[i]
	qs.affected(q, i, cur, tau, x)
	// The rows are the projections for the current prices and qs.load is
	// kept current (recomputed each sweep, then by rowUpdate*): the load
	// at cur needs no second evaluation, which would re-walk every
	// affected row (about 40 % of the rows a coordinate step visits).
	fc := qs.load[i] - C
	// Exact steps on the piecewise-linear load: a Newton step along the
	// current linear piece (slopeAt) lands on the root unless a row
	// changes its active set on the way; a few steps, kept inside the
	// bracket they build, usually finish the coordinate, and the
	// false-position search below takes over otherwise.
	if lo, hi, low := 0.0, math.Inf(1), cur; fc > tol/4 || (fc < -tol/4 && cur > 0) {
		if fc > 0 {
			lo = cur
		} else {
			hi = cur
		}
		v, fv := cur, fc
		for it := 0; it < 8; it++ {
			sl := qs.slopeAt(q, i, x)
			if sl >= 0 {
				break
			}
			nv := v - fv/sl
			if nv <= lo || nv >= hi {
				if fv < 0 && lo == 0 && nv <= 0 {
					nv = 0
				} else {
					break
				}
			}
			if nv < low {
				low = nv
				qs.affected(q, i, low, tau, x)
			}
			v, fv = nv, f(nv)
			if fv > 0 {
				lo = v
			} else {
				hi = v
			}
			if math.Abs(fv) <= tol/4 || (v == 0 && fv <= 0) {
				return
			}
		}
		cur, fc = v, fv
		qs.affected(q, i, min(cur, low), tau, x)
	}
	// A first step from the slope bound |dload_i/dnu_i| <= sum_j d_j^2/(2 alpha)
	// over the rows on machine i, then doubling: the bracket stays near the
	// current price, so few rows need re-projecting.
	if !finite(cur) || !finite(fc) {
		// A non-finite price or load (demands near sqrt(MaxFloat64) make
		// the slopes overflow): leave it to the sweep's finiteness check,
		// which stops the solve with Failure. Bracketing from NaN would
		// never end (issue 30: Demand {1e154, 2}, Prev {1, 0, 0, 0}).
		return
	}
	m := len(q.Capacity)
	slope := 0.0
	for _, j := range qs.aff {
		if x[j*m+i] > 0 {
			slope += q.Demand[j] * q.Demand[j] * qs.inv2a
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
		// step >= 1e-12 doubles past any finite cur in at most
		// qpMaxDoublings steps; a NaN ends the search at once.
		for k := 0; ; k++ {
			lo = math.Max(cur-step, 0)
			if math.IsNaN(lo) || k > qpMaxDoublings {
				return
			}
			qs.affected(q, i, lo, tau, x)
			flo = f(lo)
			if flo > 0 {
				break
			}
			if lo == 0 || math.IsNaN(flo) {
				return // nu_i = 0 fits, or the load is not a number
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
