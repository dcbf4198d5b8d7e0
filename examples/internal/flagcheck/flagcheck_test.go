package flagcheck

import (
	"flag"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
)

func newSet(t *testing.T, args ...string) *flag.FlagSet {
	t.Helper()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Float64("beta", -1, "")
	fs.Float64("rho", 0.5, "")
	fs.Int("n", 0, "")
	fs.Int64("m", 0, "")
	fs.String("s", "", "")
	require.NoError(t, fs.Parse(args))
	return fs
}

func TestFinite(t *testing.T) {
	require.NoError(t, Finite(newSet(t, "-beta", "0.5")))
	for _, v := range []string{"NaN", "nan", "Inf", "-Inf", "+inf"} {
		err := Finite(newSet(t, "-beta", v))
		require.ErrorContains(t, err, "-beta = ")
	}
	err := Finite(newSet(t, "-beta", "NaN", "-rho", "Inf"))
	require.ErrorContains(t, err, "-beta")
	require.ErrorContains(t, err, "-rho")
}

func TestNonNegative(t *testing.T) {
	require.NoError(t, NonNegative(newSet(t, "-n", "0", "-m", "3"), "n", "m"))
	require.ErrorContains(t, NonNegative(newSet(t, "-n", "-1"), "n", "m"), "-n = -1")
	require.ErrorContains(t, NonNegative(newSet(t, "-m", "-7"), "n", "m"), "-m = -7")
	require.ErrorContains(t, NonNegative(newSet(t), "missing"), "no flag -missing")
}

func TestItemsAndFloats(t *testing.T) {
	for _, s := range []string{"1,,2", "1,", ",1", "", " , "} {
		_, err := Items("alpha", s)
		require.ErrorContains(t, err, "-alpha", s)
		require.ErrorContains(t, err, "is empty", s)
	}
	v, err := Floats("alpha", " 0, 10 ,100", 0, 1e12)
	require.NoError(t, err)
	require.Equal(t, []float64{0, 10, 100}, v)
	for _, s := range []string{"1,NaN", "1,Inf", "-1", "1e13", "x"} {
		_, err := Floats("alpha", s, 0, 1e12)
		require.ErrorContains(t, err, "-alpha: item", s)
	}
}
