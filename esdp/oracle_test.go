package esdp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/internal/checked"
)

// randBudgeted draws a small random budgeted problem: n items, K types,
// demands in [dlo, dhi], capacities in [0, cmax], Upsilon in [0, umax],
// Sigma2 in [0, 5) (sometimes repeated values, to exercise ties).
func randBudgeted(rng *rand.Rand, n, K, dlo, dhi, cmax, umax int) *Budgeted {
	p := &Budgeted{K: K, Demand: make([]int, n*K), Capacity: make([]int, K),
		Upsilon: make([]int, n), Sigma2: make([]float64, n)}
	for i := range p.Demand {
		p.Demand[i] = dlo + rng.IntN(dhi-dlo+1)
	}
	for k := range p.Capacity {
		p.Capacity[k] = rng.IntN(cmax + 1)
	}
	for e := 0; e < n; e++ {
		p.Upsilon[e] = rng.IntN(umax + 1)
		if rng.IntN(4) == 0 {
			p.Sigma2[e] = float64(rng.IntN(3)) // ties
		} else {
			p.Sigma2[e] = 5 * rng.Float64()
		}
	}
	sum := 0
	for _, u := range p.Upsilon {
		sum += u
	}
	p.MaxBudget = rng.IntN(sum + 3)
	if rng.IntN(3) == 0 {
		p.Enabled = make([]bool, n)
		for e := range p.Enabled {
			p.Enabled[e] = rng.IntN(4) != 0
		}
	}
	return p
}

// bruteBudgeted enumerates all 2^n subsets: V(s) = max Sigma2.x over the
// feasible x with Upsilon.x >= s.
func bruteBudgeted(p *Budgeted) []float64 {
	n, K := len(p.Sigma2), p.K
	V := make([]float64, p.MaxBudget+1)
	for s := range V {
		V[s] = math.Inf(-1)
	}
	use := make([]int, K)
outer:
	for mask := 0; mask < 1<<n; mask++ {
		clear(use)
		u, w := 0, 0.0
		for e := 0; e < n; e++ {
			if mask&(1<<e) == 0 {
				continue
			}
			if p.Enabled != nil && !p.Enabled[e] {
				continue outer
			}
			for k := 0; k < K; k++ {
				var ok bool
				if use[k], ok = checked.Add(use[k], p.Demand[e*K+k]); !ok {
					continue outer // the sum exceeds every capacity
				}
			}
			u = satAdd(u, p.Upsilon[e])
			w += p.Sigma2[e]
		}
		for k := 0; k < K; k++ {
			if use[k] > p.Capacity[k] {
				continue outer
			}
		}
		u = min(u, p.MaxBudget)
		V[u] = math.Max(V[u], w)
	}
	for s := p.MaxBudget - 1; s >= 0; s-- {
		V[s] = math.Max(V[s], V[s+1])
	}
	return V
}

// checkSolution verifies that x is feasible for P4(s) and attains want.
func checkSolution(t *testing.T, p *Budgeted, x []bool, s int, want float64) {
	t.Helper()
	K := p.K
	use := make([]int, K)
	u, w := 0, 0.0
	for e, on := range x {
		if !on {
			continue
		}
		if p.Enabled != nil && !p.Enabled[e] {
			t.Fatalf("s=%d: disabled item %d chosen", s, e)
		}
		for k := 0; k < K; k++ {
			use[k] += p.Demand[e*K+k]
		}
		u += p.Upsilon[e]
		w += p.Sigma2[e]
	}
	for k := range use {
		if use[k] > p.Capacity[k] {
			t.Fatalf("s=%d: type %d uses %d > c = %d", s, k, use[k], p.Capacity[k])
		}
	}
	if u < s {
		t.Fatalf("s=%d: Upsilon.x = %d < s", s, u)
	}
	if math.Abs(w-want) > 1e-9*(1+math.Abs(want)) {
		t.Fatalf("s=%d: Sigma2.x = %v, V = %v", s, w, want)
	}
}

func TestOracleMatchesBruteForce(t *testing.T) {
	instances := 10000
	if testing.Short() {
		instances = 2000
	}
	rng := rand.New(rand.NewPCG(1, 1))
	o := NewOracle(OracleSettings{})
	var budgets int
	for it := 0; it < instances; it++ {
		n := rng.IntN(15) // |E| <= 14
		K := 1 + rng.IntN(3)
		p := randBudgeted(rng, n, K, 0, 3, 8, 6)
		want := bruteBudgeted(p)
		r, err := o.SolveBudgeted(p)
		if err != nil {
			t.Fatal(err)
		}
		var x []bool
		for s := range want {
			budgets++
			got := r.Value[s]
			if math.IsInf(want[s], -1) != math.IsInf(got, -1) ||
				(!math.IsInf(got, -1) && math.Abs(got-want[s]) > 1e-9*(1+want[s])) {
				t.Fatalf("instance %d, s=%d: V = %v, brute force %v\n%+v", it, s, got, want[s], p)
			}
			x = r.Solution(x, s)
			if math.IsInf(got, -1) {
				if x != nil {
					t.Fatalf("instance %d, s=%d: infeasible budget has a solution", it, s)
				}
				continue
			}
			checkSolution(t, p, x, s, got)
		}
		// s* of (17).
		bi, bs := math.Inf(-1), -1
		for s, v := range want {
			if !math.IsInf(v, -1) && float64(s)+math.Sqrt(v) > bi+1e-9 {
				bi, bs = float64(s)+math.Sqrt(v), s
			}
		}
		if math.Abs(r.BestIndex-bi) > 1e-9*(1+bi) {
			t.Fatalf("instance %d: s* index %v (s*=%d), brute force %v (s=%d)", it, r.BestIndex, r.Best, bi, bs)
		}
	}
	t.Logf("%d instances, %d budgets checked against brute force", instances, budgets)
}

func TestKnapsackMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	o := NewOracle(OracleSettings{})
	for it := 0; it < 3000; it++ {
		n := rng.IntN(13)
		K := 1 + rng.IntN(3)
		p := randBudgeted(rng, n, K, 0, 3, 8, 0)
		kp := &Knapsack{K: K, Demand: p.Demand, Capacity: p.Capacity, Value: make([]float64, n), Enabled: p.Enabled}
		for e := range kp.Value {
			kp.Value[e] = 2*rng.Float64() - 0.5 // some negative
		}
		q := &Budgeted{K: K, Demand: p.Demand, Capacity: p.Capacity, Upsilon: make([]int, n), Sigma2: make([]float64, n), Enabled: p.Enabled}
		for e, v := range kp.Value {
			q.Sigma2[e] = math.Max(v, 0) // negative items are never worth taking
		}
		want := bruteBudgeted(q)[0]
		r, err := o.SolveKnapsack(kp)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(r.Objective-want) > 1e-9 {
			t.Fatalf("instance %d: objective %v, brute force %v", it, r.Objective, want)
		}
		obj := 0.0
		for e, on := range r.X {
			if on {
				obj += kp.Value[e]
			}
		}
		if math.Abs(obj-r.Objective) > 1e-9 {
			t.Fatalf("instance %d: Value.X = %v != Objective %v", it, obj, r.Objective)
		}
		q.Sigma2 = kp.Value
		for e := range q.Sigma2 {
			q.Sigma2[e] = math.Max(q.Sigma2[e], 0)
		}
		checkSolution(t, q, r.X, 0, obj+negSum(kp.Value, r.X))
	}
}

func negSum(v []float64, x []bool) float64 {
	s := 0.0
	for e, on := range x {
		if on && v[e] < 0 {
			s -= v[e]
		}
	}
	return s
}

// TestOracleEqualsAlgorithm2 runs the paper's Algorithm 2 as written beside
// the fast dynamic program on larger instances (positive demands, as the
// paper assumes): the values must be bit-identical and so must the
// solutions, since both apply the same recursion and tie rule.
func TestOracleEqualsAlgorithm2(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	o := NewOracle(OracleSettings{})
	instances := 300
	if testing.Short() {
		instances = 60
	}
	var budgets, cells int64
	defer func() {
		t.Logf("%d instances (10-30 items, K <= 3), %d budgets: values and solutions identical; fast DP evaluated %d cells", instances, budgets, cells)
	}()
	for it := 0; it < instances; it++ {
		n := 10 + rng.IntN(21) // 10..30 items
		K := 1 + rng.IntN(3)
		p := randBudgeted(rng, n, K, 1, 2, 6, 8)
		p.MaxBudget = min(p.MaxBudget, 40)
		ref, err := Algorithm2(p, OracleSettings{})
		if err != nil {
			t.Fatal(err)
		}
		r, err := o.SolveBudgeted(p)
		if err != nil {
			t.Fatal(err)
		}
		budgets += int64(len(ref.Value))
		cells += r.Cells
		if r.Best != ref.Best || r.BestIndex != ref.BestIndex {
			t.Fatalf("instance %d: s* %d (%v), Algorithm 2 %d (%v)", it, r.Best, r.BestIndex, ref.Best, ref.BestIndex)
		}
		var x []bool
		for s := range ref.Value {
			if r.Value[s] != ref.Value[s] {
				t.Fatalf("instance %d, s=%d: V = %v, Algorithm 2 %v", it, s, r.Value[s], ref.Value[s])
			}
			x = r.Solution(x, s)
			y := ref.Solution(nil, s)
			if (x == nil) != (y == nil) {
				t.Fatalf("instance %d, s=%d: solution presence differs", it, s)
			}
			for e := range y {
				if x[e] != y[e] {
					t.Fatalf("instance %d, s=%d: solutions differ at item %d", it, s, e)
				}
			}
			if y != nil {
				checkSolution(t, p, y, s, ref.Value[s])
			}
		}
	}
}

func TestAlgorithm2MatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for it := 0; it < 2000; it++ {
		n := rng.IntN(11)
		K := 1 + rng.IntN(3)
		p := randBudgeted(rng, n, K, 1, 3, 6, 5)
		want := bruteBudgeted(p)
		r, err := Algorithm2(p, OracleSettings{})
		if err != nil {
			t.Fatal(err)
		}
		for s := range want {
			if math.IsInf(want[s], -1) != math.IsInf(r.Value[s], -1) ||
				(!math.IsInf(want[s], -1) && math.Abs(r.Value[s]-want[s]) > 1e-9*(1+want[s])) {
				t.Fatalf("instance %d, s=%d: V = %v, brute force %v", it, s, r.Value[s], want[s])
			}
			if x := r.Solution(nil, s); x != nil {
				checkSolution(t, p, x, s, r.Value[s])
			}
		}
	}
}

func TestOracleTooLarge(t *testing.T) {
	p := &Budgeted{K: 3, Demand: []int{1, 1, 1, 2, 2, 2}, Capacity: []int{1 << 20, 1 << 20, 1 << 20},
		Upsilon: []int{1, 2}, Sigma2: []float64{1, 2}, MaxBudget: 3}
	// Clipping to the total demand makes this tiny for the fast DP.
	if _, err := SolveBudgeted(p, OracleSettings{}); err != nil {
		t.Fatalf("clipped problem should be small: %v", err)
	}
	if _, err := Algorithm2(p, OracleSettings{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Algorithm2: err = %v, want ErrTooLarge", err)
	}
	big := &Budgeted{K: 2, Demand: make([]int, 2*200), Capacity: []int{1000, 1000},
		Upsilon: make([]int, 200), Sigma2: make([]float64, 200), MaxBudget: 100}
	for i := range big.Demand {
		big.Demand[i] = 10
	}
	_, err := SolveBudgeted(big, OracleSettings{MaxBytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	t.Log(err)
}

func TestOracleRejectsBadInput(t *testing.T) {
	good := func() *Budgeted {
		return &Budgeted{K: 1, Demand: []int{1, 1}, Capacity: []int{1}, Upsilon: []int{1, 1}, Sigma2: []float64{1, 1}, MaxBudget: 2}
	}
	cases := []struct {
		name string
		mod  func(p *Budgeted)
		want error
	}{
		{"nan sigma", func(p *Budgeted) { p.Sigma2[1] = math.NaN() }, ErrValue},
		{"inf sigma", func(p *Budgeted) { p.Sigma2[0] = math.Inf(1) }, ErrValue},
		{"negative sigma", func(p *Budgeted) { p.Sigma2[0] = -1 }, ErrValue},
		{"negative demand", func(p *Budgeted) { p.Demand[1] = -1 }, ErrValue},
		{"negative capacity", func(p *Budgeted) { p.Capacity[0] = -1 }, ErrValue},
		{"negative upsilon", func(p *Budgeted) { p.Upsilon[0] = -1 }, ErrValue},
		{"negative budget", func(p *Budgeted) { p.MaxBudget = -1 }, ErrValue},
		{"short demand", func(p *Budgeted) { p.Demand = p.Demand[:1] }, ErrDimension},
		{"short upsilon", func(p *Budgeted) { p.Upsilon = p.Upsilon[:1] }, ErrDimension},
		{"short enabled", func(p *Budgeted) { p.Enabled = []bool{true} }, ErrDimension},
		{"capacity dims", func(p *Budgeted) { p.Capacity = []int{1, 1} }, ErrDimension},
	}
	for _, c := range cases {
		p := good()
		c.mod(p)
		if _, err := SolveBudgeted(p, OracleSettings{}); !errors.Is(err, c.want) {
			t.Errorf("%s: SolveBudgeted err = %v, want %v", c.name, err, c.want)
		}
		p = good()
		c.mod(p)
		if _, err := Algorithm2(p, OracleSettings{}); !errors.Is(err, c.want) {
			t.Errorf("%s: Algorithm2 err = %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := SolveKnapsack(&Knapsack{K: 1, Demand: []int{1}, Capacity: []int{1}, Value: []float64{math.NaN()}}, OracleSettings{}); !errors.Is(err, ErrValue) {
		t.Errorf("knapsack NaN: err = %v", err)
	}
}

func TestOracleResultReuse(t *testing.T) {
	o := NewOracle(OracleSettings{})
	p := &Budgeted{K: 1, Demand: []int{1, 1}, Capacity: []int{1}, Upsilon: []int{1, 2}, Sigma2: []float64{3, 1}, MaxBudget: 2}
	r, err := o.SolveBudgeted(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Solution(nil, 2); !got[1] || got[0] {
		t.Fatalf("P4(2) solution %v, want item 1", got)
	}
	if _, err := o.SolveKnapsack(&Knapsack{K: 1, Demand: []int{1}, Capacity: []int{1}, Value: []float64{1}}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("stale result did not panic")
		}
	}()
	r.Solution(nil, 0)
}

func TestOracleDegenerateShapes(t *testing.T) {
	// No resource types: every subset fits.
	p := &Budgeted{K: 0, Upsilon: []int{1, 2}, Sigma2: []float64{1, 2}, MaxBudget: 4}
	r, err := SolveBudgeted(p, OracleSettings{})
	if err != nil {
		t.Fatal(err)
	}
	want := bruteBudgeted(p)
	for s := range want {
		if r.Value[s] != want[s] {
			t.Fatalf("K=0, s=%d: %v, want %v", s, r.Value[s], want[s])
		}
	}
	// No items.
	q := &Budgeted{K: 2, Capacity: []int{3, 1}, MaxBudget: 2}
	r, err = SolveBudgeted(q, OracleSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Value[0] != 0 || !math.IsInf(r.Value[1], -1) || r.Best != 0 || len(r.Solution(nil, 0)) != 0 {
		t.Fatalf("no items: %+v", r.Value)
	}
}
