package baselines

import (
	"bytes"
	"math"
	"testing"

	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// FuzzOnSocMaxBaselines decodes an instance and runs MAX-FIRST and
// EQUAL-SHARE through the checking simulator: never a panic, always
// feasible and causal, and with linear utilities never above the flow
// optimum. Seeds hold hostile IDs, tiny and huge capacities and an
// overflowing mesh.
func FuzzOnSocMaxBaselines(f *testing.F) {
	f.Add([]byte(`{"version":1,"mesh":{"nodes":2,"slots":2,"capacity":[5,5,0.001,1000]},"jobs":[{"id":-9223372036854775808,"arrival":0,"deadline":1,"rho":4,"units":[0,1,3],"xbar":[4,4,1000],"beta":[0.2,0.1,0.5],"utility":[{"kind":"linear","a":1.5},{"kind":"linear","a":1},{"kind":"linear","a":3}]},{"id":9223372036854775807,"arrival":1,"deadline":1,"rho":1e6,"units":[1,3],"xbar":[1e-3,7],"beta":[0,0],"utility":[{"kind":"linear","a":1},{"kind":"linear","a":2}]}]}`))
	f.Add([]byte(`{"version":1,"mesh":{"nodes":4294967296,"slots":4294967296,"capacity":[]},"jobs":[]}`))
	f.Add([]byte(`{"version":1,"mesh":{"nodes":1,"slots":3,"capacity":[1,0,1]},"jobs":[{"id":1,"arrival":0,"deadline":2,"rho":3,"units":[0,1,2],"xbar":[1,1,1],"beta":[0,0,0],"utility":[{"kind":"log","a":1},{"kind":"sqrt","a":1},{"kind":"linear","a":1}]},{"id":2,"arrival":2,"deadline":2,"rho":3,"units":[2],"xbar":[3],"beta":[0.5],"utility":[{"kind":"linear","a":3}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := onsocmax.ReadInstance(bytes.NewReader(b))
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
		opt := math.Inf(1)
		if linear {
			if opt, _, err = onsocmax.OfflineFlow(in); err != nil {
				t.Fatalf("flow: %v", err)
			}
		}
		for _, p := range osmBaselines(t, in.Mesh) {
			o, err := osmRun(in, p)
			if err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
			if o.Welfare > opt*(1+1e-9)+1e-9 {
				t.Fatalf("%s welfare %v above OPT %v", p.Name(), o.Welfare, opt)
			}
		}
	})
}
