package esdp

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Algorithm2 solves every P4(s), s in S, with Algorithm 2 of paper 002
// (Algorithm 2 of paper 003) as written: a table V*(s, c', i) and a solution
// vector x*(s, c', i) for every budget s, every capacity vector 0 <= c' <= c
// and every i = 0..n, filled in the paper's loop order (s outer, c' middle,
// i from n-1 down to 0). It is the reference for Oracle and is meant for
// small problems: it needs (|S| prod_k (c_k+1) (n+1)) (8 + n) bytes, checked
// against s.MaxBytes before anything is allocated.
//
// Two readings of the listing:
//   - when taking item i+1 is not strictly better (line 10 false) the
//     listing leaves x*(s, c', i) at its initial 0; msched copies
//     x*(s, c', i+1), as Case I, eq. (19), states;
//   - a disabled item (x_e = 0 forced, constraint (2)) is never taken.
//
// Line 5's shortcut (c' = 0 allows nothing) and line 9's clipping
// max{c' - A, 0} followed by the feasibility check of line 13 are kept. They
// are exact when every column of A is non-zero (a_k^e in N+ as in the paper);
// an item with a zero demand vector is missed at c' = 0. Oracle has no such
// restriction.
func Algorithm2(p *Budgeted, s OracleSettings) (*BudgetedResult, error) {
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
	for e, v := range p.Sigma2 {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("%w: Sigma2[%d] = %v", ErrValue, e, v)
		}
	}
	for e, v := range p.Upsilon {
		if v < 0 {
			return nil, fmt.Errorf("%w: Upsilon[%d] = %d", ErrValue, e, v)
		}
	}
	if p.MaxBudget < 0 {
		return nil, fmt.Errorf("%w: MaxBudget = %d", ErrValue, p.MaxBudget)
	}
	K := p.K
	limit := s.maxBytes()
	// Size first: cells = |S| * prod(c_k+1) * (n+1), each 8 bytes of value
	// and n bytes of solution. Every product is overflow-checked.
	C := int64(1)
	for k, c := range p.Capacity {
		c1, ok := checked.Add(c, 1)
		var b int
		if ok {
			b, ok = checked.Mul(int(C), c1)
		}
		if !ok || int64(b) > limit/8 {
			need := int64(-1)
			if ok {
				need = mulBytes(int64(b), 8)
			}
			return nil, tooLarge(need, limit, fmt.Sprintf("Algorithm 2 capacity range prod_k (c_k+1) (Capacity[%d] = %d)", k, c))
		}
		C = int64(b)
	}
	bytes, ok := checked.Product(int(C), p.MaxBudget, n+1, 8+n)
	if ok {
		// MaxBudget+1 rows: add one row of (n+1) cells.
		var row int
		if row, ok = checked.Product(int(C), n+1, 8+n); ok {
			bytes, ok = checked.Add(bytes, row)
		}
	}
	if !ok || int64(bytes) > limit {
		need := int64(-1)
		if ok {
			need = int64(bytes)
		}
		return nil, tooLarge(need, limit, fmt.Sprintf("Algorithm 2 table (MaxBudget = %d, %d items)", p.MaxBudget, n))
	}
	S := int64(p.MaxBudget) + 1
	cells := S * C * int64(n+1)
	V := make([]float64, cells)
	X := make([]bool, cells*int64(n)) // line 1: every x* starts at 0
	at := func(s, ci, i int) int { return (s*int(C)+ci)*(n+1) + i }
	xs := func(cell int) []bool { return X[cell*n : (cell+1)*n] }

	stride := make([]int, K)
	st := 1
	for k := 0; k < K; k++ {
		stride[k] = st
		st *= p.Capacity[k] + 1
	}
	cp := make([]int, K)
	enabled := func(e int) bool { return p.Enabled == nil || p.Enabled[e] }
	var done int64
	for sb := 0; sb <= p.MaxBudget; sb++ {
		for ci := 0; ci < int(C); ci++ {
			zero := true
			rem := ci
			for k := K - 1; k >= 0; k-- {
				cp[k] = rem / stride[k]
				rem -= cp[k] * stride[k]
				if cp[k] != 0 {
					zero = false
				}
			}
			// Line 3.
			if sb == 0 {
				V[at(sb, ci, n)] = 0
			} else {
				V[at(sb, ci, n)] = math.Inf(-1)
			}
			for i := n - 1; i >= 0; i-- {
				done++
				here, next := at(sb, ci, i), at(sb, ci, i+1)
				if zero || !enabled(i) { // lines 5-7
					V[here] = V[next]
					copy(xs(here), xs(next))
					continue
				}
				// Line 9.
				s2 := max(sb-p.Upsilon[i], 0)
				c2 := 0
				for k := 0; k < K; k++ {
					c2 += max(cp[k]-p.Demand[i*K+k], 0) * stride[k]
				}
				child := at(s2, c2, i+1)
				V[here] = math.Max(V[child]+p.Sigma2[i], V[next])
				if V[here] != V[next] { // lines 10-12
					x := xs(here)
					copy(x, xs(child))
					x[i] = true
					// Line 13: A x*(s, c', i) <= c' violated?
					for k := 0; k < K; k++ {
						sum := 0
						for e := 0; e < n; e++ {
							if x[e] {
								sum += p.Demand[e*K+k]
							}
						}
						if sum > cp[k] {
							V[here] = V[next]
							copy(x, xs(next))
							break
						}
					}
				} else {
					copy(xs(here), xs(next)) // Case I, (19)
				}
			}
		}
	}
	// Lines 20-21.
	full := 0
	for k := 0; k < K; k++ {
		full += p.Capacity[k] * stride[k]
	}
	r := &BudgetedResult{Status: Optimal, Value: make([]float64, S), ref: make([][]bool, S), Bytes: int64(bytes), Cells: done}
	r.Best, r.BestIndex = -1, math.Inf(-1)
	for sb := range r.Value {
		cell := at(sb, full, 0)
		r.Value[sb] = V[cell]
		r.ref[sb] = append([]bool(nil), xs(cell)...)
		if v := r.Value[sb]; !math.IsInf(v, -1) {
			if idx := float64(sb) + math.Sqrt(v); idx > r.BestIndex {
				r.Best, r.BestIndex = sb, idx
			}
		}
	}
	return r, nil
}
