package baselines_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// onsocmaxChanger is what the OnSocMax family offers for a cluster change.
type onsocmaxChanger interface {
	onsocmax.OnlinePolicy
	ChangeCluster(*bipartite.Mesh, onsocmax.Mapping) error
}

// TestOnSocMaxFamilyRenumbers checks the renumbering against an
// independent run: jobs use nodes 1..3 of a 4-node mesh only; after
// ChangeCluster drops node 0 (unused, so nothing is lost), a policy that
// ran on the 4-node mesh must decide exactly as one that ran from the
// start on the 3-node mesh with the jobs renumbered (node i -> i-1):
// same jobs, workloads and slots, bit for bit, the units and nodes one
// lower. It fails if usage, reservations or active jobs are not re-laid
// under the new indices.
func TestOnSocMaxFamilyRenumbers(t *testing.T) {
	const w = 5
	c := make([]float64, 4*w)
	for r := range c {
		c[r] = 5 + float64(r%3)
	}
	before, err := bipartite.NewMesh(4, w, c)
	require.NoError(t, err)
	after, m, err := onsocmax.RemoveNode(before, 0)
	require.NoError(t, err)
	// jobs(s, shift) draws the same jobs in either numbering.
	jobs := func(s, shift int) []onsocmax.Job {
		r := rand.New(rand.NewPCG(uint64(s), 9))
		var out []onsocmax.Job
		for k := range 1 + r.IntN(3) {
			dl := s + 2 + r.IntN(w)
			j := onsocmax.Job{ID: 10*s + k, Arrival: s, Deadline: dl, Rho: 10 + 20*r.Float64()}
			for node := 1; node <= 3; node++ {
				for q := s; q <= min(dl, s+w-1); q++ {
					j.Units = append(j.Units, (node-shift)*w+q%w)
					j.XBar = append(j.XBar, 0.5+r.Float64())
					j.Beta = append(j.Beta, 0.1+0.4*r.Float64())
					j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 1 + 2*r.Float64()})
				}
			}
			out = append(out, j)
		}
		return out
	}
	mk := map[string]func(*bipartite.Mesh) (onsocmaxChanger, error){
		"OnSocMax": func(m *bipartite.Mesh) (onsocmaxChanger, error) { return onsocmax.New(m, onsocmax.Settings{}) },
		"MAX-FIRST": func(m *bipartite.Mesh) (onsocmaxChanger, error) {
			return baselines.NewMaxFirst(m, baselines.MaxFirstSettings{})
		},
		"EQUAL-SHARE": func(m *bipartite.Mesh) (onsocmaxChanger, error) {
			return baselines.NewEqualShare(m, baselines.EqualShareSettings{})
		},
	}
	for name, f := range mk {
		a, err := f(before)
		require.NoError(t, err)
		b, err := f(after)
		require.NoError(t, err)
		allocated := 0
		for s := range 12 {
			if s == 4 {
				require.NoError(t, a.ChangeCluster(after, m), name)
			}
			shift := 0
			if s >= 4 {
				shift = 1
			}
			da, err := a.Decide(s, jobs(s, shift))
			require.NoError(t, err, name)
			ga := append([]onsocmax.Allocation(nil), da.Allocations...)
			oa := append([]onsocmax.Outcome(nil), da.Outcomes...)
			db, err := b.Decide(s, jobs(s, 1))
			require.NoError(t, err, name)
			require.Len(t, ga, len(db.Allocations), "%s slot %d", name, s)
			for k, x := range ga {
				y := db.Allocations[k]
				x.Node -= 1 - shift // a's numbering before the change is one higher
				x.Unit -= (1 - shift) * w
				require.Equal(t, y.Job, x.Job, "%s slot %d", name, s)
				require.Equal(t, y.Node, x.Node, "%s slot %d", name, s)
				require.Equal(t, y.Unit, x.Unit, "%s slot %d", name, s)
				require.Equal(t, y.Slot, x.Slot, "%s slot %d", name, s)
				require.Equal(t, math.Float64bits(y.X), math.Float64bits(x.X), "%s slot %d", name, s)
			}
			require.Equal(t, db.Outcomes, oa, "%s slot %d", name, s)
			if s > 4 {
				allocated += len(ga)
			}
		}
		require.Positive(t, allocated, "%s: the test needs allocations after the change", name)
	}
}
