package strictjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

type decInner struct {
	A  int       `json:"a"`
	F  []float64 `json:"f"`
	S  string    `json:"s,omitempty"`
	P  *decInner `json:"p"`
	B  bool
	U8 uint8 `json:"u8"`
}

type decEmbed struct {
	decInner
	Z int `json:"z"`
}

type decState struct {
	Slot   int               `json:"slot"`
	Y      []float64         `json:"y"`
	N      []int64           `json:"n"`
	Rows   []decInner        `json:"rows"`
	PRows  []*decInner       `json:"prows"`
	Grid   [][]float32       `json:"grid"`
	M      map[string]int    `json:"m"`
	Arr    [2]int            `json:"arr"`
	Num    json.Number       `json:"num"`
	Raw    json.RawMessage   `json:"raw"`
	Cus    custom            `json:"cus"`
	Any    any               `json:"any"`
	Emb    decEmbed          `json:"emb"`
	Str    int               `json:"str,string"`
	Bytes  []byte            `json:"bytes"`
	I8     int8              `json:"i8"`
	Names  []string          `json:"names"`
	Nested map[string][]bool `json:"nested"`
}

// decFast is a state every field of which takes the fast path.
type decFast struct {
	Slot  int          `json:"slot"`
	Y     []float64    `json:"y"`
	N     []int64      `json:"n"`
	Rows  []decInner   `json:"rows"`
	PRows []*decInner  `json:"prows"`
	Grid  [][]float32  `json:"grid"`
	I8    int8         `json:"i8"`
	Names []string     `json:"names"`
	Ptr   **decInner   `json:"ptr"`
	Flags []bool       `json:"flags"`
	U     uint64       `json:"u"`
	Deep  [][][]uint16 `json:"deep"`
}

func compareDecode(t *testing.T, b []byte, want, got any) {
	t.Helper()
	werr := json.Unmarshal(b, want)
	gerr := Decode(b, got)
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("%s into %T: json %v, Decode %v", b, want, werr, gerr)
	}
	if werr == nil && !reflect.DeepEqual(want, got) {
		t.Fatalf("%s:\njson   %+v\nDecode %+v", b, want, got)
	}
}

// TestDecodeMatchesUnmarshal: Decode gives json.Unmarshal's value, and an
// error where it gives one, on documents that take the fast path and
// every fallback.
func TestDecodeMatchesUnmarshal(t *testing.T) {
	docs := []string{
		`{"slot":3,"y":[1,2.5,-0,1e-300,5e-324],"n":[-9223372036854775808,9223372036854775807],"rows":[{"a":1,"f":[1],"s":"x","p":{"a":2,"f":null,"p":null,"B":true},"B":false,"u8":255}]}`,
		`{"prows":[null,{"a":1}],"grid":[[1,2],[],null,[3.4028234663852886e38]],"m":{"a":1,"A":2},"arr":[1,2,3],"num":12.5e3,"raw":{"k":[1,2]},"cus":{"x":1},"any":[1,"a",{"b":null}]}`,
		`{"emb":{"a":1,"z":2,"f":[3]},"str":"42","bytes":"AQID","i8":-128,"names":["a","é","\u00e9\n","\ud800"]}`,
		`{"nested":{"k":[true,false]},"names":null,"y":null,"rows":[],"slot":null}`,
		`{"SLOT":4,"Y":[1]}`, `{"rows":[{"A":1,"a":2}]}`, `{"unknown":{"deep":[1,2,{"x":[]}]},"slot":1}`,
		`{"slot":1,"slot":2,"y":[1],"y":[2,3]}`,
		// errors
		`{"slot":1.5}`, `{"slot":"1"}`, `{"slot":1e400}`, `{"y":[1e400]}`, `{"i8":128}`, `{"rows":[{"u8":-1}]}`,
		`{"y":{}}`, `{"rows":[1]}`, `{"names":[1]}`, `{"rows":[{"B":"true"}]}`, `{"num":"abc"}`, `{"str":"x"}`,
		`{"slot":99999999999999999999}`, `{"y":["1"]}`, `[]`, `"x"`, `null`, `1`,
		`{"ptr":{"a":1},"flags":[true,null,false],"u":18446744073709551615,"deep":[[[1,65535]],[]]}`,
		`{"ptr":null}`, `{"u":-1}`, `{"deep":[[[65536]]]}`, `{"flags":[1]}`, `{"rows":[{"s":"\"q\""}]}`,
	}
	for _, doc := range docs {
		compareDecode(t, []byte(doc), new(decState), new(decState))
		compareDecode(t, []byte(doc), new(decFast), new(decFast))
	}
	// Into a slice with spare capacity and elements: merged as json does.
	base := []decInner{{A: 1, S: "keep"}, {A: 2, S: "keep"}}
	want, got := base[:1:2], append([]decInner(nil), base...)[:1:2]
	require.NoError(t, json.Unmarshal([]byte(`[{"a":5},{"a":6}]`), &want))
	require.NoError(t, Decode([]byte(`[{"a":5},{"a":6}]`), &got))
	require.Equal(t, want, got)
	// Nesting deeper than MaxDepth through the fast path is an error.
	var deep [][][][]int
	require.ErrorIs(t, Decode([]byte(strings.Repeat("[", MaxDepth+1)+strings.Repeat("]", MaxDepth+1)), &deep), ErrDepth)
	require.Error(t, Decode([]byte(`{"slot":1} x`), new(decState)))
}

// FuzzDecodeMatchesUnmarshal checks Decode against json.Unmarshal on any
// valid document: same error-ness, same value.
func FuzzDecodeMatchesUnmarshal(f *testing.F) {
	f.Add([]byte(`{"slot":3,"y":[1,2.5],"rows":[{"a":1,"p":{"a":2}}],"names":["x"]}`))
	f.Add([]byte(`{"emb":{"a":1},"m":{"a":1},"arr":[1],"any":{"k":null}}`))
	f.Add([]byte(`{"rows":[{"A":1}],"Y":[1e400]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		compareDecode(t, b, new(decState), new(decState))
		compareDecode(t, b, new(decFast), new(decFast))
	})
}

type selfPtr *selfPtr

// TestSelfPointerType: a pointer type to itself does not hang the walk,
// and Decode hands it to json.Unmarshal (which itself never returns on
// an object into such a type; no msched type is one).
func TestSelfPointerType(t *testing.T) {
	var p selfPtr
	require.NoError(t, Check([]byte(`null`), &p))
	require.Error(t, Check([]byte(`{"a":1,"a":2}`), &p))
	require.NoError(t, Complete([]byte(`[{"b":[]}]`), &p))
	require.NoError(t, Decode([]byte(`null`), &p))
}
