package esdp

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/checked"
)

// bruteKnapsack enumerates every subset of p (n <= 20) with overflow-safe
// sums: a sum above math.MaxInt exceeds every capacity. It returns the best
// value (0 for the empty set) and whether a subset attains it.
func bruteKnapsack(p *Knapsack) float64 {
	n, K := len(p.Value), p.K
	best := 0.0
	use := make([]int, K)
outer:
	for mask := 1; mask < 1<<n; mask++ {
		clear(use)
		v := 0.0
		for e := 0; e < n; e++ {
			if mask&(1<<e) == 0 {
				continue
			}
			if p.Enabled != nil && !p.Enabled[e] {
				continue outer
			}
			for k := 0; k < K; k++ {
				var ok bool
				if use[k], ok = checked.Add(use[k], p.Demand[e*K+k]); !ok || use[k] > p.Capacity[k] {
					continue outer
				}
			}
			v += p.Value[e]
		}
		best = math.Max(best, v)
	}
	return best
}

// checkKnapsackX checks that x is feasible for p (overflow-safe) and has
// value obj.
func checkKnapsackX(t *testing.T, p *Knapsack, x []bool, obj float64) {
	t.Helper()
	require.Len(t, x, len(p.Value))
	K := p.K
	use := make([]int, K)
	v := 0.0
	for e, on := range x {
		if !on {
			continue
		}
		require.False(t, p.Enabled != nil && !p.Enabled[e], "disabled item %d chosen", e)
		for k := 0; k < K; k++ {
			var ok bool
			use[k], ok = checked.Add(use[k], p.Demand[e*K+k])
			require.True(t, ok && use[k] <= p.Capacity[k], "type %d over capacity", k)
		}
		v += p.Value[e]
	}
	require.InDelta(t, obj, v, 1e-9*(1+math.Abs(obj)))
}

// saneTooLarge checks that err is ErrTooLarge with a message that gives no
// negative or absurdly small size (the symptom of an overflowed size).
func saneTooLarge(t *testing.T, err error) {
	t.Helper()
	require.ErrorIs(t, err, ErrTooLarge)
	msg := err.Error()
	assert.NotContains(t, msg, "needs -", "negative size in %q", msg)
	assert.NotContains(t, msg, "needs 0 bytes", msg)
	assert.NotContains(t, msg, "needs 8 bytes", msg)
	assert.Contains(t, msg, "limit", msg)
}

// TestKnapsackHugeIntegers is issue 16 defect 3 and its class: huge
// demands, capacities and sums never panic and never give a wrong answer:
// the result equals brute force, or the call fails with ErrTooLarge naming a
// sane size.
func TestKnapsackHugeIntegers(t *testing.T) {
	const M = math.MaxInt
	cases := []struct {
		name string
		p    Knapsack
	}{
		{"issue 16.3 reproducer", Knapsack{K: 1, Demand: []int{M, M}, Capacity: []int{M}, Value: []float64{1, 1}}},
		{"two huge fit", Knapsack{K: 1, Demand: []int{M / 2, M / 2}, Capacity: []int{M}, Value: []float64{1, 2}}},
		{"sum overflows by one", Knapsack{K: 1, Demand: []int{M/2 + 1, M/2 + 1}, Capacity: []int{M}, Value: []float64{1, 2}}},
		{"coprime huge", Knapsack{K: 1, Demand: []int{M, M - 1}, Capacity: []int{M}, Value: []float64{1, 2}}},
		{"huge capacity small demands", Knapsack{K: 2, Demand: []int{1, 2, 3, 4, 5, 6}, Capacity: []int{M, M}, Value: []float64{1, 2, 3}}},
		{"huge and small mixed", Knapsack{K: 1, Demand: []int{M, 1, 1}, Capacity: []int{M}, Value: []float64{5, 1, 1}}},
		{"huge multi type", Knapsack{K: 3, Demand: []int{M, 1, M - 7, 2, M, 3, 1 << 62, 1 << 62, 1 << 62}, Capacity: []int{M, M - 1, M}, Value: []float64{1, 1, 1}}},
		{"powers of two", Knapsack{K: 1, Demand: []int{1 << 62, 1 << 62, 1 << 61}, Capacity: []int{1 << 62}, Value: []float64{1, 1, 1}}},
		{"capacity zero huge demand", Knapsack{K: 1, Demand: []int{M}, Capacity: []int{0}, Value: []float64{1}}},
		{"many huge", Knapsack{K: 1, Demand: []int{M - 1, M - 2, M - 3, M - 4, M - 5, M - 6}, Capacity: []int{M}, Value: []float64{1, 2, 3, 4, 5, 6}}},
		{"huge capacities K=4", Knapsack{K: 4, Demand: []int{1, 1, 1, 1, 2, 2, 2, 2}, Capacity: []int{M, M, M, M}, Value: []float64{1, 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := bruteKnapsack(&c.p)
			// KnapsackAuto is exact at any integer size (branch and bound
			// needs no table).
			r, err := SolveKnapsack(&c.p, OracleSettings{})
			require.NoError(t, err)
			require.Equal(t, Optimal, r.Status)
			require.InDelta(t, want, r.Objective, 1e-9)
			checkKnapsackX(t, &c.p, r.X, r.Objective)
			// The DP alone is exact or refuses with a sane size.
			r, err = SolveKnapsack(&c.p, OracleSettings{Knapsack: KnapsackDP})
			if err != nil {
				saneTooLarge(t, err)
				return
			}
			require.InDelta(t, want, r.Objective, 1e-9)
			checkKnapsackX(t, &c.p, r.X, r.Objective)
		})
	}
}

// TestBudgetedHugeIntegers: huge demands, capacities, Upsilon and budgets in
// the budgeted oracle and in Algorithm 2 are exact or ErrTooLarge with a
// sane message.
func TestBudgetedHugeIntegers(t *testing.T) {
	const M = math.MaxInt
	cases := []struct {
		name string
		p    Budgeted
	}{
		{"huge demands", Budgeted{K: 1, Demand: []int{M, M}, Capacity: []int{M}, Upsilon: []int{1, 1}, Sigma2: []float64{1, 2}, MaxBudget: 2}},
		{"huge upsilon", Budgeted{K: 1, Demand: []int{1, 1}, Capacity: []int{2}, Upsilon: []int{M, M}, Sigma2: []float64{1, 2}, MaxBudget: 5}},
		{"huge upsilon sum", Budgeted{K: 1, Demand: []int{1, 1, 1}, Capacity: []int{3}, Upsilon: []int{M / 2, M / 2, M / 2}, Sigma2: []float64{1, 2, 3}, MaxBudget: 7}},
		{"coprime huge", Budgeted{K: 1, Demand: []int{M, M - 1}, Capacity: []int{M}, Upsilon: []int{1, 2}, Sigma2: []float64{1, 2}, MaxBudget: 3}},
		{"huge capacity", Budgeted{K: 2, Demand: []int{1, 2, 3, 4}, Capacity: []int{M, M}, Upsilon: []int{1, 2}, Sigma2: []float64{1, 2}, MaxBudget: 3}},
		{"budget at the limit", Budgeted{K: 1, Demand: []int{1}, Capacity: []int{1}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: math.MaxInt32 - 2}},
		{"budget above the limit", Budgeted{K: 1, Demand: []int{1}, Capacity: []int{1}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: M}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := SolveBudgeted(&c.p, OracleSettings{MaxBytes: 1 << 26})
			if err != nil {
				saneTooLarge(t, err)
				t.Log(err)
			} else if c.p.MaxBudget < 64 {
				want := bruteBudgeted(&c.p)
				for s := range want {
					if math.IsInf(want[s], -1) {
						require.True(t, math.IsInf(r.Value[s], -1), "s=%d", s)
						continue
					}
					require.InDelta(t, want[s], r.Value[s], 1e-9, "s=%d", s)
				}
			}
			_, err = Algorithm2(&c.p, OracleSettings{MaxBytes: 1 << 26})
			if err != nil {
				saneTooLarge(t, err)
			}
		})
	}
}

// TestTooLargeMessageNamesSize: a table just above the limit reports its
// true size (not an overflowed one), the field and the limit.
func TestTooLargeMessageNamesSize(t *testing.T) {
	p := &Budgeted{K: 1, Demand: []int{3, 5}, Capacity: []int{1 << 40}, Upsilon: []int{1, 1}, Sigma2: []float64{1, 1}, MaxBudget: 1}
	_, err := Algorithm2(p, OracleSettings{MaxBytes: 1 << 20})
	saneTooLarge(t, err)
	require.True(t, strings.Contains(err.Error(), "Capacity[0] = 1099511627776"), err.Error())
	_, err = Algorithm2(&Budgeted{K: 1, Demand: []int{1}, Capacity: []int{math.MaxInt}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: 1}, OracleSettings{})
	saneTooLarge(t, err)
	require.Contains(t, err.Error(), "overflows", err.Error())
}

// TestFeasibleOverflow: two chosen edges whose demands sum past math.MaxInt
// are infeasible, not wrapped around to a small use.
func TestFeasibleOverflow(t *testing.T) {
	in := smallHugeInstance(t)
	err := in.Feasible([]bool{true, true}, nil)
	require.ErrorIs(t, err, ErrValue)
	require.NoError(t, in.Feasible([]bool{true, false}, nil))
}

func smallHugeInstance(t *testing.T) *Instance {
	t.Helper()
	var in Instance
	err := in.UnmarshalJSON([]byte(`{"version":1,"graph":{"version":1,"left":1,"right":2,"edges":[[0,0],[0,1]]},"k":1,` +
		`"demand":[[9223372036854775807],[9223372036854775807]],"capacity":[9223372036854775807],"cost":[0,0],"mean":[0.5,0.6],"std":[0.1,0.1],"arrival":[1]}`))
	require.NoError(t, err)
	return &in
}

func TestErrTooLargeIsMatchable(t *testing.T) {
	_, err := SolveBudgeted(&Budgeted{K: 1, Demand: []int{1}, Capacity: []int{1}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: math.MaxInt}, OracleSettings{})
	require.True(t, errors.Is(err, ErrTooLarge))
	require.Contains(t, err.Error(), "MaxBudget = 9223372036854775807")
}

// TestHugeK: a declared K that does not match the slices, or whose product
// with n overflows, is ErrDimension, never a panic or an allocation.
func TestHugeK(t *testing.T) {
	for _, K := range []int{math.MaxInt, math.MaxInt / 2, 1 << 62, 1 << 40, -1} {
		_, err := SolveKnapsack(&Knapsack{K: K, Demand: []int{1, 2}, Capacity: []int{1}, Value: []float64{1, 1}}, OracleSettings{})
		require.ErrorIs(t, err, ErrDimension, "K=%d", K)
		_, err = SolveBudgeted(&Budgeted{K: K, Demand: []int{1}, Capacity: []int{1}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: 1}, OracleSettings{})
		require.ErrorIs(t, err, ErrDimension, "K=%d", K)
		_, err = Algorithm2(&Budgeted{K: K, Demand: []int{1}, Capacity: []int{1}, Upsilon: []int{1}, Sigma2: []float64{1}, MaxBudget: 1}, OracleSettings{})
		require.ErrorIs(t, err, ErrDimension, "K=%d", K)
	}
	// K = 64 types at math.MaxInt: exact by branch and bound.
	p := &Knapsack{K: 64, Demand: make([]int, 3*64), Capacity: make([]int, 64), Value: []float64{1, 2, 3}}
	for i := range p.Demand {
		p.Demand[i] = math.MaxInt / 2
	}
	for k := range p.Capacity {
		p.Capacity[k] = math.MaxInt
	}
	r, err := SolveKnapsack(p, OracleSettings{})
	require.NoError(t, err)
	require.Equal(t, 5.0, r.Objective)
	checkKnapsackX(t, p, r.X, r.Objective)
}
