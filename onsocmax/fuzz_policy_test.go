package onsocmax

import (
	"bytes"
	"errors"
	"math"
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
		for _, s := range []*PolicySettings{nil, {NonPartitionable: true}} {
			p, err := NewPolicy(in.Mesh, pr, s)
			if err != nil {
				t.Fatal(err)
			}
			o, err := Run(in, p)
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			if o.Welfare > opt*(1+1e-9)+1e-9 {
				t.Fatalf("%s welfare %v above OPT %v", p.Name(), o.Welfare, opt)
			}
		}
	})
}
