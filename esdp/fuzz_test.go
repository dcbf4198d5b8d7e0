package esdp

import (
	"encoding/json"
	"math"
	"testing"
)

// budgetedFromBytes decodes a small budgeted problem (at most 12 items,
// K <= 3) from b; every byte sequence gives a valid problem.
func budgetedFromBytes(b []byte) *Budgeted {
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		v := int(b[0])
		b = b[1:]
		return v
	}
	n, K := next()%13, 1+next()%3
	p := &Budgeted{K: K, Demand: make([]int, n*K), Capacity: make([]int, K), Upsilon: make([]int, n), Sigma2: make([]float64, n)}
	for k := range p.Capacity {
		p.Capacity[k] = next() % 9
	}
	for i := range p.Demand {
		p.Demand[i] = next() % 4
	}
	for e := 0; e < n; e++ {
		p.Upsilon[e] = next() % 7
		p.Sigma2[e] = float64(next()) / 16
	}
	p.MaxBudget = next() % 40
	if mask := next(); mask%3 == 0 {
		p.Enabled = make([]bool, n)
		for e := range p.Enabled {
			p.Enabled[e] = (mask>>(e%8))&1 == 0 || e%5 == 0
		}
	}
	return p
}

// FuzzOracle checks the fast dynamic program against brute force and, when
// every demand column is non-zero, against Algorithm 2 as written.
func FuzzOracle(f *testing.F) {
	f.Add([]byte{3, 0, 4, 1, 2, 3, 10, 2, 5, 1, 1, 30, 5})
	f.Add([]byte{12, 2, 8, 8, 8, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0, 1, 2, 3, 6, 200, 0, 100, 3, 50, 39, 3})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := budgetedFromBytes(b)
		want := bruteBudgeted(p)
		r, err := SolveBudgeted(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for s := range want {
			got := r.Value[s]
			if math.IsInf(want[s], -1) != math.IsInf(got, -1) || (!math.IsInf(got, -1) && math.Abs(got-want[s]) > 1e-9*(1+want[s])) {
				t.Fatalf("s=%d: V = %v, brute force %v", s, got, want[s])
			}
			if x := r.Solution(nil, s); x != nil {
				checkSolution(t, p, x, s, got)
			}
		}
		positive := true
		for e := 0; e < len(p.Sigma2); e++ {
			col := 0
			for k := 0; k < p.K; k++ {
				col += p.Demand[e*p.K+k]
			}
			positive = positive && col > 0
		}
		if !positive {
			return
		}
		ref, err := Algorithm2(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for s := range ref.Value {
			if ref.Value[s] != r.Value[s] {
				t.Fatalf("s=%d: fast %v, Algorithm 2 %v", s, r.Value[s], ref.Value[s])
			}
		}
		if ref.Best != r.Best {
			t.Fatalf("s*: fast %d, Algorithm 2 %d", r.Best, ref.Best)
		}
	})
}

// FuzzInstanceJSON checks that decoding never panics and that an accepted
// instance is valid and re-encodes to the same bytes.
func FuzzInstanceJSON(f *testing.F) {
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":2,"edges":[[0,0],[0,1]]},"k":1,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`))
	f.Add([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":1,"edges":[[0,0]]},"k":1,"demand":[[1]],"capacity":[1],"cost":[0],"mean":[0.5],"std":[-1],"arrival":[0.5]}`))
	f.Add([]byte(`{"version":2}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var in Instance
		if err := json.Unmarshal(b, &in); err != nil {
			return
		}
		if err := in.Validate(); err != nil {
			t.Fatalf("accepted invalid instance: %v", err)
		}
		out, err := json.Marshal(&in)
		if err != nil {
			t.Fatal(err)
		}
		var in2 Instance
		if err := json.Unmarshal(out, &in2); err != nil {
			t.Fatalf("re-decode: %v", err)
		}
		out2, _ := json.Marshal(&in2)
		if string(out) != string(out2) {
			t.Fatal("round trip changed the instance")
		}
	})
}
