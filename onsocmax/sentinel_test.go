package onsocmax

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

// ownSentinels are the sentinels of errors.go: every error of the
// package's constructors and methods wraps one of them.
var ownSentinels = []error{ErrValue, ErrDimension, ErrSettings, ErrVersion, ErrTooLarge, ErrUnsupported,
	ErrSlot, ErrNode, ErrSnapshot, ErrDuplicate, ErrIterationLimit, ErrBounds}

func wrapsOwn(err error) bool {
	for _, s := range ownSentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// TestErrorsWrapOwnSentinel is issue 22 class 7: New with a mesh whose
// capacity list has the wrong length wrapped only bipartite.ErrDimension.
// It now wraps ErrDimension of this package first and keeps bipartite's
// as a second cause; the other mesh errors and the generator's likewise.
func TestErrorsWrapOwnSentinel(t *testing.T) {
	s := Settings{Iota: 1, V: 2}
	for name, tc := range map[string]struct {
		mesh      *bipartite.Mesh
		own, base error
	}{
		"short capacity": {&bipartite.Mesh{Nodes: 2, Slots: 3, Capacity: make([]float64, 5)}, ErrDimension, bipartite.ErrDimension},
		"long capacity":  {&bipartite.Mesh{Nodes: 2, Slots: 3, Capacity: make([]float64, 7)}, ErrDimension, bipartite.ErrDimension},
		"bad capacity":   {&bipartite.Mesh{Nodes: 1, Slots: 2, Capacity: []float64{1, -1}}, ErrValue, bipartite.ErrCapacity},
	} {
		_, err := New(tc.mesh, s)
		require.ErrorIs(t, err, tc.own, name)
		require.ErrorIs(t, err, tc.base, name)
		require.ErrorIs(t, ValidateMesh(tc.mesh), tc.own, name)
	}
	for _, m := range []*bipartite.Mesh{nil, {}, {Nodes: 1 << 40, Slots: 1 << 40}} {
		_, err := New(m, s)
		require.True(t, wrapsOwn(err), "%v", err)
	}
	_, err := Generate(Config{}, rand.New(rand.NewPCG(1, 1)))
	require.True(t, wrapsOwn(err), "%v", err)
}

// TestFailureStatus: the status of a solve stopped by a non-finite iterate
// (issue 22 class 2) is named and its Err wraps ErrValue.
func TestFailureStatus(t *testing.T) {
	require.Equal(t, "Failure", Failure.String())
	require.ErrorIs(t, Failure.Err(), ErrValue)
	require.ErrorIs(t, IterationLimit.Err(), ErrIterationLimit)
	require.NoError(t, Success.Err())
}

// TestReadInstanceNil is issue 22 class 4: a nil io.Reader is an error.
func TestReadInstanceNil(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := ReadInstance(nil)
		require.ErrorIs(t, err, ErrValue)
	})
}
