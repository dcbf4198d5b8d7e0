package baselines

import (
	"encoding"
	"encoding/json"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ocorp"
)

// ocorpBaseline is what an embedding scheduler uses of an OCORP-family
// baseline: decide, save and restore, follow the cluster.
type ocorpBaseline interface {
	ocorp.OnlinePolicy
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	json.Marshaler
	json.Unmarshaler
	AddMachine(ocorp.Machine) error
	RemoveMachine(int) error
	Machines() []ocorp.Machine
}

func ocorpBaselineCtors() map[string]func([]ocorp.Machine) (ocorpBaseline, error) {
	return map[string]func([]ocorp.Machine) (ocorpBaseline, error){
		"SRPT":   func(ms []ocorp.Machine) (ocorpBaseline, error) { return NewSRPT(ms) },
		"SRVF":   func(ms []ocorp.Machine) (ocorpBaseline, error) { return NewSRVF(ms) },
		"SVF":    func(ms []ocorp.Machine) (ocorpBaseline, error) { return NewSVF(ms) },
		"SRF":    func(ms []ocorp.Machine) (ocorpBaseline, error) { return NewSRF(ms) },
		"Tetris": func(ms []ocorp.Machine) (ocorpBaseline, error) { return NewTetris(ms) },
		"SRPT-ff": func(ms []ocorp.Machine) (ocorpBaseline, error) {
			return NewFirstFit(ms, FirstFitSettings{Order: OrderSRPT})
		},
		"SRF-ff": func(ms []ocorp.Machine) (ocorpBaseline, error) {
			return NewFirstFit(ms, FirstFitSettings{Order: OrderSRF})
		},
	}
}

// ocorpWorld is a caller's loop: own arrivals, IDs spread over 2^40, each
// decision checked against the machines of its slot.
type ocorpWorld struct {
	rng  *rand.Rand
	ms   []ocorp.Machine
	live []ocorp.ActiveJob
	next int
	t    int
}

func (w *ocorpWorld) step(t testing.TB, p ocorp.OnlinePolicy, arrivals int, maxProc int) []ocorp.Placement {
	t.Helper()
	maxMem := 0
	for _, m := range w.ms {
		maxMem = max(maxMem, m.Memory)
	}
	for range arrivals {
		j := ocorp.Job{Arrival: w.t, Cores: 1 + w.rng.IntN(6), Processing: 1 + w.rng.IntN(maxProc)}
		j.Memory = w.rng.IntN(maxMem + 1)
		w.live = append(w.live, ocorp.ActiveJob{ID: w.next << 20, Job: j, Remaining: j.Volume()})
		w.next++
	}
	obs := ocorp.Obs{Jobs: w.live}
	d, err := p.Decide(w.t, obs)
	require.NoError(t, err, "%s slot %d", p.Name(), w.t)
	chk, err := ocorp.NewChecker(w.ms)
	require.NoError(t, err)
	require.NoError(t, chk.Check(obs, d), "%s slot %d", p.Name(), w.t)
	work := map[int]int64{}
	for _, pl := range d.Placements {
		if pl.Admit {
			work[pl.Job] += int64(pl.Cores)
		}
	}
	w.live = slices.DeleteFunc(w.live, func(a ocorp.ActiveJob) bool { return a.Remaining <= work[a.ID] })
	for k := range w.live {
		w.live[k].Remaining -= work[w.live[k].ID]
	}
	w.t++
	return slices.Clone(d.Placements)
}

var embedMachines = []ocorp.Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 6, Memory: 12}}

// TestOCORPBaselinesSnapshot: snapshot after N slots, restore into a fresh
// baseline, M more slots: decisions identical to an uninterrupted run;
// slot order survives the restore; bad snapshots wrap ocorp.ErrSnapshot.
func TestOCORPBaselinesSnapshot(t *testing.T) {
	for name, mk := range ocorpBaselineCtors() {
		t.Run(name, func(t *testing.T) {
			ref, err := mk(embedMachines)
			require.NoError(t, err)
			wr := &ocorpWorld{rng: rand.New(rand.NewPCG(1, 2)), ms: embedMachines}
			var want [][]ocorp.Placement
			for range 30 {
				want = append(want, wr.step(t, ref, 3, 5))
			}
			first, _ := mk(embedMachines)
			w := &ocorpWorld{rng: rand.New(rand.NewPCG(1, 2)), ms: embedMachines}
			for s := range 15 {
				require.Equal(t, want[s], w.step(t, first, 3, 5))
			}
			data, err := first.MarshalBinary()
			require.NoError(t, err)
			js, _ := json.Marshal(first)
			require.JSONEq(t, string(data), string(js))
			second, _ := mk(embedMachines)
			require.NoError(t, second.UnmarshalBinary(data))
			_, err = second.Decide(w.t-1, ocorp.Obs{})
			require.ErrorIs(t, err, ocorp.ErrSlot, "the restored policy knows the last slot")
			for s := 15; s < 30; s++ {
				require.Equal(t, want[s], w.step(t, second, 3, 5))
			}

			other, _ := mk(embedMachines[:2])
			err = other.UnmarshalBinary(data)
			require.ErrorIs(t, err, ocorp.ErrSnapshot)
			require.ErrorIs(t, err, snapshot.ErrModel)
			for i := range len(data) {
				require.ErrorIs(t, other.UnmarshalBinary(data[:i]), ocorp.ErrSnapshot)
			}
			_, err = other.Decide(0, ocorp.Obs{})
			require.NoError(t, err, "unchanged after failed restores")
		})
	}
}

// TestOCORPBaselinesChangingCluster: machines join and leave; every
// decision is feasible for the machines of its slot.
func TestOCORPBaselinesChangingCluster(t *testing.T) {
	for name, mk := range ocorpBaselineCtors() {
		t.Run(name, func(t *testing.T) {
			p, err := mk(embedMachines)
			require.NoError(t, err)
			w := &ocorpWorld{rng: rand.New(rand.NewPCG(3, 4)), ms: embedMachines}
			for k, op := range []func() error{
				func() error { return p.RemoveMachine(0) },
				func() error { return p.AddMachine(ocorp.Machine{Cores: 16, Memory: 32}) },
				func() error { return p.RemoveMachine(2) },
				func() error { return p.AddMachine(ocorp.Machine{Cores: 1, Memory: 40}) },
			} {
				for range 5 {
					w.step(t, p, 3, 4)
				}
				require.NoError(t, op(), "op %d", k)
				w.ms = p.Machines()
				mm := 0
				for _, m := range w.ms {
					mm = max(mm, m.Memory)
				}
				w.live = slices.DeleteFunc(w.live, func(a ocorp.ActiveJob) bool { return a.Memory > mm })
			}
			for range 5 {
				w.step(t, p, 3, 4)
			}
			assert.ErrorIs(t, p.RemoveMachine(99), ocorp.ErrMachine)
			assert.ErrorIs(t, p.AddMachine(ocorp.Machine{}), ocorp.ErrValue)
		})
	}
}

// FuzzTetrisRestore: any bytes give nil or an error wrapping
// ocorp.ErrSnapshot, never a panic.
func FuzzTetrisRestore(f *testing.F) {
	p, _ := NewTetris(embedMachines)
	b, _ := p.MarshalBinary()
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		p, _ := NewTetris(embedMachines)
		if err := p.UnmarshalBinary(data); err != nil {
			require.ErrorIs(t, err, ocorp.ErrSnapshot)
		}
	})
}

// TestOCORPBaselinesMillionJobs runs 10^6 one- and two-slot jobs through
// every OCORP-family baseline and reports the live heap after GC: it stays
// flat (the baselines keep no per-job state across slots).
func TestOCORPBaselinesMillionJobs(t *testing.T) {
	if testing.Short() {
		t.Skip("10^6 jobs per policy")
	}
	const n = 1_000_000
	for name, mk := range ocorpBaselineCtors() {
		p, _ := mk(embedMachines)
		w := &ocorpWorld{rng: rand.New(rand.NewPCG(5, 6)), ms: embedMachines}
		var heap []uint64
		for mark := n / 4; w.next < n; {
			w.stepFast(t, p)
			if w.next >= mark {
				heap = append(heap, liveHeap())
				mark += n / 4
			}
		}
		t.Logf("%s: %d jobs in %d slots, %d live at the end, live heap after GC at quarters: %v bytes", name, w.next, w.t, len(w.live), heap)
		assert.Less(t, float64(heap[len(heap)-1]), 1.5*float64(heap[0])+1<<20, "%s: live heap grows", name)
	}
}

// stepFast is step without the per-slot Checker and map (same rules).
func (w *ocorpWorld) stepFast(t testing.TB, p ocorp.OnlinePolicy) {
	for range 4 {
		j := ocorp.Job{Arrival: w.t, Cores: 1 + w.rng.IntN(4), Memory: w.rng.IntN(4), Processing: 1 + w.rng.IntN(2)}
		w.live = append(w.live, ocorp.ActiveJob{ID: w.next << 20, Job: j, Remaining: j.Volume()})
		w.next++
	}
	d, err := p.Decide(w.t, ocorp.Obs{Jobs: w.live})
	if err != nil {
		t.Fatal(err)
	}
	for _, pl := range d.Placements {
		if !pl.Admit {
			continue
		}
		for k := range w.live {
			if w.live[k].ID == pl.Job {
				w.live[k].Remaining -= min(w.live[k].Remaining, int64(pl.Cores))
				break
			}
		}
	}
	w.live = slices.DeleteFunc(w.live, func(a ocorp.ActiveJob) bool { return a.Remaining == 0 })
	w.t++
}

func liveHeap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
