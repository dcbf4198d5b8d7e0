package ocorp

import (
	"encoding"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
)

// world is a caller's own loop: jobs arrive at random (IDs spread over
// 2^40), each slot the policy decides, the decision is checked against
// the current machines and the admitted cores do work.
type world struct {
	rng  *rand.Rand
	ms   []Machine
	live []ActiveJob
	next int
	t    int
}

func newWorld(seed uint64, ms []Machine) *world {
	return &world{rng: rand.New(rand.NewPCG(seed, 7)), ms: slices.Clone(ms)}
}

// step runs one slot of p and returns a copy of its decision.
func (w *world) step(t testing.TB, p OnlinePolicy) []Placement {
	t.Helper()
	maxMem := maxMemory(w.ms)
	for range w.rng.IntN(4) {
		j := Job{Arrival: w.t, Cores: 1 + w.rng.IntN(6), Processing: 1 + w.rng.IntN(5)}
		j.Memory = w.rng.IntN(maxMem + 1)
		w.live = append(w.live, ActiveJob{ID: w.next<<20 - 5, Job: j, Remaining: j.Volume()})
		w.next++
	}
	obs := Obs{Jobs: w.live}
	d, err := p.Decide(w.t, obs)
	require.NoError(t, err, "%s slot %d", p.Name(), w.t)
	chk, err := NewChecker(w.ms)
	require.NoError(t, err)
	require.NoError(t, chk.Check(obs, d), "%s slot %d on %d machines", p.Name(), w.t, len(w.ms))
	out := slices.Clone(d.Placements)
	work := map[int]int64{}
	for _, pl := range d.Placements {
		if pl.Admit {
			work[pl.Job] += int64(pl.Cores)
		}
	}
	k := 0
	for _, a := range w.live {
		a.Remaining -= min(a.Remaining, work[a.ID])
		if a.Remaining > 0 {
			w.live[k] = a
			k++
		}
	}
	w.live = w.live[:k]
	w.t += 1 + w.rng.IntN(2) // gaps allowed
	return out
}

type statefulPolicy interface {
	OnlinePolicy
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
	json.Marshaler
	json.Unmarshaler
}

var snapMachines = []Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 6, Memory: 12}}

// statefulCtors builds every stateful policy of the package on ms.
func statefulCtors() map[string]func(ms []Machine) (statefulPolicy, error) {
	return map[string]func(ms []Machine) (statefulPolicy, error){
		"OCORP":      func(ms []Machine) (statefulPolicy, error) { return New(ms, Settings{}) },
		"OCORP-fill": func(ms []Machine) (statefulPolicy, error) { return New(ms, Settings{Fill: true}) },
		"OCORP+M":    func(ms []Machine) (statefulPolicy, error) { return NewM(ms, Settings{Fill: true}) },
		"OCORP+a10": func(ms []Machine) (statefulPolicy, error) {
			return NewPlus(ms, PlusSettings{Alpha: 10, Normalize: true, Base: Settings{Fill: true}})
		},
		"OCORP+a0":  func(ms []Machine) (statefulPolicy, error) { return NewPlus(ms, PlusSettings{}) },
		"Transient": func(ms []Machine) (statefulPolicy, error) { return NewTransient(ms, PrioritySettings{}) },
	}
}

// TestSnapshotContinuation: N slots, snapshot, restore into a fresh policy
// built on the same machines, M more slots: the decisions are
// bit-identical to an uninterrupted run.
func TestSnapshotContinuation(t *testing.T) {
	const n, m = 25, 25
	for name, mk := range statefulCtors() {
		t.Run(name, func(t *testing.T) {
			ref, err := mk(snapMachines)
			require.NoError(t, err)
			wr := newWorld(3, snapMachines)
			var want [][]Placement
			for range n + m {
				want = append(want, wr.step(t, ref))
			}

			first, _ := mk(snapMachines)
			w := newWorld(3, snapMachines)
			for s := range n {
				require.Equal(t, want[s], w.step(t, first))
			}
			data, err := first.MarshalBinary()
			require.NoError(t, err)
			js, err := json.Marshal(first)
			require.NoError(t, err)
			require.JSONEq(t, string(data), string(js), "MarshalJSON gives the same object")

			second, _ := mk(snapMachines)
			require.NoError(t, second.UnmarshalBinary(data))
			again, err := second.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, data, again, "restore then save is the identity")
			for s := n; s < n+m; s++ {
				require.Equal(t, want[s], w.step(t, second), "slot %d after restore", s)
			}
		})
	}
}

// TestSnapshotRejects: another model, truncated or altered bytes give an
// error wrapping ErrSnapshot and leave the policy unchanged.
func TestSnapshotRejects(t *testing.T) {
	for name, mk := range statefulCtors() {
		t.Run(name, func(t *testing.T) {
			p, _ := mk(snapMachines)
			w := newWorld(5, snapMachines)
			for range 10 {
				w.step(t, p)
			}
			data, err := p.MarshalBinary()
			require.NoError(t, err)

			other, _ := mk(append(slices.Clone(snapMachines), Machine{Cores: 2, Memory: 2}))
			before, _ := other.MarshalBinary()
			err = other.UnmarshalBinary(data)
			require.ErrorIs(t, err, ErrSnapshot)
			require.ErrorIs(t, err, snapshot.ErrModel)
			after, _ := other.MarshalBinary()
			require.Equal(t, before, after, "unchanged after a failed restore")

			fresh, _ := mk(snapMachines)
			before, _ = fresh.MarshalBinary()
			for i := 0; i < len(data); i += max(1, len(data)/40) {
				require.ErrorIs(t, fresh.UnmarshalBinary(data[:i]), ErrSnapshot, "prefix %d", i)
			}
			for _, alt := range altered(data) {
				if err := fresh.UnmarshalBinary(alt); err != nil {
					require.ErrorIs(t, err, ErrSnapshot, "%s", alt)
					after, _ := fresh.MarshalBinary()
					require.Equal(t, before, after, "unchanged after %s", alt)
				} else {
					fresh, _ = mk(snapMachines) // a harmless alteration: start afresh
				}
			}
		})
	}
}

// altered returns variants of a snapshot with one field made invalid.
func altered(data []byte) [][]byte {
	var env map[string]any
	if json.Unmarshal(data, &env) != nil {
		return nil
	}
	var out [][]byte
	mod := func(f func(st map[string]any)) {
		var e map[string]any
		_ = json.Unmarshal(data, &e)
		st, _ := e["state"].(map[string]any)
		if st == nil {
			return
		}
		f(st)
		b, _ := json.Marshal(e)
		out = append(out, b)
	}
	mod(func(st map[string]any) { st["last"] = -7 })
	mod(func(st map[string]any) { st["gmax"] = -1 })
	mod(func(st map[string]any) { st["unknown"] = 1 })
	mod(func(st map[string]any) { st["nu"] = []any{1} })
	mod(func(st map[string]any) {
		if jobs, _ := st["jobs"].([]any); len(jobs) > 0 {
			st["jobs"] = append(jobs, jobs[0]) // duplicate id
		}
	})
	mod(func(st map[string]any) {
		if jobs, _ := st["jobs"].([]any); len(jobs) > 0 {
			jobs[0].(map[string]any)["lambda"] = -3
		}
	})
	mod(func(st map[string]any) {
		if jobs, _ := st["jobs"].([]any); len(jobs) > 0 {
			jobs[0].(map[string]any)["machines"] = []any{99}
			jobs[0].(map[string]any)["rates"] = []any{0.5}
			jobs[0].(map[string]any)["prev"] = true
		}
	})
	out = append(out, []byte(`{"format":"msched/ocorp.Policy","version":2}`), []byte(`null`), []byte(`{}`))
	return out
}

// FuzzSnapshotRestore: any bytes restored into any stateful policy give
// nil or an error wrapping ErrSnapshot, never a panic, and a policy that
// accepted them still decides feasibly.
func FuzzSnapshotRestore(f *testing.F) {
	for _, mk := range statefulCtors() {
		p, _ := mk(snapMachines)
		w := newWorld(9, snapMachines)
		for range 6 {
			w.step(f, p)
		}
		b, _ := p.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, mk := range statefulCtors() {
			p, _ := mk(snapMachines)
			if err := p.UnmarshalBinary(data); err != nil {
				require.ErrorIs(t, err, ErrSnapshot)
				continue
			}
			w := newWorld(1, snapMachines)
			w.t = 1 << 20 // after any restored slot the fuzzer may reach quickly
			if last, ok := lastSlot(p); ok && last >= w.t {
				continue
			}
			for range 3 {
				w.step(t, p)
			}
		}
	})
}

func lastSlot(p OnlinePolicy) (int, bool) {
	switch q := p.(type) {
	case *Policy:
		return q.c.d.last, true
	case *M:
		return q.c.d.last, true
	case *Plus:
		return q.d.last, true
	case *Priority:
		return q.last, true
	}
	return 0, false
}

// TestSnapshotAfterMaxIntSlot: issue 30. After Decide(math.MaxInt) OCORP,
// OCORP+M and OCORP+ refused their own snapshot (decisions > last+1
// overflowed at last = MaxInt). Each policy restores what it saved, with
// and without jobs, and a fresh twin decides like it afterwards.
func TestSnapshotAfterMaxIntSlot(t *testing.T) {
	for name, mk := range statefulCtors() {
		for _, jobs := range []int{0, 2} {
			p, err := mk(snapMachines)
			require.NoError(t, err)
			var obs Obs
			for k := range jobs {
				obs.Jobs = append(obs.Jobs, ActiveJob{ID: k, Job: Job{Cores: 2, Processing: 3, Memory: 1}, Remaining: 6})
			}
			for _, slot := range []int{math.MaxInt - 1, math.MaxInt} {
				_, err = p.Decide(slot, obs)
				require.NoError(t, err, name)
			}
			data, err := p.MarshalBinary()
			require.NoError(t, err, name)
			q, _ := mk(snapMachines)
			require.NoError(t, q.UnmarshalBinary(data), "%s with %d jobs: its own snapshot after Decide(MaxInt)", name, jobs)
			again, err := q.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, data, again, name)
		}
	}
}
