package simplex

import (
	"math"

	"gonum.org/v1/gonum/floats"
)

// Status is the outcome of a Solve.
type Status int

const (
	// NotTerminated: not solved yet.
	NotTerminated Status = iota
	// Optimal: the basis is optimal within the tolerances.
	Optimal
	// Infeasible: phase 1 ended with artificials above FeasTol.
	Infeasible
	// Unbounded: a column improves the objective without limit.
	Unbounded
	// IterationLimit: Solve's pivot budget ran out first.
	IterationLimit
	// Singular: the basis could not be inverted (numerical failure).
	Singular
)

var statusNames = [...]string{"NotTerminated", "Optimal", "Infeasible", "Unbounded", "IterationLimit", "Singular"}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return "Status(?)"
}

const (
	// FeasTol is the primal feasibility tolerance (absolute).
	FeasTol = 1e-9
	// OptTol is the reduced-cost tolerance (absolute).
	OptTol = 1e-9
	// dualTol is the reduced-cost tolerance of the dual simplex's start
	// (a basis optimal within OptTol whose duals are recomputed after an
	// inversion may miss OptTol by rounding; the dual simplex treats a
	// wrong sign within dualTol as zero, and the primal simplex that
	// follows it restores OptTol).
	dualTol = 1e-7
	// pivTol is the smallest pivot the ratio test accepts.
	pivTol = 1e-9
	// reinvertEvery pivots, the inverse is recomputed.
	reinvertEvery = 256
	// stallMax degenerate pivots in a row switch to Bland's rule.
	stallMax = 50
)

const (
	atLower = iota
	atUpper
	basic
)

// variable ids: j >= 0 a column, -1-i the slack of row i, -1-m-i its
// artificial.

// LP is a linear program max c'x s.t. A x <= b, lo <= x <= up, held with
// its last basis. The zero value is not usable: build one with New.
type LP struct {
	m    int
	b    []float64
	cs   []int // per column: first entry in row/val; len n+1
	row  []int
	val  []float64
	c    []float64
	lo   []float64
	up   []float64
	cst  []int8 // per column: atLower, atUpper or basic
	sst  []int8 // per row: its slack's state (atLower or basic)
	head []int  // per basis position: the basic variable's id
	xb   []float64
	binv []float64 // m x m, row-major
	// a valid basis is held (head, binv, xb consistent with the bounds);
	// dirty: bounds changed since xb was computed
	ready, dirty bool
	// needDual: the basis is primal infeasible and dual feasible (the
	// dual simplex runs first); singular: the last inversion failed
	needDual, singular bool
	// artificials still basic (phase 2 keeps them at zero)
	art    int
	pivots int // since the last inversion
	// blandAlways prices by Bland's rule from the first pivot, and
	// reinvertEach inverts the basis anew after every pivot (tests)
	blandAlways, reinvertEach bool
	status                    Status
	iters                     int

	// scratch
	pi, alpha, bmat, r []float64
	cand               []int // the dual ratio test's candidates
	order, pivRow      []int // reinvert's column order and pivot rows
	used               []bool
	ca, cd             []float64
	phase1             bool
}

// New returns an LP with len(b) rows and no column. It copies b.
func New(b []float64) *LP {
	p := new(LP)
	p.Reset(b)
	return p
}

// Reset makes p an LP with len(b) rows and no column, reusing its memory.
func (p *LP) Reset(b []float64) {
	for i, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			panic("simplex: b[" + itoa(i) + "] not finite")
		}
	}
	m := len(b)
	p.m = m
	p.b = append(p.b[:0], b...)
	p.cs = append(p.cs[:0], 0)
	p.row, p.val = p.row[:0], p.val[:0]
	p.c, p.lo, p.up, p.cst = p.c[:0], p.lo[:0], p.up[:0], p.cst[:0]
	p.sst = grow(p.sst, m)
	p.head = grow(p.head, m)
	p.xb, p.binv = grow(p.xb, m), grow(p.binv, m*m)
	p.pi, p.alpha, p.r = grow(p.pi, m), grow(p.alpha, m), grow(p.r, m)
	p.ready, p.dirty, p.art, p.pivots, p.status, p.iters = false, false, 0, 0, NotTerminated, 0
	p.needDual, p.singular = false, false
}

// Bounds returns column j's bounds.
func (p *LP) Bounds(j int) (lo, up float64) { return p.lo[j], p.up[j] }

// Status returns the last Solve's status.
func (p *LP) Status() Status { return p.status }

// grow returns b resized to n, reallocated when too small.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// NumRows returns m.
func (p *LP) NumRows() int { return p.m }

// NumCols returns the number of columns.
func (p *LP) NumCols() int { return len(p.c) }

// Iterations returns the pivots and bound flips of the last Solve.
func (p *LP) Iterations() int { return p.iters }

// AddColumn appends a column with cost c, bounds [lo, up] and the
// nonzeros vals at rows, and returns its index. It is nonbasic at lo.
func (p *LP) AddColumn(c, lo, up float64, rows []int, vals []float64) int {
	if len(rows) != len(vals) {
		panic("simplex: len(rows) != len(vals)")
	}
	checkBounds(lo, up)
	if math.IsNaN(c) || math.IsInf(c, 0) {
		panic("simplex: cost not finite")
	}
	for t, i := range rows {
		if i < 0 || i >= p.m {
			panic("simplex: row " + itoa(i) + " out of range")
		}
		if v := vals[t]; math.IsNaN(v) || math.IsInf(v, 0) {
			panic("simplex: coefficient not finite")
		}
	}
	p.row = append(p.row, rows...)
	p.val = append(p.val, vals...)
	p.cs = append(p.cs, len(p.row))
	p.c = append(p.c, c)
	p.lo = append(p.lo, lo)
	p.up = append(p.up, up)
	p.cst = append(p.cst, atLower)
	if lo != 0 {
		p.dirty = true
	}
	return len(p.c) - 1
}

// SetBounds sets column j's bounds. A basis that is no longer primal
// feasible is dropped: the next Solve starts from a slack basis.
func (p *LP) SetBounds(j int, lo, up float64) {
	checkBounds(lo, up)
	// a nonbasic column keeps its value when a new bound has it: the
	// basis then stays primal feasible
	v := p.nbValue(j)
	p.lo[j], p.up[j] = lo, up
	if p.cst[j] != basic {
		if v == up {
			p.cst[j] = atUpper
		} else {
			p.cst[j] = atLower
		}
	}
	p.dirty = true
}

func checkBounds(lo, up float64) {
	if math.IsNaN(lo) || math.IsInf(lo, 0) || math.IsNaN(up) || math.IsInf(up, -1) || lo > up {
		panic("simplex: bad bounds")
	}
}

// value of nonbasic column j
func (p *LP) nbValue(j int) float64 {
	if p.cst[j] == atUpper {
		return p.up[j]
	}
	return p.lo[j]
}

// crash sets the slack/artificial basis with every column at its lower
// bound.
func (p *LP) crash() {
	m := p.m
	copy(p.r, p.b)
	for j := range p.c {
		p.cst[j] = atLower
		if x := p.lo[j]; x != 0 {
			for t := p.cs[j]; t < p.cs[j+1]; t++ {
				p.r[p.row[t]] -= p.val[t] * x
			}
		}
	}
	clear(p.binv)
	p.art = 0
	for i := 0; i < m; i++ {
		p.sst[i] = basic
		if p.r[i] >= -FeasTol {
			p.head[i] = -1 - i
			p.binv[i*m+i] = 1
			p.xb[i] = max(p.r[i], 0)
		} else {
			p.sst[i] = atLower
			p.head[i] = -1 - m - i
			p.binv[i*m+i] = -1
			p.xb[i] = -p.r[i]
			p.art++
		}
	}
	p.pivots = 0
	p.ready, p.dirty, p.needDual = true, false, false
}

// refresh recomputes the basic values from the held inverse (reinverted
// first when pivots have accumulated); it reports whether they are within
// their bounds.
func (p *LP) refresh() bool {
	p.singular = false
	if p.pivots >= p.reinvertAt() {
		if !p.reinvert() {
			p.singular = true
			return false
		}
	} else {
		p.basicValues()
	}
	p.dirty = false
	for k, v := range p.head {
		lo, up := p.bounds(v)
		if p.xb[k] < lo-FeasTol || p.xb[k] > up+FeasTol {
			return false
		}
	}
	return true
}

// bounds of variable v in the current phase
func (p *LP) bounds(v int) (float64, float64) {
	switch {
	case v >= 0:
		return p.lo[v], p.up[v]
	case v >= -p.m:
		return 0, math.Inf(1)
	case p.phase1:
		return 0, math.Inf(1)
	default:
		return 0, 0
	}
}

// column of variable v into the dense vector dst (cleared first)
func (p *LP) dense(dst []float64, v int) {
	clear(dst)
	switch {
	case v >= 0:
		for t := p.cs[v]; t < p.cs[v+1]; t++ {
			dst[p.row[t]] += p.val[t]
		}
	case v >= -p.m:
		dst[-1-v] = 1
	default:
		dst[-1-p.m-v] = -1
	}
}

// reinvert recomputes binv from the basis columns and xb from the
// nonbasic values. It reports false if the basis is singular.
func (p *LP) reinvert() bool {
	m := p.m
	if cap(p.bmat) < m*m {
		p.bmat = make([]float64, m*m)
	}
	B := p.bmat[:m*m]
	// B column k = the basic variable's column; build B^T row-wise for
	// contiguous writes, then invert B by Gauss-Jordan on [B | I].
	col := p.alpha
	for k, v := range p.head {
		p.dense(col, v)
		for i := 0; i < m; i++ {
			B[i*m+k] = col[i]
		}
	}
	inv := p.binv
	clear(inv)
	for i := 0; i < m; i++ {
		inv[i*m+i] = 1
	}
	// Gauss-Jordan on [B | I], the slack and artificial columns (unit
	// vectors: no elimination, no fill) first, then the columns, each
	// pivoting on the unused row of its largest entry; row pivRow[k]
	// ends holding row k of B^-1
	p.order = p.order[:0]
	for k, v := range p.head {
		if v < 0 {
			p.order = append(p.order, k)
		}
	}
	for k, v := range p.head {
		if v >= 0 {
			p.order = append(p.order, k)
		}
	}
	p.pivRow = grow(p.pivRow, m)
	p.used = grow(p.used, m)
	clear(p.used)
	for _, k := range p.order {
		piv, best := -1, 0.0
		for i := 0; i < m; i++ {
			if a := math.Abs(B[i*m+k]); !p.used[i] && a > best {
				piv, best = i, a
			}
		}
		if piv < 0 || best < 1e-11 {
			return false
		}
		p.used[piv] = true
		p.pivRow[k] = piv
		prow, irow := B[piv*m:(piv+1)*m], inv[piv*m:(piv+1)*m]
		if d := prow[k]; d != 1 {
			floats.Scale(1/d, prow)
			floats.Scale(1/d, irow)
		}
		for i := 0; i < m; i++ {
			if i == piv {
				continue
			}
			if f := B[i*m+k]; f != 0 {
				floats.AddScaled(B[i*m:(i+1)*m], -f, prow)
				floats.AddScaled(inv[i*m:(i+1)*m], -f, irow)
			}
		}
	}
	// rows into basis order: binv[k] = inv[pivRow[k]], cycle by cycle
	// with one spare row (used now marks the rows placed)
	clear(p.used)
	tmp := p.alpha
	for k0 := 0; k0 < m; k0++ {
		if p.used[k0] || p.pivRow[k0] == k0 {
			continue
		}
		copy(tmp, inv[k0*m:(k0+1)*m])
		k := k0
		for {
			p.used[k] = true
			src := p.pivRow[k]
			if src == k0 {
				copy(inv[k*m:(k+1)*m], tmp)
				break
			}
			copy(inv[k*m:(k+1)*m], inv[src*m:(src+1)*m])
			k = src
		}
	}
	p.basicValues()
	p.pivots = 0
	return true
}

// basicValues sets xb = B^-1 (b - N x_N).
func (p *LP) basicValues() {
	m := p.m
	inv := p.binv
	copy(p.r, p.b)
	for j := range p.c {
		if p.cst[j] == basic {
			continue
		}
		if x := p.nbValue(j); x != 0 {
			for t := p.cs[j]; t < p.cs[j+1]; t++ {
				p.r[p.row[t]] -= p.val[t] * x
			}
		}
	}
	for i := 0; i < m; i++ {
		p.xb[i] = floats.Dot(inv[i*m:(i+1)*m], p.r)
	}
}

// reinvertAt is the pivots between inversions (1 in the tests that
// check the inversion itself).
func (p *LP) reinvertAt() int {
	if p.reinvertEach {
		return 1
	}
	return reinvertEvery
}

// Solve runs the simplex method from the held basis (or a slack basis)
// for at most maxIter pivots and bound flips, and returns its status.
func (p *LP) Solve(maxIter int) Status {
	p.iters = 0
	if p.ready && p.dirty {
		if p.refresh() {
			p.needDual = false
		} else {
			// primal infeasible after a bounds change: the dual simplex
			// when the basis is still dual feasible, else a slack basis
			p.needDual = !p.singular && p.dualFeasible()
			p.ready = p.needDual
		}
	}
	if !p.ready {
		p.crash()
	}
	if p.needDual {
		// an Infeasible or IterationLimit keeps the basis (dual
		// feasible) for the next Solve
		st := p.dual(maxIter)
		if st != Optimal {
			if st == Singular {
				p.needDual, p.ready = false, false
			}
			p.status = st
			return st
		}
		p.needDual = false
	}
	if p.art > 0 {
		p.phase1 = true
		st := p.run(maxIter)
		p.phase1 = false
		if st != Optimal {
			p.status = st
			return st
		}
		sum := 0.0
		for k, v := range p.head {
			if v < -p.m {
				sum += p.xb[k]
			}
		}
		if sum > FeasTol*float64(max(1, p.art)) {
			p.status = Infeasible
			return Infeasible
		}
	}
	p.status = p.run(maxIter - p.iters)
	return p.status
}

// costOf returns the current phase's cost of variable v.
func (p *LP) costOf(v int) float64 {
	if p.phase1 {
		if v < -p.m {
			return -1
		}
		return 0
	}
	if v >= 0 {
		return p.c[v]
	}
	return 0
}

// iterationStart begins an iteration of the primal or the dual loop: it
// stops at maxIter iterations, and re-inverts the basis (the duals
// recomputed with it) once pivots have accumulated, stopping when it is
// singular.
func (p *LP) iterationStart(maxIter int) (Status, bool) {
	if p.iters >= maxIter {
		return IterationLimit, true
	}
	if p.pivots >= p.reinvertAt() {
		if !p.reinvert() {
			return Singular, true
		}
		p.duals()
	}
	return 0, false
}

// run is the simplex loop of one phase.
func (p *LP) run(maxIter int) Status {
	stall := 0
	bland := false
	p.duals()
	for {
		if st, stop := p.iterationStart(maxIter); stop {
			return st
		}
		// pricing
		q, dq := p.price(bland || p.blandAlways)
		if q == math.MinInt {
			return Optimal
		}
		dir := 1.0
		if dq < 0 {
			dir = -1
		}
		// alpha = B^-1 a_q
		p.ftran(q)
		// ratio test (Harris; Bland's smallest index among the ties)
		theta, r := p.ratio(dir, bland || p.blandAlways)
		var span float64
		if q >= 0 {
			span = p.up[q] - p.lo[q]
		} else {
			span = math.Inf(1)
		}
		if r < 0 && math.IsInf(span, 1) {
			return Unbounded
		}
		p.iters++
		if r < 0 || span <= theta {
			// bound flip of column q (slacks have no upper bound)
			theta = span
			for k := range p.xb {
				p.xb[k] -= dir * theta * p.alpha[k]
			}
			if p.cst[q] == atLower {
				p.cst[q] = atUpper
			} else {
				p.cst[q] = atLower
			}
			stall = 0
			bland = false
			continue
		}
		if theta*math.Abs(dq) <= 1e-12 {
			if stall++; stall >= stallMax {
				bland = true
			}
		} else {
			stall = 0
			bland = false
		}
		// the leaving variable goes to the bound it reached
		_, up := p.bounds(p.head[r])
		p.exchange(r, q, dir*theta, dq, dir*p.alpha[r] < 0 && !math.IsInf(up, 1))
	}
}

// exchange moves the entering variable q by t (the basic values with
// it), takes it into the basis at position r in place of the leaving
// variable, which goes to its upper bound when toUpper (else its lower;
// an artificial leaves for good), updates the inverse, and the duals by
// d_q (q's reduced cost) times row r of the new inverse (exact again at
// the next inversion).
func (p *LP) exchange(r, q int, t, dq float64, toUpper bool) {
	m := p.m
	var xq float64
	if q >= 0 {
		xq = p.nbValue(q)
	}
	for k := range p.xb {
		p.xb[k] -= t * p.alpha[k]
	}
	switch lv := p.head[r]; {
	case lv >= 0:
		if toUpper {
			p.cst[lv] = atUpper
		} else {
			p.cst[lv] = atLower
		}
	case lv >= -m:
		p.sst[-1-lv] = atLower
	default:
		p.art--
	}
	p.head[r] = q
	if q >= 0 {
		p.cst[q] = basic
	} else {
		p.sst[-1-q] = basic
	}
	p.xb[r] = xq + t
	p.pivot(r)
	floats.AddScaled(p.pi, dq, p.binv[r*m:(r+1)*m])
}

// duals sets p.pi = c_B' B^-1 for the current phase's costs.
func (p *LP) duals() {
	m := p.m
	clear(p.pi)
	for k, v := range p.head {
		if c := p.costOf(v); c != 0 {
			floats.AddScaled(p.pi, c, p.binv[k*m:(k+1)*m])
		}
	}
}

// dualFeasible reports whether every nonbasic variable's reduced cost
// has the sign of its bound (phase 2's costs).
func (p *LP) dualFeasible() bool {
	p.duals()
	for j := range p.c {
		if _, ok := p.improving(j, dualTol); ok {
			return false
		}
	}
	for i := 0; i < p.m; i++ {
		if p.sst[i] != basic && -p.pi[i] > dualTol {
			return false
		}
	}
	return true
}

// dual is the dual simplex method from a dual feasible basis: the basic
// variable farthest outside its bounds leaves at the bound it violates,
// the entering variable keeps the reduced costs' signs (the smallest
// ratio |d_j| / |alpha_rj|, Harris's two passes with tolerance OptTol).
// It returns Optimal once the basis is primal feasible, Infeasible when
// no variable can enter (the dual is unbounded).
func (p *LP) dual(maxIter int) Status {
	m := p.m
	p.duals()
	for {
		if st, stop := p.iterationStart(maxIter); stop {
			return st
		}
		r, worst, toLower := -1, FeasTol, false
		for k, v := range p.head {
			lo, up := p.bounds(v)
			if d := lo - p.xb[k]; d > worst {
				r, worst, toLower = k, d, true
			} else if d := p.xb[k] - up; d > worst {
				r, worst, toLower = k, d, false
			}
		}
		if r < 0 {
			return Optimal
		}
		rho := p.binv[r*m : (r+1)*m]
		// the pivot row's entry and the reduced cost of variable v,
		// and whether it may enter
		elig := func(v int) (float64, float64, bool) {
			var a, d float64
			var st int8
			if v >= 0 {
				st = p.cst[v]
				if st == basic || p.lo[v] == p.up[v] {
					return 0, 0, false
				}
				d = p.c[v]
				for t := p.cs[v]; t < p.cs[v+1]; t++ {
					a += rho[p.row[t]] * p.val[t]
					d -= p.pi[p.row[t]] * p.val[t]
				}
			} else {
				i := -1 - v
				if p.sst[i] == basic {
					return 0, 0, false
				}
				st, a, d = atLower, rho[i], -p.pi[i]
			}
			up := st == atUpper
			switch {
			case toLower && (!up && a < -pivTol || up && a > pivTol):
			case !toLower && (!up && a > pivTol || up && a < -pivTol):
			default:
				return 0, 0, false
			}
			return a, d, true
		}
		// the eligible variables, their pivot-row entries and reduced
		// costs (computed once for both passes)
		tmax := math.Inf(1)
		n := len(p.c)
		p.cand, p.ca, p.cd = p.cand[:0], p.ca[:0], p.cd[:0]
		for v := -m; v < n; v++ {
			if a, d, ok := elig(v); ok {
				tmax = min(tmax, (math.Abs(d)+OptTol)/math.Abs(a))
				p.cand, p.ca, p.cd = append(p.cand, v), append(p.ca, a), append(p.cd, d)
			}
		}
		if math.IsInf(tmax, 1) {
			return Infeasible
		}
		q, best, dq := math.MinInt, 0.0, 0.0
		for t, v := range p.cand {
			if a, d := p.ca[t], p.cd[t]; math.Abs(d)/math.Abs(a) <= tmax && math.Abs(a) > best {
				q, best, dq = v, math.Abs(a), d
			}
		}
		p.ftran(q)
		if math.Abs(p.alpha[r]) <= pivTol {
			return Singular
		}
		lv := p.head[r]
		lo, up := p.bounds(lv)
		bound := up
		if toLower {
			bound = lo
		}
		p.iters++
		p.exchange(r, q, (p.xb[r]-bound)/p.alpha[r], dq, !toLower)
	}
}

// improving returns column j's reduced cost and whether it may enter:
// nonbasic, not fixed, its reduced cost above tol at its lower bound or
// below -tol at its upper.
func (p *LP) improving(j int, tol float64) (float64, bool) {
	st := p.cst[j]
	if st == basic || p.lo[j] == p.up[j] {
		return 0, false
	}
	d := p.costOf(j)
	for t := p.cs[j]; t < p.cs[j+1]; t++ {
		d -= p.pi[p.row[t]] * p.val[t]
	}
	return d, st == atLower && d > tol || st == atUpper && d < -tol
}

// price returns the entering variable and its reduced cost, or
// math.MinInt when the basis is optimal: the largest reduced cost
// (Dantzig), or with Bland's rule the first eligible variable (columns,
// then slacks).
func (p *LP) price(bland bool) (int, float64) {
	best, bestD := math.MinInt, 0.0
	for j := range p.c {
		if d, ok := p.improving(j, OptTol); ok {
			if bland {
				return j, d
			}
			if math.Abs(d) > math.Abs(bestD) {
				best, bestD = j, d
			}
		}
	}
	for i := 0; i < p.m; i++ {
		if p.sst[i] == basic {
			continue
		}
		if d := -p.pi[i]; d > OptTol {
			if bland {
				return -1 - i, d
			}
			if d > math.Abs(bestD) {
				best, bestD = -1-i, d
			}
		}
	}
	return best, bestD
}

// ftran sets alpha = B^-1 a_v.
func (p *LP) ftran(v int) {
	m := p.m
	if v < 0 {
		i := -1 - v
		for k := 0; k < m; k++ {
			p.alpha[k] = p.binv[k*m+i]
		}
		return
	}
	lo, hi := p.cs[v], p.cs[v+1]
	for k := 0; k < m; k++ {
		row := p.binv[k*m : (k+1)*m]
		s := 0.0
		for t := lo; t < hi; t++ {
			s += row[p.row[t]] * p.val[t]
		}
		p.alpha[k] = s
	}
}

// ratio is Harris's two-pass ratio test for a step in direction dir of
// the entering variable: it returns the step and the leaving position (-1
// when no basic variable limits the step).
func (p *LP) ratio(dir float64, bland bool) (float64, int) {
	if bland {
		return p.ratioBland(dir)
	}
	tmax := math.Inf(1)
	for k, v := range p.head {
		a := dir * p.alpha[k]
		if math.Abs(a) <= pivTol {
			continue
		}
		if t, ok := p.step(k, v, a, FeasTol); ok {
			tmax = min(tmax, t)
		}
	}
	if math.IsInf(tmax, 1) {
		return tmax, -1
	}
	r, best, theta := -1, 0.0, 0.0
	for k, v := range p.head {
		a := dir * p.alpha[k]
		if math.Abs(a) <= pivTol {
			continue
		}
		if t, ok := p.step(k, v, a, 0); ok && t <= tmax && math.Abs(a) > best {
			r, best, theta = k, math.Abs(a), max(t, 0)
		}
	}
	return theta, r
}

// step returns the step after which basic variable v (at position k),
// moving by -a per unit step, reaches its bound widened by tol, and false
// when it has none that way.
func (p *LP) step(k, v int, a, tol float64) (float64, bool) {
	lo, up := p.bounds(v)
	if a > 0 {
		return (p.xb[k] - lo + tol) / a, true
	}
	if math.IsInf(up, 1) {
		return 0, false
	}
	return (p.xb[k] - up - tol) / a, true
}

// ratioBland is the exact ratio test with Bland's rule: among the basic
// variables that reach a bound first, the one of the smallest index
// (columns, then slacks, then artificials, as price orders them), which
// with Bland's entering rule cannot cycle.
func (p *LP) ratioBland(dir float64) (float64, int) {
	tmin, r, key := math.Inf(1), -1, math.MaxInt
	n := len(p.c)
	for k, v := range p.head {
		a := dir * p.alpha[k]
		if math.Abs(a) <= pivTol {
			continue
		}
		t, ok := p.step(k, v, a, 0)
		if !ok {
			continue
		}
		t = max(t, 0)
		kv := v
		if v < 0 {
			kv = n - 1 - v // slack i: n+i, artificial i: n+m+i
		}
		switch {
		case t < tmin-1e-12:
			tmin, r, key = t, k, kv
		case t <= tmin+1e-12 && kv < key:
			r, key = k, kv
			tmin = min(tmin, t)
		}
	}
	return tmin, r
}

// pivot updates binv for the entering column alpha at position r.
func (p *LP) pivot(r int) {
	m := p.m
	prow := p.binv[r*m : (r+1)*m]
	floats.Scale(1/p.alpha[r], prow)
	for k := 0; k < m; k++ {
		if k == r {
			continue
		}
		if a := p.alpha[k]; a != 0 {
			floats.AddScaled(p.binv[k*m:(k+1)*m], -a, prow)
		}
	}
	p.pivots++
}

// Objective returns c'x at the held basis.
func (p *LP) Objective() float64 {
	z := 0.0
	for j := range p.c {
		if p.cst[j] != basic {
			z += p.c[j] * p.nbValue(j)
		}
	}
	for k, v := range p.head {
		if v >= 0 {
			z += p.c[v] * p.xb[k]
		}
	}
	return z
}

// X returns the columns' values in dst (grown to NumCols).
func (p *LP) X(dst []float64) []float64 {
	n := len(p.c)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	for j := range p.c {
		if p.cst[j] != basic {
			dst[j] = p.nbValue(j)
		}
	}
	for k, v := range p.head {
		if v >= 0 {
			dst[v] = p.xb[k]
		}
	}
	return dst
}

// Duals returns the rows' dual values c_B' B^-1 in dst (grown to
// NumRows): at an optimal basis, pi >= 0 (rows A x <= b of a maximum).
func (p *LP) Duals(dst []float64) []float64 {
	m := p.m
	if cap(dst) < m {
		dst = make([]float64, m)
	}
	dst = dst[:m]
	clear(dst)
	for k, v := range p.head {
		if v >= 0 && p.c[v] != 0 {
			floats.AddScaled(dst, p.c[v], p.binv[k*m:(k+1)*m])
		}
	}
	return dst
}

func itoa(i int) string {
	if i == 0 {
		return "0"
	}
	neg := i < 0
	if neg {
		i = -i
	}
	var b [20]byte
	n := len(b)
	for i > 0 {
		n--
		b[n] = byte('0' + i%10)
		i /= 10
	}
	if neg {
		n--
		b[n] = '-'
	}
	return string(b[n:])
}
