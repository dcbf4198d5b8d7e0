package baselines

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// TestOnSocMaxBaselinesFeasible runs MAX-FIRST and EQUAL-SHARE through the
// checking simulator (which rejects allocations outside R_n, in past slots
// or violating (4), (6), (7)) on random instances of every utility kind,
// and checks that neither exceeds the offline optimum on linear ones.
func TestOnSocMaxBaselinesFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 11))
	for trial := range 200 {
		c := onsocmax.DefaultConfig()
		c.Nodes, c.Slots = 1+rng.IntN(4), 1+rng.IntN(6)
		c.CapMean = 3 + 20*rng.Float64()
		c.Kinds = []utility.Kind{utility.Linear, utility.Log, utility.Sqrt}
		if trial%2 == 0 {
			c.Kinds = []utility.Kind{utility.Linear}
		}
		in, err := onsocmax.Generate(c, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, pol := range osmBaselines(t, in.Mesh) {
			out, err := osmRun(in, pol)
			if err != nil {
				t.Fatalf("trial %d: %v", trial, err)
			}
			if trial%2 == 0 {
				opt, _, err := onsocmax.OfflineLP(in)
				if err != nil {
					t.Fatal(err)
				}
				if out.Welfare > opt+1e-7*math.Max(1, opt) {
					t.Fatalf("trial %d: %s welfare %v above the optimum %v", trial, pol.Name(), out.Welfare, opt)
				}
			}
		}
	}
}

// TestEqualShareSplitsEqually: three jobs on one unit of capacity 9, demands
// 1, 5 and 5: the first gets 1 and the others split the remaining 8.
func TestEqualShareSplitsEqually(t *testing.T) {
	m, _ := bipartite.NewMesh(1, 1, []float64{9})
	u, _ := utility.New(utility.Linear, 1)
	mk := func(id int, xbar float64) onsocmax.Job {
		return onsocmax.Job{ID: id, Rho: 10, Units: []int{0}, XBar: []float64{xbar}, Beta: []float64{0}, Utility: []utility.Utility{u}}
	}
	dec, err := osmBaselines(t, m)[1].Decide(0, []onsocmax.Job{mk(0, 5), mk(1, 1), mk(2, 5)})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]float64{}
	for _, a := range dec.Allocations {
		got[a.Job] += a.X
	}
	if got[0] != 4 || got[1] != 1 || got[2] != 4 {
		t.Fatalf("EQUAL-SHARE allocations %v, want 0:4 1:1 2:4", got)
	}
}

func TestOnSocMaxBaselinesRejectBadJobs(t *testing.T) {
	m, _ := bipartite.NewMesh(1, 2, []float64{1, 1})
	u, _ := utility.New(utility.Linear, 1)
	bad := []onsocmax.Job{
		{ID: 0, Rho: 1, Units: []int{5}, XBar: []float64{1}, Beta: []float64{0}, Utility: []utility.Utility{u}},
		{ID: 0, Rho: math.NaN(), Units: []int{0}, XBar: []float64{1}, Beta: []float64{0}, Utility: []utility.Utility{u}},
		{ID: 0, Arrival: 1, Deadline: 1, Rho: 1, Units: []int{1}, XBar: []float64{1}, Beta: []float64{0}, Utility: []utility.Utility{u}},
	}
	for i, j := range bad {
		for _, pol := range osmBaselines(t, m) {
			if _, err := pol.Decide(0, []onsocmax.Job{j}); err == nil {
				t.Errorf("case %d: %s accepted a bad job", i, pol.Name())
			}
		}
	}
}
