package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type state struct {
	Y []float64 `json:"y"`
	T int       `json:"t"`
	O int       `json:"o,omitempty"`
}

func TestRoundTrip(t *testing.T) {
	model := NewHasher("f").Floats([]float64{1, 2.5}).Ints([]int{3}).Sum()
	b, err := Encode("msched/x.P", 1, model, state{Y: []float64{0.1, 1e-300}, T: 7})
	require.NoError(t, err)
	require.Contains(t, string(b), `"check":"sha256:`)
	var got state
	require.NoError(t, Decode(b, "msched/x.P", 1, model, &got))
	require.Equal(t, state{Y: []float64{0.1, 1e-300}, T: 7}, got)

	// Re-indenting keeps the snapshot valid: the check is over compact bytes.
	var ind bytes.Buffer
	require.NoError(t, json.Indent(&ind, b, "", "  "))
	got = state{}
	require.NoError(t, Decode(ind.Bytes(), "msched/x.P", 1, model, &got))
	require.Equal(t, state{Y: []float64{0.1, 1e-300}, T: 7}, got)

	var s state
	require.ErrorIs(t, Decode(b, "msched/x.Q", 1, model, &s), ErrFormat)
	require.ErrorIs(t, Decode(b, "msched/x.P", 2, model, &s), ErrFormat)
	require.ErrorIs(t, Decode(b, "msched/x.P", 1, "0000000000000000", &s), ErrModel)
	for i := range len(b) {
		err := Decode(b[:i], "msched/x.P", 1, model, &s)
		require.Error(t, err, "prefix %d", i)
	}
	require.ErrorIs(t, Decode(append(b, '{'), "msched/x.P", 1, model, &s), ErrCorrupt)
}

func TestRefused(t *testing.T) {
	model := NewHasher("f").Sum()
	env := func(check, st string) string {
		return `{"format":"msched/x.P","version":1,"model":"` + model + `","check":"` + check + `","state":` + st + `}`
	}
	sum := func(st string) string {
		s, err := Checksum([]byte(st))
		require.NoError(t, err)
		return s
	}
	good := `{"y":[1],"t":2}`
	var s state
	require.NoError(t, Decode([]byte(env(sum(good), good)), "msched/x.P", 1, model, &s))
	for _, c := range []struct{ in, want string }{
		{env(sum(good), `{"y":[1],"t":3}`), "does not match the state"},
		{env("", good), `no "check" field`},
		{`{"format":"msched/x.P","version":1,"model":"` + model + `","state":` + good + `}`, `no "check" field`},
		{env("crc32:00", good), "want \"sha256:\""},
		{env(sum(`{"y":[],"t":1,"z":2}`), `{"y":[],"t":1,"z":2}`), `unknown key "z"`},
		{env(sum(`{"y":[],"t":1,"t":2}`), `{"y":[],"t":1,"t":2}`), `key "t" given twice`},
		{env(sum(`{"y":[],"T":1}`), `{"y":[],"T":1}`), `want "t" spelled exactly`},
		{env(sum(`{"y":[]}`), `{"y":[]}`), `missing key: $: key "t"`},
		{env(sum(`{}`), `{}`), `missing key: $: key "y"`},
		{env(sum(`null`), `null`), "no state"},
		{`{"format":"msched/x.P","version":1,"model":"` + model + `"}`, "no state"},
		{`{"format":"msched/x.P","format":"msched/x.P","version":1,"model":"` + model + `","check":"` + sum(good) + `","state":` + good + `}`, `key "format" given twice`},
		{`{"Format":"msched/x.P","version":1,"model":"` + model + `","check":"` + sum(good) + `","state":` + good + `}`, `want "format" spelled exactly`},
		{`{"format":"msched/x.P","version":1,"model":"` + model + `","check":"` + sum(good) + `","sig":1,"state":` + good + `}`, `unknown field "sig"`},
	} {
		err := Decode([]byte(c.in), "msched/x.P", 1, model, &s)
		require.ErrorIs(t, err, ErrCorrupt, c.in)
		require.Contains(t, err.Error(), c.want, c.in)
	}
}

func TestReseal(t *testing.T) {
	model := NewHasher("f").Sum()
	b, err := Encode("msched/x.P", 1, model, state{Y: []float64{1}, T: 1})
	require.NoError(t, err)
	alt := bytes.Replace(b, []byte(`"t":1`), []byte(`"t":9`), 1)
	var s state
	require.ErrorIs(t, Decode(alt, "msched/x.P", 1, model, &s), ErrCorrupt)
	re, err := Reseal(alt)
	require.NoError(t, err)
	require.NoError(t, Decode(re, "msched/x.P", 1, model, &s))
	require.Equal(t, 9, s.T)
	_, err = Reseal([]byte(`{"state":`))
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestBitFlips flips every bit of a snapshot: every variant is refused.
func TestBitFlips(t *testing.T) {
	model := NewHasher("f").Sum()
	b, err := Encode("msched/x.P", 1, model, state{Y: []float64{0.25, 3e-7}, T: 12, O: 4})
	require.NoError(t, err)
	n := 0
	for i := range len(b) * 8 {
		v := bytes.Clone(b)
		v[i/8] ^= 1 << (i % 8)
		var s state
		require.Error(t, Decode(v, "msched/x.P", 1, model, &s), "bit %d: %s", i, v)
		n++
	}
	t.Logf("%d variants of a %d-byte snapshot, all refused", n, len(b))
}

func TestFingerprintSeparates(t *testing.T) {
	a := NewHasher("f").Floats([]float64{1, 2}).Sum()
	require.NotEqual(t, a, NewHasher("f").Floats([]float64{1, 2.0000000000000004}).Sum())
	require.NotEqual(t, a, NewHasher("g").Floats([]float64{1, 2}).Sum())
	require.NotEqual(t, NewHasher("f").Ints([]int{1}).Ints(nil).Sum(), NewHasher("f").Ints(nil).Ints([]int{1}).Sum())
	require.Len(t, a, 16)
}

// FuzzDecode: any bytes give a decoded state or an error wrapping one of
// the three sentinels; a decoded state re-encodes to a snapshot that
// decodes to the same state.
func FuzzDecode(f *testing.F) {
	model := NewHasher("f").Sum()
	b, _ := Encode("msched/x.P", 1, model, state{Y: []float64{1}, T: 1})
	f.Add(b)
	f.Add([]byte(`{"format":"msched/x.P","version":1,"model":"` + model + `","state":{"y":[1e999]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s state
		err := Decode(data, "msched/x.P", 1, model, &s)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrModel) {
				t.Fatalf("unwrapped error %v", err)
			}
			return
		}
		if !strings.Contains(string(data), "sha256:") {
			t.Fatalf("accepted without a check: %s", data)
		}
		re, err := Encode("msched/x.P", 1, model, s)
		require.NoError(t, err)
		var s2 state
		require.NoError(t, Decode(re, "msched/x.P", 1, model, &s2))
		require.Equal(t, s, s2)
	})
}

// TestCompactSum: the streamed check equals Checksum (compact, then hash)
// on valid JSON with white space inside and outside strings and escapes.
func TestCompactSum(t *testing.T) {
	for _, s := range []string{
		`{}`, ` { "a" : [ 1 , 2 ] } `, `{"a b":"x \" y\\\\", "c":"\\"}`, "{\n\t\"k\":\r\n\"\\u0020 \\t\"}",
		string(benchSnapshot(t, 200<<10)),
	} {
		want, err := Checksum([]byte(s))
		require.NoError(t, err)
		require.Equal(t, want, compactSum([]byte(s)), s[:min(len(s), 40)])
	}
}
