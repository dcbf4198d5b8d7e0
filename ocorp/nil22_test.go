package ocorp

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilReaders is issue 22 class 4: a nil io.Reader is an error wrapping
// ErrEmpty, not a nil dereference.
func TestNilReaders(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := ReadJobsCSV(nil)
		require.ErrorIs(t, err, ErrEmpty)
		_, err = ReadJobsJSON(nil)
		require.ErrorIs(t, err, ErrEmpty)
		_, err = ReadInstanceJSON(nil)
		require.ErrorIs(t, err, ErrEmpty)
	})
}
