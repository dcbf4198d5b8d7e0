package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestModeFlags: the oracle flags are parsed and reported, bad values are
// errors.
func TestModeFlags(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run([]string{"-T", "30", "-R", "12", "-mode", "scalable"}, &out))
	require.Contains(t, out.String(), "mode scalable")
	require.Error(t, run([]string{"-mode", "fast"}, &out))
	require.Error(t, run([]string{"-preset", "huge"}, &out))
	require.Error(t, run([]string{"-maxcells", "-1", "-T", "3"}, &out))
}
