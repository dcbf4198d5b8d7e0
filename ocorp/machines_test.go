package ocorp

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type elastic interface {
	statefulPolicy
	AddMachine(Machine) error
	RemoveMachine(int) error
	Machines() []Machine
}

// TestChangingCluster: machines join and leave mid-run; every decision is
// feasible for the machines of its slot (world.step checks it), lambda of
// the live jobs is carried over, and bad operations leave the policy
// unchanged.
func TestChangingCluster(t *testing.T) {
	for name, mk := range statefulCtors() {
		t.Run(name, func(t *testing.T) {
			sp, err := mk(snapMachines)
			require.NoError(t, err)
			p := sp.(elastic)
			w := newWorld(11, snapMachines)
			ops := []func() (int, error){ // returns the machine index touched
				func() (int, error) { return 1, p.RemoveMachine(1) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 16, Memory: 32}) },
				func() (int, error) { return 0, p.RemoveMachine(0) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 2, Memory: 16}) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 3, Memory: 4}) },
				func() (int, error) { return 2, p.RemoveMachine(2) },
			}
			for _, op := range ops {
				for range 6 {
					w.step(t, p)
				}
				lambdas := map[int]float64{}
				for _, a := range w.live {
					lambdas[a.ID] = lambdaOf(p, a.ID)
				}
				i, err := op()
				require.NoError(t, err)
				if i >= 0 {
					w.ms = slices.Delete(w.ms, i, i+1)
				} else {
					w.ms = p.Machines()
				}
				require.Equal(t, w.ms, p.Machines())
				for id, l := range lambdas {
					require.Equal(t, l, lambdaOf(p, id), "lambda of job %d carried over", id)
				}
				// Drop live jobs that no longer fit (the documented rule).
				mm := maxMemory(w.ms)
				w.live = slices.DeleteFunc(w.live, func(a ActiveJob) bool { return a.Memory > mm })
			}
			for range 6 {
				w.step(t, p)
			}
			before, _ := p.MarshalBinary()
			assert.ErrorIs(t, p.RemoveMachine(-1), ErrMachine)
			assert.ErrorIs(t, p.RemoveMachine(len(w.ms)), ErrMachine)
			assert.ErrorIs(t, p.AddMachine(Machine{Cores: 0}), ErrValue)
			after, _ := p.MarshalBinary()
			assert.Equal(t, before, after)
			one, _ := mk([]Machine{{Cores: 1, Memory: 1}})
			assert.ErrorIs(t, one.(elastic).RemoveMachine(0), ErrMachine, "the last machine")
		})
	}
}

func lambdaOf(p OnlinePolicy, id int) float64 {
	switch q := p.(type) {
	case *Policy:
		return q.Lambda(id)
	case *M:
		return q.Lambda(id)
	case *Plus:
		return q.Lambda(id)
	}
	return 0
}

// TestMillionJobs runs 10^6 short jobs (1-2 slots, IDs spread over 2^40)
// through every job-based policy of the package from a caller's loop and
// reports the live heap after GC at each quarter: it stays flat, as the
// policies release a job's state when it leaves the observation.
func TestMillionJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 jobs per policy")
	}
	const n = 1_000_000
	ms := []Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 6, Memory: 12}}
	for _, name := range []string{"OCORP", "OCORP-fill", "OCORP+M", "OCORP+a10", "Transient"} {
		p, err := statefulCtors()[name](ms)
		require.NoError(t, err)
		rng := rand.New(rand.NewPCG(5, 6))
		var live []ActiveJob
		var heap []uint64
		next, slot := 0, 0
		for mark := n / 4; next < n; slot++ {
			for range 4 {
				j := Job{Arrival: slot, Cores: 1 + rng.IntN(4), Memory: rng.IntN(4), Processing: 1 + rng.IntN(2)}
				live = append(live, ActiveJob{ID: next << 20, Job: j, Remaining: j.Volume()})
				next++
			}
			d, err := p.Decide(slot, Obs{Jobs: live})
			require.NoError(t, err)
			for _, pl := range d.Placements {
				if k := slices.IndexFunc(live, func(a ActiveJob) bool { return a.ID == pl.Job }); pl.Admit && k >= 0 {
					live[k].Remaining -= min(live[k].Remaining, int64(pl.Cores))
				}
			}
			live = slices.DeleteFunc(live, func(a ActiveJob) bool { return a.Remaining == 0 })
			if next >= mark {
				var m runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&m)
				heap = append(heap, m.HeapAlloc)
				mark += n / 4
			}
		}
		t.Logf("%s: %d jobs in %d slots, %d live at the end (state held: %d), live heap after GC at quarters: %v bytes", name, next, slot, len(live), liveState(p), heap)
		assert.Less(t, float64(heap[len(heap)-1]), 1.5*float64(heap[0])+1<<20, "%s: live heap grows", name)
	}
}

func liveState(p OnlinePolicy) int {
	if l, ok := p.(interface{ Live() int }); ok {
		return l.Live()
	}
	return 0
}
