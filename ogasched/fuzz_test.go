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
	f.Add([]byte(`{"version":1,"ports":-3,"arrivals":[]}`))
	f.Add([]byte(`{"version":1,"ports":9223372036854775807,"arrivals":[]}`))
	f.Add([]byte(`{"version":1,"ports":1,"arrivals":[[1e300]]}`))
	f.Add([]byte(`{"version":1,"ports":1,"arrivals":[[1]]} {"version":1}`))
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

// FuzzProblemJSON checks that decoding an instance never panics, never
// allocates beyond the limits, and that an accepted instance runs: a
// policy steps on it with feasible decisions and BestFixed certifies.
func FuzzProblemJSON(f *testing.F) {
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":2,"right":2,"edges":[[0,0],[0,1],[1,1]]},"k":1,"demand":[[1],[2]],"capacity":[[1],[3]],"utility":[[{"kind":"log","a":1}],[{"kind":"poly","a":2}]],"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1000000000,"right":2,"edges":[[0,0]]},"k":1,"demand":[[1]],"capacity":[[1],[1]],"utility":[[{"kind":"log","a":1}],[{"kind":"log","a":1}]],"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":9223372036854775807,"right":9223372036854775807,"edges":[]},"k":1,"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"demand":[[1]],"capacity":[[1]],"utility":[[{"kind":"sqrt","a":1}]],"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"demand":[[1]],"capacity":[[1]],"utility":[[{"kind":"linear","a":1e308}]],"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"demand":[[1e300]],"capacity":[[1]],"utility":[[{"kind":"linear","a":1}]],"beta":[0.5]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":100000000,"beta":[]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"demand":[[1]],"capacity":[[1]],"utility":[[{"kind":"log","a":1}]],"beta":[0.5]} trailing`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Problem
		if err := json.Unmarshal(b, &p); err != nil {
			return
		}
		if p.Dim() > 1<<12 {
			return // valid but too large to run in a fuzz iteration
		}
		pol, err := New(&p, Settings{Horizon: 4})
		if err != nil {
			t.Fatalf("decoded problem refused by New: %v", err)
		}
		defer pol.Close()
		x := make([]float64, p.NumPorts())
		for l := range x {
			x[l] = float64(l % 2)
		}
		for s := 0; s < 4; s++ {
			y, err := pol.Decide(s, x)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Feasible(y, 1e-9*(1+MaxValue)); err != nil {
				t.Fatal(err)
			}
			if err := pol.Observe(s, x); err != nil {
				t.Fatalf("slot %d: %v", s, err)
			}
		}
		res, err := BestFixed(&p, &Trace{Ports: p.NumPorts(), Arrivals: [][]float64{x}}, BestFixedSettings{MaxIter: 60})
		if err != nil {
			t.Fatal(err)
		}
		if !(res.Bound >= res.Value) || math.IsNaN(res.Value) {
			t.Fatalf("BestFixed certificate broken: value %v bound %v", res.Value, res.Bound)
		}
	})
}

// FuzzPolicyHostile drives OGASched with arbitrary slots and arrivals
// (NaN, Inf, negative, huge, backwards slots): no panic, and a refused call
// leaves the decision unchanged.
func FuzzPolicyHostile(f *testing.F) {
	f.Add(0, 1.0, 0.0, 1, 1.0, 1.0)
	f.Add(-1, math.NaN(), 0.0, 0, 1.0, 1.0)
	f.Add(5, math.Inf(1), 1.0, 3, -1.0, 1e300)
	f.Add(math.MaxInt, 1e15, 1e15, math.MinInt, 1.0, 0.0)
	f.Fuzz(func(t *testing.T, t1 int, a0, a1 float64, t2 int, b0, b1 float64) {
		p := handProblem(t)
		pol, err := New(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		defer pol.Close()
		for _, c := range []struct {
			s int
			x []float64
		}{{t1, []float64{a0, a1}}, {t2, []float64{b0, b1}}} {
			before := append([]float64(nil), pol.Y()...)
			if _, err := pol.Decide(c.s, c.x); err != nil {
				if !equalBits(before, pol.Y()) {
					t.Fatal("Decide error changed y")
				}
			}
			if err := pol.Observe(c.s, c.x); err != nil {
				if !equalBits(before, pol.Y()) {
					t.Fatal("Observe error changed y")
				}
				continue
			}
			if err := p.Feasible(pol.Y(), 1e-6); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}
