package ocorp_test

import (
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
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

func svf(ms []ocorp.Machine) ocorp.OnlinePolicy {
	p, _ := ocorp.NewTransient(ms)
	return p
}

func BenchmarkSlotOCORP1000x100(b *testing.B)    { benchmarkSlot(b, 1000, 100, ocorpPolicy) }
func BenchmarkSlotOCORP10000x100(b *testing.B)   { benchmarkSlot(b, 10000, 100, ocorpPolicy) }
func BenchmarkSlotOCORP1000x1000(b *testing.B)   { benchmarkSlot(b, 1000, 1000, ocorpPolicy) }
func BenchmarkSlotOCORP10000x1000(b *testing.B)  { benchmarkSlot(b, 10000, 1000, ocorpPolicy) }
func BenchmarkSlotOCORPM1000x100(b *testing.B)   { benchmarkSlot(b, 1000, 100, ocorpM) }
func BenchmarkSlotOCORPM10000x100(b *testing.B)  { benchmarkSlot(b, 10000, 100, ocorpM) }
func BenchmarkSlotOCORPM1000x1000(b *testing.B)  { benchmarkSlot(b, 1000, 1000, ocorpM) }
func BenchmarkSlotOCORPM10000x1000(b *testing.B) { benchmarkSlot(b, 10000, 1000, ocorpM) }
func BenchmarkSlotSVF1000x100(b *testing.B)      { benchmarkSlot(b, 1000, 100, svf) }
func BenchmarkSlotSVF10000x1000(b *testing.B)    { benchmarkSlot(b, 10000, 1000, svf) }

// OCORP+ solves a dense QP over its candidate jobs (thousands here: every
// job has a negative cost after one dual step) and all machines; the large
// slots take seconds and are skipped with -short.
func BenchmarkSlotOCORPPlus1000x100(b *testing.B) { benchmarkSlot(b, 1000, 100, ocorpPlus) }
func BenchmarkSlotOCORPPlus10000x100(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	benchmarkSlot(b, 10000, 100, ocorpPlus)
}
func BenchmarkSlotOCORPPlus1000x1000(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	benchmarkSlot(b, 1000, 1000, ocorpPlus)
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
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := runOne(jobs, ms, mk(ms), ocorp.RunSettings{NoSeries: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRun6500OCORP(b *testing.B)  { benchmarkRun(b, ocorpPolicy, true) }
func BenchmarkRun6500OCORPM(b *testing.B) { benchmarkRun(b, ocorpM, false) }
func BenchmarkRun6500SVF(b *testing.B)    { benchmarkRun(b, svf, true) }
func BenchmarkRun6500OCORPPlus(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	benchmarkRun(b, ocorpPlus, true)
}

// runOne runs one policy through ocorp.Run and returns its series.
func runOne(jobs []ocorp.Job, ms []ocorp.Machine, p ocorp.OnlinePolicy, s ocorp.RunSettings) (*ocorp.Series, error) {
	res, err := ocorp.Run(&ocorp.Instance{Jobs: jobs, Machines: ms}, []ocorp.OnlinePolicy{p}, s)
	if res == nil {
		return nil, err
	}
	return &res.Series[0], err
}
