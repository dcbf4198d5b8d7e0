package ogasched

import (
	"encoding/json"
	"math"
	"testing"
)

// FuzzTraceJSON checks that decoding never panics and that an accepted
// trace is valid and re-encodes to an equivalent trace.
func FuzzTraceJSON(f *testing.F) {
	f.Add([]byte(`{"version":1,"ports":2,"arrivals":[[1,0],[0,1]]}`))
	f.Add([]byte(`{"version":1,"ports":1,"arrivals":[[-1]]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tr Trace
		if err := json.Unmarshal(b, &tr); err != nil {
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted invalid trace: %v", err)
		}
		out, err := json.Marshal(&tr)
		if err != nil {
			t.Fatal(err)
		}
		var tr2 Trace
		if err := json.Unmarshal(out, &tr2); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		if len(tr2.Arrivals) != len(tr.Arrivals) || tr2.Ports != tr.Ports {
			t.Fatal("round trip changed the trace")
		}
	})
}

// FuzzPolicyFeasible drives OGASched on the hand instance with fuzzed
// arrivals and step and checks (5)-(6) after every step for the exact
// projection; with the paper's projection (which can violate (5), see
// Settings.PaperProjection) it checks only that y stays finite.
func FuzzPolicyFeasible(f *testing.F) {
	f.Add(1.0, 0.0, 0.5, false)
	f.Add(3.0, 1.0, 25.0, true)
	f.Fuzz(func(t *testing.T, x0, x1, eta float64, paper bool) {
		if math.IsNaN(eta) || math.IsInf(eta, 0) || eta < 0 || eta > 1e6 || !(x0 >= 0 && x0 < 1e3) || !(x1 >= 0 && x1 < 1e3) {
			return
		}
		p := handProblem(t)
		pol, err := New(p, Settings{Step: Constant(eta), PaperProjection: paper})
		if err != nil {
			t.Fatal(err)
		}
		defer pol.Close()
		x := []float64{x0, x1}
		for s := 0; s < 5; s++ {
			y, err := pol.Decide(s, x)
			if err != nil {
				t.Fatal(err)
			}
			if paper {
				for _, v := range y {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("paper projection: y has %v", v)
					}
				}
			} else if err := p.Feasible(y, 1e-9*(1+eta*(x0+x1))); err != nil {
				t.Fatal(err)
			}
			if err := pol.Observe(s, x); err != nil {
				t.Fatal(err)
			}
			x[0], x[1] = x[1], x[0]
		}
	})
}
