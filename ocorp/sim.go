package ocorp

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/msched/msched/internal/checked"
)

// RunSettings configures Run. The zero value uses k = 2, records the
// per-slot series, derives the slot limit from the jobs and simulates the
// policies one at a time.
type RunSettings struct {
	// Workers is the number of policies simulated concurrently; 0 means 1
	// (values above the number of policies mean that number). Results do
	// not depend on it.
	Workers int
	// K is the order of the l_k norms reported; 0 means 2.
	K float64
	// MaxSlots stops the run with ErrNotFinished; 0 means
	// max_j a_j + 4 sum_j ceil(v_j / min(d_j, sum_i C_i)) + 100
	// (saturated at math.MaxInt - 1).
	MaxSlots int
	// MaxBusySlots bounds the slots in which the policy is called (slots
	// with unfinished arrived jobs; idle slots are skipped); beyond it the
	// run stops with an error wrapping ErrNotFinished and ErrTooLarge.
	// 0 means DefaultMaxBusySlots.
	MaxBusySlots int
	// MaxWork bounds the work of a run: the sum over busy slots of the
	// jobs the policy is shown. A policy's time per slot grows with the
	// jobs it is shown, so MaxBusySlots alone does not bound the time of a
	// run (1000 jobs that never finish made a small CSV run for minutes);
	// beyond MaxWork the run stops with an error wrapping ErrNotFinished
	// and ErrTooLarge. 0 means DefaultMaxWork.
	MaxWork int64
	// NoSeries skips the per-slot series (saves memory on long runs).
	// With series, a run whose last slot exceeds MaxSeriesSlots is an
	// error wrapping ErrTooLarge.
	NoSeries bool
}

// Limits of Run. A slot costs O(jobs alive) time, and a series entry 8
// bytes per series (four series): MaxSeriesSlots is 128 MiB of series.
const (
	DefaultMaxBusySlots = 1 << 24
	// DefaultMaxWork is 2^26 job-slots: about 10 s of OCORP and a few
	// minutes of Tetris, 100x the work of the examples' runs.
	DefaultMaxWork = 1 << 26
	MaxSeriesSlots = 1 << 22
	// CeilingMaxBusySlots and CeilingMaxWork bound RunSettings.MaxBusySlots
	// (2^32 slots) and MaxWork (2^36 job-slots, about three hours of
	// OCORP); above them Run returns an error wrapping ErrSettings.
	CeilingMaxBusySlots = 1 << 32
	CeilingMaxWork      = 1 << 36
)

// Result is the record of Run: one Series per policy, in the order of the
// policies.
type Result struct {
	Series []Series
}

// Series is the record of one policy on one job list. Times are in slots.
type Series struct {
	Policy string
	K      float64
	// Per job (indexed like the input jobs):
	Completion  []int     // c_j: the last unit of work ran in slot c_j - 1
	Flowtime    []int     // f_j = c_j - a_j
	Waiting     []int     // f_j - p_j
	Fractional  []float64 // fractional k-th power flowtime, eq. (5)
	Preemptions []int     // slots t where the job ran at t-1, not at t, unfinished
	Migrations  []int     // runs on a machine set different from its previous run
	// Aggregates:
	ExactLk                           float64 // (sum_j f_j^k)^(1/k)
	FractionalLk                      float64 // (sum_j Fractional_j)^(1/k)
	LowerBoundLk                      float64 // (sum_j p_j^k)^(1/k): f_j >= p_j
	LowerBound                        int     // sum_j p_j
	Makespan                          int     // max_j c_j
	TotalPreemptions, TotalMigrations int
	// Per-slot series, index t for slot t (unless NoSeries):
	ExactSeries      []float64 // l_k norm of the flowtimes of jobs completed by t
	FractionalSeries []float64 // (sum_j accrued fractional flowtime by t)^(1/k)
	Unfinished       []int64   // remaining volume of arrived jobs after slot t
	Offered          []int64   // volume of the jobs arrived by slot t
	Wall             time.Duration
}

// Run simulates every policy on in.Jobs (in slots; see Discretize) and
// in.Machines, RunSettings.Workers policies at a time: in slot
// t = 0, 1, ... the unfinished jobs with a_j <= t are observed (ID = index
// in in.Jobs, Remaining in core-slots), each decision is checked against
// (4b)-(4f) (a violation is an error wrapping ErrInfeasible), and every
// admitted placement does Cores units of work, capped by what the job has
// left. Jobs whose memory exceeds every machine are rejected up front
// (ErrUnfit and ErrValue). The simulation is event-driven over idle time:
// when no job is waiting it jumps to the next arrival (the series repeat
// their values over the gap, and the policies see the gap), so the run
// time depends on the busy slots only; those are bounded by
// RunSettings.MaxBusySlots and the series by MaxSeriesSlots. Every policy
// must be fresh (no Decide yet). The errors of the policies are joined;
// Result holds the (partial) series of every policy even then.
func Run(in *Instance, pols []OnlinePolicy, s RunSettings) (*Result, error) {
	if in == nil {
		return nil, fmt.Errorf("%w: nil instance", ErrEmpty)
	}
	if len(pols) == 0 {
		return nil, fmt.Errorf("%w: no policies", ErrEmpty)
	}
	for i, p := range pols {
		if p == nil {
			return nil, fmt.Errorf("%w: policy %d is nil", ErrSettings, i)
		}
	}
	if s.Workers < 0 {
		return nil, fmt.Errorf("%w: Workers = %d, want >= 0", ErrSettings, s.Workers)
	}
	res := &Result{Series: make([]Series, len(pols))}
	errs := make([]error, len(pols))
	sem := make(chan struct{}, min(max(1, s.Workers), len(pols)))
	var wg sync.WaitGroup
	for i, p := range pols {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			r, err := run(in.Jobs, nil, in.Machines, p, s)
			if r != nil {
				res.Series[i] = *r
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	return res, errors.Join(errs...)
}

// run is Run with dependencies: job j becomes visible only after job
// dep[j] completes (dep[j] < 0: none); its weights still use a_j.
func run(jobs []Job, dep []int, ms []Machine, pol OnlinePolicy, s RunSettings) (*Series, error) {
	if pol == nil {
		return nil, fmt.Errorf("%w: nil policy", ErrSettings)
	}
	if err := ValidateJobs(jobs); err != nil {
		return nil, err
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%w: no jobs", ErrEmpty)
	}
	chk, err := NewChecker(ms)
	if err != nil {
		return nil, err
	}
	k := s.K
	if k == 0 {
		k = 2
	}
	if !(k >= 1) || math.IsInf(k, 0) || s.MaxSlots < 0 {
		return nil, fmt.Errorf("%w: k = %v, max slots %d", ErrSettings, k, s.MaxSlots)
	}
	if s.MaxBusySlots > CeilingMaxBusySlots || s.MaxWork > CeilingMaxWork {
		return nil, fmt.Errorf("%w: RunSettings.MaxBusySlots = %d, MaxWork = %d, want at most CeilingMaxBusySlots = %d and CeilingMaxWork = %d",
			ErrSettings, s.MaxBusySlots, s.MaxWork, int64(CeilingMaxBusySlots), int64(CeilingMaxWork))
	}
	maxMem, C := 0, TotalCores(ms)
	for _, m := range ms {
		maxMem = max(maxMem, m.Memory)
	}
	maxBusy := s.MaxBusySlots
	if maxBusy <= 0 {
		maxBusy = DefaultMaxBusySlots
	}
	maxWork, shown := s.MaxWork, int64(0)
	if maxWork <= 0 {
		maxWork = DefaultMaxWork
	}
	n := len(jobs)
	limit, lastArr := s.MaxSlots, 0
	total := 0 // sum of volumes: offered and unfinished work stay exact
	for j, jb := range jobs {
		var ok bool
		if total, ok = checked.Add(total, int(jb.Volume())); !ok {
			return nil, fmt.Errorf("%w: job %d: total volume of jobs 0..%d exceeds %d core-slots", ErrTooLarge, j, j, math.MaxInt)
		}
		if jb.Memory > maxMem {
			return nil, fmt.Errorf("%w (%w)", &UnfitError{Index: j, ID: j, Memory: jb.Memory, MaxMemory: maxMem}, ErrValue)
		}
		lastArr = max(lastArr, jb.Arrival)
	}
	if limit == 0 {
		// lastArr + 4 sum_j ceil(v_j / min(d_j, C)) + 100, saturated.
		sum := int64(100)
		for _, jb := range jobs {
			r := int64(min(jb.Cores, C))
			v := jb.Volume()
			q := v / r
			if v%r != 0 {
				q++
			}
			sum = min(sum+min(4*q, math.MaxInt64/8), math.MaxInt64/8)
		}
		limit = math.MaxInt - 1
		if int64(lastArr) < int64(limit)-sum {
			limit = lastArr + int(sum)
		}
	}
	limit = min(limit, math.MaxInt-1)
	if lastArr >= limit {
		return nil, fmt.Errorf("%w: a job arrives at slot %d, at or after the slot limit %d", ErrNotFinished, lastArr, limit)
	}
	if !s.NoSeries && lastArr+1 > MaxSeriesSlots {
		return nil, fmt.Errorf("%w: a job arrives at slot %d: per-slot series beyond %d slots (set RunSettings.NoSeries)", ErrTooLarge, lastArr, MaxSeriesSlots)
	}
	r := &Series{Policy: pol.Name(), K: k,
		Completion: make([]int, n), Flowtime: make([]int, n), Waiting: make([]int, n),
		Fractional: make([]float64, n), Preemptions: make([]int, n), Migrations: make([]int, n)}
	byArr := make([]int, n)
	for j := range byArr {
		byArr[j] = j
	}
	slices.SortStableFunc(byArr, func(a, b int) int { return jobs[a].Arrival - jobs[b].Arrival })
	waiting := make([][]int, n) // dependants released when j completes
	for j := 0; dep != nil && j < n; j++ {
		if d := dep[j]; d >= 0 {
			waiting[d] = append(waiting[d], j)
		}
	}
	rem := make([]int64, n)
	lastRun := make([]int, n)
	print := make([]uint64, n) // fingerprint of the machine set of the last run
	for j, jb := range jobs {
		rem[j] = jb.Volume()
		lastRun[j] = -1
	}
	var active []ActiveJob
	var obs Obs
	done, next := 0, 0
	var powExact, powFrac float64
	var offered, unfinished int64
	work := make([]int64, n)
	fp := make([]uint64, n)
	var released []int
	start := time.Now()
	busy := 0
	// t is the paper's 1-based slot: the policies see slot t-1.
	for t := 1; done < n; t++ {
		if len(active) == 0 && len(released) == 0 && next < n {
			// Idle: jump to the slot after the next arrival (< limit + 1).
			if a := jobs[byArr[next]].Arrival + 1; a > t {
				if !s.NoSeries {
					if a-1 > MaxSeriesSlots {
						r.Wall = time.Since(start)
						return r, fmt.Errorf("%w: per-slot series beyond %d slots at slot %d (set RunSettings.NoSeries)", ErrTooLarge, MaxSeriesSlots, a)
					}
					for u := t; u < a; u++ {
						r.ExactSeries = append(r.ExactSeries, math.Pow(powExact, 1/k))
						r.FractionalSeries = append(r.FractionalSeries, math.Pow(powFrac, 1/k))
						r.Unfinished = append(r.Unfinished, unfinished)
						r.Offered = append(r.Offered, offered)
					}
				}
				t = a
			}
		}
		if t > limit {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%w: %d of %d jobs left at slot %d", ErrNotFinished, n-done, n, t)
		}
		if busy++; busy > maxBusy {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%w (%w): %d of %d jobs left after %d busy slots (RunSettings.MaxBusySlots)", ErrNotFinished, ErrTooLarge, n-done, n, maxBusy)
		}
		if !s.NoSeries && t > MaxSeriesSlots {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%w: per-slot series beyond %d slots (set RunSettings.NoSeries)", ErrTooLarge, MaxSeriesSlots)
		}
		for ; next < n && jobs[byArr[next]].Arrival < t; next++ {
			j := byArr[next]
			if dep == nil || dep[j] < 0 {
				active = append(active, ActiveJob{ID: j, Job: jobs[j], Remaining: rem[j]})
				offered += rem[j]
				unfinished += rem[j]
			}
		}
		for _, j := range released {
			active = append(active, ActiveJob{ID: j, Job: jobs[j], Remaining: rem[j]})
			offered += rem[j]
			unfinished += rem[j]
		}
		released = released[:0]
		if shown += int64(len(active)); shown > maxWork {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%w (%w): %d of %d jobs left at slot %d after %d job-slots of work (RunSettings.MaxWork = %d)", ErrNotFinished, ErrTooLarge, n-done, n, t-1, shown, maxWork)
		}
		obs.Jobs = active
		d, err := pol.Decide(t-1, obs)
		if err != nil {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%s: slot %d: %w", pol.Name(), t-1, err)
		}
		if err := chk.Check(obs, d); err != nil {
			r.Wall = time.Since(start)
			return r, fmt.Errorf("%s: slot %d: %w", pol.Name(), t-1, err)
		}
		for _, p := range d.Placements {
			if p.Admit {
				id := p.Job // the job's index, checked by chk
				work[id] += int64(p.Cores)
				fp[id] += mix(uint64(p.Machine))
			}
		}
		w := 0
		for _, a := range active {
			j := a.ID
			did := min(work[j], rem[j])
			if did > 0 {
				if lastRun[j] >= 0 && fp[j] != print[j] {
					r.Migrations[j]++
					r.TotalMigrations++
				}
				print[j] = fp[j]
				y := float64(did) / float64(a.Cores)
				r.Fractional[j] += Weight(a.Job, t-1, k) * y
				powFrac += Weight(a.Job, t-1, k) * y
				rem[j] -= did
				unfinished -= did
			} else if lastRun[j] == t-1 {
				r.Preemptions[j]++
				r.TotalPreemptions++
			}
			if did > 0 {
				lastRun[j] = t
			}
			work[j], fp[j] = 0, 0
			if rem[j] == 0 {
				done++
				r.Completion[j] = t
				f := t - a.Arrival
				r.Flowtime[j] = f
				r.Waiting[j] = f - a.Processing
				powExact += math.Pow(float64(f), k)
				r.Makespan = max(r.Makespan, t)
				released = append(released, waiting[j]...)
				continue
			}
			a.Remaining = rem[j]
			active[w] = a
			w++
		}
		active = active[:w]
		if !s.NoSeries {
			r.ExactSeries = append(r.ExactSeries, math.Pow(powExact, 1/k))
			r.FractionalSeries = append(r.FractionalSeries, math.Pow(powFrac, 1/k))
			r.Unfinished = append(r.Unfinished, unfinished)
			r.Offered = append(r.Offered, offered)
		}
	}
	r.Wall = time.Since(start)
	var lb float64
	for _, jb := range jobs {
		lb += math.Pow(float64(jb.Processing), k)
		r.LowerBound += jb.Processing
	}
	r.LowerBoundLk = math.Pow(lb, 1/k)
	r.ExactLk = math.Pow(powExact, 1/k)
	r.FractionalLk = math.Pow(powFrac, 1/k)
	return r, nil
}

// mix is splitmix64's finaliser: machine-set fingerprints are sums of
// mix(machine), order-independent; a collision (probability ~2^-64 per
// comparison) would miss one migration.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
