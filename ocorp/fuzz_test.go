package ocorp

import (
	"bytes"
	"math"
	"math/big"
	"strings"
	"testing"
)

// FuzzReadJobsCSV checks that decoding never panics, that accepted jobs
// are valid, and that they round-trip through WriteJobsCSV.
func FuzzReadJobsCSV(f *testing.F) {
	f.Add("arrival,cores,memory,processing\n0,1,0,1\n5,4,8,30\n")
	f.Add("processing,arrival,cores,memory\n1,0,1,-1\n")
	f.Add("arrival,cores\n1,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		jobs, err := ReadJobsCSV(strings.NewReader(in))
		if err != nil {
			return
		}
		if err := ValidateJobs(jobs); err != nil {
			t.Fatalf("accepted invalid jobs: %v", err)
		}
		var buf bytes.Buffer
		if err := WriteJobsCSV(&buf, jobs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJobsCSV(&buf)
		if err != nil || len(back) != len(jobs) {
			t.Fatalf("round trip: %v", err)
		}
		for i := range jobs {
			if back[i] != jobs[i] {
				t.Fatalf("job %d: %v != %v", i, back[i], jobs[i])
			}
		}
	})
}

// FuzzReadJobsJSON checks that decoding never panics and that accepted
// instances are valid and round-trip.
func FuzzReadJobsJSON(f *testing.F) {
	f.Add([]byte(`{"version":1,"jobs":[{"arrival":0,"cores":1,"memory":0,"processing":1}]}`))
	f.Add([]byte(`{"version":1,"machines":[{"cores":4,"memory":8}],"jobs":[]}`))
	f.Add([]byte(`{"version":2,"jobs":[]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		in, err := ReadInstanceJSON(bytes.NewReader(b))
		if err != nil {
			return
		}
		if err := ValidateJobs(in.Jobs); err != nil {
			t.Fatalf("accepted invalid jobs: %v", err)
		}
		for i, m := range in.Machines {
			if err := m.Validate(); err != nil {
				t.Fatalf("accepted invalid machine %d: %v", i, err)
			}
		}
		var buf bytes.Buffer
		if err := WriteJobsJSON(&buf, in.Jobs); err != nil {
			t.Fatal(err)
		}
		back, err := ReadJobsJSON(&buf)
		if err != nil || len(back) != len(in.Jobs) {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// FuzzKnapsack compares the DP with brute force on up to 8 items decoded
// from the input bytes.
func FuzzKnapsack(f *testing.F) {
	f.Add([]byte{3, 10, 2, 20, 3, 30, 4}, uint8(5))
	f.Add([]byte{0, 7, 1, 1, 200, 9}, uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, capacity uint8) {
		n := min(len(b)/2, 8)
		value := make([]float64, n)
		weight := make([]int, n)
		for k := 0; k < n; k++ {
			value[k] = float64(int8(b[2*k])) / 4
			weight[k] = int(b[2*k+1] % 32)
		}
		var ks KnapsackDP
		z := make([]bool, n)
		got := ks.Solve(z, value, weight, int(capacity%64))
		want := bruteKnapsack(value, weight, int(capacity%64))
		if math.Abs(got-want) > 1e-9 {
			t.Fatalf("DP %v, brute force %v (v=%v w=%v c=%d)", got, want, value, weight, capacity%64)
		}
	})
}

// FuzzKnapsackHuge runs the DP on up to 6 items whose weights and capacity
// are arbitrary int64 values (sums overflow int), with a small table
// bound: the chosen set must be feasible in exact arithmetic, its value
// the one reported, and optimal when Exact.
func FuzzKnapsackHuge(f *testing.F) {
	f.Add(int64(1<<62), int64(1<<62), int64(0), int64(0), int64(0), int64(0), int64(1<<62), uint8(2), uint8(0))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64-1), int64(1), int64(math.MaxInt64/2), int64(math.MaxInt64/2+1), int64(3), int64(math.MaxInt64), uint8(6), uint8(1))
	f.Add(int64(3001), int64(4003), int64(5009), int64(6007), int64(0), int64(0), int64(10007), uint8(4), uint8(9))
	f.Fuzz(func(t *testing.T, w0, w1, w2, w3, w4, w5, capacity int64, n, cells uint8) {
		weight := []int{int(w0), int(w1), int(w2), int(w3), int(w4), int(w5)}[:min(int(n), 6)]
		for k := range weight {
			if weight[k] < 0 {
				weight[k] = -(weight[k] + 1) // non-negative, MinInt64 included
			}
		}
		value := make([]float64, len(weight))
		for k := range value {
			value[k] = float64(1 + (k*7+int(n))%5)
		}
		ks := KnapsackDP{MaxCells: int(cells)}
		z := make([]bool, len(weight))
		got := ks.Solve(z, value, weight, int(capacity))
		w, v := chosenWeight(z, value, weight)
		if w.Cmp(big.NewInt(max(capacity, 0))) > 0 || math.Abs(v-got) > 1e-9 {
			t.Fatalf("set %v weight %v value %v (reported %v) capacity %d", z, w, v, got, capacity)
		}
		if want := bruteKnapsack(value, weight, int(capacity)); got > want+1e-9 || (ks.Exact && math.Abs(got-want) > 1e-9) {
			t.Fatalf("DP %v exact %v, brute force %v (w=%v c=%d)", got, ks.Exact, want, weight, capacity)
		}
	})
}

// FuzzPoliciesFeasible decodes a small instance from the input and runs
// every policy of the package through Run, which checks (4b)-(4f).
func FuzzPoliciesFeasible(f *testing.F) {
	f.Add([]byte{4, 8, 2, 6, 1, 3, 2, 0, 2, 5, 4, 1, 1, 1, 3, 2, 6, 2})
	f.Add([]byte{1, 1, 0, 1, 1, 1, 0, 1, 1, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 6 {
			return
		}
		m := 1 + int(b[0])%3
		ms := make([]Machine, m)
		maxMem := 0
		for i := range ms {
			ms[i] = Machine{Cores: 1 + int(b[1+i%len(b[1:])])%8, Memory: 4 + int(b[(2+i)%len(b)])%8}
			maxMem = max(maxMem, ms[i].Memory)
		}
		rest := b[4:]
		var jobs []Job
		for k := 0; k+3 < len(rest) && len(jobs) < 12; k += 4 {
			jobs = append(jobs, Job{Arrival: int(rest[k]) % 10, Cores: 1 + int(rest[k+1])%9,
				Memory: int(rest[k+2]) % (maxMem + 1), Processing: 1 + int(rest[k+3])%5})
		}
		if len(jobs) == 0 {
			return
		}
		for _, p := range allPolicies(t, ms) {
			if p.Name() == "OCORP-theory" {
				continue
			}
			if _, err := runOne(jobs, ms, p, RunSettings{MaxSlots: 5000}); err != nil {
				t.Fatalf("%s: %v", p.Name(), err)
			}
		}
	})
}

// FuzzDecideHostile feeds every policy an observation built from
// arbitrary int64s (IDs, sizes, remaining work, slot) and machines with
// arbitrary sizes: constructors and Decide must return an error or a
// decision that passes the Checker, never panic or allocate per ID/core.
func FuzzDecideHostile(f *testing.F) {
	f.Add(int64(1), int64(4), int64(8), int64(0), int64(1<<62), int64(2), int64(3), int64(1), int64(2), int64(2))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(1), int64(math.MaxInt64))
	f.Add(int64(1e13), int64(1e9), int64(0), int64(-7), int64(-7), int64(1), int64(0), int64(1), int64(1e9), int64(1e9))
	f.Fuzz(func(t *testing.T, slot, cores, mem, id0, id1, d, m, p, rem0, rem1 int64) {
		ms := []Machine{{Cores: int(cores), Memory: int(mem)}, {Cores: 3, Memory: 5}}
		job := Job{Arrival: 0, Cores: int(d), Memory: int(m), Processing: int(p)}
		obs := Obs{Jobs: []ActiveJob{{ID: int(id0), Job: job, Remaining: rem0}, {ID: int(id1), Job: job, Remaining: rem1}}}
		ctors := []func() (OnlinePolicy, error){
			func() (OnlinePolicy, error) { return New(ms, Settings{}) },
			func() (OnlinePolicy, error) { return NewM(ms, Settings{Fill: true}) },
			func() (OnlinePolicy, error) { return NewM(ms, Settings{Packing: PackFirstFit}) },
			func() (OnlinePolicy, error) { return NewPlus(ms, PlusSettings{Alpha: 10, Normalize: true}) },
			func() (OnlinePolicy, error) { return NewTransient(ms, PrioritySettings{}) },
		}
		chk, cerr := NewChecker(ms)
		for _, mk := range ctors {
			pol, err := mk()
			if err != nil {
				if cerr == nil {
					t.Fatalf("constructor failed on valid machines: %v", err)
				}
				continue
			}
			dec, err := pol.Decide(int(slot), obs)
			if err != nil {
				continue
			}
			if err := chk.Check(obs, dec); err != nil {
				t.Fatalf("%s: infeasible decision: %v", pol.Name(), err)
			}
		}
	})
}
