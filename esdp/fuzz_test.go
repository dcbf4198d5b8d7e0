package esdp

import (
	"encoding/json"
	"errors"
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
		r, err := SolveBudgeted(p, OracleSettings{})
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
		ref, err := Algorithm2(p, OracleSettings{})
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

// hugeInts are the integers FuzzKnapsackHuge draws demands, capacities and
// budgets from: small ones and those next to the overflow boundaries.
var hugeInts = [...]int{0, 1, 2, 3, 5, 1 << 31, 1<<31 - 1, 1 << 61, 1 << 62, math.MaxInt/2 - 1, math.MaxInt / 2, math.MaxInt/2 + 1, math.MaxInt - 1, math.MaxInt, 7, 1 << 40}

// knapsackFromBytes decodes a knapsack of at most 10 items and K <= 3 with
// demands and capacities from hugeInts.
func knapsackFromBytes(b []byte) *Knapsack {
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		v := int(b[0])
		b = b[1:]
		return v
	}
	n, K := next()%11, 1+next()%3
	p := &Knapsack{K: K, Demand: make([]int, n*K), Capacity: make([]int, K), Value: make([]float64, n)}
	for k := range p.Capacity {
		p.Capacity[k] = hugeInts[next()%len(hugeInts)]
	}
	for i := range p.Demand {
		p.Demand[i] = hugeInts[next()%len(hugeInts)]
	}
	for e := range p.Value {
		p.Value[e] = float64(next()-64) / 16
	}
	if mask := next(); mask%3 == 0 {
		p.Enabled = make([]bool, n)
		for e := range p.Enabled {
			p.Enabled[e] = (mask>>(e%8))&1 == 0
		}
	}
	return p
}

// FuzzKnapsackHuge checks the plain knapsack with demands and capacities
// at the overflow boundaries against overflow-safe brute force, for every
// method: the result is exact (the DP alone may fail with ErrTooLarge); it
// never panics.
func FuzzKnapsackHuge(f *testing.F) {
	f.Add([]byte{2, 0, 13, 13, 13, 80, 80}) // issue 16.3: K=1, [MaxInt, MaxInt], [MaxInt]
	f.Add([]byte{3, 1, 13, 12, 13, 12, 1, 2, 3, 4, 90, 70, 100, 1})
	f.Add([]byte{4, 2, 8, 9, 10, 10, 11, 12, 9, 9, 9, 13, 13, 13, 0, 1, 2, 100, 100, 100, 100, 3})
	f.Add([]byte{10, 0, 15, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		p := knapsackFromBytes(b)
		want := bruteKnapsack(p)
		for _, m := range []KnapsackMethod{KnapsackAuto, KnapsackBranchBound, KnapsackDP} {
			r, err := SolveKnapsack(p, OracleSettings{MaxBytes: 1 << 24, Knapsack: m})
			if err != nil {
				// Only the DP may refuse (its tables); Auto and branch and
				// bound are exact at any integer size.
				if m != KnapsackDP || !errors.Is(err, ErrTooLarge) {
					t.Fatalf("%v: unexpected error %v", m, err)
				}
				continue
			}
			if r.Status != Optimal || math.Abs(r.Objective-want) > 1e-9*(1+math.Abs(want)) {
				t.Fatalf("%v: %v objective %v, brute force %v", m, r.Status, r.Objective, want)
			}
			checkKnapsackX(t, p, r.X, r.Objective)
		}
	})
}

// FuzzBudgetedHuge is FuzzOracle with demands, capacities and Upsilon at
// the overflow boundaries.
func FuzzBudgetedHuge(f *testing.F) {
	f.Add([]byte{2, 0, 13, 13, 13, 13, 13, 80, 80, 5})
	f.Add([]byte{3, 1, 12, 12, 1, 13, 2, 13, 3, 13, 90, 70, 100, 30})
	f.Fuzz(func(t *testing.T, b []byte) {
		kp := knapsackFromBytes(b)
		n := len(kp.Value)
		p := &Budgeted{K: kp.K, Demand: kp.Demand, Capacity: kp.Capacity, Enabled: kp.Enabled,
			Upsilon: make([]int, n), Sigma2: make([]float64, n)}
		for e := range kp.Value {
			p.Sigma2[e] = math.Abs(kp.Value[e])
			p.Upsilon[e] = kp.Demand[e*kp.K] // huge Upsilon too
			if e%2 == 1 {
				p.Upsilon[e] = e
			}
		}
		if len(b) > 0 {
			p.MaxBudget = int(b[len(b)-1]) % 40
		}
		want := bruteBudgeted(p)
		r, err := SolveBudgeted(p, OracleSettings{MaxBytes: 1 << 24})
		if err != nil {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for s := range want {
			got := r.Value[s]
			if math.IsInf(want[s], -1) != math.IsInf(got, -1) || (!math.IsInf(got, -1) && math.Abs(got-want[s]) > 1e-9*(1+want[s])) {
				t.Fatalf("s=%d: V = %v, brute force %v", s, got, want[s])
			}
		}
	})
}
