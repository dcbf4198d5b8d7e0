package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// nested returns depth open brackets, inner, and depth closing brackets,
// alternating arrays and objects {"k":…} when objects is set.
func nested(depth int, inner string, objects bool) []byte {
	var b bytes.Buffer
	for i := range depth {
		if objects && i%2 == 1 {
			b.WriteString(`{"k":`)
		} else {
			b.WriteByte('[')
		}
	}
	b.WriteString(inner)
	for i := depth - 1; i >= 0; i-- {
		if objects && i%2 == 1 {
			b.WriteByte('}')
		} else {
			b.WriteByte(']')
		}
	}
	return b.Bytes()
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDepthLinear: the walk allocates a frame per level, not a path string
// per level (the old walker allocated 39 MiB at depth 5 000, 152 MiB at
// 10 000 and 620 MiB at 20 000: O(depth²)).
func TestDepthLinear(t *testing.T) {
	for _, depth := range []int{5000, 10000} {
		for _, objects := range []bool{false, true} {
			b := nested(depth, "1", objects)
			var err error
			got := allocated(func() { err = Check(b, &outer{}) })
			require.NoError(t, err)
			require.True(t, json.Valid(b))
			t.Logf("depth %d objects %v: %d bytes allocated", depth, objects, got)
			require.Less(t, got, uint64(4<<20), "depth %d: allocation must be linear in depth", depth)
		}
	}
}

// TestDepthLimit: a document deeper than MaxDepth is refused with an error
// naming the depth and the limit, without reading it all.
func TestDepthLimit(t *testing.T) {
	for _, depth := range []int{MaxDepth + 1, 40000} {
		b := nested(depth, "1", true)
		var err error
		got := allocated(func() { err = Check(b, &outer{}) })
		require.ErrorIs(t, err, ErrDepth)
		require.Contains(t, err.Error(), "depth 10001")
		require.Contains(t, err.Error(), "limit MaxDepth=10000")
		require.Less(t, got, uint64(4<<20))
		require.ErrorIs(t, Complete(b, &req{}), ErrDepth)
		require.ErrorIs(t, Valid(b, nil), ErrDepth)
	}
	// encoding/json refuses the same documents.
	require.False(t, json.Valid(nested(MaxDepth+1, "1", false)))
}

func TestValidAndMembers(t *testing.T) {
	require.NoError(t, Valid(nested(MaxDepth, "1", true), nil))
	for _, c := range []string{
		`{}`, `[]`, `1`, `-0.5e+3`, `"a\u00e9\n"`, `true`, `null`, ` {"a" : [1, 2 ,{"b":null}] } `,
		`{"a":1,"a":2}`, `01`, `1.`, `.5`, `[1,]`, `{"a"}`, `{"a":1,}`, `"\x"`, "\"\x01\"", `[`, `]`, `tru`, `1 2`,
		`{"\u0061":1,"a":2}`, `"\ud800"`, "\"\xff\"",
	} {
		want := json.Valid([]byte(c))
		err := Valid([]byte(c), nil)
		if strings.Contains(c, `"a":1,"a":2`) || strings.Contains(c, `"\u0061":1,"a"`) {
			require.ErrorIs(t, err, ErrKey, c)
			continue
		}
		require.Equal(t, want, err == nil, "%s: %v", c, err)
	}
	ms, err := Members([]byte(` {"format":"x", "state" : {"a":[1,2]} ,"v":1} `))
	require.NoError(t, err)
	require.Equal(t, []Member{{"format", []byte(`"x"`)}, {"state", []byte(`{"a":[1,2]}`)}, {"v", []byte(`1`)}}, ms)
	_, err = Members([]byte(`{"a":1,"a":2}`))
	require.ErrorIs(t, err, ErrKey)
	_, err = Members([]byte(`[1]`))
	require.ErrorIs(t, err, ErrSyntax)
	_, err = Members([]byte(`{"a":1}x`))
	require.ErrorIs(t, err, ErrSyntax)
}

// FuzzStrictDepthSize fuzzes the strict walk along nesting depth and size:
// inner is wrapped depth deep (arrays and objects) and repeated width times
// in an array. Valid must agree with encoding/json on syntax up to
// MaxDepth and refuse deeper documents with ErrDepth; Check must return
// only ErrKey or ErrDepth errors.
func FuzzStrictDepthSize(f *testing.F) {
	f.Add(uint16(1), uint16(1), false, []byte(`1`))
	f.Add(uint16(100), uint16(3), true, []byte(`{"a":1}`))
	f.Add(uint16(10001), uint16(1), false, []byte(`null`))
	f.Add(uint16(9999), uint16(2), true, []byte(`[{"version":1,"version":2}]`))
	f.Add(uint16(3), uint16(1000), false, []byte(`"\u00e9"`))
	f.Add(uint16(2), uint16(2), true, []byte(`{"x":[1,2`))
	f.Fuzz(func(t *testing.T, depth, width uint16, objects bool, inner []byte) {
		if len(inner) > 1<<10 || int(width)*len(inner) > 1<<20 {
			return
		}
		var b bytes.Buffer
		b.WriteByte('[')
		for i := range int(width) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(nested(int(depth), string(inner), objects))
		}
		b.WriteByte(']')
		doc := b.Bytes()
		err := Valid(doc, nil)
		switch {
		case int(depth)+1 > MaxDepth && width > 0:
			require.ErrorIs(t, err, ErrDepth)
		case json.Valid(doc):
			if err != nil {
				require.ErrorIs(t, err, ErrKey) // valid JSON with a repeated key
			}
		default: // encoding/json also refuses more than 10 000 levels
			require.True(t, errorIsAny(err, ErrSyntax, ErrDepth), "%v", err)
		}
		if err := Check(doc, &[]outer{}); err != nil {
			if !errorIsAny(err, ErrKey, ErrDepth) {
				t.Fatalf("Check: %v", err)
			}
		}
	})
}

func errorIsAny(err error, targets ...error) bool {
	for _, t := range targets {
		if errors.Is(err, t) {
			return true
		}
	}
	return false
}
