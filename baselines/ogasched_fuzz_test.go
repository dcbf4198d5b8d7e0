package baselines_test

import (
	"math"
	"testing"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/ogasched"
)

// FuzzOGASchedBaselines drives every OGASched-family baseline with
// arbitrary slots and arrivals (NaN, Inf, negative, huge): no panic, no
// hang, and an accepted allocation satisfies (5)-(6).
func FuzzOGASchedBaselines(f *testing.F) {
	f.Add(0, 1.0, 1.0, uint8(0))
	f.Add(-1, math.NaN(), 0.0, uint8(1))
	f.Add(math.MaxInt, 1e15, 1e15, uint8(4))
	f.Add(3, math.Inf(1), -1.0, uint8(5))
	f.Fuzz(func(t *testing.T, slot int, x0, x1 float64, which uint8) {
		p := ogaTiny(t)
		name := baselines.OGASchedBaselineNames[int(which)%len(baselines.OGASchedBaselineNames)]
		pol, err := baselines.NewOGASchedBaseline(name, p)
		if err != nil {
			t.Fatal(err)
		}
		x := []float64{x0, x1}
		y, err := pol.Decide(slot, x)
		if err != nil {
			return
		}
		if err := p.Feasible(y, 1e-9*(1+ogasched.MaxValue)); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	})
}
