package onsocmax

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/msched/msched/utility"
)

// FuzzP3Solvers builds a P3 from fuzzed numbers: both solvers must never
// panic, must return an error wrapping a package sentinel for invalid data,
// and must return a feasible point otherwise; the water-filling point must
// satisfy KKT (13) to 1e-6 for valid data.
func FuzzP3Solvers(f *testing.F) {
	f.Add(uint8(3), uint8(1), 10.0, 6.0, 2.0, 0.3, 20.0, 5.0, 0.5, 3.0)
	f.Add(uint8(1), uint8(0), 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 1.0)
	f.Add(uint8(5), uint8(4), 100.0, 7.0, 1.5, 0.5, 20.0, 19.9, 0.1, 30.0)
	f.Add(uint8(2), uint8(2), -1.0, math.NaN(), 1.0, 0.1, 0.0, 0.0, 1.0, 0.5)
	f.Fuzz(func(t *testing.T, n, kind uint8, rho, xbar, a, beta, c, usage, iota, v float64) {
		k := int(n%6) + 1
		u := utility.Utility{Kind: utility.Kind(kind % 5), A: a}
		p := &P3{Rho: rho, XBar: make([]float64, k), Utility: make([]utility.Utility, k),
			Beta: make([]float64, k), Capacity: make([]float64, k), Usage: make([]float64, k)}
		for r := range k {
			s := 1 + 0.1*float64(r)
			p.XBar[r], p.Utility[r], p.Beta[r], p.Capacity[r], p.Usage[r] = xbar*s, u, beta*s, c*s, usage*float64(r%2)
		}
		pr, err := NewPricing(iota, v)
		if err == nil {
			p.Pricing = pr
		} else {
			p.Pricing = Pricing{Iota: iota, V: v, Alpha: 2}
		}
		valid := p.Validate() == nil && !(math.Abs(rho) > 1e12 || math.Abs(xbar) > 1e12 || math.Abs(c) > 1e12 || math.Abs(a) > 1e12 || v > 1e12)
		x := make([]float64, k)
		res, err := WaterFill(x, p, nil, nil)
		check := func(name string, err error) {
			if err != nil {
				if !errors.Is(err, ErrValue) && !errors.Is(err, ErrDimension) && !errors.Is(err, ErrBounds) && !errors.Is(err, ErrSettings) {
					t.Fatalf("%s: error without sentinel: %v", name, err)
				}
				if valid {
					t.Fatalf("%s: error on valid data: %v", name, err)
				}
				return
			}
			var s float64
			for r, xr := range x {
				if !(xr >= 0) || xr > p.Upper(r)*(1+1e-9)+1e-12 {
					t.Fatalf("%s: x[%d] = %v outside [0, %v]", name, r, xr, p.Upper(r))
				}
				s += xr
			}
			if s > p.Rho*(1+1e-9)+1e-12 {
				t.Fatalf("%s: sum x = %v > rho = %v", name, s, p.Rho)
			}
		}
		check("WaterFill", err)
		if err == nil && valid && math.Abs(rho) < 1e6 && c < 1e6 && a < 1e6 {
			if kkt := p.KKTResidual(x, res.Mu); kkt > 1e-6*math.Max(1, math.Max(a, v)) {
				t.Fatalf("WaterFill KKT residual %v", kkt)
			}
		}
		alm := ALM{Settings: ALMSettings{MaxOuter: 50, MaxInner: 200}}
		_, err = alm.SolveP3(x, p)
		check("ALM", err)
	})
}

// FuzzInstanceJSON decodes arbitrary bytes: never a panic; a decoded
// instance validates and round-trips.
func FuzzInstanceJSON(f *testing.F) {
	f.Add([]byte(`{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[5,5]},"jobs":[{"id":0,"arrival":0,"deadline":1,"rho":4,"units":[0,1],"xbar":[4,4],"beta":[0.2,0.1],"utility":[{"kind":"log","a":1.5},{"kind":"linear","a":1}]}]}`))
	f.Add([]byte(`{"version":2}`))
	f.Add([]byte(`{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[3],"xbar":[4],"beta":[0.2],"utility":[{"kind":"log","a":1.5}]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		// ReadInstance must agree with json.Unmarshal (it adds the size
		// bound) and neither may panic.
		_, rerr := ReadInstance(bytes.NewReader(b))
		var in Instance
		if err := json.Unmarshal(b, &in); err != nil {
			if rerr == nil {
				t.Fatalf("ReadInstance accepted what Unmarshal refuses: %v", err)
			}
			return
		}
		if rerr != nil {
			t.Fatalf("ReadInstance refused a valid instance: %v", rerr)
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("decoded instance invalid: %v", err)
		}
		out, err := json.Marshal(&in)
		if err != nil {
			t.Fatal(err)
		}
		var back Instance
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("round trip: %v", err)
		}
		out2, _ := json.Marshal(&back)
		if !bytes.Equal(out, out2) {
			t.Fatalf("round trip changed the encoding")
		}
	})
}
