package onsocmax

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/utility"
)

// FuzzPolicyRun decodes an instance with ReadInstance and runs OnSocMax
// (both solvers and the 0/1 variant) through Run: never a panic; on a
// valid instance Run succeeds (feasible, causal), and with linear
// utilities no policy exceeds the flow optimum. Seeds include hostile
// sizes, IDs and timestamps (testdata/fuzz/FuzzPolicyRun).
func FuzzPolicyRun(f *testing.F) {
	f.Add([]byte(`{"version":1,"mesh":{"nodes":2,"slots":2,"capacity":[5,5,0.001,1000]},"jobs":[{"id":-9223372036854775808,"arrival":0,"deadline":1,"rho":4,"units":[0,1,3],"xbar":[4,4,1000],"beta":[0.2,0.1,0.5],"utility":[{"kind":"linear","a":1.5},{"kind":"linear","a":1},{"kind":"linear","a":3}]},{"id":9223372036854775807,"arrival":1,"deadline":1,"rho":1e6,"units":[1,3],"xbar":[1e-3,7],"beta":[0,0],"utility":[{"kind":"log","a":1},{"kind":"sqrt","a":2}]}]}`))
	f.Add([]byte(`{"version":1,"mesh":{"nodes":4294967296,"slots":4294967296,"capacity":[]},"jobs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ReadInstance(bytes.NewReader(b))
		if err != nil {
			return
		}
		vars, linear := 0, true
		for _, j := range in.Jobs {
			vars += len(j.Units)
			for _, u := range j.Utility {
				linear = linear && u.Kind == utility.Linear
			}
		}
		if vars > 300 || in.Mesh.Slots > 1000 {
			return
		}
		pr, err := in.Pricing(0)
		if err != nil {
			if !errors.Is(err, ErrBounds) {
				t.Fatalf("pricing error without sentinel: %v", err)
			}
			return
		}
		opt := math.Inf(1)
		if linear {
			if opt, _, err = OfflineFlow(in); err != nil {
				t.Fatalf("flow: %v", err)
			}
		}
		for _, s := range []*Settings{nil, {NonPartitionable: true}} {
			p, err := newPolicyP(in.Mesh, pr, s)
			if err != nil {
				t.Fatal(err)
			}
			o, err := runOne(in, p)
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			if o.Welfare > opt*(1+1e-9)+1e-9 {
				t.Fatalf("%s welfare %v above OPT %v", p.Name(), o.Welfare, opt)
			}
		}
	})
}

// FuzzGenerate builds a Config from fuzzed sizes and parameters: Validate
// and Generate never panic, refuse what they cannot hold with an error
// wrapping a sentinel, and produce valid instances otherwise. Seeds hold
// huge and overflowing sizes, NaN and infinite means.
func FuzzGenerate(f *testing.F) {
	f.Add(10, 24, 20, 2.03, 4.0, 20.0, 18.0, 7.0, 0.5, uint64(1), false)
	f.Add(1<<32, 1<<32, 20, 2.03, 4.0, 20.0, 18.0, 7.0, 0.5, uint64(1), false)
	f.Add(math.MaxInt, 2, math.MaxInt, 1e300, 1e300, 1e300, 1e300, 1e300, 1.0, uint64(2), true)
	f.Add(3, 5, 7, math.NaN(), math.Inf(1), -1.0, 0.0, 0.0, 0.0, uint64(3), false)
	f.Add(2, 3, 50, 100.0, 1e300, 1e-300, 1e-3, 1e3, 1.0, uint64(4), true)
	f.Fuzz(func(t *testing.T, nodes, slots, jobs int, rate, dur, capm, rho, xbar, loc float64, seed uint64, perJob bool) {
		c := DefaultConfig()
		c.Nodes, c.Slots, c.Jobs = nodes, slots, jobs
		c.ArrivalRate, c.MeanDuration, c.CapMean, c.RhoMean, c.XBarMean, c.Locality = rate, dur, capm, rho, xbar, loc
		c.PerJobUtility = perJob
		if err := c.Validate(); err != nil {
			if !errors.Is(err, ErrValue) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("error without sentinel: %v", err)
			}
			return
		}
		if nodes*slots > 1<<14 || jobs > 1<<12 || rate > 1e3 {
			return // valid but too slow for a fuzz iteration
		}
		in, err := Generate(c, rand.New(rand.NewPCG(seed, 1)))
		if err != nil {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("Generate: %v", err)
			}
			return
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("generated instance invalid: %v", err)
		}
	})
}
