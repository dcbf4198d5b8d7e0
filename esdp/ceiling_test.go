package esdp

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestOracleLimitCeilings is issue 22 class 5: OracleSettings.MaxBytes at
// MaxInt64 asked the dynamic program for exabytes; above CeilingMaxBytes,
// 8 CeilingMaxBytes cells or CeilingMaxNodes it is an error naming the
// field and the ceiling.
func TestOracleLimitCeilings(t *testing.T) {
	for field, s := range map[string]OracleSettings{
		"MaxBytes": {MaxBytes: math.MaxInt64},
		"MaxCells": {MaxCells: math.MaxInt64},
		"MaxNodes": {MaxNodes: CeilingMaxNodes + 1},
	} {
		err := s.Validate()
		require.ErrorIs(t, err, ErrSettings, field)
		require.ErrorContains(t, err, "OracleSettings."+field, field)
		require.ErrorContains(t, err, "Ceiling", field)
	}
	require.NoError(t, OracleSettings{MaxBytes: CeilingMaxBytes, MaxCells: 8 * CeilingMaxBytes, MaxNodes: CeilingMaxNodes}.Validate())
}
