package baselines

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/ocorp"
)

func ocorpBaselines(t testing.TB, ms []ocorp.Machine) []ocorp.OnlinePolicy {
	t.Helper()
	srpt, err := NewSRPT(ms)
	if err != nil {
		t.Fatal(err)
	}
	srvf, _ := NewSRVF(ms)
	svf, _ := NewSVF(ms)
	srf, _ := NewSRF(ms)
	tet, _ := NewTetris(ms)
	return []ocorp.OnlinePolicy{srpt, srvf, svf, srf, tet}
}

// TestOCORPBaselinesFeasible runs every baseline on random 1-D and 2-D
// instances through ocorp.Run, which checks (4b)-(4f) with integral cores
// on every slot, and checks that every job completes with f_j >= p_j.
func TestOCORPBaselinesFeasible(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	iters := 40
	if testing.Short() {
		iters = 10
	}
	for it := 0; it < iters; it++ {
		m := 1 + rng.IntN(4)
		ms := make([]ocorp.Machine, m)
		maxMem := 0
		for i := range ms {
			ms[i] = ocorp.Machine{Cores: 1 + rng.IntN(8), Memory: 4 + rng.IntN(12)}
			maxMem = max(maxMem, ms[i].Memory)
		}
		jobs := make([]ocorp.Job, 5+rng.IntN(30))
		for j := range jobs {
			jobs[j] = ocorp.Job{Arrival: rng.IntN(20), Cores: 1 + rng.IntN(10), Processing: 1 + rng.IntN(6)}
			if it%2 == 1 {
				jobs[j].Memory = rng.IntN(min(8, maxMem+1))
			}
		}
		for _, p := range ocorpBaselines(t, ms) {
			r, err := runOne(jobs, ms, p, ocorp.RunSettings{})
			if err != nil {
				t.Fatalf("it %d %s: %v", it, p.Name(), err)
			}
			for j, jb := range jobs {
				if r.Flowtime[j] < jb.Processing {
					t.Fatalf("it %d %s: job %d flowtime %d < p %d", it, p.Name(), j, r.Flowtime[j], jb.Processing)
				}
			}
		}
	}
}

// TestOCORPBaselineOrders checks each baseline's order on one slot: one
// machine with 2 cores and jobs A (d=1, p=5, remaining 1 slot), B (d=2,
// p=1), C (d=1, p=2). SRPT: remaining times A 1, B 1, C 2 -> A then B
// (ID tie) gets 1 core. SRVF: residual volumes A 1, B 2, C 2 -> A, B.
// SVF: volumes A 5, B 2, C 2 -> B takes both cores. SRF: cores A 1, B 2,
// C 1 -> A and C.
func TestOCORPBaselineOrders(t *testing.T) {
	ms := []ocorp.Machine{{Cores: 2}}
	obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{
		{ID: 0, Job: ocorp.Job{Cores: 1, Processing: 5}, Remaining: 1},
		{ID: 1, Job: ocorp.Job{Cores: 2, Processing: 1}, Remaining: 2},
		{ID: 2, Job: ocorp.Job{Cores: 1, Processing: 2}, Remaining: 2},
	}}
	want := map[string][3]int{"SRPT": {1, 1, 0}, "SRVF": {1, 1, 0}, "SVF": {0, 2, 0}, "SRF": {1, 0, 1}}
	for _, p := range ocorpBaselines(t, ms)[:4] {
		d, err := p.Decide(1, obs)
		if err != nil {
			t.Fatal(err)
		}
		var got [3]int
		for _, pl := range d.Placements {
			got[pl.Job] += pl.Cores // IDs 0..2
		}
		if got != want[p.Name()] {
			t.Errorf("%s: cores %v, want %v", p.Name(), got, want[p.Name()])
		}
	}
}

// TestTetrisPrefersAlignedShortJobs: on one 4-core/8 GB machine, a short
// job that fills the machine's memory scores higher than a longer one.
func TestTetrisPrefersAlignedShortJobs(t *testing.T) {
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}}
	tet, _ := NewTetris(ms)
	obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{
		{ID: 0, Job: ocorp.Job{Cores: 4, Memory: 8, Processing: 10}, Remaining: 40},
		{ID: 1, Job: ocorp.Job{Cores: 4, Memory: 8, Processing: 2}, Remaining: 8},
	}}
	d, err := tet.Decide(1, obs)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Placements) != 1 || d.Placements[0].Job != 1 || d.Placements[0].Cores != 4 {
		t.Fatalf("placements %+v", d.Placements)
	}
}

func benchmarkTetrisSlot(b *testing.B, n, m int) {
	rng := rand.New(rand.NewPCG(1, 2))
	ms := ocorp.Cluster(m)
	obs := ocorp.Obs{Jobs: make([]ocorp.ActiveJob, n)}
	for j := range obs.Jobs {
		jb := ocorp.Job{Arrival: rng.IntN(1000), Cores: 1 << rng.IntN(5), Processing: 1 + rng.IntN(300)}
		jb.Memory = jb.Cores * (1 + rng.IntN(8))
		obs.Jobs[j] = ocorp.ActiveJob{ID: j, Job: jb, Remaining: 1 + rng.Int64N(jb.Volume())}
	}
	p, _ := NewTetris(ms)
	slot := 1000
	if _, err := p.Decide(slot, obs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		slot++ // slots strictly increase; the jobs stay the same
		if _, err := p.Decide(slot, obs); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTetrisSlot(b *testing.B) {
	for _, c := range []struct{ n, m int }{{1000, 100}, {10000, 1000}} {
		b.Run(fmt.Sprintf("n=%d/m=%d", c.n, c.m), func(b *testing.B) { benchmarkTetrisSlot(b, c.n, c.m) })
	}
}

// TestOCORPBaselinesHostile is issue 12 classes 2, 6 and 7 for the
// baselines: nil machines are errors, IDs may be anything, and a job
// whose memory fits no machine is reported (ocorp.ErrUnfit), not silently
// left waiting forever.
func TestOCORPBaselinesHostile(t *testing.T) {
	ctors := []func([]ocorp.Machine) (ocorp.OnlinePolicy, error){
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) { return NewSRPT(ms) },
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) { return NewSRVF(ms) },
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) { return NewSVF(ms) },
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) { return NewSRF(ms) },
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) { return NewTetris(ms) },
		func(ms []ocorp.Machine) (ocorp.OnlinePolicy, error) {
			return NewFirstFit(ms, FirstFitSettings{Order: OrderSVF})
		},
	}
	ms := []ocorp.Machine{{Cores: 4, Memory: 8}}
	for _, mk := range ctors {
		_, err := mk(nil)
		require.ErrorIs(t, err, ocorp.ErrEmpty)
		_, err = mk([]ocorp.Machine{{Cores: 0}})
		require.ErrorIs(t, err, ocorp.ErrValue)
		p, err := mk(ms)
		require.NoError(t, err)
		obs := ocorp.Obs{Jobs: []ocorp.ActiveJob{
			{ID: math.MinInt, Job: ocorp.Job{Cores: 2, Memory: 1, Processing: 2}, Remaining: 4},
			{ID: math.MaxInt, Job: ocorp.Job{Cores: 2, Memory: 1, Processing: 1}, Remaining: 2},
		}}
		d, err := p.Decide(1, obs)
		require.NoError(t, err, p.Name())
		assert.NotEmpty(t, d.Placements, p.Name())
		obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: 3, Job: ocorp.Job{Cores: 1, Memory: 9, Processing: 1}, Remaining: 1})
		_, err = p.Decide(2, obs)
		assert.ErrorIs(t, err, ocorp.ErrUnfit, p.Name())
	}
}

// runOne runs one policy through ocorp.Run and returns its series.
func runOne(jobs []ocorp.Job, ms []ocorp.Machine, p ocorp.OnlinePolicy, s ocorp.RunSettings) (*ocorp.Series, error) {
	res, err := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, []ocorp.OnlinePolicy{p}, s)
	if res == nil {
		return nil, err
	}
	return &res.Series[0], err
}
