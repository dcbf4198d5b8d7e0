package baselines_test

import (
	"encoding"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ogasched"
)

type snapshotter interface {
	ogasched.OnlinePolicy
	encoding.BinaryMarshaler
	encoding.BinaryUnmarshaler
}

// Issue 13: every OGASched-family baseline saves its state across slots
// (the slot of its latest Decide) and restores it into a fresh baseline of
// the same name on the same problem: decisions continue bit for bit and
// the slot order holds across the restart. Another baseline, another
// problem, truncated or altered bytes are refused with ErrSnapshot and
// leave the policy unchanged.
func TestOGASchedBaselineSnapshots(t *testing.T) {
	p := ogaTiny(t)
	other := *p
	other.Beta = []float64{0.25}
	xs := [][]float64{{1, 1}, {0, 1}, {1, 0}, {1, 1}, {0, 0}, {1, 1}}
	for i, name := range baselines.OGASchedBaselineNames {
		mk := func(q *ogasched.Problem) snapshotter {
			pol, err := baselines.NewOGASchedBaseline(name, q)
			require.NoError(t, err)
			return pol
		}
		ref := mk(p)
		var want [][]float64
		for s, x := range xs {
			y, err := ref.Decide(2*s, x)
			require.NoError(t, err)
			want = append(want, append([]float64(nil), y...))
		}
		a := mk(p)
		var got [][]float64
		for s, x := range xs[:3] {
			y, err := a.Decide(2*s, x)
			require.NoError(t, err)
			got = append(got, append([]float64(nil), y...))
		}
		snap, err := a.MarshalBinary()
		require.NoError(t, err)
		js, err := json.Marshal(a)
		require.NoError(t, err)
		require.Equal(t, snap, js)
		b := mk(p)
		require.NoError(t, json.Unmarshal(js, b))
		_, err = b.Decide(4, xs[2])
		require.ErrorIs(t, err, ogasched.ErrSlot, "%s: the restored slot order holds", name)
		for s := 3; s < len(xs); s++ {
			y, err := b.Decide(2*s, xs[s])
			require.NoError(t, err)
			got = append(got, append([]float64(nil), y...))
		}
		for s := range want {
			for j := range want[s] {
				require.Equal(t, math.Float64bits(want[s][j]), math.Float64bits(got[s][j]), "%s slot %d", name, s)
			}
		}

		victim := mk(p)
		_, err = victim.Decide(1, xs[0])
		require.NoError(t, err)
		before, err := victim.MarshalBinary()
		require.NoError(t, err)
		refuse := func(data []byte, cause error, msg string) {
			t.Helper()
			err := victim.UnmarshalBinary(data)
			require.ErrorIs(t, err, ogasched.ErrSnapshot, "%s: %s", name, msg)
			if cause != nil {
				require.ErrorIs(t, err, cause, "%s: %s", name, msg)
			}
			now, _ := victim.MarshalBinary()
			require.Equal(t, before, now, "%s: %s changed the policy", name, msg)
		}
		otherName := baselines.OGASchedBaselineNames[(i+1)%len(baselines.OGASchedBaselineNames)]
		fromOther, err := baselines.NewOGASchedBaseline(otherName, p)
		require.NoError(t, err)
		otherSnap, err := fromOther.MarshalBinary()
		require.NoError(t, err)
		refuse(otherSnap, snapshot.ErrModel, "a snapshot of "+otherName)
		otherProblem, err := mk(&other).MarshalBinary()
		require.NoError(t, err)
		refuse(otherProblem, snapshot.ErrModel, "a snapshot on another problem")
		for n := 0; n < len(snap); n++ {
			refuse(snap[:n], nil, "a truncated snapshot")
		}
		for i := range snap {
			for _, c := range []byte{'0', '7', '-', '"', 'x'} {
				if snap[i] == c {
					continue
				}
				alt := append([]byte(nil), snap...)
				alt[i] = c
				probe := mk(p)
				if err := probe.UnmarshalBinary(alt); err != nil {
					require.ErrorIs(t, err, ogasched.ErrSnapshot)
					continue
				}
				back, _ := probe.MarshalBinary()
				require.Equal(t, snap, back, "%s: byte %d -> %q accepted with another meaning", name, i, c)
			}
		}
	}
}

// FuzzOGASchedBaselineSnapshot: arbitrary bytes never panic; a refusal
// leaves the baseline unchanged.
func FuzzOGASchedBaselineSnapshot(f *testing.F) {
	p := ogaTiny(f)
	pol, err := baselines.NewDRF(p, baselines.DRFSettings{})
	if err != nil {
		f.Fatal(err)
	}
	if _, err := pol.Decide(3, []float64{1, 1}); err != nil {
		f.Fatal(err)
	}
	snap, err := pol.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(snap, uint8(0))
	f.Add(snap[:len(snap)/2], uint8(1))
	f.Add([]byte(`{"format":"msched/baselines.OGASchedBaseline","version":1}`), uint8(2))
	f.Fuzz(func(t *testing.T, b []byte, which uint8) {
		name := baselines.OGASchedBaselineNames[int(which)%len(baselines.OGASchedBaselineNames)]
		pol, err := baselines.NewOGASchedBaseline(name, p)
		if err != nil {
			t.Fatal(err)
		}
		s := pol
		before, _ := s.MarshalBinary()
		if err := s.UnmarshalBinary(b); err != nil {
			after, _ := s.MarshalBinary()
			if string(before) != string(after) {
				t.Fatal("a refused snapshot changed the baseline")
			}
		}
	})
}
