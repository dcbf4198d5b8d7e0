package baselines

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// osmSnap is a baseline with its snapshot methods.
type osmSnap interface {
	onsocmax.OnlinePolicy
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	MarshalJSON() ([]byte, error)
}

func osmSnaps(t testing.TB, m *bipartite.Mesh) []osmSnap {
	t.Helper()
	var out []osmSnap
	for _, p := range osmBaselines(t, m) {
		out = append(out, p.(osmSnap))
	}
	return out
}

// osmRollJobs draws the arrivals of slot s from (seed, s): a few jobs
// on random nodes with deadlines up to W+1 slots ahead, in the window
// numbering node*W + slot%W.
func osmRollJobs(seed uint64, s, nodes, w int) []onsocmax.Job {
	rng := rand.New(rand.NewPCG(seed, uint64(s)))
	var jobs []onsocmax.Job
	for q := range rng.IntN(4) {
		j := onsocmax.Job{ID: s*8 + q, Arrival: s, Deadline: s + rng.IntN(w+2), Rho: 1 + 8*rng.Float64()}
		for i := range nodes {
			if rng.IntN(2) == 0 {
				continue
			}
			for t := s; t <= min(j.Deadline, s+w-1); t++ {
				j.Units = append(j.Units, i*w+t%w)
				j.XBar = append(j.XBar, 1+3*rng.Float64())
				j.Beta = append(j.Beta, 0.1+0.4*rng.Float64())
				j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 1 + 2*rng.Float64()})
			}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

func osmDecBits(d onsocmax.Decision) []string {
	out := make([]string, len(d.Allocations))
	for i, a := range d.Allocations {
		out[i] = fmt.Sprintf("%d/%d/%d/%d/%x", a.Job, a.Unit, a.Node, a.Slot, math.Float64bits(a.X))
	}
	return out
}

// TestOnSocMaxBaselinesSnapshot: N slots (with gaps, beyond the mesh's
// horizon), snapshot, restore into a baseline freshly built on the same
// mesh, M more slots: bit-identical decisions. Another mesh, truncated or
// altered bytes are errors wrapping onsocmax.ErrSnapshot and leave the
// baseline unchanged.
func TestOnSocMaxBaselinesSnapshot(t *testing.T) {
	m, err := bipartite.NewMesh(3, 4, []float64{4, 4, 4, 0, 6, 2, 6, 6, 1, 9, 9, 9})
	require.NoError(t, err)
	slots := make([]int, 80)
	for k := 1; k < len(slots); k++ {
		slots[k] = slots[k-1] + 1 + k%3/2*2
	}
	for q := range 2 {
		a := osmSnaps(t, m)[q]
		for _, s := range slots[:40] {
			_, err := a.Decide(s, osmRollJobs(1, s, 3, 4))
			require.NoError(t, err)
		}
		data, err := a.MarshalBinary()
		require.NoError(t, err)
		js, err := a.MarshalJSON()
		require.NoError(t, err)
		require.Equal(t, data, js)
		b := osmSnaps(t, m)[q]
		require.NoError(t, b.UnmarshalBinary(data))
		for _, s := range slots[40:] {
			jobs := osmRollJobs(1, s, 3, 4)
			da, err := a.Decide(s, jobs)
			require.NoError(t, err)
			wa := osmDecBits(da)
			db, err := b.Decide(s, jobs)
			require.NoError(t, err)
			require.Equal(t, wa, osmDecBits(db), "%s slot %d", a.Name(), s)
		}

		other, err := bipartite.NewMesh(3, 4, make([]float64, 12))
		require.NoError(t, err)
		c := osmSnaps(t, other)[q]
		require.ErrorIs(t, c.UnmarshalBinary(data), onsocmax.ErrSnapshot)
		require.ErrorIs(t, c.UnmarshalBinary(data), snapshot.ErrModel)
		if q == 0 {
			require.ErrorIs(t, osmSnaps(t, m)[1].UnmarshalBinary(data), snapshot.ErrFormat)
		}
		before, err := b.MarshalBinary()
		require.NoError(t, err)
		s := string(data)
		bad := []string{s[:len(s)/2], s + "x",
			strings.Replace(s, `"rem":`, `"rem":-`, 1),
			strings.Replace(s, `"last":`, `"last":-`, 1),
			strings.Replace(s, `"units":[`, `"units":[99,`, 1),
			strings.Replace(s, `"rho":`, `"rho":-`, 1),
		}
		for k, v := range bad {
			require.ErrorIs(t, b.UnmarshalBinary([]byte(v)), onsocmax.ErrSnapshot, "case %d", k)
			after, err := b.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, before, after, "case %d changed the baseline", k)
		}
	}
}

// FuzzOnSocMaxBaselineSnapshot restores arbitrary bytes into MAX-FIRST
// and EQUAL-SHARE: never a panic; an error wraps onsocmax.ErrSnapshot and
// leaves the baseline unchanged; an accepted state keeps deciding.
func FuzzOnSocMaxBaselineSnapshot(f *testing.F) {
	m, err := bipartite.NewMesh(2, 3, []float64{4, 4, 0, 5, 5, 5})
	require.NoError(f, err)
	for q := range 2 {
		p := osmSnaps(f, m)[q]
		for _, s := range []int{0, 1, 3} {
			_, err := p.Decide(s, osmRollJobs(2, s, 2, 3))
			require.NoError(f, err)
		}
		data, err := p.MarshalBinary()
		require.NoError(f, err)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, p := range osmSnaps(t, m) {
			_, err := p.Decide(0, osmRollJobs(3, 0, 2, 3))
			require.NoError(t, err)
			before, err := p.MarshalBinary()
			require.NoError(t, err)
			if err := p.UnmarshalBinary(b); err != nil {
				require.ErrorIs(t, err, onsocmax.ErrSnapshot)
				after, _ := p.MarshalBinary()
				require.Equal(t, before, after)
				continue
			}
			again, err := p.MarshalBinary()
			require.NoError(t, err)
			var env struct{ State slotState }
			require.NoError(t, json.Unmarshal(again, &env))
			if env.State.Last < math.MaxInt/2 {
				_, err = p.Decide(env.State.Last+1, nil)
				require.NoError(t, err)
			}
		}
	})
}

// TestOnSocMaxBaselinesMemoryFlat runs 10^6 short jobs (2*10^4 with
// -short) through MAX-FIRST and EQUAL-SHARE on a rolling mesh and reports
// the live heap after a GC at a tenth of the run and at its end: finished
// jobs are released, so the two agree within 64 KiB.
func TestOnSocMaxBaselinesMemoryFlat(t *testing.T) {
	jobs := 1_000_000
	if testing.Short() {
		jobs = 20_000
	}
	m, err := bipartite.NewMesh(4, 24, func() []float64 {
		c := make([]float64, 96)
		for r := range c {
			c[r] = 5
		}
		return c
	}())
	require.NoError(t, err)
	heap := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	u := utility.Utility{Kind: utility.Linear, A: 2}
	for _, p := range osmBaselines(t, m) {
		rng := rand.New(rand.NewPCG(4, 4))
		batch := make([]onsocmax.Job, 4)
		var early uint64
		id := 0
		for s := 0; id < jobs; s++ {
			for q := range batch {
				node := rng.IntN(4)
				// Fresh slices per job: the baselines retain them until the
				// job leaves.
				batch[q] = onsocmax.Job{ID: id, Arrival: s, Deadline: s + 1, Rho: 1 + 2*rng.Float64(),
					Units: []int{node*24 + s%24, node*24 + (s+1)%24}, XBar: []float64{2, 2},
					Beta: []float64{0.1, 0.1}, Utility: []utility.Utility{u, u}}
				id++
			}
			_, err := p.Decide(s, batch)
			require.NoError(t, err)
			if id == jobs/10 {
				early = heap()
			}
		}
		end := heap()
		t.Logf("%s, %d jobs: live heap %d B after %d jobs, %d B at the end", p.Name(), jobs, early, jobs/10, end)
		require.Less(t, int64(end)-int64(early), int64(64<<10))
	}
}
