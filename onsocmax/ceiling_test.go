package onsocmax

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSolverLimitCeilings is issue 22 class 5: every iteration or work
// limit of the package's solvers has a ceiling; MaxInt (no cap left) is
// an error wrapping ErrSettings that names the field and the ceiling.
func TestSolverLimitCeilings(t *testing.T) {
	for _, s := range []ALMSettings{{MaxOuter: math.MaxInt}, {MaxInner: math.MaxInt}, {MaxOuter: CeilingMaxOuter + 1}} {
		_, err := s.withDefaults()
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, "CeilingMaxOuter")
	}
	_, err := (&ALMSettings{MaxOuter: CeilingMaxOuter, MaxInner: CeilingMaxInner}).withDefaults()
	require.NoError(t, err)
	for _, s := range []FlowSettings{{MaxAugmentations: math.MaxInt}, {MaxWork: math.MaxInt64}} {
		err := s.Validate()
		require.ErrorIs(t, err, ErrSettings)
		require.ErrorContains(t, err, "Ceiling")
	}
	require.NoError(t, FlowSettings{MaxAugmentations: CeilingMaxAugmentations, MaxWork: CeilingMaxFlowWork}.Validate())
	p := benchP3(4)
	_, err = WaterFill(make([]float64, 4), p, &WaterFillSettings{MaxIterations: math.MaxInt}, nil)
	require.ErrorIs(t, err, ErrSettings)
	require.ErrorContains(t, err, "CeilingWaterFillIterations")
	_, err = WaterFill(make([]float64, 4), p, &WaterFillSettings{MaxIterations: CeilingWaterFillIterations}, nil)
	require.NoError(t, err)
}
