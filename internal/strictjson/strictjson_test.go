package strictjson

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

type inner struct {
	A int `json:"a"`
}

type custom struct{ X int }

func (c *custom) UnmarshalJSON(b []byte) error { return nil }

type outer struct {
	Version int            `json:"version"`
	Items   []inner        `json:"items"`
	Ptr     *inner         `json:"ptr,omitempty"`
	M       map[string]int `json:"m"`
	C       custom         `json:"c"`
	Raw     json.RawMessage
	skip    int
}

func TestCheck(t *testing.T) {
	_ = outer{}.skip
	for _, ok := range []string{
		`{"version":1,"items":[{"a":1},{"a":2}],"ptr":{"a":3},"m":{"x":1,"X":2},"c":{"anything":1,"ANY":2},"Raw":{"q":1}}`,
		`{}`, `null`, `{"items":null}`,
		`{"version":`, // malformed: left to the decoder
	} {
		require.NoError(t, Check([]byte(ok), &outer{}), ok)
	}
	for _, c := range []struct{ in, want string }{
		{`{"version":1,"version":2}`, `$: key "version" given twice`},
		{`{"VERSION":1}`, `$: key "VERSION", want "version" spelled exactly`},
		{`{"zz":1}`, `$: unknown key "zz"`},
		{`{"items":[{"a":1},{"a":1,"a":2}]}`, `$.items[1]: key "a" given twice`},
		{`{"items":[{"A":1}]}`, `$.items[0]: key "A", want "a" spelled exactly`},
		{`{"ptr":{"b":1}}`, `$.ptr: unknown key "b"`},
		{`{"m":{"x":1,"x":2}}`, `$.m: key "x" given twice`},
		{`{"c":{"k":1,"k":2}}`, `$.c: key "k" given twice`},
		{`{"Raw":{"k":[{"z":1,"z":1}]}}`, `$.Raw.k[0]: key "z" given twice`},
		{`{"raw":1}`, `$: key "raw", want "Raw" spelled exactly`},
	} {
		err := Check([]byte(c.in), &outer{})
		require.ErrorIs(t, err, ErrKey, c.in)
		require.Contains(t, err.Error(), c.want, c.in)
	}
}

func FuzzCheck(f *testing.F) {
	f.Add([]byte(`{"version":1,"items":[{"a":1}],"m":{"x":1}}`))
	f.Add([]byte(`{"version":1,"version":1}`))
	f.Add([]byte(`[[[[{"a":1}]]]]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		err := Check(b, &outer{})
		if err == nil {
			return
		}
		require.ErrorIs(t, err, ErrKey)
	})
}

type req struct {
	A   int    `json:"a"`
	B   *inner `json:"b"`
	C   int    `json:"c,omitempty"`
	In  []inner
	Cus custom `json:"cus,omitempty"`
}

func TestComplete(t *testing.T) {
	for _, ok := range []string{
		`{"a":1,"b":null,"In":[]}`,
		`{"a":1,"b":{"a":2},"c":3,"In":[{"a":1}],"cus":{}}`,
		`null`,
	} {
		require.NoError(t, Complete([]byte(ok), &req{}), ok)
		require.NoError(t, Check([]byte(ok), &req{}), ok)
	}
	for _, c := range []struct{ in, want string }{
		{`{}`, `$: key "a"`},
		{`{"a":1,"In":[]}`, `$: key "b"`},
		{`{"a":1,"b":{},"In":[]}`, `$.b: key "a"`},
		{`{"a":1,"b":null,"In":[{"a":1},{}]}`, `$.In[1]: key "a"`},
	} {
		err := Complete([]byte(c.in), &req{})
		require.ErrorIs(t, err, ErrMissing, c.in)
		require.Contains(t, err.Error(), c.want, c.in)
		require.NoError(t, Check([]byte(c.in), &req{}), c.in)
	}
	require.ErrorIs(t, Complete([]byte(`{"a":1,"a":1,"b":null,"In":[]}`), &req{}), ErrKey)
}
