package ocorp

import (
	"math"
	"math/big"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bruteKnapsack enumerates all 2^n subsets; weights are summed in big
// integers so that huge weights cannot overflow the reference.
func bruteKnapsack(value []float64, weight []int, capacity int) float64 {
	best := 0.0
	c := big.NewInt(int64(max(capacity, 0)))
	w := new(big.Int)
	for mask := 0; mask < 1<<len(value); mask++ {
		v := 0.0
		w.SetInt64(0)
		for k := range value {
			if mask>>k&1 == 1 {
				v += value[k]
				w.Add(w, big.NewInt(int64(weight[k])))
			}
		}
		if w.Cmp(c) <= 0 && v > best {
			best = v
		}
	}
	return best
}

// chosenWeight returns the big-integer weight and the value of the set z.
func chosenWeight(z []bool, value []float64, weight []int) (*big.Int, float64) {
	w, v := new(big.Int), 0.0
	for k, on := range z {
		if on {
			w.Add(w, big.NewInt(int64(weight[k])))
			v += value[k]
		}
	}
	return w, v
}

// TestKnapsackOverflowReproducer is defect 2 of issue 16: weights
// [2^62, 2^62] at capacity 2^62 summed to a negative int, so both items
// were "chosen" with Exact = true.
func TestKnapsackOverflowReproducer(t *testing.T) {
	var ks KnapsackDP
	z := make([]bool, 2)
	got := ks.Solve(z, []float64{1, 1}, []int{1 << 62, 1 << 62}, 1<<62)
	assert.Equal(t, 1.0, got)
	assert.Equal(t, []bool{true, false}, z, "exactly one item; ties keep the earlier one")
	assert.True(t, ks.Exact)
}

// TestKnapsackHugeSizes is the class behind the reproducer: huge weights,
// capacities and counts (sums and table sizes beyond math.MaxInt) against
// enumeration with big integers. The answer must be feasible (in exact
// arithmetic), never panic, and be optimal whenever Exact is reported.
func TestKnapsackHugeSizes(t *testing.T) {
	huge := []int{0, 1, 2, 3, 1 << 30, 1<<31 - 1, 1 << 32, 1 << 40, 1 << 61, 1<<62 - 1, 1 << 62, 1<<62 + 1,
		math.MaxInt / 3, math.MaxInt/2 - 1, math.MaxInt / 2, math.MaxInt/2 + 1, math.MaxInt - 1, math.MaxInt}
	rng := rand.New(rand.NewPCG(16, 2))
	for it := 0; it < 4000; it++ {
		n := 1 + rng.IntN(7)
		value := make([]float64, n)
		weight := make([]int, n)
		for k := range value {
			value[k] = float64(1 + rng.IntN(9))
			if rng.IntN(10) == 0 {
				value[k] = -1
			}
			weight[k] = huge[rng.IntN(len(huge))]
		}
		capacity := huge[rng.IntN(len(huge))]
		if rng.IntN(10) == 0 {
			capacity = -capacity
		}
		ks := KnapsackDP{MaxCells: []int{1, 7, 64, 4096}[rng.IntN(4)]} // the default 1<<24 is exercised below
		z := make([]bool, n)
		got := ks.Solve(z, value, weight, capacity)
		w, v := chosenWeight(z, value, weight)
		require.LessOrEqual(t, w.Cmp(big.NewInt(int64(max(capacity, 0)))), 0,
			"it %d: infeasible set %v weight %v > capacity %d (w=%v)", it, z, w, capacity, weight)
		require.InDelta(t, v, got, 1e-9, "it %d: reported value differs from the chosen set", it)
		want := bruteKnapsack(value, weight, capacity)
		require.LessOrEqual(t, got, want+1e-9)
		if ks.Exact {
			require.InDelta(t, want, got, 1e-9, "it %d: Exact but not optimal (v=%v w=%v c=%d)", it, value, weight, capacity)
		}
	}
}

// TestKnapsackManyItemsTinyTable: more items than MaxCells keeps the table
// at n cells and stays feasible.
func TestKnapsackManyItemsTinyTable(t *testing.T) {
	ks := KnapsackDP{MaxCells: 3}
	value := []float64{1, 2, 3, 4, 5}
	weight := []int{math.MaxInt, math.MaxInt - 1, 5, 7, 1 << 62}
	z := make([]bool, 5)
	got := ks.Solve(z, value, weight, math.MaxInt)
	w, v := chosenWeight(z, value, weight)
	assert.LessOrEqual(t, w.Cmp(big.NewInt(math.MaxInt)), 0)
	assert.Equal(t, v, got)
	assert.False(t, ks.Exact)
	assert.LessOrEqual(t, len(ks.keep), 5)
}

// TestKnapsackMatchesBruteForce compares the DP of the z step with
// enumeration of all 2^n subsets on random small instances.
func TestKnapsackMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	var ks KnapsackDP
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
	ks := KnapsackDP{MaxCells: 1000}
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

// TestKnapsackMemoryWithinMaxCells: issue 30. The best values (a float64
// per capacity unit) were allocated besides the MaxCells table of choices,
// so MaxCells = CeilingKnapsackCells on weights 2^39, 2^39+1 and capacity
// 2^40 allocated 16 GiB + 4 GiB for 2 items. Everything Solve allocates
// must now fit in MaxCells bytes (plus the O(n) weights): checked here on
// the same shape at MaxCells = 2^20, and at the ceiling on the sizes alone.
func TestKnapsackMemoryWithinMaxCells(t *testing.T) {
	for _, cells := range []int{1 << 20, 1 << 16, 100} {
		ks := KnapsackDP{MaxCells: cells}
		dst := make([]bool, 2)
		value := []float64{1, 2}
		weight := []int{1 << 39, 1<<39 + 1}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		got := ks.Solve(dst, value, weight, 1<<40)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		// 2^39 + 2^39+1 > 2^40: one item only, the better one when exact.
		require.True(t, got == 2 || (!ks.Exact && got == 1), "value %v exact %v", got, ks.Exact)
		require.False(t, dst[0] && dst[1])
		require.LessOrEqual(t, alloc, uint64(cells+16<<10), "MaxCells %d: Solve allocated %d bytes (pages rounded up)", cells, alloc)
	}
	// At the ceiling: (n+8)(W+1) bytes for n = 2 is at most 4 GiB.
	w := knapsackMaxW(2, CeilingKnapsackCells)
	require.LessOrEqual(t, (2+8)*(w+1), CeilingKnapsackCells)
	require.Greater(t, (2+8)*(w+2), CeilingKnapsackCells)
}
