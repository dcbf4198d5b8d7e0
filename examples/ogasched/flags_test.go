package main

import (
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestFlagsRejected is issue 22 class 6: NaN and infinite numbers, negative
// counts and empty list items are errors that name the flag (they were
// silently defaulted), returned before anything runs.
func TestFlagsRejected(t *testing.T) {
	for _, c := range [][2]string{{"-rho", "NaN"}, {"-contention", "Inf"}, {"-edgeprob", "NaN"}, {"-eta0", "NaN"}, {"-lambda", "-Inf"}, {"-ystar-tol", "NaN"}, {"-T", "-1"}, {"-L", "-3"}, {"-R", "-1"}, {"-K", "-1"}} {
		err := run([]string{c[0], c[1]}, io.Discard)
		require.Error(t, err, "%s %s", c[0], c[1])
		require.Contains(t, err.Error(), c[0], "%s %s: %v", c[0], c[1], err)
	}
}
