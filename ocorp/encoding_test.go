package ocorp

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDecodersHostile is issue 12 classes 1, 6 and 7 for the decoders:
// each hostile input is an error wrapping the named sentinel (never a
// panic), and the JSON cause stays matchable.
func TestDecodersHostile(t *testing.T) {
	csvCases := []struct {
		name, in string
		want     error
	}{
		{"duplicate column", "arrival,cores,memory,processing,cores\n0,1,0,1,2\n", ErrFormat},
		{"missing column", "arrival,cores,memory\n0,1,0\n", ErrFormat},
		{"short row", "arrival,cores,memory,processing\n0,1\n", ErrFormat},
		{"negative cores", "arrival,cores,memory,processing\n0,-1,0,1\n", ErrValue},
		{"volume overflows", "arrival,cores,memory,processing\n0,4294967296,0,4294967296\n", ErrValue},
		{"beyond int64", "arrival,cores,memory,processing\n99999999999999999999,1,0,1\n", ErrValue},
		{"NaN", "arrival,cores,memory,processing\nNaN,1,0,1\n", ErrValue},
		{"float", "arrival,cores,memory,processing\n1.5,1,0,1\n", ErrValue},
		{"empty", "", ErrEmpty},
		{"long line", "arrival,cores,memory,processing\n" + strings.Repeat("1", MaxLineBytes+10) + ",1,0,1\n", ErrTooLarge},
		{"bare quote", "arrival,cores,memory,processing\n\"0,1,0,1\n", ErrFormat},
	}
	for _, c := range csvCases {
		_, err := ReadJobsCSV(strings.NewReader(c.in))
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, c.want, c.name)
	}
	// A byte-order mark before the header is not a missing column.
	jobs, err := ReadJobsCSV(strings.NewReader("\ufeffarrival,cores,memory,processing\n10000000000000,1,0,1\n"))
	require.NoError(t, err)
	assert.Equal(t, []Job{{Arrival: 1e13, Cores: 1, Processing: 1}}, jobs)

	jsonCases := []struct {
		name, in string
		want     error
	}{
		{"trailing garbage", `{"version":1,"jobs":[]} x`, ErrFormat},
		{"two objects", `{"version":1,"jobs":[]}{"version":1,"jobs":[]}`, ErrFormat},
		{"syntax", `{"version":1,"jobs":[`, ErrFormat},
		{"huge int", `{"version":1,"jobs":[{"arrival":0,"cores":1e9,"memory":0,"processing":1}]}`, ErrFormat},
		{"beyond int64", `{"version":1,"jobs":[{"arrival":0,"cores":9223372036854775808,"memory":0,"processing":1}]}`, ErrFormat},
		{"volume overflows", `{"version":1,"jobs":[{"arrival":0,"cores":4294967296,"memory":0,"processing":4294967296}]}`, ErrValue},
		{"machines overflow", `{"version":1,"machines":[{"cores":9223372036854775807,"memory":0}],"jobs":[{"arrival":0,"cores":-1,"memory":0,"processing":1}]}`, ErrValue},
		{"version", `{"version":2,"jobs":[]}`, ErrVersion},
		{"wrong type", `{"version":1,"jobs":{}}`, ErrFormat},
	}
	for _, c := range jsonCases {
		_, err := ReadInstanceJSON(strings.NewReader(c.in))
		require.Error(t, err, c.name)
		assert.ErrorIs(t, err, c.want, c.name)
	}
	_, err = ReadInstanceJSON(strings.NewReader(`{"version":1,"jobs":[`))
	var syn *json.SyntaxError
	assert.True(t, errors.As(err, &syn), "the JSON cause is wrapped with %%w: %v", err)
	var in Instance
	err = in.UnmarshalJSON([]byte(`{"version":1,"jobs":[]} x`))
	assert.ErrorIs(t, err, ErrFormat)
}
