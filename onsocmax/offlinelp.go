package onsocmax

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"github.com/msched/msched/utility"
)

// MaxLPVariables bounds the number of variables x_nr of OfflineLP: the
// standard form has rows = jobs + used units + variables and twice as many
// columns, stored densely, and gonum's simplex is cubic in the rows per
// pivot.
const MaxLPVariables = 2000

// OfflineLP returns the optimum of P1 for an instance whose utilities are
// all linear (f_nr(x) = a_nr x), and an optimal x per job aligned with
// Job.Units. P1 is then the linear program
//
//	max sum w_nr x_nr,  w_nr = a_nr + beta_nr/C_r,  s.t. (4), (6), (7),
//
// converted to standard form with one slack per row (job rows (4), unit
// rows (6), upper bounds (7)) and solved by lp.Simplex from the all-slack
// basis. The tableau is dense (rows x 2 rows) and each pivot is cubic in
// the rows, so OfflineLP is for small instances only (about 1.6 s for a
// default day of ~480 variables): it is the independent reference that the
// tests compare OfflineFlow against, not the solver to use (OfflineFlow is
// exact and thousands of times faster). It returns ErrUnsupported for a
// non-linear utility and ErrTooLarge beyond MaxLPVariables variables.
func OfflineLP(in *Instance) (float64, [][]float64, error) {
	if err := in.Validate(); err != nil {
		return 0, nil, err
	}
	type v struct{ n, i, row int }
	var vars []v
	unitRow := make(map[int]int)
	var w, capRow []float64
	for n := range in.Jobs {
		j := &in.Jobs[n]
		for i, r := range j.Units {
			if j.Utility[i].Kind != utility.Linear {
				return 0, nil, fmt.Errorf("%w: job %d unit index %d has %v utility; OfflineLP needs linear", ErrUnsupported, j.ID, i, j.Utility[i].Kind)
			}
			c := in.Mesh.Capacity[r]
			if c <= 0 || j.XBar[i] <= 0 || j.Rho <= 0 {
				continue
			}
			row, ok := unitRow[r]
			if !ok {
				row = len(capRow)
				unitRow[r] = row
				capRow = append(capRow, c)
			}
			vars = append(vars, v{n, i, row})
			w = append(w, j.Utility[i].A+j.Beta[i]/c)
		}
	}
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		x[n] = make([]float64, len(in.Jobs[n].Units))
	}
	nv := len(vars)
	if nv == 0 {
		return 0, x, nil
	}
	if nv > MaxLPVariables {
		return 0, nil, fmt.Errorf("%w: %d variables > MaxLPVariables = %d", ErrTooLarge, nv, MaxLPVariables)
	}
	nj, nu := len(in.Jobs), len(capRow)
	rows := nj + nu + nv
	cols := nv + rows
	A := mat.NewDense(rows, cols, nil)
	b := make([]float64, rows)
	c := make([]float64, cols)
	for k, q := range vars {
		c[k] = -w[k]
		A.Set(q.n, k, 1)
		A.Set(nj+q.row, k, 1)
		A.Set(nj+nu+k, k, 1)
		b[nj+nu+k] = in.Jobs[q.n].XBar[q.i]
	}
	for n := range in.Jobs {
		b[n] = in.Jobs[n].Rho
	}
	copy(b[nj:], capRow)
	basic := make([]int, rows)
	for r := range rows {
		A.Set(r, nv+r, 1)
		basic[r] = nv + r
	}
	opt, sol, err := lp.Simplex(c, A, b, 1e-10, basic)
	if err != nil {
		return 0, nil, fmt.Errorf("onsocmax: offline LP: %w", err)
	}
	for k, q := range vars {
		x[q.n][q.i] = max(0, sol[k])
	}
	return -opt, x, nil
}
