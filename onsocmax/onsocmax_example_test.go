package onsocmax_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

func ExampleCompetitiveRatio() {
	for _, k := range []float64{1, 2, 10, 100} {
		a, _ := onsocmax.CompetitiveRatio(1, k)
		fmt.Printf("v/iota = %3v: alpha-hat = %.4f\n", k, a)
	}
	// Output:
	// v/iota =   1: alpha-hat = 2.0000
	// v/iota =   2: alpha-hat = 2.5936
	// v/iota =  10: alpha-hat = 3.9148
	// v/iota = 100: alpha-hat = 5.9868
}

func ExamplePricing() {
	p, _ := onsocmax.NewPricing(1, 10) // iota = 1, v = 10
	c := 20.0                          // capacity C_r
	fmt.Printf("threshold w = %.4f\n", p.Threshold(c))
	for _, u := range []float64{0, p.Threshold(c), 15, c} {
		fmt.Printf("phi(%.2f) = %.4f\n", u, p.MarginalCost(u, c))
	}
	fmt.Printf("Phi from usage 5 to 15 = %.4f\n", p.Cost(5, 10, c))
	// Output:
	// threshold w = 6.8616
	// phi(0.00) = 1.0000
	// phi(6.86) = 1.0000
	// phi(15.00) = 3.9175
	// phi(20.00) = 10.0000
	// Phi from usage 5 to 15 = 18.8456
}

// p3Example: one job with rho = 10 and three units of capacity 20, one of
// them half used.
func p3Example() *onsocmax.P3 {
	lin, _ := utility.New(utility.Linear, 2)
	lg, _ := utility.New(utility.Log, 3)
	pr, _ := onsocmax.NewPricing(0.5, 3)
	return &onsocmax.P3{
		Rho:      10,
		XBar:     []float64{6, 6, 6},
		Utility:  []utility.Utility{lin, lin, lg},
		Beta:     []float64{0.2, 0.4, 0.3},
		Capacity: []float64{20, 20, 20},
		Usage:    []float64{0, 15, 0},
		Pricing:  pr,
	}
}

func ExampleWaterFill() {
	p := p3Example()
	x := make([]float64, p.Len())
	res, _ := onsocmax.WaterFill(x, p, nil, nil)
	fmt.Printf("x = [%.4f %.4f %.4f], mu = %.4f, W = %.4f, KKT residual < 1e-9: %v\n",
		x[0], x[1], x[2], res.Mu, res.Objective, p.KKTResidual(x, res.Mu) < 1e-9)
	// Output:
	// x = [6.0000 1.4047 2.5953], mu = 0.3494, W = 12.3733, KKT residual < 1e-9: true
}

func ExampleALM_SolveP3() {
	p := p3Example()
	x := make([]float64, p.Len())
	var alm onsocmax.ALM // Table II parameters, tolerances 1e-9
	res, _ := alm.SolveP3(x, p)
	fmt.Printf("x = [%.4f %.4f %.4f], mu = %.4f, W = %.4f, %v\n", x[0], x[1], x[2], res.Mu, res.Objective, res.Status)
	// Output:
	// x = [6.0000 1.4047 2.5953], mu = 0.3494, W = 12.3733, Success
}

// quadTerms is h_i(x) = (x - t_i)^2 / 2.
type quadTerms []float64

func (q quadTerms) Term(i int, x float64) (float64, float64) {
	d := x - q[i]
	return d * d / 2, d
}

// ExampleALM_Minimize projects (3, 1, 2) onto {x >= 0, x_0 + x_1 + x_2 <= 3,
// x_0 - x_2 <= 0} with the generic augmented-Lagrangian solver.
func ExampleALM_Minimize() {
	prob := &onsocmax.SeparableProblem{
		N:     3,
		Terms: quadTerms{3, 1, 2},
		Rows: []onsocmax.LinearRow{
			{Bound: 3}, // all ones
			{Index: []int{0, 2}, Coef: []float64{1, -1}, Bound: 0},
		},
		Lower: []float64{0, 0, 0},
	}
	x := make([]float64, 3)
	var alm onsocmax.ALM
	res, _ := alm.Minimize(x, prob)
	fmt.Printf("x = [%.4f %.4f %.4f], multipliers [%.4f %.4f], %v\n", x[0], x[1], x[2], alm.Multipliers()[0], alm.Multipliers()[1], res.Status)
	// Output:
	// x = [1.5000 0.0000 1.5000], multipliers [1.0000 0.5000], Success
}

func ExamplePolicy() {
	// One node, two slots of capacity 10. Job 0 arrives at slot 0 and may use
	// both slots; job 1 arrives at slot 1.
	m, _ := bipartite.NewMesh(1, 2, []float64{10, 10})
	u1, _ := utility.New(utility.Linear, 1)
	u3, _ := utility.New(utility.Linear, 3)
	jobs := []onsocmax.Job{
		{ID: 0, Arrival: 0, Deadline: 1, Rho: 16, Units: []int{0, 1}, XBar: []float64{8, 8}, Beta: []float64{0.1, 0.1}, Utility: []utility.Utility{u1, u1}},
		{ID: 1, Arrival: 1, Deadline: 1, Rho: 8, Units: []int{1}, XBar: []float64{8}, Beta: []float64{0.1}, Utility: []utility.Utility{u3}},
	}
	in := &onsocmax.Instance{Mesh: m, Jobs: jobs}
	iota, v, _ := in.MarginalBounds(0) // iota, v of (8) from the instance
	pol, _ := onsocmax.New(m, onsocmax.Settings{Iota: iota, V: v})
	for t := range 2 {
		dec, _ := pol.Decide(t, jobs[t:t+1])
		for _, a := range dec.Allocations {
			fmt.Printf("slot %d: job %d -> unit %d: %.4f\n", t, a.Job, a.Unit, a.X)
		}
	}
	// The window is now slots [1, 3): column 0 holds slot 2, unused.
	fmt.Printf("alpha-hat %.4f, usage [%.4f %.4f]\n", pol.Pricing().Alpha, pol.Usage()[0], pol.Usage()[1])
	// Output:
	// slot 0: job 0 -> unit 0: 5.2277
	// slot 0: job 0 -> unit 1: 5.2277
	// slot 1: job 1 -> unit 1: 4.7723
	// alpha-hat 2.9129, usage [0.0000 10.0000]
}

func ExampleRun() {
	in, _ := onsocmax.Generate(onsocmax.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	iota, v, _ := in.MarginalBounds(0)
	pol, _ := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: iota, V: v})
	res, _ := onsocmax.Run(in, []onsocmax.OnlinePolicy{pol}, onsocmax.RunSettings{})
	out := res.Series[0]
	opt, _, _ := onsocmax.OfflineFlow(in)
	fmt.Printf("%d jobs, OnSocMax welfare %.4f, OPT %.4f, OPT/ONLINE %.4f <= alpha-hat %.4f\n",
		len(in.Jobs), out.Welfare, opt, opt/out.Welfare, pol.Pricing().Alpha)
	// Output:
	// 20 jobs, OnSocMax welfare 1034.3973, OPT 1037.5610, OPT/ONLINE 1.0031 <= alpha-hat 2.9071
}

func ExampleOfflineLP() {
	m, _ := bipartite.NewMesh(1, 1, []float64{5})
	u1, _ := utility.New(utility.Linear, 1)
	u2, _ := utility.New(utility.Linear, 2)
	in := &onsocmax.Instance{Mesh: m, Jobs: []onsocmax.Job{
		{ID: 0, Rho: 4, Units: []int{0}, XBar: []float64{4}, Beta: []float64{0}, Utility: []utility.Utility{u1}},
		{ID: 1, Rho: 3, Units: []int{0}, XBar: []float64{3}, Beta: []float64{0}, Utility: []utility.Utility{u2}},
	}}
	opt, x, _ := onsocmax.OfflineLP(in)
	fl, _, _ := onsocmax.OfflineFlow(in)
	fmt.Printf("OPT %.4f (flow %.4f), x = %.4f, %.4f\n", opt, fl, x[0][0], x[1][0])
	// Output:
	// OPT 8.0000 (flow 8.0000), x = 2.0000, 3.0000
}

func ExampleOfflineConcave() {
	c := onsocmax.DefaultConfig()
	c.Kinds = []utility.Kind{utility.Log}
	c.CapMean = 5 // congested
	in, _ := onsocmax.Generate(c, rand.New(rand.NewPCG(2, 2)))
	res, _ := onsocmax.OfflineConcave(in, nil)
	fmt.Printf("OPT in [%.2f, %.2f], relative gap below 1e-2: %v\n", res.Lower, res.Upper, res.Gap() < 1e-2)
	// Output:
	// OPT in [454.98, 455.69], relative gap below 1e-2: true
}

func ExampleInstance_MarshalJSON() {
	m, _ := bipartite.NewMesh(1, 1, []float64{5})
	u, _ := utility.New(utility.Log, 1.5)
	in := &onsocmax.Instance{Mesh: m, Jobs: []onsocmax.Job{
		{ID: 7, Rho: 4, Units: []int{0}, XBar: []float64{4}, Beta: []float64{0.2}, Utility: []utility.Utility{u}},
	}}
	b, _ := json.Marshal(in)
	fmt.Println(string(b))
	var back onsocmax.Instance
	fmt.Println(json.Unmarshal(b, &back), back.Jobs[0].Utility[0])
	// Output:
	// {"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":7,"arrival":0,"deadline":0,"rho":4,"units":[0],"xbar":[4],"beta":[0.2],"utility":[{"kind":"log","a":1.5}]}]}
	// <nil> log(a=1.5)
}

func ExampleGenerate() {
	c := onsocmax.DefaultConfig() // Section IV-A: 10 nodes x 24 slots, 20 jobs
	c.Kinds = []utility.Kind{utility.Linear, utility.Log, utility.Sqrt}
	in, _ := onsocmax.Generate(c, rand.New(rand.NewPCG(3, 3)))
	iota, v, _ := in.MarginalBounds(0)
	j := in.Jobs[0]
	fmt.Printf("%d jobs; job 0: slots %d-%d, rho %.4f, %d units, %v a=%.4f\n", len(in.Jobs), j.Arrival, j.Deadline, j.Rho, len(j.Units), j.Utility[0].Kind, j.Utility[0].A)
	// v comes from the sqrt utility differentiated at DefaultMinUnit.
	fmt.Printf("iota %.4f, v %.4f\n", iota, v)
	// Output:
	// 20 jobs; job 0: slots 0-0, rho 18.4290, 6 units, sqrt a=1.7098
	// iota 0.1234, v 14.9657
}
