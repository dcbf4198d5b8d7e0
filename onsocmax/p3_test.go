package onsocmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/utility"
)

// randomP3 draws a job in the style of the paper's generator with random
// usage levels, so that every branch of phi is exercised.
func randomP3(rng *rand.Rand, n int, kinds []utility.Kind) *P3 {
	p := &P3{
		Rho:      rng.Float64() * 4 * float64(n),
		XBar:     make([]float64, n),
		Utility:  make([]utility.Utility, n),
		Beta:     make([]float64, n),
		Capacity: make([]float64, n),
		Usage:    make([]float64, n),
	}
	kind := kinds[rng.IntN(len(kinds))]
	a := 1 + 2*rng.Float64()
	for r := range n {
		p.XBar[r] = math.Max(0, 7+rng.NormFloat64())
		u, _ := utility.New(kind, a)
		p.Utility[r] = u
		p.Beta[r] = 0.1 + 0.4*rng.Float64()
		p.Capacity[r] = 20 + 2*rng.NormFloat64()
		p.Usage[r] = rng.Float64() * p.Capacity[r]
		if rng.IntN(3) == 0 {
			p.Usage[r] = 0
		}
	}
	iota, v := math.Inf(1), 0.0
	for r := range n {
		lo, hi := marginalWelfareRange(p.Utility[r], p.XBar[r], p.Beta[r], p.Capacity[r], 0.01)
		iota, v = math.Min(iota, lo), math.Max(v, hi)
	}
	p.Pricing, _ = NewPricing(iota, v)
	return p
}

var allKinds = []utility.Kind{utility.Linear, utility.Log, utility.Poly, utility.Sqrt, utility.Reciprocal}

func TestWaterFillSatisfiesKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	worst := 0.0
	trials := 2000
	if testing.Short() {
		trials = 300
	}
	for trial := range trials {
		n := 1 + rng.IntN(40)
		p := randomP3(rng, n, allKinds)
		x := make([]float64, n)
		res, err := WaterFill(x, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		k := p.KKTResidual(x, res.Mu)
		worst = math.Max(worst, k)
		if k > 1e-6 {
			t.Fatalf("trial %d (%v, n=%d): KKT residual %v > 1e-6 (status %v mu %v)", trial, p.Utility[0].Kind, n, k, res.Status, res.Mu)
		}
	}
	t.Logf("worst KKT residual of water-filling over %d jobs: %.3g", trials, worst)
}

// TestWaterFillBeatsPerturbations checks optimality directly: no feasible
// random perturbation improves the objective.
func TestWaterFillBeatsPerturbations(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for range 200 {
		n := 1 + rng.IntN(8)
		p := randomP3(rng, n, allKinds)
		x := make([]float64, n)
		if _, err := WaterFill(x, p, nil, nil); err != nil {
			t.Fatal(err)
		}
		best := p.Objective(x)
		y := make([]float64, n)
		for range 200 {
			var sum float64
			for r := range y {
				y[r] = math.Min(p.Upper(r), math.Max(0, x[r]+rng.NormFloat64()*0.3))
				sum += y[r]
			}
			if sum > p.Rho {
				for r := range y {
					y[r] *= p.Rho / sum
				}
			}
			if o := p.Objective(y); o > best+1e-9*math.Max(1, math.Abs(best)) {
				t.Fatalf("perturbation improves %v -> %v", best, o)
			}
		}
	}
}

func TestALMAgreesWithWaterFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var a ALM
	trials := 300
	if testing.Short() {
		trials = 60
	}
	worstX, worstKKT, ties := 0.0, 0.0, 0
	for trial := range trials {
		n := 1 + rng.IntN(30)
		p := randomP3(rng, n, allKinds)
		xw := make([]float64, n)
		xa := make([]float64, n)
		rw, err := WaterFill(xw, p, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		ra, err := a.SolveP3(xa, p)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for r := range xw {
			d = math.Max(d, math.Abs(xw[r]-xa[r]))
		}
		kkt := p.KKTResidual(xa, ra.Mu)
		worstKKT = math.Max(worstKKT, kkt)
		dobj := math.Abs(rw.Objective - ra.Objective)
		if d > 1e-6 && dobj < 1e-9 && kkt < 1e-6 {
			ties++ // a non-unique optimum (linear utility exactly at phi = iota)
			continue
		}
		worstX = math.Max(worstX, d)
		if d > 1e-6 || dobj > 1e-6 || kkt > 1e-6 {
			t.Fatalf("trial %d (%v, n=%d): |x_alm - x_wf| = %v, |dW| = %v, ALM KKT %v, status %v outer %d inner %d",
				trial, p.Utility[0].Kind, n, d, dobj, kkt, ra.Status, ra.Iterations, ra.Inner)
		}
	}
	t.Logf("ALM vs water-filling over %d jobs: max |dx| %.3g, worst ALM KKT %.3g (%d non-unique optima compared by objective only)", trials, worstX, worstKKT, ties)
}
