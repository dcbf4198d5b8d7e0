package baselines

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/ocorp"
)

var fitOrders = []Order{OrderSRPT, OrderSRVF, OrderSVF, OrderSRF}

// checkServers is an independent feasibility check: on every server the
// placed cores and the memory of the jobs placed there stay within its
// capacity, every job gets at most min(d_j, remaining) cores, at most one
// placement per (job, server), and every placement names an observed job.
func checkServers(t *testing.T, ms []ocorp.Machine, obs ocorp.Obs, d ocorp.Decision) {
	t.Helper()
	byID := map[int]ocorp.ActiveJob{}
	for _, a := range obs.Jobs {
		byID[a.ID] = a
	}
	cores := make([]int, len(ms))
	mem := make([]int, len(ms))
	got := map[int]int{}
	seen := map[[2]int]bool{}
	for _, p := range d.Placements {
		a, ok := byID[p.Job]
		require.True(t, ok, "placement of unobserved job %d", p.Job)
		require.True(t, p.Machine >= 0 && p.Machine < len(ms), "machine %d", p.Machine)
		require.False(t, seen[[2]int{p.Job, p.Machine}], "job %d twice on machine %d", p.Job, p.Machine)
		seen[[2]int{p.Job, p.Machine}] = true
		require.True(t, p.Admit)
		require.Positive(t, p.Cores)
		cores[p.Machine] += p.Cores
		mem[p.Machine] += a.Memory
		got[p.Job] += p.Cores
	}
	for i, m := range ms {
		require.LessOrEqual(t, cores[i], m.Cores, "machine %d cores", i)
		require.LessOrEqual(t, mem[i], m.Memory, "machine %d memory", i)
	}
	for id, c := range got {
		a := byID[id]
		require.LessOrEqual(t, int64(c), min(int64(a.Cores), a.Remaining), "job %d cores", id)
	}
}

// refFirstFit is a slow reference of FirstFit's rule, written from its
// doc comment: jobs by (key, ID); servers by cores descending, then index;
// each job whole on the first server with its cores and memory free, else
// (if no empty server could hold it) split over the servers in order.
func refFirstFit(ms []ocorp.Machine, o Order, t int, obs ocorp.Obs) map[[2]int]int {
	key := o.Key()
	jobs := slices.Clone(obs.Jobs)
	slices.SortStableFunc(jobs, func(a, b ocorp.ActiveJob) int {
		if c := cmp.Compare(key(t, a), key(t, b)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	srv := make([]int, len(ms))
	for i := range srv {
		srv[i] = i
	}
	slices.SortFunc(srv, func(a, b int) int {
		if ms[a].Cores != ms[b].Cores {
			return ms[b].Cores - ms[a].Cores
		}
		return a - b
	})
	fc := make([]int, len(ms))
	fm := make([]int, len(ms))
	for i, m := range ms {
		fc[i], fm[i] = m.Cores, m.Memory
	}
	out := map[[2]int]int{}
	for _, a := range jobs {
		u := int(min(int64(a.Cores), a.Remaining))
		done := false
		for _, i := range srv {
			if fc[i] >= u && fm[i] >= a.Memory {
				out[[2]int{a.ID, i}] = u
				fc[i] -= u
				fm[i] -= a.Memory
				done = true
				break
			}
		}
		if done {
			continue
		}
		ever := false
		for _, m := range ms {
			ever = ever || (m.Cores >= u && m.Memory >= a.Memory)
		}
		if ever {
			continue
		}
		for _, i := range srv {
			if u > 0 && fc[i] > 0 && fm[i] >= a.Memory {
				c := min(u, fc[i])
				out[[2]int{a.ID, i}] = c
				fc[i] -= c
				fm[i] -= a.Memory
				u -= c
			}
		}
	}
	return out
}

func asMap(d ocorp.Decision) map[[2]int]int {
	m := map[[2]int]int{}
	for _, p := range d.Placements {
		m[[2]int{p.Job, p.Machine}] += p.Cores
	}
	return m
}

func randFitCase(rng *rand.Rand) ([]ocorp.Machine, ocorp.Obs) {
	ms := make([]ocorp.Machine, 1+rng.IntN(4))
	maxMem := 0
	for i := range ms {
		ms[i] = ocorp.Machine{Cores: 1 + rng.IntN(8), Memory: rng.IntN(12)}
		maxMem = max(maxMem, ms[i].Memory)
	}
	var obs ocorp.Obs
	for k := range 1 + rng.IntN(12) {
		j := ocorp.Job{Arrival: rng.IntN(3), Cores: 1 + rng.IntN(10), Memory: rng.IntN(maxMem + 1), Processing: 1 + rng.IntN(5)}
		obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: rng.IntN(40) - 10 + 100*k, Job: j, Remaining: 1 + rng.Int64N(j.Volume())})
	}
	return ms, obs
}

// TestFirstFitMatchesReference compares every decision of the four
// orders with the slow reference on random small instances (servers with
// equal cores, jobs with equal keys, jobs larger than every server), and
// checks it with the independent capacity check.
func TestFirstFitMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	for it := range 2000 {
		ms, obs := randFitCase(rng)
		for _, o := range fitOrders {
			f, err := NewFirstFit(ms, FirstFitSettings{Order: o})
			require.NoError(t, err)
			d, err := f.Decide(3, obs)
			require.NoError(t, err)
			checkServers(t, ms, obs, d)
			require.Equal(t, refFirstFit(ms, o, 3, obs), asMap(d), "it %d %s", it, o)
		}
	}
}

// TestFirstFitHandComputed: two servers, A (8 cores, 10 memory) and B
// (4 cores, 20 memory), and four jobs under SRPT:
//
//	id 1: d=4, m=12, p(t)=1   -> fits only B (memory): B
//	id 2: d=6, m=4,  p(t)=1   -> A (8 >= 6, 10 >= 4); A has 2 cores, 6 memory left
//	id 3: d=3, m=2,  p(t)=2   -> A has 2 cores, B has 0: waits
//	id 4: d=2, m=6,  p(t)=3   -> A (2 cores, 6 memory): backfilled
//
// The pooled SRPT instead sets targets 4, 6, 2 (the cluster's 12 cores)
// and packs them largest first: job 2 on A, job 1 on B, job 3's 2 cores
// on A; job 4 gets nothing.
func TestFirstFitHandComputed(t *testing.T) {
	ms := []ocorp.Machine{{Cores: 4, Memory: 20}, {Cores: 8, Memory: 10}} // B is index 0, A index 1
	obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{
		{ID: 4, Job: ocorp.Job{Cores: 2, Memory: 6, Processing: 3}, Remaining: 6},
		{ID: 3, Job: ocorp.Job{Cores: 3, Memory: 2, Processing: 2}, Remaining: 6},
		{ID: 2, Job: ocorp.Job{Cores: 6, Memory: 4, Processing: 1}, Remaining: 6},
		{ID: 1, Job: ocorp.Job{Cores: 4, Memory: 12, Processing: 1}, Remaining: 4},
	}}
	f, err := NewFirstFit(ms, FirstFitSettings{})
	require.NoError(t, err)
	require.Equal(t, "FirstFit-SRPT", f.Name())
	d, err := f.Decide(0, obs)
	require.NoError(t, err)
	require.Equal(t, map[[2]int]int{{1, 0}: 4, {2, 1}: 6, {4, 1}: 2}, asMap(d))
	p, err := NewSRPT(ms)
	require.NoError(t, err)
	d, err = p.Decide(0, obs)
	require.NoError(t, err)
	require.Equal(t, map[[2]int]int{{1, 0}: 4, {2, 1}: 6, {3, 1}: 2}, asMap(d))
}

// TestFirstFitSplitsOversized: a job wanting more cores than any server
// has is split (Remark 1) instead of starving; one that merely does not
// fit now waits.
func TestFirstFitSplitsOversized(t *testing.T) {
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}, {Cores: 4, Memory: 8}}
	obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{{ID: 7, Job: ocorp.Job{Cores: 6, Memory: 3, Processing: 2}, Remaining: 12}}}
	f, err := NewFirstFit(ms, FirstFitSettings{Order: OrderSRF})
	require.NoError(t, err)
	d, err := f.Decide(0, obs)
	require.NoError(t, err)
	require.Equal(t, map[[2]int]int{{7, 0}: 4, {7, 1}: 2}, asMap(d))
}

// TestFirstFitDeterministic: the decision does not depend on the order of
// the jobs in the observation, nor on earlier calls.
func TestFirstFitDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	for range 300 {
		ms, obs := randFitCase(rng)
		// distinct IDs: ties between equal keys are broken by ID
		for k := range obs.Jobs {
			obs.Jobs[k].ID = 3*k - 7
		}
		for _, o := range fitOrders {
			f, _ := NewFirstFit(ms, FirstFitSettings{Order: o})
			d1, err := f.Decide(5, obs)
			require.NoError(t, err)
			want := asMap(d1)
			perm := slices.Clone(obs.Jobs)
			rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
			d2, err := f.Decide(6, ocorp.Obs{Jobs: perm})
			require.NoError(t, err)
			require.Equal(t, want, asMap(d2), "%s", o)
		}
	}
}

// TestOrderKeyIsPooledBaseline: ocorp.NewPriority with Order.Key makes
// the same decisions as NewSRPT, NewSRVF, NewSVF and NewSRF.
func TestOrderKeyIsPooledBaseline(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	ctors := []func([]ocorp.Machine, ...PrioritySettings) (*ocorp.Priority, error){NewSRPT, NewSRVF, NewSVF, NewSRF}
	for range 300 {
		ms, obs := randFitCase(rng)
		for k := range obs.Jobs {
			obs.Jobs[k].ID = k
		}
		for i, o := range fitOrders {
			a, err := ctors[i](ms)
			require.NoError(t, err)
			b, err := ocorp.NewPriority(o.String()+"-pooled", ms, o.Key())
			require.NoError(t, err)
			da, err := a.Decide(3, obs)
			require.NoError(t, err)
			db, err := b.Decide(3, obs)
			require.NoError(t, err)
			require.Equal(t, asMap(da), asMap(db), "%s", o)
		}
	}
}

// TestFirstFitRun runs the four orders through ocorp.Run on random 2-D
// instances (Run checks (4b)-(4f) on every slot) and every job completes.
func TestFirstFitRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 4))
	for it := range 30 {
		ms, _ := randFitCase(rng)
		maxMem := 0
		for _, m := range ms {
			maxMem = max(maxMem, m.Memory)
		}
		jobs := make([]ocorp.Job, 5+rng.IntN(30))
		for j := range jobs {
			jobs[j] = ocorp.Job{Arrival: rng.IntN(20), Cores: 1 + rng.IntN(10), Memory: rng.IntN(maxMem + 1), Processing: 1 + rng.IntN(6)}
		}
		for _, o := range fitOrders {
			f, _ := NewFirstFit(ms, FirstFitSettings{Order: o})
			r, err := runOne(jobs, ms, f, ocorp.RunSettings{})
			require.NoError(t, err, "it %d %s", it, o)
			for j, jb := range jobs {
				require.GreaterOrEqual(t, r.Flowtime[j], jb.Processing)
			}
		}
	}
}

func TestFirstFitSettings(t *testing.T) {
	_, err := NewFirstFit([]ocorp.Machine{{Cores: 1}}, FirstFitSettings{Order: 9})
	require.True(t, errors.Is(err, ocorp.ErrSettings), "%v", err)
	require.Nil(t, Order(9).Key())
	require.Equal(t, "Order(9)", Order(9).String())
	_, err = NewFirstFit(nil, FirstFitSettings{})
	require.True(t, errors.Is(err, ocorp.ErrEmpty), "%v", err)
	f, err := NewFirstFit([]ocorp.Machine{{Cores: 2}}, FirstFitSettings{Order: OrderSVF, Name: "x"})
	require.NoError(t, err)
	require.Equal(t, "x", f.Name())
	_, err = f.Decide(0, ocorp.Obs{Jobs: []ocorp.ActiveJob{{ID: 1, Job: ocorp.Job{Cores: 1, Processing: 1}, Remaining: 1}, {ID: 1, Job: ocorp.Job{Cores: 1, Processing: 1}, Remaining: 1}}})
	require.True(t, errors.Is(err, ocorp.ErrValue), "%v", err)
	_, err = f.Decide(0, ocorp.Obs{})
	require.NoError(t, err)
	_, err = f.Decide(0, ocorp.Obs{})
	require.True(t, errors.Is(err, ocorp.ErrSlot), "%v", err)
}

// BenchmarkFirstFitSlot times one slot of the server-aware SRPT at n jobs
// on m machines (the jobs of BenchmarkTetrisSlot; benchstat -col /n).
func BenchmarkFirstFitSlot(b *testing.B) {
	for _, c := range []struct{ n, m int }{{1000, 100}, {10000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("n=%d/m=%d", c.n, c.m), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			ms := ocorp.Cluster(c.m)
			obs := ocorp.Obs{Jobs: make([]ocorp.ActiveJob, c.n)}
			for j := range obs.Jobs {
				jb := ocorp.Job{Arrival: rng.IntN(1000), Cores: 1 << rng.IntN(5), Processing: 1 + rng.IntN(300)}
				jb.Memory = jb.Cores * (1 + rng.IntN(8))
				obs.Jobs[j] = ocorp.ActiveJob{ID: j, Job: jb, Remaining: 1 + rng.Int64N(jb.Volume())}
			}
			p, _ := NewFirstFit(ms, FirstFitSettings{})
			slot := 1000
			if _, err := p.Decide(slot, obs); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				slot++
				if _, err := p.Decide(slot, obs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
