package esdp

import (
	"errors"
	"fmt"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Status is the termination status of an oracle call.
type Status int

const (
	// NotTerminated is the zero Status: no solve has completed.
	NotTerminated Status = iota
	// Optimal means every reported value is the exact optimum.
	Optimal
	// NodeLimit means branch and bound ran out of OracleSettings.MaxNodes and
	// the dynamic program did not fit in OracleSettings.MaxBytes: the solution is
	// feasible, the best found, and KnapsackResult.Bound is a certified
	// upper bound of the optimum; optimality is not proven.
	NodeLimit
)

var statusNames = [...]string{NotTerminated: "NotTerminated", Optimal: "Optimal", NodeLimit: "NodeLimit"}

// Err returns nil for Optimal, an error wrapping ErrNotTerminated for
// NotTerminated and one wrapping ErrNodeLimit for NodeLimit.
func (s Status) Err() error {
	switch s {
	case Optimal:
		return nil
	case NotTerminated:
		return ErrNotTerminated
	case NodeLimit:
		return ErrNodeLimit
	}
	return fmt.Errorf("%w: unknown Status(%d)", ErrValue, int(s))
}

func (s Status) String() string {
	if s >= 0 && int(s) < len(statusNames) {
		return statusNames[s]
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// DefaultMaxBytes is the memory limit of the dynamic-programming tables used
// when OracleSettings.MaxBytes is 0 (1 GiB).
const DefaultMaxBytes int64 = 1 << 30

// CeilingMaxBytes and CeilingMaxNodes are the largest OracleSettings.MaxBytes
// (32 GiB of tables) and MaxNodes (2^40 nodes, hours of branch and bound);
// above them Validate returns an error: a limit raised to MaxInt64 asked
// the dynamic program for exabytes.
const (
	CeilingMaxBytes = 1 << 35
	CeilingMaxNodes = 1 << 40
)

// OracleSettings configures the oracles. The zero value is ready: 1 GiB of
// tables, KnapsackAuto, DefaultMaxNodes.
//
// The dynamic programs are long kernels with a documented work budget
// instead of a context: their time is O(K) per cell and every cell they
// evaluate keeps one reconstruction bit inside MaxBytes, so one call
// evaluates at most 8·MaxBytes cells (and fails with ErrTooLarge before
// starting when it would need more); branch and bound visits at most
// MaxNodes nodes of O(K + log n) each.
type OracleSettings struct {
	// MaxBytes bounds the memory of the dynamic-programming tables. The size
	// is computed before anything large is allocated; a problem that needs
	// more fails with an error wrapping ErrTooLarge that names the size.
	// If MaxBytes is 0 it is defaulted to DefaultMaxBytes.
	MaxBytes int64
	// Knapsack selects the method of SolveKnapsack; the zero value is
	// KnapsackAuto.
	Knapsack KnapsackMethod
	// MaxCells, if positive, bounds the cells one dynamic program may
	// evaluate (its time is O(K) per cell): a larger one fails with
	// ErrTooLarge after sizing its states, before the tables are built and
	// filled. Zero means no bound beyond MaxBytes (8·MaxBytes cells).
	MaxCells int64
	// MaxNodes bounds the nodes of branch and bound per SolveKnapsack call
	// (each costs O(K + log n)). If MaxNodes is 0 it is defaulted to
	// DefaultMaxNodes.
	MaxNodes int64
}

// Validate returns every problem of s (a negative limit, an unknown
// method), joined, each naming its field and value.
func (s OracleSettings) Validate() error {
	var errs []error
	if s.MaxBytes < 0 || s.MaxBytes > CeilingMaxBytes {
		errs = append(errs, fmt.Errorf("%w: OracleSettings.MaxBytes = %d, want in [0, CeilingMaxBytes = %d] (0 means DefaultMaxBytes)", ErrSettings, s.MaxBytes, int64(CeilingMaxBytes)))
	}
	if s.MaxCells < 0 || s.MaxCells > 8*CeilingMaxBytes {
		errs = append(errs, fmt.Errorf("%w: OracleSettings.MaxCells = %d, want in [0, 8 CeilingMaxBytes = %d] (0 means no bound beyond MaxBytes)", ErrSettings, s.MaxCells, int64(8*CeilingMaxBytes)))
	}
	if s.MaxNodes < 0 || s.MaxNodes > CeilingMaxNodes {
		errs = append(errs, fmt.Errorf("%w: OracleSettings.MaxNodes = %d, want in [0, CeilingMaxNodes = %d] (0 means DefaultMaxNodes)", ErrSettings, s.MaxNodes, int64(CeilingMaxNodes)))
	}
	if s.Knapsack < KnapsackAuto || s.Knapsack > KnapsackBranchBound {
		errs = append(errs, fmt.Errorf("%w: OracleSettings.Knapsack = %d, want KnapsackAuto, KnapsackDP or KnapsackBranchBound", ErrSettings, int(s.Knapsack)))
	}
	return errors.Join(errs...)
}

func (s OracleSettings) maxNodes() int64 {
	if s.MaxNodes <= 0 {
		return DefaultMaxNodes
	}
	return s.MaxNodes
}

// maxMaxBytes caps OracleSettings.MaxBytes (2^56 bytes, 64 PiB) so that the size
// arithmetic of the tables cannot overflow int64.
const maxMaxBytes int64 = 1 << 56

func (s OracleSettings) maxBytes() int64 {
	if s.MaxBytes <= 0 {
		return DefaultMaxBytes
	}
	return min(s.MaxBytes, maxMaxBytes)
}

// Budgeted is the family of budgeted 0/1 multi-dimensional knapsacks
// {P4(s,t)}, s in S = {0, ..., MaxBudget}, of paper 002 (P4/P5, P4 and (20)
// in paper 003):
//
//	P4(s):  max Sigma2 . x  s.t.  A x <= c,  Upsilon . x >= s,
//	        x in {0,1}^n,  x_e = 0 where Enabled[e] is false.
//
// The n = len(Sigma2) items are edges; the matrix A (K x n) is stored flat by
// item, Demand[e*K+k] = a_k^e.
type Budgeted struct {
	K         int
	Demand    []int     // a_k^e >= 0, len n*K
	Capacity  []int     // c_k >= 0, len K
	Upsilon   []int     // Upsilon_e >= 0, eq. (13)
	Sigma2    []float64 // Sigma^2_e, finite and >= 0, eq. (14)
	MaxBudget int       // S = {0, ..., MaxBudget}, MaxBudget >= 0
	Enabled   []bool    // nil means every item may be chosen
}

// BudgetedResult is the solution of every P4(s), s in S.
type BudgetedResult struct {
	Status Status
	// Value[s] is the optimal value V*(s) of P4(s), s = 0..MaxBudget, and
	// -Inf when no feasible x has Upsilon . x >= s. Value[0] >= 0 always
	// (x = 0 is feasible). Value is non-increasing in s.
	Value []float64
	// Best is s* of (17): the smallest maximiser of s + sqrt(V*(s)) over
	// the feasible budgets; BestIndex is that maximum.
	Best      int
	BestIndex float64
	// Bytes is the memory the tables needed; Cells the number of
	// (state, budget) cells the dynamic program evaluated.
	Bytes int64
	Cells int64

	o   *Oracle
	gen uint64
	ref [][]bool // Algorithm2 keeps every solution
}

// Solution writes x*(s) of P4(s) into dst (len n, reused if long enough)
// and returns it; it returns nil if P4(s) is infeasible or s is outside S.
// A result of Oracle.Budgeted is valid until the oracle's next call; it
// panics if used after that.
func (r *BudgetedResult) Solution(dst []bool, s int) []bool {
	if s < 0 || s >= len(r.Value) || math.IsInf(r.Value[s], -1) {
		return nil
	}
	if r.ref != nil {
		return append(dst[:0], r.ref[s]...)
	}
	if r.o == nil || r.o.gen != r.gen {
		panic("esdp: BudgetedResult used after the Oracle was reused")
	}
	return r.o.reconstruct(dst, s)
}

// Knapsack is the plain 0/1 multi-dimensional knapsack
//
//	max Value . x  s.t.  A x <= c,  x in {0,1}^n,  x_e = 0 where !Enabled[e],
//
// the omniscient oracle of (6) when Value is the vector of true means.
// Values may be negative (such items are never chosen).
type Knapsack struct {
	K        int
	Demand   []int     // a_k^e >= 0, len n*K
	Capacity []int     // c_k >= 0, len K
	Value    []float64 // finite, len n
	Enabled  []bool    // nil means every item may be chosen
}

// KnapsackResult is the solution of a Knapsack.
type KnapsackResult struct {
	Status    Status
	Objective float64 // Value . X
	X         []bool  // optimal solution (Status Optimal); owned by the Oracle
	// Bound is an upper bound of the optimum: Objective when Status is
	// Optimal, the Lagrangian bound of the open problem after NodeLimit.
	Bound float64
	// Method is the method that produced X (KnapsackDP or
	// KnapsackBranchBound).
	Method KnapsackMethod
	Nodes  int64 // branch-and-bound nodes visited (0 for the DP)
	Bytes  int64 // dynamic-programming table memory (0 for branch and bound)
	Cells  int64 // dynamic-programming cells evaluated
}

// Oracle is a reusable exact solver for Budgeted and Knapsack problems. It
// keeps its tables between calls, so repeated solves of problems of similar
// size allocate nothing. An Oracle is not safe for concurrent use; use one
// per goroutine.
//
// The dynamic program is the recursion (19)-(23) of Algorithm 2 run over the
// enabled items only, with four exact reductions: (i) rolling value layers
// and a decision bitset for reconstruction instead of a solution vector per
// state; (ii) the remaining capacity at item i is clipped to the total demand
// of items i..n-1 (states that differ only above it are equal); (iii) only
// capacity states reachable from c are visited; (iv) the budget row of a
// state stops at the largest Upsilon . x its suffix can reach (beyond, the
// value is -Inf). Item order and the tie rule (choose an item only if that is
// strictly better) are those of Algorithm 2, so values are bit-identical to
// Algorithm2 and so are the solutions.
type Oracle struct {
	set OracleSettings
	gen uint64

	n, K, smax int
	nAll       int       // number of items including disabled ones
	items      []int     // original id of enabled item i
	a          []int     // demand of item i, flat i*K+k
	u          []int     // Upsilon of item i
	w          []float64 // weight of item i
	c          []int     // capacity, divided by the demands' gcd per type
	c0         []int     // capacity as given (for messages)
	caps       []int     // (n+1)*K: clip bound of layer i
	strides    []int     // (n+1)*K
	mapOff     []int     // n+2: offsets of layer maps in maps
	maps       []int32   // box index -> global state id, -1 if unreachable
	dirty      []int     // positions of maps set by the last call
	layerOff   []int     // n+2: first global state id of each layer
	sc         []int32   // coordinates of every state, flat id*K+k
	nst        int       // number of states
	kidSkip    []int32   // state of layer i+1 reached by skipping item i
	kidTake    []int32   // ... by taking item i, -1 if it does not fit
	best       []int32   // largest reachable budget of the state, clipped to smax
	rowOff     []int64   // offset of the state's row within its layer
	layerCells []int64
	bitBase    []int64
	bits       []uint64
	cur, nxt   []float64
	coord      []int
	walk       []int

	res  BudgetedResult
	kres KnapsackResult
	bb   bbState
}

// NewOracle returns an Oracle with settings s.
func NewOracle(s OracleSettings) *Oracle { return &Oracle{set: s} }

// SolveBudgeted solves every P4(s), s in S, of p in one dynamic program of
// O(n |S| prod_k (c_k+1)) time in the worst case (far less in practice, see
// Oracle). The result is owned by o and valid until o's next call.
func (o *Oracle) SolveBudgeted(p *Budgeted) (*BudgetedResult, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil Budgeted problem", ErrValue)
	}
	n := len(p.Sigma2)
	if err := checkShape(p.K, n, p.Demand, p.Capacity, p.Enabled); err != nil {
		return nil, err
	}
	if len(p.Upsilon) != n {
		return nil, fmt.Errorf("%w: len(Upsilon) = %d, want %d", ErrDimension, len(p.Upsilon), n)
	}
	for e, v := range p.Upsilon {
		if v < 0 {
			return nil, fmt.Errorf("%w: Upsilon[%d] = %d", ErrValue, e, v)
		}
	}
	for e, v := range p.Sigma2 {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("%w: Sigma2[%d] = %v", ErrValue, e, v)
		}
	}
	if p.MaxBudget < 0 {
		return nil, fmt.Errorf("%w: MaxBudget = %d", ErrValue, p.MaxBudget)
	}
	if p.MaxBudget >= math.MaxInt32 {
		return nil, fmt.Errorf("%w: MaxBudget = %d, limit %d (budget rows are indexed by int32)", ErrTooLarge, p.MaxBudget, math.MaxInt32-1)
	}
	o.load(p.K, p.Demand, p.Capacity, p.Enabled, p.Upsilon, p.Sigma2, p.MaxBudget)
	if err := o.run(); err != nil {
		return nil, err
	}
	r := &o.res
	r.Value = grow(r.Value, o.smax+1)
	o.layerZeroRow(r.Value)
	r.Best, r.BestIndex = -1, math.Inf(-1)
	for s, v := range r.Value {
		if math.IsInf(v, -1) {
			break
		}
		if idx := float64(s) + math.Sqrt(v); idx > r.BestIndex {
			r.Best, r.BestIndex = s, idx
		}
	}
	r.Status, r.o, r.gen, r.ref = Optimal, o, o.gen, nil
	return r, nil
}

// SolveKnapsack solves the plain knapsack p exactly. The result is owned by
// o and valid until o's next call.
func (o *Oracle) SolveKnapsack(p *Knapsack) (*KnapsackResult, error) {
	if p == nil {
		return nil, fmt.Errorf("%w: nil Knapsack problem", ErrValue)
	}
	n := len(p.Value)
	if err := checkShape(p.K, n, p.Demand, p.Capacity, p.Enabled); err != nil {
		return nil, err
	}
	for e, v := range p.Value {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: Value[%d] = %v", ErrValue, e, v)
		}
	}
	if m := o.set.Knapsack; m < KnapsackAuto || m > KnapsackBranchBound {
		return nil, fmt.Errorf("%w: OracleSettings.Knapsack = %d", ErrSettings, int(m))
	}
	o.load(p.K, p.Demand, p.Capacity, p.Enabled, nil, p.Value, 0)
	r := &o.kres
	*r = KnapsackResult{X: r.X}
	method := o.set.Knapsack
	if method == KnapsackAuto && o.dpCells(AutoDPCells+1) <= AutoDPCells {
		method = KnapsackDP
	}
	if method != KnapsackDP {
		r.Method = KnapsackBranchBound
		if o.solveBranchBound(r) {
			r.Status = Optimal
			r.Bound = r.Objective
			return r, nil
		}
		if method == KnapsackBranchBound {
			r.Status = NodeLimit
			return r, nil
		}
	}
	// The dynamic program: directly, or after branch and bound ran out of
	// nodes (then, if the tables do not fit, the incumbent is returned).
	nodes := r.Nodes
	if err := o.run(); err != nil {
		if errors.Is(err, ErrTooLarge) && nodes > 0 {
			r.Status = NodeLimit
			return r, nil
		}
		return nil, err
	}
	r.X = o.reconstruct(r.X, 0)
	r.Objective = o.nxt[0]
	r.Bound = r.Objective
	r.Status = Optimal
	r.Method = KnapsackDP
	r.Nodes = nodes
	r.Bytes, r.Cells = o.res.Bytes, o.res.Cells
	return r, nil
}

// SolveBudgeted is a convenience wrapper: a fresh Oracle solves p.
func SolveBudgeted(p *Budgeted, s OracleSettings) (*BudgetedResult, error) {
	return NewOracle(s).SolveBudgeted(p)
}

// SolveKnapsack is a convenience wrapper: a fresh Oracle solves p.
func SolveKnapsack(p *Knapsack, s OracleSettings) (*KnapsackResult, error) {
	return NewOracle(s).SolveKnapsack(p)
}

func checkShape(K, n int, demand, capacity []int, enabled []bool) error {
	if K < 0 {
		return fmt.Errorf("%w: K = %d", ErrDimension, K)
	}
	if len(capacity) != K {
		return fmt.Errorf("%w: len(Capacity) = %d, want K = %d", ErrDimension, len(capacity), K)
	}
	if nK, ok := checked.Mul(n, K); !ok || len(demand) != nK {
		return fmt.Errorf("%w: len(Demand) = %d, want n*K = %d*%d", ErrDimension, len(demand), n, K)
	}
	if enabled != nil && len(enabled) != n {
		return fmt.Errorf("%w: len(Enabled) = %d, want %d", ErrDimension, len(enabled), n)
	}
	for k, v := range capacity {
		if v < 0 {
			return fmt.Errorf("%w: Capacity[%d] = %d", ErrValue, k, v)
		}
	}
	for i, v := range demand {
		if v < 0 {
			return fmt.Errorf("%w: Demand[%d] (item %d, type %d) = %d", ErrValue, i, i/max(K, 1), i%max(K, 1), v)
		}
	}
	return nil
}

// grow returns s resized to n, reallocating with 25 % headroom so that
// tables of slowly varying size stop reallocating.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// load copies the enabled items; upsilon nil means all zero.
func (o *Oracle) load(K int, demand, capacity []int, enabled []bool, upsilon []int, weight []float64, smax int) {
	o.gen++
	o.K, o.smax = K, smax
	o.items, o.a, o.u, o.w = o.items[:0], o.a[:0], o.u[:0], o.w[:0]
	for e := range weight {
		if enabled != nil && !enabled[e] {
			continue
		}
		o.items = append(o.items, e)
		o.a = append(o.a, demand[e*K:(e+1)*K]...)
		if upsilon != nil {
			o.u = append(o.u, upsilon[e])
		} else {
			o.u = append(o.u, 0)
		}
		o.w = append(o.w, weight[e])
	}
	o.n = len(o.items)
	o.nAll = len(weight)
	o.c = append(o.c[:0], capacity...)
	o.c0 = append(o.c0[:0], capacity...)
	// Exact reduction: when every enabled demand of type k is a multiple of
	// g_k, sum_e a_k^e x_e <= c_k iff sum_e (a_k^e/g_k) x_e <= floor(c_k/g_k).
	// The feasible sets, hence values, solutions and ties, are unchanged;
	// huge demands such as math.MaxInt become 1.
	for k := 0; k < K; k++ {
		g := 0
		for i := 0; i < o.n && g != 1; i++ {
			g = gcd(g, o.a[i*K+k])
		}
		if g > 1 {
			for i := 0; i < o.n; i++ {
				o.a[i*K+k] /= g
			}
			o.c[k] /= g
		}
	}
}

// gcd returns the greatest common divisor of a, b >= 0 (gcd(0, b) = b).
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// tooLarge is the error of a table that does not fit in limit bytes. need is
// its size in bytes, or -1 when the size itself overflows int64.
func tooLarge(need, limit int64, what string) error {
	if need < 0 {
		return fmt.Errorf("%w: %s needs more than %d bytes (the size overflows int64), limit %d bytes (OracleSettings.MaxBytes)", ErrTooLarge, what, int64(math.MaxInt64), limit)
	}
	return fmt.Errorf("%w: %s needs %d bytes (%.1f MiB), limit %d bytes (OracleSettings.MaxBytes)", ErrTooLarge, what, need, float64(need)/(1<<20), limit)
}

// satAdd is a + b for non-negative a and b, saturated at math.MaxInt.
func satAdd(a, b int) int {
	if s, ok := checked.Add(a, b); ok {
		return s
	}
	return math.MaxInt
}

// mulBytes is n*size as int64, or -1 if it overflows (for tooLarge).
func mulBytes(n, size int64) int64 {
	if n < 0 || size < 0 {
		return -1
	}
	if p, ok := checked.Mul(int(n), int(size)); ok {
		return int64(p)
	}
	return -1
}

// run sizes the tables, checks the memory limit and fills them.
func (o *Oracle) run() error {
	n, K := o.n, o.K
	limit := o.set.maxBytes()
	// Layer bounds: cap_i = min(c, sum_{j >= i} a_j), boxes and strides.
	o.caps = grow(o.caps, (n+1)*K)
	o.strides = grow(o.strides, (n+1)*K)
	o.mapOff = grow(o.mapOff, n+2)
	for k := 0; k < K; k++ {
		o.caps[n*K+k] = 0
	}
	for i := n - 1; i >= 0; i-- {
		for k := 0; k < K; k++ {
			// Saturating: demands and capacities may be as large as
			// math.MaxInt; the clip bound never exceeds c_k.
			o.caps[i*K+k] = min(o.c[k], satAdd(o.caps[(i+1)*K+k], o.a[i*K+k]))
		}
	}
	var mapCells int64
	for i := 0; i <= n; i++ {
		o.mapOff[i] = int(mapCells)
		box := int64(1)
		for k := 0; k < K; k++ {
			o.strides[i*K+k] = int(box)
			c1, ok := checked.Add(o.caps[i*K+k], 1)
			var b int
			if ok {
				b, ok = checked.Mul(int(box), c1)
			}
			// A state coordinate is stored as int32 and the map holds 4
			// bytes per box cell.
			if !ok || int64(b) > limit/4 || c1 > math.MaxInt32 {
				need := int64(-1)
				if ok {
					need = mulBytes(int64(b), 4)
				}
				return tooLarge(need, limit, fmt.Sprintf("capacity box prod_k (c_k+1) of layer %d (type %d: Capacity[%d] = %d clipped to the remaining demand %d, after dividing by the demands' gcd)",
					i, k, k, o.c0[k], o.caps[i*K+k]))
			}
			box = int64(b)
		}
		mapCells += box
		if mapCells > limit/4 {
			return tooLarge(mulBytes(mapCells, 4), limit, "capacity-state maps")
		}
	}
	o.mapOff[n+1] = int(mapCells)
	// Every map entry is -1 except those the previous call set (o.dirty).
	if cap(o.maps) < int(mapCells) {
		o.maps = make([]int32, mapCells+mapCells/4)
		for i := range o.maps {
			o.maps[i] = -1
		}
		o.maps = o.maps[:mapCells]
	} else {
		for _, pos := range o.dirty {
			o.maps[pos] = -1
		}
		o.maps = o.maps[:mapCells]
	}
	o.dirty = o.dirty[:0]
	o.coord = grow(o.coord, K)
	o.walk = grow(o.walk, K)

	// Reachable states, top-down. A state is a remaining-capacity vector of
	// its layer (clipped to the layer's box); kids record the states of
	// layer i+1 reached by skipping and by taking item i (-1: does not fit).
	perState := int64(28 + 4*K)
	o.layerOff = grow(o.layerOff, n+2)
	o.sc, o.nst = o.sc[:0], 0
	o.kidSkip, o.kidTake = o.kidSkip[:0], o.kidTake[:0]
	o.layerOff[0] = 0
	for k := 0; k < K; k++ {
		o.walk[k] = o.c[k]
	}
	o.addState(0, o.walk)
	for i := 0; i < n; i++ {
		o.layerOff[i+1] = o.numStates()
		for j := o.layerOff[i]; j < o.layerOff[i+1]; j++ {
			fits := true
			for k := 0; k < K; k++ {
				o.coord[k] = int(o.sc[j*K+k])
				o.walk[k] = o.coord[k] - o.a[i*K+k]
				fits = fits && o.walk[k] >= 0
			}
			o.kidSkip = append(o.kidSkip, o.addState(i+1, o.coord))
			if fits {
				o.kidTake = append(o.kidTake, o.addState(i+1, o.walk))
			} else {
				o.kidTake = append(o.kidTake, -1)
			}
		}
		// State ids are int32, and the next layer at most doubles the
		// states of this one: stop while the total stays representable.
		if int64(o.numStates()) > (limit-mapCells*4)/perState || o.numStates() > math.MaxInt32/3 {
			return tooLarge(int64(o.numStates())*perState+mapCells*4, limit, "reachable capacity states")
		}
	}
	o.layerOff[n+1] = o.numStates()
	ns := o.numStates()
	if ns >= math.MaxInt32 {
		return tooLarge(int64(ns)*perState, limit, "reachable capacity states")
	}

	// Largest reachable budget per state, bottom-up (clipped to smax).
	o.best = grow(o.best, ns)
	o.best[ns-1] = 0 // layer n has the single state 0
	for i := n - 1; i >= 0; i-- {
		for j := o.layerOff[i]; j < o.layerOff[i+1]; j++ {
			b := o.best[o.kidSkip[j]]
			if tj := o.kidTake[j]; tj >= 0 {
				b = max(b, int32(min(satAdd(int(o.best[tj]), o.u[i]), o.smax)))
			}
			o.best[j] = b
		}
	}

	// Row offsets, bit bases and the memory check.
	o.rowOff = grow(o.rowOff, ns)
	o.layerCells = grow(o.layerCells, n+1)
	o.bitBase = grow(o.bitBase, n+1)
	var bitsTotal, maxLayer int64
	for i := 0; i <= n; i++ {
		var cells int64
		for j := o.layerOff[i]; j < o.layerOff[i+1]; j++ {
			o.rowOff[j] = cells
			cells += int64(o.best[j]) + 1 // < 2^31 per state, < 2^31 states
		}
		o.layerCells[i] = cells
		maxLayer = max(maxLayer, cells)
		if i < n { // layer n has no decisions
			o.bitBase[i] = bitsTotal
			bitsTotal += cells
			if bitsTotal > 8*limit {
				return tooLarge(bitsTotal/8, limit, fmt.Sprintf("decision bits (MaxBudget = %d)", o.smax))
			}
			if mc := o.set.MaxCells; mc > 0 && bitsTotal > mc {
				return fmt.Errorf("%w: the dynamic program needs more than %d cells (MaxBudget = %d), limit OracleSettings.MaxCells = %d", ErrTooLarge, bitsTotal, o.smax, mc)
			}
		}
	}
	words := (bitsTotal + 63) / 64
	bytes := mapCells*4 + int64(ns)*perState + words*8 + 2*maxLayer*8 + int64(o.smax+1)*8
	o.res.Bytes = bytes
	if bytes > limit {
		return tooLarge(bytes, limit, "dynamic-programming tables")
	}
	o.bits = grow(o.bits, int(words))
	clear(o.bits)
	o.cur = grow(o.cur, int(maxLayer))
	o.nxt = grow(o.nxt, int(maxLayer))

	// The dynamic program (19)-(23), bottom-up over items.
	var cellsDone int64
	o.nxt[0] = 0
	negInf := math.Inf(-1)
	for i := n - 1; i >= 0; i-- {
		ui, wi := o.u[i], o.w[i]
		for j := o.layerOff[i]; j < o.layerOff[i+1]; j++ {
			L := int(o.best[j]) + 1
			dst := o.cur[o.rowOff[j] : o.rowOff[j]+int64(L)]
			sj := o.kidSkip[j]
			skip := o.nxt[o.rowOff[sj] : o.rowOff[sj]+int64(o.best[sj])+1]
			var take []float64
			if tj := o.kidTake[j]; tj >= 0 {
				take = o.nxt[o.rowOff[tj] : o.rowOff[tj]+int64(o.best[tj])+1]
			}
			cellsDone += int64(L)
			if take == nil { // L == len(skip)
				copy(dst, skip)
				continue
			}
			base := o.bitBase[i] + o.rowOff[j]
			// s < ui: taking item i meets the rest of the budget, (23)
			// reads take[0].
			t0 := take[0] + wi
			lim := min(ui, L)
			for s := 0; s < lim; s++ {
				sk := negInf
				if s < len(skip) {
					sk = skip[s]
				}
				if t0 > sk {
					dst[s] = t0
					b := base + int64(s)
					o.bits[b>>6] |= 1 << uint(b&63)
				} else {
					dst[s] = sk
				}
			}
			// s >= ui: take[s-ui]; both rows are finite up to their length
			// and -Inf beyond.
			both := min(L, len(skip), satAdd(ui, len(take)))
			if lim < both {
				d := dst[lim:both]
				sk := skip[lim:both]
				tk := take[lim-ui : both-ui]
				sk, tk = sk[:len(d)], tk[:len(d)]
				bits := o.bits
				b0 := base + int64(lim)
				for q := range d {
					v, w := tk[q]+wi, sk[q]
					if v > w {
						d[q] = v
						b := b0 + int64(q)
						bits[b>>6] |= 1 << uint(b&63)
					} else {
						d[q] = w
					}
				}
			}
			for s := max(both, lim); s < L; s++ {
				sk, tk := negInf, negInf
				if s < len(skip) {
					sk = skip[s]
				}
				if s-ui < len(take) {
					tk = take[s-ui] + wi
				}
				if tk > sk {
					dst[s] = tk
					b := base + int64(s)
					o.bits[b>>6] |= 1 << uint(b&63)
				} else {
					dst[s] = sk
				}
			}
		}
		o.cur, o.nxt = o.nxt, o.cur
	}
	o.res.Cells = cellsDone
	return nil
}

// layerZeroRow copies V*(s) of the single layer-0 state into dst (len smax+1).
func (o *Oracle) layerZeroRow(dst []float64) {
	L := int(o.best[0]) + 1
	copy(dst, o.nxt[:L])
	for s := L; s < len(dst); s++ {
		dst[s] = math.Inf(-1)
	}
}

func (o *Oracle) numStates() int { return o.nst }

// addState marks the clip of r to layer i's box reachable and returns its
// global state id.
func (o *Oracle) addState(i int, r []int) int32 {
	K := o.K
	idx := 0
	for k := 0; k < K; k++ {
		idx += min(r[k], o.caps[i*K+k]) * o.strides[i*K+k]
	}
	pos := o.mapOff[i] + idx
	if o.maps[pos] < 0 {
		o.maps[pos] = int32(o.numStates())
		for k := 0; k < K; k++ {
			o.sc = append(o.sc, int32(min(r[k], o.caps[i*K+k])))
		}
		o.nst++
		o.dirty = append(o.dirty, pos)
	}
	return o.maps[pos]
}

// reconstruct walks the decision bits from (c, s) at item 0.
func (o *Oracle) reconstruct(dst []bool, s int) []bool {
	dst = grow(dst, o.nAll)
	clear(dst)
	j := int32(0) // the single state of layer 0
	for i := 0; i < o.n; i++ {
		if s > int(o.best[j]) {
			panic("esdp: internal error: reconstruction left the table")
		}
		b := o.bitBase[i] + o.rowOff[j] + int64(s)
		if o.bits[b>>6]&(1<<uint(b&63)) != 0 {
			dst[o.items[i]] = true
			s = max(s-o.u[i], 0)
			j = o.kidTake[j]
		} else {
			j = o.kidSkip[j]
		}
	}
	return dst
}
