package ocorp

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/checked"
)

// KnapsackDP solves the 0/1 knapsack of the z step of Algorithm 1 (eq. (12),
// (15)): on one machine,
//
//	max sum_k value_k z_k   s.t.   sum_k weight_k z_k <= capacity, z_k in {0,1}
//
// exactly, by dynamic programming over the capacity. Weights are first
// divided by their greatest common divisor g, so the table has
// W+1 = capacity/g + 1 columns, each of n choices (a byte each) and a
// best value (8 bytes): (n+8)(W+1) bytes, the table's cells; if that
// exceeds MaxCells the weights are
// rounded up to a coarser unit (the answer stays feasible but may be
// suboptimal; Exact reports which happened). The zero value is ready to use
// and reuses its table across calls. Not safe for concurrent use.
//
// Any int weights and capacity are accepted: an item heavier than the
// capacity is never chosen, sums of weights are computed with
// overflow-checked arithmetic (a sum beyond math.MaxInt cannot fit), and
// the table size is bounded before anything is allocated, so the memory
// used is O(n + MaxCells) whatever the sizes.
type KnapsackDP struct {
	// MaxCells bounds the DP table, in bytes ((n+8)(W+1), see above);
	// 0 means 1 << 24. Above
	// CeilingKnapsackCells it is an error from Validate; Solve, which has
	// no error result, uses the ceiling then.
	MaxCells int
	// Exact is set by Solve: false if the weights had to be coarsened.
	Exact bool

	best []float64
	keep []bool
	w    []int
}

// CeilingKnapsackCells is the largest KnapsackDP.MaxCells: 2^32 bytes, a
// 4 GiB table of choices and best values (the best values were allocated
// beside a 4 GiB table of choices: 20 GiB for 2 items, issue 30). With MaxCells = MaxInt and weights near 2^39
// the table was sized in terabytes.
const CeilingKnapsackCells = 1 << 32

// Validate returns an error wrapping ErrSettings if MaxCells is above
// CeilingKnapsackCells, naming the field, the value and the ceiling.
func (ks *KnapsackDP) Validate() error {
	if ks.MaxCells > CeilingKnapsackCells {
		return fmt.Errorf("%w: KnapsackDP.MaxCells = %d above its ceiling CeilingKnapsackCells = %d", ErrSettings, ks.MaxCells, CeilingKnapsackCells)
	}
	return nil
}

// Solve sets dst[k] to whether item k is chosen in an optimal solution and
// returns the optimal value. Items with value <= 0 (or NaN) are never
// chosen; items with weight 0 and positive value always are. Ties are
// broken towards leaving an item out, deterministically. It panics if the
// lengths of dst, value and weight differ or a weight is negative (a
// programmer error: Packer.Knapsack passes validated memories).
func (ks *KnapsackDP) Solve(dst []bool, value []float64, weight []int, capacity int) float64 {
	n := len(value)
	if len(weight) != n || len(dst) != n {
		panic(panicKnapsackLen)
	}
	ks.Exact = true
	if capacity < 0 {
		capacity = 0
	}
	// Only items worth taking that fit alone matter; their weights are
	// each <= capacity, but their sum may exceed math.MaxInt: checked.Add
	// saturates that case to "does not all fit".
	total, g, fitsAll := 0, 0, true
	for k := range value {
		dst[k] = false
		if weight[k] < 0 {
			panic("ocorp: negative knapsack weight")
		}
		if !(value[k] > 0) || weight[k] == 0 || weight[k] > capacity {
			continue
		}
		var ok bool
		if total, ok = checked.Add(total, weight[k]); !ok {
			fitsAll = false
			total = capacity + 1 // any value > capacity
		}
		g = gcd(g, weight[k])
	}
	sum := 0.0
	if fitsAll && total <= capacity { // everything that fits alone fits together
		for k, v := range value {
			if v > 0 && weight[k] <= capacity {
				dst[k] = true
				sum += v
			}
		}
		return sum
	}
	// Here g >= 1 (some item has 0 < weight <= capacity) and g <= capacity.
	W := capacity / g
	unit := g
	limit := min(ks.MaxCells, CeilingKnapsackCells)
	if limit <= 0 {
		limit = 1 << 24
	}
	// Table bytes (n+8)*(W+1) <= limit (a choice per item and a float64
	// best value per capacity unit), or W = 0 if even that is too many
	// (the table is then n+8 bytes, the size of the input).
	maxW := knapsackMaxW(n, limit)
	if W > maxW {
		// unit = g*scale with floor(W/scale) <= maxW. The checked
		// operations only fail for maxW = 0 and capacity near
		// math.MaxInt; then every positive weight rounds to 1 unit > W = 0.
		scale, ok1 := checked.Add(W/(maxW+1), 1)
		u, ok2 := checked.Mul(g, scale)
		if ok1 && ok2 {
			unit, W = u, capacity/u
		} else {
			unit, W = math.MaxInt, 0
		}
		ks.Exact = false
	}
	ks.w = grow(ks.w, n)
	for k, wk := range weight {
		if wk > capacity {
			ks.w[k] = W + 1 // never fits
			continue
		}
		q := wk / unit // ceil without overflow
		if wk%unit != 0 {
			q++
		}
		ks.w[k] = q
	}
	ks.best = grow(ks.best, W+1)
	clear(ks.best)
	ks.keep = grow(ks.keep, n*(W+1))
	for k, v := range value {
		row := ks.keep[k*(W+1) : (k+1)*(W+1)]
		clear(row)
		if !(v > 0) {
			continue
		}
		w := ks.w[k]
		if w == 0 {
			for c := range ks.best {
				ks.best[c] += v
				row[c] = true
			}
			continue
		}
		for c := W; c >= w; c-- {
			if cand := ks.best[c-w] + v; cand > ks.best[c] {
				ks.best[c] = cand
				row[c] = true
			}
		}
	}
	c := W
	for k := n - 1; k >= 0; k-- {
		if ks.keep[k*(W+1)+c] {
			dst[k] = true
			sum += value[k]
			c -= ks.w[k]
		}
	}
	return sum
}

// knapsackMaxW returns the largest W with (n+8)*(W+1) <= limit, or 0: the
// table of choices (n*(W+1) bools) and the best values ((W+1) float64s)
// together take at most limit bytes.
func knapsackMaxW(n, limit int) int {
	return max(limit/(n+8)-1, 0)
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
