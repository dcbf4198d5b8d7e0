// Package simplex is a dense bounded primal simplex method for the small
// linear programs of msched's exact solvers: the restricted master of the
// gang oracle's column generation (esdp, issue 29), a few hundred rows
// and a few thousand columns that arrive while it is solved.
//
// # Usage
//
//	p := simplex.New([]float64{4, 6})            // two rows, A x <= b
//	p.AddColumn(3, 0, math.Inf(1), []int{0, 1}, []float64{1, 2})
//	p.AddColumn(2, 0, 1, []int{0, 1}, []float64{1, 1})
//	st := p.Solve(1000)                          // simplex.Optimal
//	x, pi := p.X(nil), p.Duals(nil)
//
// Columns can be added after a solve, and Solve then continues from the
// last basis (a new column is nonbasic at its lower bound, so the basis
// stays primal feasible): column generation costs a few pivots per round.
// SetBounds changes a column's bounds (a nonbasic column keeps its value
// when one of the new bounds is it); the next Solve continues with the
// primal simplex when the basis is still primal feasible, with the dual
// simplex when it is not but its reduced costs keep their signs (fixing
// a basic column, as a branch and bound or a dive does), and from a
// slack basis otherwise.
//
// # Model
//
//	max  c'x   s.t.  A x <= b,  lo <= x <= up
//
// with lo finite and up finite or +Inf. Internally each row has a slack
// s_i >= 0 (A x + s = b); a row whose slack would be negative at the
// starting point (every column at its lower bound) gets an artificial
// variable instead, and phase 1 maximises minus their sum. Phase 2 keeps
// the artificials still basic at zero fixed at zero.
//
// The basis inverse is held explicitly (m x m, row-major) and updated by
// the product form after each pivot; it is recomputed from the basis
// columns by Gauss-Jordan elimination with partial pivoting every
// reinvertEvery pivots, and the basic values with it. Pricing is
// Dantzig's (the largest reduced cost), switching to Bland's rule (the
// first eligible column) after stallMax degenerate pivots in a row, until
// a pivot improves the objective: Bland's rule (with its leaving rule,
// the smallest index among the ties) cannot cycle. The ratio test is
// otherwise Harris's two-pass test with tolerance FeasTol, which prefers
// the largest pivot among the near-ties. The dual simplex takes the
// basic variable farthest outside its bounds out and the entering
// variable by the smallest ratio |d_j| / |alpha_rj| (Harris's passes
// with OptTol). The duals are updated after each pivot (pi += d_q times
// the pivot row of the new inverse) and recomputed at each inversion.
//
// TestAgainstGonum compares statuses and optima with gonum's lp.Simplex
// on random LPs (degenerate, bounded, with negative right-hand sides)
// and checks the KKT conditions; TestBland does so in Bland's mode;
// TestWarmStart and TestDive compare every warm solve with a cold one.
//
// # Performance
//
// A pivot costs O(m^2) (the inverse's update) plus O(nnz) pricing, an
// inversion O(m^3). Memory is 2 m^2 + O(nnz) float64: the caller bounds
// m (esdp keeps it to a few hundred rows). BenchmarkSolve, a gang
// master of 176 rows and 928 columns: 28 ms from the slack basis (1480
// pivots), 1.3 ms to fix a fractional column at 1 and free it again;
// 304 rows and 1856 columns: 178 ms and 0.19 ms.
//
// # Preconditions
//
// New, AddColumn and SetBounds panic on a non-finite coefficient, cost or
// right-hand side, a row index out of range, a non-finite lower bound or
// lo > up: the package is internal, and its callers build the LP from a
// validated model.
package simplex
