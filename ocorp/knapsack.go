package ocorp

// Knapsack solves the 0/1 knapsack of the z step of Algorithm 1 (eq. (12),
// (15)): on one machine,
//
//	max sum_k value_k z_k   s.t.   sum_k weight_k z_k <= capacity, z_k in {0,1}
//
// exactly, by dynamic programming over the capacity. Weights are first
// divided by their greatest common divisor g, so the table has
// n * (capacity/g + 1) cells; if that exceeds MaxCells the weights are
// rounded up to a coarser unit (the answer stays feasible but may be
// suboptimal; Exact reports which happened). The zero value is ready to use
// and reuses its table across calls. Not safe for concurrent use.
type Knapsack struct {
	// MaxCells bounds the DP table; 0 means 1 << 24.
	MaxCells int
	// Exact is set by Solve: false if the weights had to be coarsened.
	Exact bool

	best []float64
	keep []bool
	w    []int
}

// Solve sets dst[k] to whether item k is chosen in an optimal solution and
// returns the optimal value. Items with value <= 0 are never chosen; items
// with weight 0 and positive value always are. Ties are broken towards
// leaving an item out, deterministically. It panics if the lengths of dst,
// value and weight differ or a weight is negative.
func (ks *Knapsack) Solve(dst []bool, value []float64, weight []int, capacity int) float64 {
	n := len(value)
	if len(weight) != n || len(dst) != n {
		panic(panicKnapsackLen)
	}
	ks.Exact = true
	total, g := 0, 0
	for k := range value {
		dst[k] = false
		if weight[k] < 0 {
			panic("ocorp: negative knapsack weight")
		}
		if value[k] > 0 && weight[k] > 0 {
			total += weight[k]
			g = gcd(g, weight[k])
		}
	}
	if capacity < 0 {
		capacity = 0
	}
	sum := 0.0
	if total <= capacity { // everything fits
		for k, v := range value {
			if v > 0 {
				dst[k] = true
				sum += v
			}
		}
		return sum
	}
	W := capacity / g
	unit := g
	limit := ks.MaxCells
	if limit <= 0 {
		limit = 1 << 24
	}
	if n*(W+1) > limit {
		scale := (n*(W+1) + limit - 1) / limit
		unit = g * scale
		W = capacity / unit
		ks.Exact = false
	}
	ks.w = grow(ks.w, n)
	for k := range value {
		ks.w[k] = (weight[k] + unit - 1) / unit
	}
	ks.best = grow(ks.best, W+1)
	clear(ks.best)
	ks.keep = grow(ks.keep, n*(W+1))
	for k, v := range value {
		row := ks.keep[k*(W+1) : (k+1)*(W+1)]
		clear(row)
		if v <= 0 {
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

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
