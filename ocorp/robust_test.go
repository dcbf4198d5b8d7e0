package ocorp

import (
	"errors"
	"math"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeSizesRejectedOrHandled is issue 12 class 1 and the overflow
// class of issue 16 for the model: sizes whose sums overflow int are
// rejected by validation with an error naming the value; huge sizes that
// do not overflow are handled without allocating per core.
func TestHugeSizesRejectedOrHandled(t *testing.T) {
	bad := []struct {
		name string
		err  error
	}{
		{"job volume overflows", ValidateJobs([]Job{{Cores: 1 << 32, Processing: 1 << 32}})},
		{"job volume MaxInt*2", ValidateJobs([]Job{{Cores: 2, Processing: math.MaxInt}})},
		{"total cores overflow", ValidateMachines([]Machine{{Cores: math.MaxInt}, {Cores: 1}})},
		{"total memory overflow", ValidateMachines([]Machine{{Cores: 1, Memory: math.MaxInt}, {Cores: 1, Memory: math.MaxInt}})},
	}
	for _, c := range bad {
		require.Error(t, c.err, c.name)
		assert.ErrorIs(t, c.err, ErrValue, c.name)
		assert.Contains(t, c.err.Error(), "9223372036854775807", c.name)
	}
	for _, cores := range []int{1e9, 1 << 40, math.MaxInt} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		ms := []Machine{{Cores: cores, Memory: math.MaxInt}}
		pk, err := NewPacker(ms)
		require.NoError(t, err)
		runtime.ReadMemStats(&after)
		assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "NewPacker with %d cores allocated per core", cores)
		jobs := []Job{{Arrival: 0, Cores: cores, Memory: math.MaxInt, Processing: 1}, {Arrival: 0, Cores: 3, Memory: 5, Processing: 2}}
		for _, pol := range []Policy{mustPol(New(ms, Settings{})), mustPol(NewM(ms, Settings{Fill: true})), mustPol(NewTransient(ms))} {
			r, err := Run(jobs, ms, pol, RunSettings{})
			require.NoError(t, err, "%s cores %d", pol.Name(), cores)
			assert.Equal(t, 2, len(r.Flowtime))
		}
		_ = pk
	}
}

func mustPol[P Policy](p P, err error) Policy {
	if err != nil {
		panic(err)
	}
	return p
}

// TestCheckerSumsDoNotWrap: placements whose core sums overflow int are
// infeasible, not wrapped around to a small number.
func TestCheckerSumsDoNotWrap(t *testing.T) {
	ms := []Machine{{Cores: 4, Memory: 4}}
	chk, err := NewChecker(ms)
	require.NoError(t, err)
	obs := Obs{Jobs: []ActiveJob{
		{ID: 0, Job: Job{Cores: math.MaxInt, Processing: 1}, Remaining: math.MaxInt},
		{ID: 1, Job: Job{Cores: math.MaxInt, Processing: 1}, Remaining: math.MaxInt},
	}}
	err = chk.Check(obs, Decision{Placements: []Placement{{Job: 0, Machine: 0, Cores: math.MaxInt, Admit: true}, {Job: 1, Machine: 0, Cores: math.MaxInt, Admit: true}}})
	require.Error(t, err)
	assert.True(t, errors.Is(err, ErrInfeasible))
}
