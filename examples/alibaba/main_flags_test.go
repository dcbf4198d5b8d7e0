package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureDir is a trace folder with the node and pod lists of
// trace/testdata (the real trace is not needed to check the flags).
func fixtureDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range [][2]string{{"nodes.csv", "openb_node_list_all_node.csv"}, {"pods.csv", "openb_pod_list_default.csv"}} {
		b, err := os.ReadFile(filepath.Join("..", "..", "trace", "testdata", f[0]))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f[1]), b, 0o644))
	}
	return dir
}

// Every hostile flag value is an error naming the flag, before the trace
// is read; nothing panics or hangs.
func TestFlagsRejectHostileValues(t *testing.T) {
	dir := fixtureDir(t)
	file := filepath.Join(dir, "openb_pod_list_default.csv")
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-workers", "0"}, "-workers = 0"},
		{[]string{"-workers", "-5"}, "-workers = -5"},
		{[]string{"-workers", "1000000000"}, "-workers = 1000000000"},
		{[]string{"-workers", "9223372036854775807"}, "-workers"},
		{[]string{"-workers", "1e99"}, "-workers"},
		{[]string{"-family", ""}, `unknown family ""`},
		{[]string{"-family", "ogasched,nope"}, `unknown family "nope"`},
		{[]string{"-family", "ogasched, ogasched"}, `"ogasched" given twice`},
		{[]string{"-pods", ""}, "-pods"},
		{[]string{"-pods", "../../../etc/passwd"}, "-pods"},
		{[]string{"-pods", ".."}, "-pods"},
		{[]string{"-trace", filepath.Join(dir, "missing")}, "-trace"},
		{[]string{"-trace", file}, "-trace"},
		{[]string{"-out", file}, "-out"},
		{[]string{"-seed", "-1"}, "-seed"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"-nosuchflag"}, "nosuchflag"},
	} {
		args := tc.args
		if !slices.Contains(args, "-trace") {
			args = append([]string{"-trace", dir}, args...)
		}
		err := run(args)
		require.Error(t, err, "%v", tc.args)
		assert.Contains(t, err.Error(), tc.says, "%v", tc.args)
	}
}

// A pod list that is a device or a pipe is rejected instead of being read
// forever; an oversized record is cut at the trace limit.
func TestTraceFilesHostile(t *testing.T) {
	dir := fixtureDir(t)
	pods := filepath.Join(dir, "openb_pod_list_default.csv")
	require.NoError(t, os.Remove(pods))
	require.NoError(t, os.Symlink("/dev/zero", pods))
	err := run([]string{"-trace", dir, "-family", "ocorp"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
	require.NoError(t, os.Remove(pods))
	require.NoError(t, syscall.Mkfifo(pods, 0o644))
	err = run([]string{"-trace", dir, "-family", "ocorp"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a regular file")
	require.NoError(t, os.Remove(pods))
	huge := "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n" + strings.Repeat("x", 3<<20) + "\n"
	require.NoError(t, os.WriteFile(pods, []byte(huge), 0o644))
	err = run([]string{"-trace", dir, "-family", "ocorp"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "MaxRecordBytes")
}

// Valid flags still run (on the small fixture trace).
func TestFlagsValidRun(t *testing.T) {
	dir := fixtureDir(t)
	c, err := parseFlags([]string{"-trace", dir, "-family", " ocorp ,ogasched", "-workers", "1"})
	require.NoError(t, err)
	assert.Equal(t, []string{"ocorp", "ogasched"}, c.fams)
	require.NoError(t, run([]string{"-trace", dir, "-family", "ocorp", "-workers", "1", "-json"}))
}
