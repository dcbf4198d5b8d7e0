package onsocmax

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// TestPolicyUsageFollowsEq11 checks omega_r = sum of the allocations to r
// (update (11)) and omega_r <= C_r after every day.
func TestPolicyUsageFollowsEq11(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for range 50 {
		c := smallConfig(rng)
		c.Kinds = allKinds
		in, err := Generate(c, rng)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := in.Pricing(0)
		if err != nil {
			continue
		}
		pol, _ := newPolicyP(in.Mesh, pr, nil)
		out, err := runOne(in, pol)
		if err != nil {
			t.Fatal(err)
		}
		load := make([]float64, in.Mesh.NumUnits())
		for n, j := range in.Jobs {
			for i, r := range j.Units {
				load[r] += out.X[n][i]
			}
		}
		// After the last Decide (slot T-1) the window is [T-1, 2T-1): the
		// column of slot T-1 holds its usage, the others later slots (0).
		for r, u := range pol.Usage() {
			if _, s := in.Mesh.NodeSlot(r); s != in.Mesh.Slots-1 {
				load[r] = 0
			}
			if math.Abs(u-load[r]) > 1e-12*math.Max(1, u) || u > in.Mesh.Capacity[r]*(1+1e-12) {
				t.Fatalf("unit %d: usage %v, allocated %v, capacity %v", r, u, load[r], in.Mesh.Capacity[r])
			}
		}
	}
}

// TestPolicyALMMatchesWaterFill runs the policy with both solvers on
// concave instances: the days' welfare agree to 1e-5 (relative).
func TestPolicyALMMatchesWaterFill(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 13))
	trials := 40
	if testing.Short() {
		trials = 8
	}
	compared, maxDiff := 0, 0.0
	for trial := range trials {
		c := smallConfig(rng)
		c.Kinds = []utility.Kind{utility.Log, utility.Poly}
		in, err := Generate(c, rng)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := in.Pricing(0)
		if err != nil {
			continue
		}
		wf, _ := newPolicyP(in.Mesh, pr, nil)
		al, _ := newPolicyP(in.Mesh, pr, &Settings{Solver: AugmentedLagrangian})
		ow, err := runOne(in, wf)
		if err != nil {
			t.Fatal(err)
		}
		oa, err := runOne(in, al)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ow.Welfare-oa.Welfare) > 1e-5*math.Max(1, ow.Welfare) {
			t.Fatalf("trial %d: welfare water-filling %v, ALM %v", trial, ow.Welfare, oa.Welfare)
		}
		compared++
		maxDiff = math.Max(maxDiff, math.Abs(ow.Welfare-oa.Welfare)/math.Max(1, ow.Welfare))
	}
	if compared < trials/2 {
		t.Fatalf("only %d of %d days compared", compared, trials)
	}
	t.Logf("%d days: max relative welfare difference %.3g", compared, maxDiff)
}

// TestCompetitiveRatioALMPolicy repeats the Theorem 2 check with the
// augmented-Lagrangian solver in the policy.
func TestCompetitiveRatioALMPolicy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	trials := 500
	if testing.Short() {
		trials = 100
	}
	var worst float64
	for count := 0; count < trials; {
		in, err := Generate(smallConfig(rng), rng)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := in.Pricing(0)
		if err != nil {
			continue
		}
		pol, _ := newPolicyP(in.Mesh, pr, &Settings{Solver: AugmentedLagrangian})
		on, err := runOne(in, pol)
		if err != nil {
			t.Fatal(err)
		}
		opt, _, err := OfflineFlow(in)
		if err != nil {
			t.Fatal(err)
		}
		if opt == 0 {
			continue
		}
		count++
		r := opt / on.Welfare
		worst = math.Max(worst, r)
		if r > pr.Alpha*(1+1e-9) {
			b, _ := in.MarshalJSON()
			t.Errorf("OPT/ONLINE(ALM) = %v > alpha-hat %v; instance %s", r, pr.Alpha, b)
		}
	}
	t.Logf("ALM policy over %d instances: worst OPT/ONLINE %.4f", trials, worst)
}

// TestNonPartitionableAllOrNothing: the Section III-D variant allocates
// x_nr in {0, xbar_nr} and stays feasible.
func TestNonPartitionableAllOrNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 14))
	for range 100 {
		c := smallConfig(rng)
		c.Kinds = allKinds
		in, err := Generate(c, rng)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := in.Pricing(0)
		if err != nil {
			continue
		}
		pol, _ := newPolicyP(in.Mesh, pr, &Settings{NonPartitionable: true})
		out, err := runOne(in, pol)
		if err != nil {
			t.Fatal(err)
		}
		for n, j := range in.Jobs {
			for i := range j.Units {
				if x := out.X[n][i]; x != 0 && x != j.XBar[i] {
					t.Fatalf("job %d unit %d: x = %v not in {0, %v}", j.ID, j.Units[i], x, j.XBar[i])
				}
			}
		}
	}
}

func TestPolicyRejectsBadInput(t *testing.T) {
	m, _ := bipartite.NewMesh(1, 2, []float64{5, 5})
	u, _ := utility.New(utility.Linear, 1)
	pr, _ := NewPricing(1, 2)
	pol, err := newPolicyP(m, pr, nil)
	if err != nil {
		t.Fatal(err)
	}
	good := Job{ID: 0, Arrival: 0, Deadline: 1, Rho: 3, Units: []int{0, 1}, XBar: []float64{2, 2}, Beta: []float64{0, 0}, Utility: []utility.Utility{u, u}}
	cases := map[string]func(j *Job){
		"unit out of range": func(j *Job) { j.Units = []int{0, 7} },
		"repeated unit":     func(j *Job) { j.Units = []int{1, 1} },
		"NaN rho":           func(j *Job) { j.Rho = math.NaN() },
		"negative xbar":     func(j *Job) { j.XBar = []float64{2, -1} },
		"short beta":        func(j *Job) { j.Beta = []float64{0} },
		"bad utility":       func(j *Job) { j.Utility = []utility.Utility{u, {Kind: utility.Log, A: -1}} },
		"unit before arrival": func(j *Job) {
			j.Arrival, j.Deadline = 1, 1
		},
	}
	for name, mod := range cases {
		j := good
		mod(&j)
		if _, err := pol.Decide(j.Arrival, []Job{j}); !errors.Is(err, ErrValue) && !errors.Is(err, ErrDimension) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := pol.Decide(1, []Job{good}); !errors.Is(err, ErrValue) {
		t.Errorf("wrong slot: err = %v", err)
	}
	if _, err := newPolicyP(m, Pricing{Iota: 2, V: 1}, nil); !errors.Is(err, ErrBounds) || !errors.Is(err, ErrSettings) {
		t.Errorf("bad bounds: err = %v", err)
	}
	if _, err := newPolicyP(m, pr, &Settings{ALM: ALMSettings{Decay: 2}}); !errors.Is(err, ErrSettings) {
		t.Errorf("bad settings: err = %v", err)
	}
	for _, s := range pol.Usage() {
		if s != 0 {
			t.Fatalf("usage changed by rejected jobs: %v", pol.Usage())
		}
	}
}

func TestInstanceJSONRejectsBadData(t *testing.T) {
	for name, js := range map[string]string{
		"version":    `{"version":2,"mesh":{"nodes":1,"slots":1,"capacity":[1]},"jobs":[]}`,
		"no mesh":    `{"version":1,"jobs":[]}`,
		"capacity":   `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[-1]},"jobs":[]}`,
		"unit range": `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[1]},"jobs":[{"id":0,"rho":1,"units":[4],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":1}]}]}`,
		"unsorted":   `{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[1,1]},"jobs":[{"id":0,"arrival":1,"deadline":1,"rho":1,"units":[1],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":1}]},{"id":1,"rho":1,"units":[0],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":1}]}]}`,
		"dup id":     `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[1]},"jobs":[{"id":0,"rho":1,"units":[0],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":1}]},{"id":0,"rho":1,"units":[0],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":1}]}]}`,
		"utility":    `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[1]},"jobs":[{"id":0,"rho":1,"units":[0],"xbar":[1],"beta":[0],"utility":[{"kind":"linear","a":0}]}]}`,
	} {
		var in Instance
		if err := in.UnmarshalJSON([]byte(js)); err == nil {
			t.Errorf("%s: decoded without error", name)
		}
	}
}
