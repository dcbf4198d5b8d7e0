package ocorp_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/msched/msched/ocorp"
)

// slotObs draws n unfinished jobs (2-D, DefaultConfig sizes, arrivals
// before slot 1000) for one slot on m machines.
func slotObs(n, m int) (ocorp.Obs, []ocorp.Machine) {
	cfg := ocorp.DefaultConfig()
	cfg.Jobs = n
	cfg.Horizon = 10000
	sec, _ := ocorp.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	jobs, _ := ocorp.Discretize(nil, sec, 10)
	rng := rand.New(rand.NewPCG(3, 4))
	obs := ocorp.Obs{Jobs: make([]ocorp.ActiveJob, n)}
	for j, jb := range jobs {
		obs.Jobs[j] = ocorp.ActiveJob{ID: j, Job: jb, Remaining: 1 + rng.Int64N(jb.Volume())}
	}
	return obs, ocorp.Cluster(m)
}

func benchmarkSlot(b *testing.B, n, m int, mk func([]ocorp.Machine) ocorp.OnlinePolicy) {
	obs, ms := slotObs(n, m)
	p := mk(ms)
	t := 1001
	if _, err := p.Decide(t, obs); err != nil { // grow buffers
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		t++
		if _, err := p.Decide(t, obs); err != nil {
			b.Fatal(err)
		}
	}
	if pl, ok := p.(*ocorp.Plus); ok { // the QP's KKT residual (cores) and sweeps of the last slot
		b.ReportMetric(pl.LastQP().Residual, "residual")
		b.ReportMetric(float64(pl.LastQP().Sweeps), "sweeps")
	}
}

func ocorpPolicy(ms []ocorp.Machine) ocorp.OnlinePolicy {
	p, _ := ocorp.New(ms, ocorp.Settings{})
	return p
}

func ocorpM(ms []ocorp.Machine) ocorp.OnlinePolicy {
	p, _ := ocorp.NewM(ms, ocorp.Settings{})
	return p
}

func ocorpPlus(ms []ocorp.Machine) ocorp.OnlinePolicy {
	p, _ := ocorp.NewPlus(ms, ocorp.PlusSettings{Alpha: 10})
	return p
}

// ocorpPlusWorkers is ocorpPlus with the QP's row passes on w workers.
func ocorpPlusWorkers(w int) func([]ocorp.Machine) ocorp.OnlinePolicy {
	return func(ms []ocorp.Machine) ocorp.OnlinePolicy {
		p, _ := ocorp.NewPlus(ms, ocorp.PlusSettings{Alpha: 10, QP: ocorp.QPSettings{Workers: w}})
		return p
	}
}

func svf(ms []ocorp.Machine) ocorp.OnlinePolicy {
	p, _ := ocorp.NewTransient(ms, ocorp.PrioritySettings{})
	return p
}

// BenchmarkSlot times one slot of each policy at n jobs x m machines
// (benchstat -col /n or /m). OCORP+ solves a dense QP over its candidate
// jobs (thousands here: every job has a negative cost after one dual step)
// and all machines; its large sizes take seconds and are skipped with
// -short. OCORP+ at 10 000 x 100 also runs with QPSettings.Workers = 1
// and 2 (benchstat -col /workers).
func BenchmarkSlot(b *testing.B) {
	for _, p := range []struct {
		name string
		mk   func([]ocorp.Machine) ocorp.OnlinePolicy
	}{{"OCORP", ocorpPolicy}, {"OCORP+M", ocorpM}, {"SVF", svf}, {"OCORP+", ocorpPlus}} {
		for _, c := range []struct{ n, m int }{{1000, 100}, {10000, 100}, {1000, 1000}, {10000, 1000}} {
			b.Run(fmt.Sprintf("policy=%s/n=%d/m=%d", p.name, c.n, c.m), func(b *testing.B) {
				if p.name == "OCORP+" && c.n*c.m > 100000 && testing.Short() {
					b.Skip("long")
				}
				if p.name == "OCORP+" && c.n*c.m > 1000000 {
					b.Skip("minutes per slot")
				}
				if p.name == "OCORP+" && c.n == 10000 && c.m == 100 {
					for _, w := range []int{1, 2} {
						b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
							benchmarkSlot(b, c.n, c.m, ocorpPlusWorkers(w))
						})
					}
					return
				}
				benchmarkSlot(b, c.n, c.m, p.mk)
			})
		}
	}
}

// benchmarkRun simulates the whole synthetic workload of the example
// (6500 jobs in 10 h, 10 s slots, 5 machines).
func benchmarkRun(b *testing.B, mk func([]ocorp.Machine) ocorp.OnlinePolicy, cpuOnly bool) {
	sec, _ := ocorp.Generate(ocorp.DefaultConfig(), rand.New(rand.NewPCG(1, 4)))
	jobs, _ := ocorp.Discretize(nil, sec, 10)
	if cpuOnly {
		jobs = ocorp.CPUOnly(jobs)
	}
	ms := ocorp.Cluster(5)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := runOne(jobs, ms, mk(ms), ocorp.RunSettings{NoSeries: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRun simulates the synthetic workload of the example.
func BenchmarkRun(b *testing.B) {
	b.Run("policy=OCORP/n=6500", func(b *testing.B) { benchmarkRun(b, ocorpPolicy, true) })
	b.Run("policy=OCORP+M/n=6500", func(b *testing.B) { benchmarkRun(b, ocorpM, false) })
	b.Run("policy=SVF/n=6500", func(b *testing.B) { benchmarkRun(b, svf, true) })
	b.Run("policy=OCORP+/n=6500", func(b *testing.B) {
		if testing.Short() {
			b.Skip("long")
		}
		benchmarkRun(b, ocorpPlus, true)
	})
}

// runOne runs one policy through ocorp.Run and returns its series.
func runOne(jobs []ocorp.Job, ms []ocorp.Machine, p ocorp.OnlinePolicy, s ocorp.RunSettings) (*ocorp.Series, error) {
	res, err := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, []ocorp.OnlinePolicy{p}, s)
	if res == nil {
		return nil, err
	}
	return &res.Series[0], err
}
