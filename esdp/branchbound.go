package esdp

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/msched/msched/internal/checked"
)

// KnapsackMethod selects the algorithm of Oracle.SolveKnapsack.
type KnapsackMethod int

const (
	// KnapsackAuto, the zero value, runs the dynamic program when its
	// capacity boxes are small (at most AutoDPCells cells) and branch and
	// bound otherwise; when branch and bound exhausts OracleSettings.MaxNodes it
	// falls back to the dynamic program.
	KnapsackAuto KnapsackMethod = iota
	// KnapsackDP is the dynamic program of Algorithm 2 without budgets
	// (exact; memory bounded by OracleSettings.MaxBytes).
	KnapsackDP
	// KnapsackBranchBound is depth-first branch and bound with the
	// Lagrangian (LP-dual) surrogate bound and a density-greedy first dive
	// (exact unless OracleSettings.MaxNodes runs out; no table, so any integer
	// sizes are fine).
	KnapsackBranchBound
)

var knapsackMethodNames = [...]string{KnapsackAuto: "auto", KnapsackDP: "dp", KnapsackBranchBound: "branch-and-bound"}

func (m KnapsackMethod) String() string {
	if m >= 0 && int(m) < len(knapsackMethodNames) {
		return knapsackMethodNames[m]
	}
	return fmt.Sprintf("KnapsackMethod(%d)", int(m))
}

// DefaultMaxNodes is the node budget of branch and bound when
// OracleSettings.MaxNodes is 0.
const DefaultMaxNodes = 1 << 20

// AutoDPCells is the size of the dynamic program's capacity boxes,
// sum_i prod_k (min(c_k, remaining demand) + 1) over the items, up to which
// KnapsackAuto runs the dynamic program directly. Below it both methods
// take a few microseconds (BenchmarkKnapsackTable2: 10 us DP vs 7 us
// branch and bound at |E| = 35 under Table 2 capacities); the DP keeps
// Algorithm 2's tie rule there, so small problems give the same solution as
// before branch and bound existed.
const AutoDPCells = 4096

// bbState holds the buffers of branch and bound, reused between calls.
type bbState struct {
	cand  []int32   // candidate items (positions in o.items), in search order
	sw    []float64 // surrogate weight mu . a, indexed by item
	swo   []float64 // surrogate weights in search order
	ps    []float64 // prefix sums of sw
	pv    []float64 // prefix sums of the values
	mu    []float64 // multipliers, per type
	r     []int     // remaining capacity, per type
	stack []int32   // candidates taken on the current path
	bestX []int32   // candidates of the incumbent
	brk   []float64 // line-search breakpoints
	brkA  []int     // their demands
	pmu   []float64 // Polyak iterate and subgradient
	fixed []int32   // items always taken (zero demand, positive value)

	best, bound float64
	nodes, max  int64
	aborted     bool
}

// solveBranchBound solves the loaded knapsack (o.items, o.a, o.c, o.w) by
// branch and bound. It returns false if the node budget ran out; X then
// holds the incumbent and bb.bound an upper bound of the optimum.
func (o *Oracle) solveBranchBound(r *KnapsackResult) bool {
	n, K := o.n, o.K
	bb := &o.bb
	bb.cand, bb.fixed = bb.cand[:0], bb.fixed[:0]
	base := 0.0
	for i := 0; i < n; i++ {
		if !(o.w[i] > 0) { // never strictly improves (the DP's tie rule)
			continue
		}
		fits, zero := true, true
		for k := 0; k < K; k++ {
			a := o.a[i*K+k]
			fits = fits && a <= o.c[k]
			zero = zero && a == 0
		}
		switch {
		case zero:
			bb.fixed = append(bb.fixed, int32(i))
			base += o.w[i]
		case fits:
			bb.cand = append(bb.cand, int32(i))
		}
	}
	m := len(bb.cand)
	bb.mu = grow(bb.mu, K)
	clear(bb.mu)
	bb.r = grow(bb.r, K)
	copy(bb.r, o.c)
	bb.stack, bb.bestX = bb.stack[:0], bb.bestX[:0]
	bb.nodes, bb.aborted = 0, false
	bb.max = o.set.maxNodes()

	// If every candidate fits at once, take them all.
	all := true
	for k := 0; k < K && all; k++ {
		sum, ok := 0, true
		for _, i := range bb.cand {
			if sum, ok = checked.Add(sum, o.a[int(i)*K+k]); !ok {
				break // the sum exceeds math.MaxInt >= c_k
			}
		}
		all = ok && sum <= o.c[k]
	}
	if all {
		bb.bestX = append(bb.bestX, bb.cand...)
		bb.best, bb.bound = 0, 0
		for _, i := range bb.cand {
			bb.best += o.w[i]
		}
		bb.bound = bb.best
		o.bbResult(r, base)
		return true
	}

	// Multipliers mu >= 0 minimising the Lagrangian dual
	// L(mu) = mu . c + sum_i max(0, w_i - mu . a_i), the LP relaxation's
	// dual, by exact coordinate line searches.
	o.lagrangeMultipliers()
	bb.sw = grow(bb.sw, n)
	o.sortCandidates()
	// Coordinate descent stalls at kinks of L; a Polyak subgradient
	// refinement aimed at the greedy value brings mu close to the LP dual.
	o.polyak(o.greedy())
	o.sortCandidates()
	bb.ps = grow(bb.ps, m+1)
	bb.pv = grow(bb.pv, m+1)
	bb.swo = grow(bb.swo, m)
	sw := bb.swo
	bb.ps[0], bb.pv[0] = 0, 0
	for j, i := range bb.cand {
		sw[j] = bb.sw[i]
		bb.ps[j+1] = bb.ps[j] + sw[j]
		bb.pv[j+1] = bb.pv[j] + o.w[i]
	}
	bb.best = 0 // x = 0 is feasible
	S := 0.0
	for k := 0; k < K; k++ {
		S += bb.mu[k] * float64(o.c[k])
	}
	bb.bound = o.dantzig(0, S, sw)
	o.dfs(0, 0, sw)
	if bb.aborted {
		bb.bound = max(bb.bound, bb.best)
	} else {
		bb.bound = bb.best
	}
	o.bbResult(r, base)
	return !bb.aborted
}

// bbResult writes the incumbent (plus the fixed items) into r.
func (o *Oracle) bbResult(r *KnapsackResult, base float64) {
	bb := &o.bb
	r.X = grow(r.X, o.nAll)
	clear(r.X)
	obj := 0.0
	for _, i := range bb.fixed {
		r.X[o.items[i]] = true
	}
	// Sum in item order, as the dynamic program does.
	for _, i := range bb.bestX {
		r.X[o.items[i]] = true
	}
	for i := 0; i < o.n; i++ {
		if r.X[o.items[i]] {
			obj += o.w[i]
		}
	}
	r.Objective = obj
	r.Bound = bb.bound + base
	r.Nodes = bb.nodes
}

// dantzig is the LP bound of the surrogate knapsack over candidates j..m-1
// with capacity S: the greedy by density with one fractional item.
func (o *Oracle) dantzig(j int, S float64, sw []float64) float64 {
	bb := &o.bb
	m := len(bb.cand)
	if S < 0 {
		S = 0
	}
	// Largest h in [j, m] with ps[h] - ps[j] <= S.
	lim := bb.ps[j] + S
	h := j + sortSearch(m-j, func(q int) bool { return bb.ps[j+q+1] > lim })
	v := bb.pv[h] - bb.pv[j]
	if h < m && sw[h] > 0 {
		v += (lim - bb.ps[h]) * o.w[bb.cand[h]] / sw[h]
	}
	return v
}

// sortSearch is sort.Search without the closure allocation concerns of
// the sort package (same contract).
func sortSearch(n int, f func(int) bool) int {
	lo, hi := 0, n
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if !f(h) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	return lo
}

// dfs explores candidates j.. with value V taken so far.
func (o *Oracle) dfs(j int, V float64, sw []float64) {
	bb := &o.bb
	for {
		bb.nodes++
		if bb.nodes > bb.max {
			bb.aborted = true
			return
		}
		if V > bb.best {
			bb.best = V
			bb.bestX = append(bb.bestX[:0], bb.stack...)
		}
		m := len(bb.cand)
		if j == m {
			return
		}
		K := o.K
		S := 0.0
		for k := 0; k < K; k++ {
			S += bb.mu[k] * float64(bb.r[k])
		}
		if V+o.dantzig(j, S, sw) <= bb.best {
			return
		}
		i := int(bb.cand[j])
		a := o.a[i*K : (i+1)*K]
		fits := true
		for k, v := range a {
			if v > bb.r[k] {
				fits = false
				break
			}
		}
		if fits {
			for k, v := range a {
				bb.r[k] -= v
			}
			bb.stack = append(bb.stack, int32(i))
			o.dfs(j+1, V+o.w[i], sw)
			bb.stack = bb.stack[:len(bb.stack)-1]
			for k, v := range a {
				bb.r[k] += v
			}
			if bb.aborted {
				return
			}
		}
		j++ // skip item i: iterate instead of recursing
	}
}

// lagrangeMultipliers sets bb.mu to an approximate minimiser of the
// Lagrangian dual L(mu) = mu . c + sum_i max(0, w_i - mu . a_i) over
// mu >= 0 by cyclic exact line searches (a few sweeps). Any mu >= 0 gives
// a valid bound; a better mu only prunes more.
func (o *Oracle) lagrangeMultipliers() {
	bb := &o.bb
	K := o.K
	const sweeps = 6
	for sweep := 0; sweep < sweeps; sweep++ {
		changed := false
		for k := 0; k < K; k++ {
			// b_i = w_i - sum_{j != k} mu_j a_ij; breakpoints b_i / a_ik.
			bb.brk, bb.brkA = bb.brk[:0], bb.brkA[:0]
			for _, i := range bb.cand {
				ak := o.a[int(i)*K+k]
				if ak == 0 {
					continue
				}
				b := o.w[i]
				for q := 0; q < K; q++ {
					if q != k {
						b -= bb.mu[q] * float64(o.a[int(i)*K+q])
					}
				}
				if b <= 0 {
					continue
				}
				bb.brk = append(bb.brk, b/float64(ak))
				bb.brkA = append(bb.brkA, ak)
			}
			// mu_k is the breakpoint where the demand of the items with a
			// larger breakpoint first exceeds c_k (0 if it never does).
			mu, _ := weightedSelect(bb.brk, bb.brkA, o.c[k])
			if mu != bb.mu[k] {
				changed = true
				bb.mu[k] = mu
			}
		}
		if !changed {
			break
		}
	}
}

// dpCells returns sum_i prod_k (min(c_k, sum_{j >= i} a_jk) + 1) over the
// loaded items, the size of the dynamic program's capacity boxes,
// saturated at limit.
func (o *Oracle) dpCells(limit int64) int64 {
	n, K := o.n, o.K
	o.bb.r = grow(o.bb.r, K)
	suf := o.bb.r
	clear(suf)
	var total int64
	for i := n - 1; i >= 0; i-- {
		box := 1
		for k := 0; k < K; k++ {
			suf[k] = min(o.c[k], satAdd(suf[k], o.a[i*K+k]))
			var ok bool
			if box, ok = checked.Mul(box, satAdd(suf[k], 1)); !ok || int64(box) > limit {
				return limit
			}
		}
		total += int64(box)
		if total > limit {
			return limit
		}
	}
	return total
}

// sortCandidates orders bb.cand by surrogate density w_i / (mu . a_i),
// descending (zero surrogate weight first), ties by item index, and sets
// bb.sw.
func (o *Oracle) sortCandidates() {
	bb, K := &o.bb, o.K
	for _, i := range bb.cand {
		s := 0.0
		for k := 0; k < K; k++ {
			s += bb.mu[k] * float64(o.a[int(i)*K+k])
		}
		bb.sw[i] = s
	}
	slices.SortFunc(bb.cand, func(x, y int32) int {
		// w_x/s_x > w_y/s_y  <=>  w_x s_y > w_y s_x (s >= 0).
		if c := cmp.Compare(o.w[y]*bb.sw[x], o.w[x]*bb.sw[y]); c != 0 {
			return c
		}
		return cmp.Compare(x, y)
	})
}

// greedy returns the value of first fit in the order of bb.cand.
func (o *Oracle) greedy() float64 {
	bb, K := &o.bb, o.K
	copy(bb.r, o.c)
	v := 0.0
	for _, i := range bb.cand {
		a := o.a[int(i)*K : int(i+1)*K]
		fits := true
		for k, x := range a {
			fits = fits && x <= bb.r[k]
		}
		if fits {
			for k, x := range a {
				bb.r[k] -= x
			}
			v += o.w[i]
		}
	}
	copy(bb.r, o.c)
	return v
}

// lagrangian returns L(mu) and writes its subgradient c - sum_{rc_i > 0} a_i
// into g.
func (o *Oracle) lagrangian(mu, g []float64) float64 {
	bb, K := &o.bb, o.K
	L := 0.0
	for k := 0; k < K; k++ {
		L += mu[k] * float64(o.c[k])
		g[k] = float64(o.c[k])
	}
	for _, i := range bb.cand {
		rc := o.w[i]
		a := o.a[int(i)*K : int(i+1)*K]
		for k, x := range a {
			rc -= mu[k] * float64(x)
		}
		if rc > 0 {
			L += rc
			for k, x := range a {
				g[k] -= float64(x)
			}
		}
	}
	return L
}

// polyak refines bb.mu by projected subgradient steps with Polyak's step
// towards the target value z (a lower bound of the optimum), keeping the
// best mu. It is bounded by a fixed number of iterations.
func (o *Oracle) polyak(z float64) {
	bb, K := &o.bb, o.K
	const iters = 60
	bb.pmu = grow(bb.pmu, 2*K)
	mu, g := bb.pmu[:K], bb.pmu[K:]
	copy(mu, bb.mu)
	best := o.lagrangian(mu, g)
	theta, stall := 1.0, 0
	for it := 0; it < iters; it++ {
		L := o.lagrangian(mu, g)
		if L < best {
			best = L
			copy(bb.mu, mu)
			stall = 0
		} else if stall++; stall >= 8 {
			theta /= 2
			stall = 0
		}
		gg := 0.0
		for k := 0; k < K; k++ {
			if mu[k] == 0 && g[k] > 0 {
				g[k] = 0 // projected: mu_k cannot decrease below 0
			}
			gg += g[k] * g[k]
		}
		if gg == 0 || L-z <= 1e-12*(1+z) {
			break
		}
		step := theta * (L - z) / gg
		for k := 0; k < K; k++ {
			mu[k] = max(0, mu[k]-step*g[k])
		}
	}
}

// weightedSelect returns the largest t[q] such that the weights a of the
// entries with t > t[q], plus those equal to it, exceed c, and true; or 0
// and false if the total weight is at most c. It is the weighted quantile
// of the sorted scan (descending t, first prefix weight above c) in O(n)
// expected time; t and a are permuted together.
func weightedSelect(t []float64, a []int, c int) (float64, bool) {
	lo, hi, acc := 0, len(t), 0
	for lo < hi {
		// Median-of-three pivot, deterministic.
		x, y, z := t[lo], t[lo+(hi-lo)/2], t[hi-1]
		p := max(min(x, y), min(max(x, y), z))
		// Three-way partition: [lo,gt) > p, [gt,lt) == p, [lt,hi) < p.
		gt, i, lt := lo, lo, hi
		for i < lt {
			switch {
			case t[i] > p:
				t[i], t[gt] = t[gt], t[i]
				a[i], a[gt] = a[gt], a[i]
				gt++
				i++
			case t[i] < p:
				lt--
				t[i], t[lt] = t[lt], t[i]
				a[i], a[lt] = a[lt], a[i]
			default:
				i++
			}
		}
		wg, ok := acc, true
		for q := lo; q < gt && ok; q++ {
			wg, ok = checked.Add(wg, a[q])
		}
		if !ok || wg > c {
			hi = gt // the answer is among the larger breakpoints
			continue
		}
		we := wg
		for q := gt; q < lt && ok; q++ {
			we, ok = checked.Add(we, a[q])
		}
		if !ok || we > c {
			return p, true
		}
		acc, lo = we, lt
	}
	return 0, false
}
