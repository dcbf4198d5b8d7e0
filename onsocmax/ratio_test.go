package onsocmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/utility"
)

// smallConfig draws congested small instances: few units, capacities
// comparable to one job's workload, many jobs.
func smallConfig(rng *rand.Rand) Config {
	c := DefaultConfig()
	c.Nodes = 1 + rng.IntN(3)
	c.Slots = 1 + rng.IntN(4)
	c.Jobs = 2 + rng.IntN(8)
	c.ArrivalRate = 1 + 3*rng.Float64()
	c.MeanDuration = 1 + 3*rng.Float64()
	c.CapMean = 2 + 10*rng.Float64()
	c.CapStd = c.CapMean / 5
	c.RhoMean = 2 + 15*rng.Float64()
	c.RhoStd = c.RhoMean / 4
	c.XBarMean = 1 + 8*rng.Float64()
	c.XBarStd = c.XBarMean / 5
	c.Locality = 0.3 + 0.7*rng.Float64()
	c.Kinds = []utility.Kind{utility.Linear}
	if rng.IntN(4) == 0 { // equal coefficients: v/iota small, alpha near 2
		c.AMax = c.AMin
	}
	return c
}

// TestCompetitiveRatioOnRandomLinearInstances measures OPT/ONLINE over
// random congested linear-utility instances and checks Theorem 2:
// OPT/ONLINE <= alpha-hat(iota, v) with iota, v of (8) for each instance.
func TestCompetitiveRatioOnRandomLinearInstances(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	trials := 1500
	if testing.Short() {
		trials = 300
	}
	var worst, worstAlpha, sum, sumAlpha float64
	count := 0
	for trial := 0; count < trials; trial++ {
		in, err := Generate(smallConfig(rng), rng)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := in.Pricing(0)
		if err != nil {
			continue // no unit of positive capacity
		}
		pol, err := newPolicyP(in.Mesh, pr, nil)
		if err != nil {
			t.Fatal(err)
		}
		on, err := runOne(in, pol)
		if err != nil {
			t.Fatal(err)
		}
		opt, xo, err := OfflineLP(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.CheckFeasible(xo, 1e-7); err != nil {
			t.Fatalf("trial %d: LP solution infeasible: %v", trial, err)
		}
		if opt < on.Welfare-1e-7*math.Max(1, opt) {
			t.Fatalf("trial %d: LP optimum %v below the online welfare %v", trial, opt, on.Welfare)
		}
		if opt == 0 {
			continue
		}
		ratio := opt / on.Welfare
		count++
		sum += ratio
		sumAlpha += pr.Alpha
		if ratio > worst {
			worst, worstAlpha = ratio, pr.Alpha
		}
		if ratio > pr.Alpha*(1+1e-9) {
			b, _ := in.MarshalJSON()
			t.Errorf("trial %d: OPT/ONLINE = %v > alpha-hat = %v (iota %v, v %v); instance: %s", trial, ratio, pr.Alpha, pr.Iota, pr.V, b)
		}
	}
	t.Logf("%d instances: worst OPT/ONLINE %.4f (alpha-hat %.4f there), mean %.4f, mean alpha-hat %.4f",
		count, worst, worstAlpha, sum/float64(count), sumAlpha/float64(count))
}

// TestCompetitiveRatioOneWayTrading runs the one-way-trading adversary of
// the Theorem 2 (ii) discussion on a single unit: jobs of increasing value
// a_k = iota (v/iota)^(k/(K-1)), each able to fill the unit, stopped after a
// random prefix. OPT takes the best job; OnSocMax has sold part of the unit
// cheaply. The ratio must stay below alpha-hat and gets close to it.
func TestCompetitiveRatioOneWayTrading(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	var worst, worstAlpha float64
	trials := 400
	if testing.Short() {
		trials = 80
	}
	for trial := range trials {
		k := 2 + rng.IntN(60)
		ratioVI := 1 + rng.Float64()*50
		const c = 10.0
		in := &Instance{}
		m, _ := newMeshOne(c)
		in.Mesh = m
		for q := range k {
			a := math.Pow(ratioVI, float64(q)/float64(k-1))
			u, _ := utility.New(utility.Linear, a)
			in.Jobs = append(in.Jobs, Job{ID: q, Rho: c, Units: []int{0}, XBar: []float64{c}, Beta: []float64{0}, Utility: []utility.Utility{u}})
		}
		in.Jobs = in.Jobs[:1+rng.IntN(k)] // the adversary stops here
		// Bounds from the full sequence: the policy does not know the stop.
		pr, err := NewPricing(1, ratioVI)
		if err != nil {
			t.Fatal(err)
		}
		pol, _ := newPolicyP(in.Mesh, pr, nil)
		on, err := runOne(in, pol)
		if err != nil {
			t.Fatal(err)
		}
		opt, _, err := OfflineLP(in)
		if err != nil {
			t.Fatal(err)
		}
		r := opt / on.Welfare
		if r > worst {
			worst, worstAlpha = r, pr.Alpha
		}
		if r > pr.Alpha*(1+1e-9) {
			t.Errorf("trial %d: OPT/ONLINE = %v > alpha-hat %v (v/iota = %v, %d jobs)", trial, r, pr.Alpha, ratioVI, len(in.Jobs))
		}
	}
	t.Logf("one-way trading: worst OPT/ONLINE %.4f with alpha-hat %.4f", worst, worstAlpha)
}
