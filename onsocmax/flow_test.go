package onsocmax

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/utility"
)

func readInstance(t testing.TB, path string) *Instance {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var in Instance
	require.NoError(t, json.Unmarshal(b, &in))
	return &in
}

// TestOfflineFlowIssue16 is the instance on which the former Bellman-Ford
// flow never returned: a capacity of 1e-3 gives an arc cost of -460 next to
// costs of -2.5, and the 1e-14 absolute relaxation tolerance, below the
// rounding of 460, let the zero-cost pair arc/reverse arc relax and close a
// predecessor cycle that missed the source. OfflineLP gives 52.324.
func TestOfflineFlowIssue16(t *testing.T) {
	in := readInstance(t, "testdata/issue16_flow_hang.json")
	lp, _, err := OfflineLP(in)
	require.NoError(t, err)
	require.InDelta(t, 52.324, lp, 1e-3)
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		x[n] = make([]float64, len(in.Jobs[n].Units))
	}
	var s FlowSolver
	res, err := s.Solve(x, in)
	require.NoError(t, err)
	require.Equal(t, Success, res.Status)
	require.InDelta(t, lp, res.Value, 1e-9*lp)
	require.NoError(t, in.CheckFeasible(x, 1e-9))
	require.InDelta(t, res.Value, in.Welfare(x), 1e-9*lp)
	t.Logf("issue 16 instance: LP %.12g, flow %.12g, %d augmentations", lp, res.Value, res.Augmentations)
}

// degenerate perturbs a generated linear instance toward the cases that
// break floating-point flow codes: capacities, caps and workloads of 1e-3
// next to 1e3, equal utilities (ties between units and between jobs), zero
// betas, zero caps and duplicated jobs.
func degenerate(rng *rand.Rand, in *Instance) *Instance {
	pick := func(v float64) float64 {
		switch rng.IntN(6) {
		case 0:
			return 1e-3
		case 1:
			return 1e3
		}
		return v
	}
	for r := range in.Mesh.Capacity {
		in.Mesh.Capacity[r] = pick(in.Mesh.Capacity[r])
	}
	tieA := 1 + 2*rng.Float64()
	mode := rng.IntN(4)
	for n := range in.Jobs {
		j := &in.Jobs[n]
		j.Rho = pick(j.Rho)
		for i := range j.Units {
			j.XBar[i] = pick(j.XBar[i])
			if rng.IntN(10) == 0 {
				j.XBar[i] = 0
			}
			switch mode {
			case 1: // one utility everywhere
				j.Utility[i] = utility.Utility{Kind: utility.Linear, A: tieA}
			case 2: // ties and no cluster term
				j.Utility[i] = utility.Utility{Kind: utility.Linear, A: tieA}
				j.Beta[i] = 0
			case 3:
				if rng.IntN(2) == 0 {
					j.Beta[i] = 0
				}
			}
		}
	}
	// Duplicate a job (same data, new ID, same arrival keeps the order).
	if len(in.Jobs) > 0 && rng.IntN(3) == 0 {
		k := rng.IntN(len(in.Jobs))
		d := in.Jobs[k]
		d.ID = 1 << 20
		d.Units = append([]int(nil), d.Units...)
		d.XBar = append([]float64(nil), d.XBar...)
		d.Beta = append([]float64(nil), d.Beta...)
		d.Utility = append([]utility.Utility(nil), d.Utility...)
		in.Jobs = append(in.Jobs[:k+1], append([]Job{d}, in.Jobs[k+1:]...)...)
	}
	return in
}

// TestOfflineFlowAgainstLP compares FlowSolver with the simplex OfflineLP
// (an independent method) on generated and near-degenerate instances, each
// run bounded by a watchdog as well as by MaxAugmentations, and reports the
// worst augmentation count. 10 000 instances without -short (about 10 s),
// 600 with it.
func TestOfflineFlowAgainstLP(t *testing.T) {
	trials := 10000
	if testing.Short() {
		trials = 600
	}
	rng := rand.New(rand.NewPCG(16, 1))
	var s FlowSolver
	worstAug, worstRatio, worstGap, lpFailures := 0, 0.0, 0.0, 0
	for trial := range trials {
		in, err := Generate(smallConfig(rng), rng)
		require.NoError(t, err)
		if trial%2 == 1 {
			in = degenerate(rng, in)
		}
		require.NoError(t, in.Validate(), "trial %d", trial)
		x := make([][]float64, len(in.Jobs))
		for n := range in.Jobs {
			x[n] = make([]float64, len(in.Jobs[n].Units))
		}
		done := make(chan struct{})
		var res FlowResult
		go func() {
			res, err = s.Solve(x, in)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			b, _ := json.Marshal(in)
			t.Fatalf("trial %d: flow did not return within 10 s on %s", trial, b)
		}
		require.NoError(t, err, "trial %d", trial)
		require.NoError(t, in.CheckFeasible(x, 1e-9), "trial %d", trial)
		scale := math.Max(1, math.Abs(res.Value))
		require.InDelta(t, res.Value, in.Welfare(x), 1e-9*scale, "trial %d", trial)
		lp, _, err := OfflineLP(in)
		if err != nil {
			// The dense simplex may itself fail on 1e-3/1e3 data; the flow
			// is then checked against its own feasibility only.
			lpFailures++
			continue
		}
		gap := math.Abs(lp-res.Value) / math.Max(1, math.Abs(lp))
		worstGap = math.Max(worstGap, gap)
		if gap > 1e-7 {
			b, _ := json.Marshal(in)
			t.Fatalf("trial %d: LP %.12g, flow %.12g (gap %.3g) on %s", trial, lp, res.Value, gap, b)
		}
		worstAug = max(worstAug, res.Augmentations)
		if arcs := len(s.g.jobArc); arcs > 0 {
			worstRatio = math.Max(worstRatio, float64(res.Augmentations)/float64(arcs))
		}
	}
	require.LessOrEqual(t, lpFailures, trials/100, "the LP reference failed too often")
	t.Logf("%d instances (half near-degenerate): 0 hangs, worst augmentations %d, worst augmentations/arcs %.3g, worst relative gap to the LP %.3g, LP failures %d",
		trials, worstAug, worstRatio, worstGap, lpFailures)
}

// TestOfflineFlowScaledDays checks the flow against the LP on full days
// (the LP is too slow beyond 1x) and reports augmentations per arc at 5x
// and 20x, far below DefaultMaxAugmentations.
func TestOfflineFlowScaledDays(t *testing.T) {
	if testing.Short() {
		t.Skip("LP on full days takes seconds")
	}
	for seed := uint64(1); seed <= 3; seed++ {
		in := scaledDay(t, 1, seed)
		lp, _, err := OfflineLP(in)
		require.NoError(t, err)
		fl, _, err := OfflineFlow(in)
		require.NoError(t, err)
		require.InDelta(t, lp, fl, 1e-9*lp, "seed %d", seed)
	}
	for _, k := range []int{5, 20} {
		in := scaledDay(t, k, 1)
		var s FlowSolver
		x := make([][]float64, len(in.Jobs))
		for n := range in.Jobs {
			x[n] = make([]float64, len(in.Jobs[n].Units))
		}
		res, err := s.Solve(x, in)
		require.NoError(t, err)
		require.NoError(t, in.CheckFeasible(x, 1e-9))
		arcs := len(s.g.jobArc)
		require.Less(t, res.Augmentations, DefaultMaxAugmentations(arcs)/4)
		require.Less(t, res.Work, int64(DefaultMaxFlowWork/100))
		t.Logf("%dx: %d arcs, %d augmentations, %d arc scans", k, arcs, res.Augmentations, res.Work)
	}
}

// TestFlowIterationLimit: the limit stops the solver with a typed error, a
// status and a feasible flow.
func TestFlowIterationLimit(t *testing.T) {
	in := scaledDay(t, 1, 1)
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		x[n] = make([]float64, len(in.Jobs[n].Units))
	}
	s := FlowSolver{Settings: FlowSettings{MaxAugmentations: 3}}
	res, err := s.Solve(x, in)
	require.ErrorIs(t, err, ErrIterationLimit)
	require.Equal(t, IterationLimit, res.Status)
	require.Equal(t, 3, res.Augmentations)
	require.NoError(t, in.CheckFeasible(x, 1e-9))

	// The work budget stops a solve whose searches are long, with the
	// same status and a feasible flow.
	s = FlowSolver{Settings: FlowSettings{MaxWork: 50}}
	res, err = s.Solve(x, in)
	require.ErrorIs(t, err, ErrIterationLimit)
	require.Equal(t, IterationLimit, res.Status)
	require.GreaterOrEqual(t, res.Work, int64(50))
	require.NoError(t, in.CheckFeasible(x, 1e-9))

	for _, bad := range []FlowSettings{{MaxAugmentations: -1}, {MaxWork: -1}, {CapacityTol: -1}, {CapacityTol: math.NaN()}, {CapacityTol: 0.5}} {
		s := FlowSolver{Settings: bad}
		_, err := s.Solve(x, in)
		require.ErrorIs(t, err, ErrSettings, "%+v", bad)
	}
	// Non-linear utilities are refused, not approximated.
	in.Jobs[0].Utility[0] = utility.Utility{Kind: utility.Log, A: 1}
	_, err = (&FlowSolver{}).Solve(x, in)
	require.True(t, errors.Is(err, ErrUnsupported))
}

// FuzzOfflineFlow decodes an instance, makes its utilities linear and
// compares the flow with the LP on small instances; it must never hang
// (the fuzzer's per-input timeout) or panic.
func FuzzOfflineFlow(f *testing.F) {
	b, err := os.ReadFile("testdata/issue16_flow_hang.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"version":1,"mesh":{"nodes":2,"slots":1,"capacity":[0.001,1000]},"jobs":[{"id":0,"arrival":0,"deadline":0,"rho":1000,"units":[0,1],"xbar":[1000,0.001],"beta":[0.5,0.5],"utility":[{"kind":"linear","a":2},{"kind":"linear","a":2}]},{"id":1,"arrival":0,"deadline":0,"rho":0.001,"units":[0,1],"xbar":[1000,1000],"beta":[0.5,0.5],"utility":[{"kind":"linear","a":2},{"kind":"linear","a":2}]}]}`))
	f.Add([]byte(`{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[1,1]},"jobs":[{"id":0,"arrival":0,"deadline":1,"rho":1,"units":[0,1],"xbar":[1,1],"beta":[0,0],"utility":[{"kind":"linear","a":1},{"kind":"linear","a":1}]},{"id":1,"arrival":0,"deadline":1,"rho":1,"units":[0,1],"xbar":[1,1],"beta":[0,0],"utility":[{"kind":"linear","a":1},{"kind":"linear","a":1}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var in Instance
		if json.Unmarshal(b, &in) != nil {
			return
		}
		vars := 0
		for n := range in.Jobs {
			for i := range in.Jobs[n].Utility {
				in.Jobs[n].Utility[i].Kind = utility.Linear
				vars++
			}
		}
		if in.Validate() != nil || vars > 60 {
			return
		}
		fl, x, err := OfflineFlow(&in)
		if err != nil {
			t.Fatalf("flow: %v", err)
		}
		if err := in.CheckFeasible(x, 1e-9); err != nil {
			t.Fatal(err)
		}
		// The dense simplex (tolerance 1e-10) is a reference only for data
		// of moderate scale: with a capacity of 1e12 it answers 109.03998
		// where the optimum is 109.04.
		big := 0.0
		for _, c := range in.Mesh.Capacity {
			big = math.Max(big, c)
		}
		for _, j := range in.Jobs {
			big = math.Max(big, j.Rho)
			for i := range j.Units {
				big = math.Max(big, math.Max(j.XBar[i], j.Utility[i].A+j.Beta[i]))
			}
		}
		lp, _, err := OfflineLP(&in)
		if err != nil || big > 1e6 {
			return
		}
		if math.Abs(lp-fl) > 1e-7*math.Max(1, math.Abs(lp)) {
			t.Fatalf("LP %v, flow %v", lp, fl)
		}
	})
}
