package baselines

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

type osmBaseline = onsocmax.OnlinePolicy

// osmBaselines builds MAX-FIRST and EQUAL-SHARE on m.
func osmBaselines(t testing.TB, m *bipartite.Mesh) []osmBaseline {
	t.Helper()
	mf, err := NewMaxFirst(m)
	require.NoError(t, err)
	es, err := NewEqualShare(m)
	require.NoError(t, err)
	return []osmBaseline{mf, es}
}

// osmRun runs one baseline through onsocmax.Run.
func osmRun(in *onsocmax.Instance, p osmBaseline) (*onsocmax.Series, error) {
	res, err := onsocmax.Run(in, []onsocmax.OnlinePolicy{p}, onsocmax.RunSettings{})
	if err != nil {
		return nil, err
	}
	return &res.Series[0], nil
}

func osmJob(id, arrival int, units []int, rho float64) onsocmax.Job {
	j := onsocmax.Job{ID: id, Arrival: arrival, Deadline: arrival + 1, Rho: rho, Units: units}
	for range units {
		j.XBar = append(j.XBar, rho)
		j.Beta = append(j.Beta, 0.1)
		j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 2})
	}
	return j
}

// TestOnSocMaxBaselinesNil is issue 12 class 7: the constructors
// dereferenced a nil mesh.
func TestOnSocMaxBaselinesNil(t *testing.T) {
	for _, m := range []*bipartite.Mesh{nil, {Nodes: 1 << 32, Slots: 1 << 32}, {Nodes: 2, Slots: 2, Capacity: []float64{1}}} {
		mf, err := NewMaxFirst(m)
		require.Error(t, err)
		assert.Nil(t, mf)
		es, err := NewEqualShare(m)
		require.Error(t, err)
		assert.Nil(t, es)
		for _, p := range []osmBaseline{&MaxFirst{}, &EqualShare{}} {
			dec, err := p.Decide(0, nil)
			require.Error(t, err, p.Name())
			assert.Empty(t, dec.Allocations)
		}
	}
}

// TestOnSocMaxBaselinesAllOrNothing: a slot out of order, a
// duplicate ID (in the batch or already active) or an invalid job returns
// an error and a nil decision and changes nothing: the next valid Decide
// gives exactly what a fresh policy gives.
func TestOnSocMaxBaselinesAllOrNothing(t *testing.T) {
	m, err := bipartite.NewMesh(2, 3, []float64{4, 4, 4, 4, 4, 4})
	require.NoError(t, err)
	good := osmJob(1, 0, []int{0, 1, 3, 4}, 10) // not exhausted in slot 0
	other := osmJob(2, 0, []int{0, 3}, 3)
	bad := osmJob(3, 0, []int{0}, 3)
	bad.Beta = nil
	later := osmJob(4, 1, []int{1, 4}, 5)
	for _, mk := range []func() osmBaseline{
		func() osmBaseline { return osmBaselines(t, m)[0] },
		func() osmBaseline { return osmBaselines(t, m)[1] },
	} {
		ref := mk()
		want0, err := ref.Decide(0, []onsocmax.Job{good})
		require.NoError(t, err)
		want0.Allocations = slices.Clone(want0.Allocations)
		want1, err := ref.Decide(1, []onsocmax.Job{later})
		require.NoError(t, err)
		want1.Allocations = slices.Clone(want1.Allocations)

		p := mk()
		for _, s := range []int{-1, math.MinInt, math.MaxInt} {
			dec, err := p.Decide(s, nil)
			require.ErrorIs(t, err, onsocmax.ErrSlot, "%s slot %d", p.Name(), s)
			assert.Empty(t, dec.Allocations)
		}
		dec, err := p.Decide(0, []onsocmax.Job{good, good})
		require.ErrorIs(t, err, onsocmax.ErrDuplicate)
		assert.Empty(t, dec.Allocations)
		dec, err = p.Decide(0, []onsocmax.Job{good, other, bad})
		require.ErrorIs(t, err, onsocmax.ErrDimension)
		assert.Empty(t, dec.Allocations)
		got0, err := p.Decide(0, []onsocmax.Job{good})
		require.NoError(t, err)
		assert.Equal(t, want0, got0, p.Name())
		// good is still active in slot 1: its ID cannot come again.
		dup := later
		dup.ID = good.ID
		dec, err = p.Decide(1, []onsocmax.Job{dup})
		require.ErrorIs(t, err, onsocmax.ErrDuplicate)
		assert.Empty(t, dec.Allocations)
		got1, err := p.Decide(1, []onsocmax.Job{later})
		require.NoError(t, err)
		assert.Equal(t, want1, got1, p.Name())
		_, err = p.Decide(1, nil)
		require.ErrorIs(t, err, onsocmax.ErrSlot, "slot 1 twice")
	}
}
