package ocorp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// randomInstance draws a small instance; with memory the 2-D setting.
func randomInstance(rng *rand.Rand, n, m int, memory bool) ([]Job, []Machine) {
	ms := make([]Machine, m)
	maxMem := 0
	for i := range ms {
		ms[i] = Machine{Cores: 1 + rng.IntN(8), Memory: 4 + rng.IntN(12)}
		maxMem = max(maxMem, ms[i].Memory)
	}
	jobs := make([]Job, n)
	for j := range jobs {
		jobs[j] = Job{Arrival: rng.IntN(3 * n / 2), Cores: 1 + rng.IntN(10), Processing: 1 + rng.IntN(6)}
		if memory {
			jobs[j].Memory = rng.IntN(min(8, maxMem+1))
		}
	}
	return jobs, ms
}

func allPolicies(t testing.TB, ms []Machine) []OnlinePolicy {
	t.Helper()
	o, err := New(ms, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	of, _ := New(ms, Settings{Fill: true})
	om, _ := NewM(ms, Settings{})
	// Theorem 3's constant step with T = Gamma: with a horizon T shorter
	// than the run, w_j(t) ~ t^k outgrows lambda_j and a job can starve.
	ts, _ := NewTheoryStep(1000, 2, 0.5)
	ot, _ := New(ms, Settings{Step: ts, Gamma: 1000, Name: "OCORP-theory"})
	tr, _ := NewTransient(ms, PrioritySettings{})
	pols := []OnlinePolicy{o, of, om, ot, tr}
	for _, a := range []float64{0.5, 10, 100} {
		op, err := NewPlus(ms, PlusSettings{Alpha: a})
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, op)
	}
	return pols
}

// TestEveryDecisionFeasible runs every policy on random 1-D and 2-D
// instances; Run checks (4b)-(4f) with integral cores on every slot and
// fails on any violation. It also checks the bookkeeping identities.
func TestEveryDecisionFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	iters := 40
	if testing.Short() {
		iters = 10
	}
	for it := 0; it < iters; it++ {
		jobs, ms := randomInstance(rng, 5+rng.IntN(25), 1+rng.IntN(4), it%2 == 1)
		for _, p := range allPolicies(t, ms) {
			r, err := runOne(jobs, ms, p, RunSettings{MaxSlots: 3000})
			if errors.Is(err, ErrNotFinished) && p.Name() == "OCORP-theory" {
				continue // every slot run was feasible; the constant step can starve old jobs
			}
			if err != nil {
				t.Fatalf("it %d %s: %v", it, p.Name(), err)
			}
			for j, jb := range jobs {
				if r.Flowtime[j] < jb.Processing || r.Waiting[j] != r.Flowtime[j]-jb.Processing || r.Completion[j] != jb.Arrival+r.Flowtime[j] {
					t.Fatalf("it %d %s: job %d %+v flowtime %d", it, p.Name(), j, jb, r.Flowtime[j])
				}
			}
			if r.ExactLk < r.LowerBoundLk-1e-9 || r.Unfinished[len(r.Unfinished)-1] != 0 {
				t.Fatalf("it %d %s: l2 %v < bound %v or work left", it, p.Name(), r.ExactLk, r.LowerBoundLk)
			}
		}
	}
}

type badPolicy struct{ d Decision }

func (b *badPolicy) Name() string                      { return "bad" }
func (b *badPolicy) Decide(int, Obs) (Decision, error) { return b.d, nil }

func TestRunRejectsInfeasibleDecisions(t *testing.T) {
	ms := []Machine{{Cores: 2, Memory: 4}}
	jobs := []Job{{0, 2, 3, 1}, {0, 2, 3, 1}}
	for _, d := range []Decision{
		{[]Placement{{0, 0, 3, true}}},                  // (4d)
		{[]Placement{{0, 0, 2, true}, {1, 0, 1, true}}}, // (4b)
		{[]Placement{{0, 0, 1, true}, {1, 0, 1, true}}}, // (4c)
		{[]Placement{{0, 0, 1, true}, {0, 0, 1, false}}},
		{[]Placement{{5, 0, 1, true}}},
		{[]Placement{{0, 0, 0, true}}},
	} {
		_, err := runOne(jobs, ms, &badPolicy{d}, RunSettings{})
		if !errors.Is(err, ErrInfeasible) {
			t.Errorf("decision %v: err %v", d, err)
		}
	}
}

// p3Objective is (35): sum_t t^k sum_j y_j(t)/p_j, recovered from the
// fractional flowtimes (a_j = 0): sum_j F_j - sum_j p_j^k.
func p3Objective(r *Series, jobs []Job, k float64) float64 {
	s := 0.0
	for j, jb := range jobs {
		s += r.Fractional[j] - math.Pow(float64(jb.Processing), k)
	}
	return s
}

// exhaustiveP3 minimises (35) over all integral schedules of jobs that
// arrive at 0 on a pooled capacity C, by memoised search over (t,
// remaining volumes).
func exhaustiveP3(jobs []Job, C int, k float64) float64 {
	n := len(jobs)
	memo := map[[8]int64]float64{}
	var rec func(t int, rem []int64) float64
	rec = func(t int, rem []int64) float64 {
		var key [8]int64
		key[0] = int64(t)
		left := false
		for j := range rem {
			key[j+1] = rem[j]
			if rem[j] > 0 {
				left = true
			}
		}
		if !left {
			return 0
		}
		if v, ok := memo[key]; ok {
			return v
		}
		best := math.Inf(1)
		u := make([]int64, n)
		var choose func(j int, capLeft int64, cost float64)
		choose = func(j int, capLeft int64, cost float64) {
			if j == n {
				nr := make([]int64, n)
				any := false
				for i := range rem {
					nr[i] = rem[i] - u[i]
					if u[i] > 0 {
						any = true
					}
				}
				if !any {
					return
				}
				if v := cost + rec(t+1, nr); v < best {
					best = v
				}
				return
			}
			hi := min(int64(jobs[j].Cores), rem[j], capLeft)
			for c := int64(0); c <= hi; c++ {
				u[j] = c
				choose(j+1, capLeft-c, cost+math.Pow(float64(t), k)*float64(c)/float64(jobs[j].Volume()))
			}
			u[j] = 0
		}
		choose(0, int64(C), 0)
		memo[key] = best
		return best
	}
	rem := make([]int64, n)
	for j, jb := range jobs {
		rem[j] = jb.Volume()
	}
	return rec(1, rem)
}

// TestTransientSolvesLocalProblem38 checks Lemma 2 (with min for max):
// in every slot of a transient run, the rates of smallest volume first
// maximise (38a) sum_j y_j / p_j subject to (38b)-(38d) with integral
// cores, compared with enumeration of all integral allocations.
func TestTransientSolvesLocalProblem38(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for it := 0; it < 200; it++ {
		n := 1 + rng.IntN(4)
		obs := Obs{Jobs: make([]ActiveJob, n)}
		for j := range obs.Jobs {
			jb := Job{Cores: 1 + rng.IntN(3), Processing: 1 + rng.IntN(4)}
			obs.Jobs[j] = ActiveJob{ID: j, Job: jb, Remaining: 1 + rng.Int64N(jb.Volume())}
		}
		C := 1 + rng.IntN(6)
		ms := []Machine{{Cores: C}}
		tr, _ := NewTransient(ms, PrioritySettings{})
		d, err := tr.Decide(1, obs)
		if err != nil {
			t.Fatal(err)
		}
		got := 0.0
		for _, p := range d.Placements {
			got += float64(p.Cores) / float64(obs.Jobs[p.Job].Volume())
		}
		best := 0.0
		u := make([]int, n)
		var rec func(j, left int, v float64)
		rec = func(j, left int, v float64) {
			if j == n {
				best = max(best, v)
				return
			}
			a := obs.Jobs[j]
			for c := 0; c <= min(a.Cores, int(a.Remaining), left); c++ {
				u[j] = c
				rec(j+1, left-c, v+float64(c)/float64(a.Volume()))
			}
		}
		rec(0, C, 0)
		if math.Abs(got-best) > 1e-12 {
			t.Fatalf("it %d: %v C=%d: SVF %v, optimum of (38) %v", it, obs.Jobs, C, got, best)
		}
	}
}

// TestTheorem6Counterexample shows that smallest volume first does not
// always minimise (35) over the whole transient schedule: jobs
// (d, p) = (2, 3), (2, 1), (1, 3) on 4 cores, k = 2. SVF serves the small
// job (2, 1) first, so the big job cannot use its 2 cores in slot 1 and
// the run takes 4 slots: (35) = 1.5 + 4*(2/3) + 9*(2/3) + 16/6 = 12.83.
// Splitting the small job over slots 1 and 2 finishes in 3 slots:
// 1*(1/2 + 1/3 + 2/6) + 4*(1/2 + 1/3 + 1/3) + 9*(2/3) = 11.83.
func TestTheorem6Counterexample(t *testing.T) {
	jobs := []Job{{0, 2, 0, 3}, {0, 2, 0, 1}, {0, 1, 0, 3}}
	ms := []Machine{{Cores: 4}}
	tr, _ := NewTransient(ms, PrioritySettings{})
	r, err := runOne(jobs, ms, tr, RunSettings{K: 2})
	if err != nil {
		t.Fatal(err)
	}
	svf, opt := p3Objective(r, jobs, 2), exhaustiveP3(jobs, 4, 2)
	if math.Abs(svf-(12+5./6)) > 1e-9 || math.Abs(opt-(11+5./6)) > 1e-9 {
		t.Fatalf("SVF %v (want 12.8333), optimum %v (want 11.8333)", svf, opt)
	}
}

// TestTransientNearOptimalForP3 measures SVF against the exhaustive
// optimum of (35) on random small transient instances. Theorem 6 claims
// ratio 1; the counterexample above shows it can exceed 1. The test
// checks SVF is never better than the optimum (a check of the search)
// and bounds the worst ratio seen by 2 (observed 1.61 with this seed).
func TestTransientNearOptimalForP3(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 2))
	iters := 150
	if testing.Short() {
		iters = 40
	}
	worst, optimal, runs := 1.0, 0, 0
	for it := 0; it < iters; it++ {
		n := 2 + rng.IntN(3)
		jobs := make([]Job, n)
		for j := range jobs {
			jobs[j] = Job{Cores: 1 + rng.IntN(3), Processing: 1 + rng.IntN(3)}
		}
		C := 1 + rng.IntN(4)
		k := []float64{1, 2, 3}[it%3]
		want := exhaustiveP3(jobs, C, k)
		for _, ms := range [][]Machine{{{Cores: C}}, {{Cores: (C + 1) / 2}, {Cores: C / 2}}} {
			if ms[len(ms)-1].Cores == 0 {
				continue
			}
			tr, _ := NewTransient(ms, PrioritySettings{})
			r, err := runOne(jobs, ms, tr, RunSettings{K: k})
			if err != nil {
				t.Fatal(err)
			}
			got := p3Objective(r, jobs, k)
			runs++
			if got < want*(1-1e-12)-1e-12 {
				t.Fatalf("it %d: SVF %v below the exhaustive optimum %v: search is wrong", it, got, want)
			}
			if got <= want*(1+1e-12)+1e-12 {
				optimal++
			}
			worst = max(worst, got/want)
		}
	}
	t.Logf("SVF optimal for (35) in %d of %d runs; worst ratio SVF/optimum %.4f", optimal, runs, worst)
	if worst > 2 {
		t.Fatalf("worst ratio %v", worst)
	}
}

// TestMapReduceRespectsPrecedence checks (43): a reduce dummy job never
// runs before its map job completes, so every job's flowtime is at least
// p^m + p^r, for every policy.
func TestMapReduceRespectsPrecedence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	ms := []Machine{{Cores: 8}, {Cores: 4}}
	jobs := make([]MapReduceJob, 15)
	for j := range jobs {
		jobs[j] = MapReduceJob{Arrival: rng.IntN(10), MapTasks: 1 + rng.IntN(4), MapCores: 1 + rng.IntN(2), MapTime: 1 + rng.IntN(4),
			ReduceTasks: 1 + rng.IntN(2), ReduceCores: 1, ReduceTime: 1 + rng.IntN(3)}
	}
	for _, p := range allPolicies(t, ms) {
		if p.Name() == "OCORP-theory" {
			continue
		}
		r, err := RunMapReduce(jobs, ms, p, RunSettings{})
		if err != nil {
			t.Fatalf("%s: %v", p.Name(), err)
		}
		for j, m := range jobs {
			mapDone := r.Run.Completion[2*j]
			reduceStart := r.Run.Completion[2*j+1] - r.Run.Flowtime[2*j+1] + m.ReduceTime // >= first run slot
			if r.JobFlowtime[j] < r.LowerBound[j] || r.Run.Completion[2*j+1]-m.ReduceTime < mapDone || reduceStart < 0 {
				t.Fatalf("%s: job %d map done %d reduce done %d flowtime %d", p.Name(), j, mapDone, r.Run.Completion[2*j+1], r.JobFlowtime[j])
			}
		}
	}
	if _, err := RunMapReduce([]MapReduceJob{{MapTasks: 0, MapCores: 1, MapTime: 1, ReduceTasks: 1, ReduceCores: 1, ReduceTime: 1}}, ms, allPolicies(t, ms)[0], RunSettings{}); err == nil {
		t.Fatal("zero map tasks accepted")
	}
}

// TestRunAllDeterministic checks that results do not depend on the number
// of workers.
func TestRunAllDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	jobs, ms := randomInstance(rng, 40, 3, true)
	var prev []Series
	for _, w := range []int{1, 3} {
		pols := allPolicies(t, ms)[:3]
		res, err := Run(&Instance{Jobs: jobs, Machines: ms}, pols, RunSettings{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		rs := res.Series
		if prev != nil {
			for k := range rs {
				if rs[k].ExactLk != prev[k].ExactLk || rs[k].TotalMigrations != prev[k].TotalMigrations || rs[k].FractionalLk != prev[k].FractionalLk {
					t.Fatalf("%s: workers changed the result", rs[k].Policy)
				}
			}
		}
		prev = rs
	}
}

func TestSettingsValidated(t *testing.T) {
	ms := []Machine{{Cores: 4}}
	for _, s := range []Settings{{K: 0.5}, {Gamma: -1}, {Gamma: math.NaN()}, {InitLambda: -1}} {
		if _, err := New(ms, s); !errors.Is(err, ErrSettings) {
			t.Errorf("New(%+v) = %v", s, err)
		}
	}
	if _, err := NewPlus(ms, PlusSettings{Alpha: -1}); !errors.Is(err, ErrSettings) {
		t.Error("negative alpha accepted")
	}
	for _, c := range []struct {
		T       int
		k, beta float64
	}{{0, 2, 0.5}, {10, 2, 1}, {10, 2, -0.1}, {10, 0.5, 0.5}} {
		if _, err := NewTheoryStep(c.T, c.k, c.beta); !errors.Is(err, ErrSettings) {
			t.Errorf("NewTheoryStep(%v) accepted", c)
		}
	}
	// A fixed Gamma below a job's arrival is a data error, not a panic.
	o, _ := New(ms, Settings{Gamma: 3})
	_, err := o.Decide(6, Obs{Jobs: []ActiveJob{{ID: 0, Job: Job{Arrival: 5, Cores: 1, Processing: 1}, Remaining: 1}}})
	if !errors.Is(err, ErrSettings) {
		t.Fatalf("arrival >= Gamma: %v", err)
	}
	// Observation errors name the job.
	for _, obs := range []Obs{
		{Jobs: []ActiveJob{{ID: 0, Job: Job{Cores: 1, Processing: 1}, Remaining: 2}}},
		{Jobs: []ActiveJob{{ID: 0, Job: Job{Arrival: 9, Cores: 1, Processing: 1}, Remaining: 1}}},
		{Jobs: []ActiveJob{{ID: 1, Job: Job{Cores: 1, Processing: 1}, Remaining: 1}, {ID: 1, Job: Job{Cores: 1, Processing: 1}, Remaining: 1}}},
	} {
		p, _ := New(ms, Settings{})
		if _, err := p.Decide(5, obs); !errors.Is(err, ErrValue) {
			t.Errorf("obs %+v: %v", obs, err)
		}
	}
}

// TestLiteralRuleTakesTwiceProcessing asserts the finding of issue 11.8:
// under the printed rule (Fill = false, mu = t^(k+0.5), lambda starting at
// 0) a job is idle in its first slot (c_j = w_j > 0), and a slot at full
// rate drives lambda_j back to 0 (g_j < 0 times a huge mu), so every unit
// of a job's processing is preceded by an idle slot: f_j >= 2 p_j for
// every job, against the paper's "30 % above the lower bound".
func TestLiteralRuleTakesTwiceProcessing(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 8))
	for it := 0; it < 30; it++ {
		jobs, ms := randomInstance(rng, 6+rng.IntN(20), 1+rng.IntN(3), it%2 == 1)
		g, err := Gamma(jobs, ms)
		if err != nil {
			t.Fatal(err)
		}
		lit, _ := New(ms, Settings{Gamma: g})
		litM, _ := NewM(ms, Settings{Gamma: g})
		for _, pol := range []OnlinePolicy{lit, litM} {
			r, err := runOne(jobs, ms, pol, RunSettings{NoSeries: true})
			if err != nil {
				t.Fatalf("it %d %s: %v", it, pol.Name(), err)
			}
			for j, jb := range jobs {
				if r.Flowtime[j] < 2*jb.Processing {
					t.Fatalf("it %d %s: job %d %+v flowtime %d < 2 p_j = %d", it, pol.Name(), j, jb, r.Flowtime[j], 2*jb.Processing)
				}
			}
		}
		// The work-conserving variant is not bound by it: on a job alone
		// on a big enough machine it achieves f_j = p_j.
	}
	ms := []Machine{{Cores: 8, Memory: 8}}
	jobs := []Job{{Arrival: 0, Cores: 2, Memory: 1, Processing: 5}}
	for _, fill := range []bool{false, true} {
		o, _ := New(ms, Settings{Fill: fill})
		r, err := runOne(jobs, ms, o, RunSettings{})
		if err != nil {
			t.Fatal(err)
		}
		if f := r.Flowtime[0]; (fill && f != 5) || (!fill && f < 10) {
			t.Errorf("fill %v: flowtime %d, want 5 with Fill and >= 10 without", fill, f)
		}
	}
}

// runOne runs one policy through Run and returns its series.
func runOne(jobs []Job, ms []Machine, p OnlinePolicy, s RunSettings) (*Series, error) {
	res, err := Run(&Instance{Jobs: jobs, Machines: ms}, []OnlinePolicy{p}, s)
	if res == nil {
		return nil, err
	}
	return &res.Series[0], err
}
