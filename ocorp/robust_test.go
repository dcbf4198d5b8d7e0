package ocorp

import (
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeSizesRejectedOrHandled is issue 12 class 1 and the overflow
// class of issue 16 for the model: sizes whose sums overflow int are
// rejected by validation with an error naming the value; huge sizes that
// do not overflow are handled without allocating per core.
func TestHugeSizesRejectedOrHandled(t *testing.T) {
	bad := []struct {
		name string
		err  error
	}{
		{"job volume overflows", ValidateJobs([]Job{{Cores: 1 << 32, Processing: 1 << 32}})},
		{"job volume MaxInt*2", ValidateJobs([]Job{{Cores: 2, Processing: math.MaxInt}})},
		{"total cores overflow", ValidateMachines([]Machine{{Cores: math.MaxInt}, {Cores: 1}})},
		{"total memory overflow", ValidateMachines([]Machine{{Cores: 1, Memory: math.MaxInt}, {Cores: 1, Memory: math.MaxInt}})},
	}
	for _, c := range bad {
		require.Error(t, c.err, c.name)
		assert.ErrorIs(t, c.err, ErrValue, c.name)
		assert.Contains(t, c.err.Error(), "9223372036854775807", c.name)
	}
	for _, cores := range []int{1e9, 1 << 40, math.MaxInt} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ms := []Machine{{Cores: cores, Memory: math.MaxInt}}
		pk, err := NewPacker(ms)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "NewPacker with %d cores allocated per core", cores)
		jobs := []Job{{Arrival: 0, Cores: cores - 6, Memory: math.MaxInt, Processing: 1}, {Arrival: 0, Cores: 3, Memory: 5, Processing: 2}} // total volume <= MaxInt
		for _, pol := range []OnlinePolicy{mustPol(New(ms, Settings{})), mustPol(NewM(ms, Settings{Fill: true})), mustPol(NewTransient(ms, PrioritySettings{}))} {
			r, err := runOne(jobs, ms, pol, RunSettings{})
			require.NoError(t, err, "%s cores %d", pol.Name(), cores)
			assert.Equal(t, 2, len(r.Flowtime))
		}
		_ = pk
	}
}

func mustPol[P OnlinePolicy](p P, err error) OnlinePolicy {
	if err != nil {
		panic(err)
	}
	return p
}

// TestCheckerSumsDoNotWrap: placements whose core sums overflow int are
// infeasible, not wrapped around to a small number.
func TestCheckerSumsDoNotWrap(t *testing.T) {
	ms := []Machine{{Cores: 4, Memory: 4}}
	chk, err := NewChecker(ms)
	require.NoError(t, err)
	obs := Obs{Jobs: []ActiveJob{
		{ID: 0, Job: Job{Cores: math.MaxInt, Processing: 1}, Remaining: math.MaxInt},
		{ID: 1, Job: Job{Cores: math.MaxInt, Processing: 1}, Remaining: math.MaxInt},
	}}
	err = chk.Check(obs, Decision{Placements: []Placement{{Job: 0, Machine: 0, Cores: math.MaxInt, Admit: true}, {Job: 1, Machine: 0, Cores: math.MaxInt, Admit: true}}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInfeasible))
}

// TestArbitraryJobIDs is issue 12 class 2: policies keep per-job state by
// ID in a map, so huge, negative and sparse IDs cost nothing, decisions do
// not depend on the IDs' values beyond their order, and duplicates are
// rejected.
func TestArbitraryJobIDs(t *testing.T) {
	ms := []Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}}
	jobs := []Job{{Cores: 3, Memory: 2, Processing: 3}, {Cores: 2, Memory: 9, Processing: 2}, {Cores: 5, Memory: 1, Processing: 4}}
	idSets := [][]int{{0, 1, 2}, {2e7, 1 << 36, 1 << 62}, {-5, -1 << 62, math.MinInt}, {math.MinInt, 0, math.MaxInt}}
	decide := func(ids []int) [][]Placement {
		var out [][]Placement
		pols := []OnlinePolicy{mustPol(New(ms, Settings{})), mustPol(NewM(ms, Settings{Fill: true})),
			mustPol(NewPlus(ms, PlusSettings{Alpha: 10})), mustPol(NewTransient(ms, PrioritySettings{}))}
		for _, p := range pols {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			rem := []int64{9, 4, 20}
			for slot := 1; slot <= 6; slot++ {
				var obs Obs
				for k, j := range jobs {
					if rem[k] > 0 {
						obs.Jobs = append(obs.Jobs, ActiveJob{ID: ids[k], Job: j, Remaining: rem[k]})
					}
				}
				d, err := p.Decide(slot, obs)
				require.NoError(t, err, "%s ids %v", p.Name(), ids)
				byIndex := append([]Placement(nil), d.Placements...)
				for e, pl := range d.Placements {
					k := slices.Index(ids, pl.Job) // decisions name jobs by ID
					require.GreaterOrEqual(t, k, 0)
					byIndex[e].Job = k
					rem[k] = max(0, rem[k]-int64(pl.Cores))
				}
				out = append(out, byIndex)
			}
			runtime.ReadMemStats(&after)
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "%s with ids %v", p.Name(), ids)
		}
		return out
	}
	want := decide(idSets[0])
	for _, ids := range idSets[1:] {
		// Same relative order of IDs as {0,1,2} except the sets that
		// reorder them; compare only the order-preserving ones.
		if slices.IsSorted(ids) {
			assert.Equal(t, want, decide(ids), "ids %v", ids)
		} else {
			decide(ids)
		}
	}
	o, _ := New(ms, Settings{})
	_, err := o.Decide(1, Obs{Jobs: []ActiveJob{{ID: math.MaxInt, Job: jobs[0], Remaining: 1}, {ID: math.MaxInt, Job: jobs[0], Remaining: 2}}})
	assert.ErrorIs(t, err, ErrValue, "duplicate id")
	// After the error the policy still works and holds no state for them.
	_, err = o.Decide(2, Obs{Jobs: []ActiveJob{{ID: 7, Job: jobs[0], Remaining: 1}}})
	require.NoError(t, err)
	assert.Equal(t, 1, o.Live())
}

// TestChurnMemoryFlat is the leak half of class 2: a long run of short
// jobs with ever-growing IDs keeps the policies' state proportional to
// the jobs alive (Live) and the live heap flat.
func TestChurnMemoryFlat(t *testing.T) {
	n := 200000
	if testing.Short() {
		n = 20000
	}
	ms := []Machine{{Cores: 16, Memory: 64}}
	for _, p := range []interface {
		OnlinePolicy
		Live() int
	}{mustOCORP(New(ms, Settings{Fill: true})), mustPlus(NewPlus(ms, PlusSettings{Alpha: 10, Base: Settings{Fill: true}}))} {
		heap := func() uint64 {
			var m runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		var h []uint64
		next, slot := 0, 0
		var obs Obs
		for next < n {
			// 8 new one-slot jobs per slot with IDs spread over 2^40.
			for k := 0; k < 8; k++ {
				obs.Jobs = append(obs.Jobs, ActiveJob{ID: next << 20, Job: Job{Arrival: slot, Cores: 1, Memory: 1, Processing: 1}, Remaining: 1})
				next++
			}
			d, err := p.Decide(slot, obs)
			require.NoError(t, err)
			require.Equal(t, len(obs.Jobs), p.Live(), "%s holds state of jobs not observed", p.Name())
			done := map[int]bool{}
			for _, pl := range d.Placements {
				done[pl.Job] = true // by ID
			}
			w := 0
			for _, a := range obs.Jobs {
				if !done[a.ID] {
					obs.Jobs[w] = a
					w++
				}
			}
			obs.Jobs = obs.Jobs[:w]
			if slot%(n/8/4) == 0 {
				h = append(h, heap())
			}
			slot++
		}
		t.Logf("%s: %d jobs, live heap after GC at quarters: %v bytes; live state %d jobs", p.Name(), n, h, p.Live())
		require.NotEmpty(t, h)
		assert.Less(t, float64(h[len(h)-1]), 1.5*float64(h[0])+1<<20, "%s: live heap grows", p.Name())
	}
}

func mustOCORP(p *Policy, err error) *Policy {
	if err != nil {
		panic(err)
	}
	return p
}

func mustPlus(p *Plus, err error) *Plus {
	if err != nil {
		panic(err)
	}
	return p
}

// TestNilAndUnfit is issue 12 classes 6 and 7: every constructor returns
// an error for nil or empty machines (never a panic), and a job whose
// memory fits no machine is reported by Decide (ErrUnfit, naming it) and
// rejected by Run up front, so neither a caller's loop nor the simulator
// waits for it forever.
func TestNilAndUnfit(t *testing.T) {
	ctors := map[string]func([]Machine) (any, error){
		"New":          func(ms []Machine) (any, error) { return New(ms, Settings{}) },
		"NewM":         func(ms []Machine) (any, error) { return NewM(ms, Settings{}) },
		"NewPlus":      func(ms []Machine) (any, error) { return NewPlus(ms, PlusSettings{Alpha: 1}) },
		"NewPlus0":     func(ms []Machine) (any, error) { return NewPlus(ms, PlusSettings{}) },
		"NewTransient": func(ms []Machine) (any, error) { return NewTransient(ms, PrioritySettings{}) },
		"NewPriority":  func(ms []Machine) (any, error) { return NewPriority("x", ms, VolumeKey) },
		"NewPacker":    func(ms []Machine) (any, error) { return NewPacker(ms) },
		"NewChecker":   func(ms []Machine) (any, error) { return NewChecker(ms) },
	}
	for name, mk := range ctors {
		for _, ms := range [][]Machine{nil, {}, {{Cores: -1}}, {{Cores: 1, Memory: -1}}} {
			p, err := mk(ms)
			require.Error(t, err, "%s(%v)", name, ms)
			assert.Nil(t, p, "%s(%v)", name, ms)
		}
	}
	_, err := NewPriority("x", []Machine{{Cores: 1}}, nil)
	require.ErrorIs(t, err, ErrSettings)

	ms := []Machine{{Cores: 4, Memory: 8}, {Cores: 2, Memory: 4}}
	unfit := ActiveJob{ID: 42, Job: Job{Cores: 1, Memory: 9, Processing: 1}, Remaining: 1}
	ok := ActiveJob{ID: 1, Job: Job{Cores: 1, Memory: 8, Processing: 1}, Remaining: 1}
	for _, p := range allPolicies(t, ms) {
		_, err := p.Decide(1, Obs{Jobs: []ActiveJob{ok, unfit}})
		require.ErrorIs(t, err, ErrUnfit, p.Name())
		var ue *UnfitError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, UnfitError{Index: 1, ID: 42, Memory: 9, MaxMemory: 8}, *ue)
		_, err = p.Decide(2, Obs{Jobs: []ActiveJob{ok}})
		require.NoError(t, err, "%s after an error", p.Name())
	}
	_, err = runOne([]Job{ok.Job, unfit.Job}, ms, mustPol(New(ms, Settings{})), RunSettings{})
	require.ErrorIs(t, err, ErrUnfit)
	require.ErrorIs(t, err, ErrValue)
}

// TestIdleJumpAndLimits is issue 12 class 4: a job list with one arrival
// at 1e13 slots (the 63-byte CSV of the issue) finishes at once because
// the simulator jumps over idle time; with series it is refused
// (ErrTooLarge) before allocating; busy slots are bounded.
func TestIdleJumpAndLimits(t *testing.T) {
	in := "arrival,cores,memory,processing\n0,1,0,1\n10000000000000,1,0,1\n"
	jobs, err := ReadJobsCSV(strings.NewReader(in))
	require.NoError(t, err)
	ms := []Machine{{Cores: 2, Memory: 1}}
	start := time.Now()
	// OCORP+ with its literal costs (~1e19 at t = 1e13) does not serve the
	// late job within the slot limit (an error, not a hang); normalised
	// costs do.
	for _, p := range []OnlinePolicy{mustPol(New(ms, Settings{})), mustPol(NewTransient(ms, PrioritySettings{})), mustPol(NewPlus(ms, PlusSettings{Alpha: 1, Normalize: true}))} {
		r, err := runOne(jobs, ms, p, RunSettings{NoSeries: true})
		require.NoError(t, err, p.Name())
		assert.Equal(t, int(1e13), r.Completion[1]-r.Flowtime[1], p.Name())
		_, err = runOne(jobs, ms, p, RunSettings{})
		require.ErrorIs(t, err, ErrTooLarge, p.Name())
	}
	assert.Less(t, time.Since(start), 2*time.Second)
	// Gaps shorter than the series limit are filled, flat.
	r, err := runOne([]Job{{Arrival: 0, Cores: 1, Processing: 1}, {Arrival: 1000, Cores: 1, Processing: 2}}, ms, mustPol(NewTransient(ms, PrioritySettings{})), RunSettings{})
	require.NoError(t, err)
	require.Len(t, r.ExactSeries, 1002)
	assert.Equal(t, r.ExactSeries[1], r.ExactSeries[999])
	assert.Equal(t, int64(0), r.Unfinished[500])
	// Busy slots are bounded: a job of 1e12 slots stops with an error.
	_, err = runOne([]Job{{Cores: 1, Processing: 1e12}}, ms, mustPol(NewTransient(ms, PrioritySettings{})), RunSettings{NoSeries: true, MaxBusySlots: 1000})
	require.ErrorIs(t, err, ErrNotFinished)
	require.ErrorIs(t, err, ErrTooLarge)
	// Extreme arrivals: at MaxInt nothing can be simulated, and that is an
	// error, not an overflow.
	for _, a := range []int{math.MaxInt, math.MaxInt - 1, 1 << 62} {
		_, err = runOne([]Job{{Arrival: a, Cores: 1, Processing: 1}}, ms, mustPol(NewTransient(ms, PrioritySettings{})), RunSettings{NoSeries: true})
		if a == 1<<62 {
			require.NoError(t, err)
		} else {
			require.ErrorIs(t, err, ErrNotFinished, "arrival %d", a)
		}
	}
}

// TestRunSumsExact: Run refuses job lists whose total work overflows, and
// Discretize rounds huge processing times up without overflow.
func TestRunSumsExact(t *testing.T) {
	ms := []Machine{{Cores: 1}}
	jobs := []Job{{Cores: 1, Processing: math.MaxInt}, {Cores: 1, Processing: math.MaxInt}}
	_, err := runOne(jobs, ms, mustPol(NewTransient(ms, PrioritySettings{})), RunSettings{NoSeries: true})
	require.ErrorIs(t, err, ErrTooLarge)
	d, err := Discretize(nil, []Job{{Cores: 1, Processing: math.MaxInt, Arrival: math.MaxInt}}, 10)
	require.NoError(t, err)
	assert.Equal(t, math.MaxInt/10+1, d[0].Processing)
	assert.Equal(t, math.MaxInt/10, d[0].Arrival)
	pk, err := NewPacker([]Machine{{Cores: math.MaxInt / 2}, {Cores: math.MaxInt / 2}})
	require.NoError(t, err)
	_ = pk.Reset([]ActiveJob{{Job: Job{Cores: math.MaxInt, Processing: 1}, Remaining: math.MaxInt}})
	require.NoError(t, pk.Add(0, 0, math.MaxInt/2))
	require.NoError(t, pk.Add(0, 1, math.MaxInt/2))
	assert.Equal(t, math.MaxInt-1, pk.Got()[0])
}

// TestPackMatchesPerCoreReference checks the per-distinct-target buckets
// of Pack against the rule written out as the original per-core loop
// (u = min(F, maxC) down to 1, jobs of target u in priority order), on
// random instances: the placements must be identical.
func TestPackMatchesPerCoreReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for it := 0; it < 2000; it++ {
		m := 1 + rng.IntN(4)
		ms := make([]Machine, m)
		maxC := 0
		for i := range ms {
			ms[i] = Machine{Cores: 1 + rng.IntN(12), Memory: rng.IntN(10)}
			maxC = max(maxC, ms[i].Cores)
		}
		n := 1 + rng.IntN(12)
		jobs := make([]ActiveJob, n)
		want := make([]int, n)
		for j := range jobs {
			jb := Job{Cores: 1 + rng.IntN(15), Memory: rng.IntN(6), Processing: 1 + rng.IntN(3)}
			jobs[j] = ActiveJob{ID: j, Job: jb, Remaining: 1 + rng.Int64N(jb.Volume())}
			want[j] = int(min(int64(jb.Cores), jobs[j].Remaining))
		}
		prio := rng.Perm(n)
		ignore := rng.IntN(2) == 0
		pk, err := NewPacker(ms)
		require.NoError(t, err)
		require.NoError(t, pk.Reset(jobs))
		pk.Pack(prio, want, ignore)
		got := append([]Placement(nil), pk.Placements()...)

		ref, _ := NewPacker(ms)
		ref.Reset(jobs)
		total := TotalCores(ms)
		target := make([]int, n)
		used, cut := 0, 0
		for k, j := range prio {
			if used >= total {
				break
			}
			target[j] = max(0, min(want[j], total-used))
			used += target[j]
			cut = k + 1
		}
		placed := make([]bool, n)
		for _, i := range ref.byCap {
			F, _ := ref.Free(i)
			for u := min(F, maxC); u >= 1; u = min(u-1, F) {
				for _, j := range prio[:cut] {
					if F < u {
						break
					}
					_, G := ref.Free(i)
					if placed[j] || target[j] != u || (!ignore && jobs[j].Memory > G) {
						continue
					}
					require.NoError(t, ref.Add(j, i, u))
					placed[j] = true
					F -= u
				}
			}
		}
		ref.Fill(prio, want, ignore)
		require.Equal(t, ref.Placements(), got, "it %d: ms %v jobs %v prio %v ignore %v", it, ms, jobs, prio, ignore)
	}
}

// TestRunAllHostileArguments: any workers value and nil policies are
// handled (errors, no panic).
func TestRunAllHostileArguments(t *testing.T) {
	ms := []Machine{{Cores: 2}}
	jobs := []Job{{Cores: 1, Processing: 1}}
	in := &Instance{Jobs: jobs, Machines: ms}
	for _, w := range []int{0, 1, 3, math.MaxInt} {
		rs, err := Run(in, []OnlinePolicy{mustPol(NewTransient(ms, PrioritySettings{}))}, RunSettings{Workers: w})
		require.NoError(t, err, "workers %d", w)
		assert.Len(t, rs.Series, 1)
	}
	for _, w := range []int{math.MinInt, -1} {
		_, err := Run(in, []OnlinePolicy{mustPol(NewTransient(ms, PrioritySettings{}))}, RunSettings{Workers: w})
		require.ErrorIs(t, err, ErrSettings, "workers %d", w)
	}
	_, err := Run(in, []OnlinePolicy{nil}, RunSettings{Workers: 1})
	require.ErrorIs(t, err, ErrSettings)
	_, err = Run(nil, []OnlinePolicy{mustPol(NewTransient(ms, PrioritySettings{}))}, RunSettings{})
	require.Error(t, err)
	_, err = runOne(jobs, ms, nil, RunSettings{})
	require.ErrorIs(t, err, ErrSettings)
	_, err = RunMapReduce([]MapReduceJob{{MapTasks: 1, MapCores: 1, MapTime: 1, ReduceTasks: 1, ReduceCores: 1, ReduceTime: 1}}, ms, nil, RunSettings{})
	require.ErrorIs(t, err, ErrSettings)
	_, _, err = MapReduceJob{MapTasks: math.MaxInt, MapCores: 2, MapTime: 1, ReduceTasks: 1, ReduceCores: 1, ReduceTime: 1}.Dummies()
	require.ErrorIs(t, err, ErrValue)
}

// TestPlusQPBounded: OCORP+'s per-slot QP (candidates x machines) is
// bounded before allocation.
func TestPlusQPBounded(t *testing.T) {
	ms := make([]Machine, 3000)
	for i := range ms {
		ms[i] = Machine{Cores: 1, Memory: 1}
	}
	var obs Obs
	for j := 0; j < 2000; j++ {
		obs.Jobs = append(obs.Jobs, ActiveJob{ID: j, Job: Job{Cores: 1, Processing: 1}, Remaining: 1})
	}
	p, err := NewPlus(ms, PlusSettings{Alpha: 1, Normalize: true, Base: Settings{InitLambda: 1e9}})
	require.NoError(t, err)
	_, err = p.Decide(1, obs)
	require.ErrorIs(t, err, ErrTooLarge)
}

// TestRunWorkBudget: a run whose jobs never drain is stopped by the work
// budget (jobs shown × busy slots), not only by the slot budget: 1000 jobs
// of a 12 KB CSV ran for minutes (issue 12 class 4, audit finding 1).
func TestRunWorkBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString("arrival,cores,memory,processing\n")
	for range 300 {
		b.WriteString("0,64,1,1000\n")
	}
	jobs, err := ReadJobsCSV(strings.NewReader(b.String()))
	require.NoError(t, err)
	ms := Cluster(2)
	p, err := New(ms, Settings{})
	require.NoError(t, err)
	_, err = Run(&Instance{Jobs: jobs, Machines: ms}, []OnlinePolicy{p}, RunSettings{MaxWork: 20000, NoSeries: true})
	require.ErrorIs(t, err, ErrTooLarge)
	require.ErrorIs(t, err, ErrNotFinished)
	require.Contains(t, err.Error(), "MaxWork")
}

// TestReadJobsCSVStrictRows: a row with more or fewer fields than the
// header and a '+' sign are errors (audit finding 7).
func TestReadJobsCSVStrictRows(t *testing.T) {
	for _, in := range []string{
		"arrival,cores,memory,processing\n0,1,1,1,1\n",
		"arrival,cores,memory,processing\n0,1,1\n",
		"arrival,cores,memory,processing\n+0,1,1,1\n",
	} {
		_, err := ReadJobsCSV(strings.NewReader(in))
		require.Error(t, err, in)
	}
	jobs, err := ReadJobsCSV(strings.NewReader("arrival,cores,memory,processing\n0, 1, 1, 1\n\n"))
	require.NoError(t, err)
	require.Len(t, jobs, 1)
}

// TestPlusAlphaBounded: Alpha above MaxAlpha (1e308 froze every allocation
// and spun a run to its slot limit) and NaN are settings errors.
func TestPlusAlphaBounded(t *testing.T) {
	ms := Cluster(1)
	for _, a := range []float64{1e308, math.Inf(1), math.NaN(), -1, MaxAlpha * 2} {
		_, err := NewPlus(ms, PlusSettings{Alpha: a})
		require.ErrorIs(t, err, ErrSettings, "alpha %v", a)
	}
	_, err := NewPlus(ms, PlusSettings{Alpha: MaxAlpha})
	require.NoError(t, err)
}

// TestReadJobsJSONStrictKeys: a repeated or miscased key is an error
// (encoding/json kept the last "arrival" and matched "ARRIVAL").
func TestReadJobsJSONStrictKeys(t *testing.T) {
	ok := `{"version":1,"jobs":[{"arrival":0,"cores":1,"memory":1,"processing":1}]}`
	_, err := ReadJobsJSON(strings.NewReader(ok))
	require.NoError(t, err)
	for _, bad := range []string{
		strings.Replace(ok, `"processing":1`, `"processing":1,"arrival":5`, 1),
		strings.Replace(ok, `"arrival"`, `"ARRIVAL"`, 1),
		strings.Replace(ok, `"version":1`, `"version":1,"version":1`, 1),
	} {
		_, err := ReadJobsJSON(strings.NewReader(bad))
		require.ErrorIs(t, err, ErrFormat, bad)
	}
}
