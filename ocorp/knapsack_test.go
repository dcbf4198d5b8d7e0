package ocorp

import (
	"math"
	"math/rand/v2"
	"testing"
)

func bruteKnapsack(value []float64, weight []int, capacity int) float64 {
	best := 0.0
	for mask := 0; mask < 1<<len(value); mask++ {
		v, w := 0.0, 0
		for k := range value {
			if mask>>k&1 == 1 {
				v += value[k]
				w += weight[k]
			}
		}
		if w <= capacity && v > best {
			best = v
		}
	}
	return best
}

// TestKnapsackMatchesBruteForce compares the DP of the z step with
// enumeration of all 2^n subsets on random small instances.
func TestKnapsackMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var ks Knapsack
	for it := 0; it < 3000; it++ {
		n := 1 + rng.IntN(10)
		value := make([]float64, n)
		weight := make([]int, n)
		mul := 1 + rng.IntN(4) // exercises the gcd reduction
		for k := range value {
			value[k] = math.Round(rng.Float64()*100) / 10
			if rng.IntN(8) == 0 {
				value[k] = -value[k]
			}
			weight[k] = mul * rng.IntN(12)
		}
		capacity := rng.IntN(40)
		z := make([]bool, n)
		got := ks.Solve(z, value, weight, capacity)
		want := bruteKnapsack(value, weight, capacity)
		if math.Abs(got-want) > 1e-9 || !ks.Exact {
			t.Fatalf("it %d: DP %v, brute force %v (v=%v w=%v c=%d)", it, got, want, value, weight, capacity)
		}
		v, w := 0.0, 0
		for k, on := range z {
			if on {
				v += value[k]
				w += weight[k]
			}
		}
		if w > capacity || math.Abs(v-got) > 1e-9 {
			t.Fatalf("it %d: chosen set weight %d value %v, reported %v", it, w, v, got)
		}
	}
}

// TestKnapsackCoarsenedStaysFeasible checks the fallback for huge
// capacities: feasible, flagged inexact.
func TestKnapsackCoarsenedStaysFeasible(t *testing.T) {
	ks := Knapsack{MaxCells: 1000}
	value := []float64{3, 4, 5, 6}
	weight := []int{3001, 4003, 5009, 6007}
	z := make([]bool, 4)
	ks.Solve(z, value, weight, 10007)
	w := 0
	for k, on := range z {
		if on {
			w += weight[k]
		}
	}
	if w > 10007 || ks.Exact {
		t.Fatalf("weight %d exact %v", w, ks.Exact)
	}
}
