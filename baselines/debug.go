package baselines

import "github.com/msched/msched/ogasched"

// checked returns y, after checking in a debug build (-tags mscheddebug)
// that it satisfies (5)-(6) within ogasched.FeasibilityTol times the
// problem's largest demand or capacity; it panics if not (a bug, never a
// data error).
func (b *ogaBase) checked(y []float64) []float64 {
	if debugChecks {
		s := 1.0
		for _, rows := range [2][][]float64{b.p.Demand, b.p.Capacity} {
			for _, row := range rows {
				for _, v := range row {
					s = max(s, v)
				}
			}
		}
		if err := b.p.Feasible(y, ogasched.FeasibilityTol*s); err != nil {
			panic("baselines: " + b.name + ": infeasible decision: " + err.Error())
		}
	}
	return y
}
