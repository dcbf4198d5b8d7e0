package onsocmax

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/utility"
)

// TestOfflineFlowMatchesLP checks the min-cost-flow optimum against the
// simplex LP on random linear instances.
func TestOfflineFlowMatchesLP(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	trials := 300
	if testing.Short() {
		trials = 60
	}
	for trial := range trials {
		in, err := Generate(smallConfig(rng), rng)
		if err != nil {
			t.Fatal(err)
		}
		lpOpt, _, err := OfflineLP(in)
		if err != nil {
			t.Fatal(err)
		}
		flOpt, x, err := OfflineFlow(in)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.CheckFeasible(x, 1e-9); err != nil {
			t.Fatalf("trial %d: flow solution infeasible: %v", trial, err)
		}
		if w := in.Welfare(x); math.Abs(w-flOpt) > 1e-9*math.Max(1, w) {
			t.Fatalf("trial %d: flow value %v but welfare of its x %v", trial, flOpt, w)
		}
		if math.Abs(lpOpt-flOpt) > 1e-7*math.Max(1, lpOpt) {
			t.Fatalf("trial %d: LP %v, flow %v", trial, lpOpt, flOpt)
		}
	}
}

func TestOfflineFlowDefaultDay(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	flOpt, _, err := OfflineFlow(in)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() {
		return
	}
	lpOpt, _, err := OfflineLP(in)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(lpOpt-flOpt) > 1e-7*lpOpt {
		t.Fatalf("default day: LP %v, flow %v", lpOpt, flOpt)
	}
	t.Logf("default day optimum %.4f (LP and flow agree)", flOpt)
}

// TestOfflineConcaveBracketsOptimum: on linear instances the certified
// interval [Lower, Upper] contains the exact optimum; on concave instances
// Lower is feasible and no online policy exceeds Upper.
func TestOfflineConcaveBracketsOptimum(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	worstGap := 0.0
	trials := 100
	if testing.Short() {
		trials = 20
	}
	for trial := range trials {
		c := smallConfig(rng)
		if trial%2 == 1 {
			c.Kinds = allKinds
		}
		in, err := Generate(c, rng)
		if err != nil {
			t.Fatal(err)
		}
		res, err := OfflineConcave(in, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := in.CheckFeasible(res.X, 1e-9); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if w := in.Welfare(res.X); math.Abs(w-res.Lower) > 1e-9*math.Max(1, w) {
			t.Fatalf("trial %d: Lower %v but welfare of X %v", trial, res.Lower, w)
		}
		worstGap = math.Max(worstGap, res.Gap())
		if trial%2 == 0 {
			opt, _, err := OfflineFlow(in)
			if err != nil {
				t.Fatal(err)
			}
			if opt < res.Lower-1e-7*math.Max(1, opt) || opt > res.Upper+1e-7*math.Max(1, opt) {
				t.Fatalf("trial %d: optimum %v outside [%v, %v]", trial, opt, res.Lower, res.Upper)
			}
		} else if pr, err := in.Pricing(0); err == nil {
			pol, _ := newPolicyP(in.Mesh, pr, nil)
			on, err := runOne(in, pol)
			if err != nil {
				t.Fatal(err)
			}
			if on.Welfare > res.Upper*(1+1e-9)+1e-9 {
				t.Fatalf("trial %d: online %v above the dual bound %v", trial, on.Welfare, res.Upper)
			}
		}
	}
	t.Logf("worst relative gap over %d instances: %.3g", trials, worstGap)
}

// TestOfflineConcaveContext: a done context stops OfflineConcave with its
// error; a live one changes nothing.
func TestOfflineConcaveContext(t *testing.T) {
	c := DefaultConfig()
	c.Kinds = []utility.Kind{utility.Log}
	c.CapMean = 5
	in, err := Generate(c, rand.New(rand.NewPCG(2, 2)))
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	want, err := OfflineConcave(in, &OfflineSettings{MaxIterations: 50})
	require.NoError(t, err)
	got, err := OfflineConcave(in, &OfflineSettings{MaxIterations: 50, Context: ctx})
	require.NoError(t, err)
	require.Equal(t, want.Lower, got.Lower)
	require.Equal(t, want.Upper, got.Upper)
	cancel()
	_, err = OfflineConcave(in, &OfflineSettings{Context: ctx})
	require.ErrorIs(t, err, context.Canceled)
}
