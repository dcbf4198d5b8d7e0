package snapshot

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

type state struct {
	Y []float64 `json:"y"`
	T int       `json:"t"`
}

func TestRoundTrip(t *testing.T) {
	model := NewHasher("f").Floats([]float64{1, 2.5}).Ints([]int{3}).Sum()
	b, err := Encode("msched/x.P", 1, model, state{Y: []float64{0.1, 1e-300}, T: 7})
	require.NoError(t, err)
	var got state
	require.NoError(t, Decode(b, "msched/x.P", 1, model, &got))
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
	require.ErrorIs(t, Decode([]byte(`{"format":"msched/x.P","version":1,"model":"`+model+`","state":{"y":[],"t":1,"z":2}}`), "msched/x.P", 1, model, &s), ErrCorrupt)
	require.ErrorIs(t, Decode([]byte(`{"format":"msched/x.P","version":1,"model":"`+model+`"}`), "msched/x.P", 1, model, &s), ErrCorrupt)
}

func TestFingerprintSeparates(t *testing.T) {
	a := NewHasher("f").Floats([]float64{1, 2}).Sum()
	require.NotEqual(t, a, NewHasher("f").Floats([]float64{1, 2.0000000000000004}).Sum())
	require.NotEqual(t, a, NewHasher("g").Floats([]float64{1, 2}).Sum())
	require.NotEqual(t, NewHasher("f").Ints([]int{1}).Ints(nil).Sum(), NewHasher("f").Ints(nil).Ints([]int{1}).Sum())
	require.Len(t, a, 16)
}

func FuzzDecode(f *testing.F) {
	model := NewHasher("f").Sum()
	b, _ := Encode("msched/x.P", 1, model, state{Y: []float64{1}, T: 1})
	f.Add(b)
	f.Add([]byte(`{"format":"msched/x.P","version":1,"model":"` + model + `","state":{"y":[1e999]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s state
		err := Decode(data, "msched/x.P", 1, model, &s)
		if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrFormat) && !errors.Is(err, ErrModel) {
			t.Fatalf("unwrapped error %v", err)
		}
	})
}
