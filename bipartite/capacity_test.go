package bipartite

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitsExactDecimalSums checks the capacity rule on the cases of issue
// 29: decimal demands that sum exactly to the capacity fit in every
// summation order, a load one rounding unit over the capacity fits (it is
// within CapacityTol), and a load 2·CapacityTol over never does.
func TestFitsExactDecimalSums(t *testing.T) {
	for _, tc := range []struct {
		demands []float64
		c       float64
	}{
		{[]float64{0.3, 0.2, 0.3, 0.2}, 1},
		{[]float64{0.4, 0.3}, 0.7},
		{[]float64{0.1, 0.2}, 0.3}, // 0.1+0.2 = 0.30000000000000004 > 0.3 in float64
		{[]float64{0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1}, 1},
		{[]float64{0.7, 0.1, 0.1, 0.1}, 1},
	} {
		// every order: all permutations by random shuffles
		rng := rand.New(rand.NewPCG(1, 29))
		d := append([]float64(nil), tc.demands...)
		for range 50 {
			rng.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
			load := 0.0
			for _, a := range d {
				load += a
			}
			if !Fits(load, tc.c) {
				t.Errorf("%v on %v: load %v refused", d, tc.c, load)
			}
		}
	}
	for _, c := range []float64{1e-300, 1e-9, 0.3, 0.7, 1, 3, 1e6, 1e300} {
		if up := math.Nextafter(c, math.Inf(1)); !Fits(up, c) {
			t.Errorf("one rounding unit over %v refused", c)
		}
		if over := c * (1 + 2*CapacityTol); Fits(over, c) {
			t.Errorf("%v accepted on %v", over, c)
		}
		if !Fits(FitLimit(c), c) || Fits(math.Nextafter(FitLimit(c), math.Inf(1)), c) {
			t.Errorf("FitLimit(%v) = %v is not the largest fitting load", c, FitLimit(c))
		}
	}
	if !Fits(0, 0) || Fits(1e-300, 0) || Fits(math.NaN(), 1) || Fits(1, math.NaN()) {
		t.Error("capacity 0 or NaN")
	}
}

// TestCheckUsesFits checks that GangModel.Check and GangModel.Fits apply
// the rule: an exact decimal fit is accepted, a load over it refused, and
// no absolute tolerance is added on a capacity of 0.
func TestCheckUsesFits(t *testing.T) {
	g, err := NewGraph(2, 2, []Edge{{0, 0}, {1, 0}, {0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewGangModel(g, 1, []float64{1, 0}, []GangJob{{Demand: []float64{0.3, 0.2}}, {Demand: []float64{0.3, 0.2}}})
	if err != nil {
		t.Fatal(err)
	}
	chk, err := m.Check([]bool{true, true}, []int{0, 0, 0, 0})
	if err != nil || chk.Violations != 0 || chk.Served != 2 {
		t.Errorf("exact fit: %+v, %v", chk, err)
	}
	if !m.Fits(0, 0) || m.Fits(0, 1) {
		t.Error("GangModel.Fits")
	}
	m2, err := NewGangModel(g, 1, []float64{1, 0}, []GangJob{{Demand: []float64{1e-12, 0.2}}, {Demand: []float64{0.3}}})
	if err != nil {
		t.Fatal(err)
	}
	if chk, _ := m2.Check([]bool{true, false}, []int{1, 0, -1}); chk.Violations != 1 {
		t.Errorf("1e-12 on a capacity of 0: %+v", chk)
	}
}
