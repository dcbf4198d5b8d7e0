// Package snapshottest holds the checks that every family's snapshot
// tests share: crafting a state and resealing it (so that it reaches the
// family's semantic validation past the integrity check), the bit-flip
// sweep, and the restore property of the fuzz targets.
package snapshottest

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/msched/msched/internal/snapshot"
)

// Policy is a policy that saves and restores its state.
type Policy interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// Edit decodes the state of the snapshot data (numbers kept as
// json.Number, so integers survive exactly), lets edit change it and
// returns the snapshot with the edited state and a recomputed check.
func Edit(t testing.TB, data []byte, edit func(state map[string]any)) []byte {
	t.Helper()
	var env map[string]json.RawMessage
	if err := json.Unmarshal(data, &env); err != nil {
		t.Fatalf("snapshottest: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(env["state"]))
	dec.UseNumber()
	var st map[string]any
	if err := dec.Decode(&st); err != nil {
		t.Fatalf("snapshottest: state: %v", err)
	}
	edit(st)
	raw, err := json.Marshal(st)
	if err != nil {
		t.Fatalf("snapshottest: %v", err)
	}
	env["state"] = raw
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatalf("snapshottest: %v", err)
	}
	out, err = snapshot.Reseal(out)
	if err != nil {
		t.Fatalf("snapshottest: %v", err)
	}
	return out
}

// Int returns the integer field key of the state of the snapshot p saves
// now (ok false if p cannot save or the field is absent).
func Int(p Policy, key string) (int, bool) {
	data, err := p.MarshalBinary()
	if err != nil {
		return 0, false
	}
	var env struct {
		State map[string]json.RawMessage `json:"state"`
	}
	if json.Unmarshal(data, &env) != nil {
		return 0, false
	}
	var v int
	if json.Unmarshal(env.State[key], &v) != nil {
		return 0, false
	}
	return v, true
}

// Slots returns the slots after last (-1: none yet) that a run of up to n
// slots can use without passing math.MaxInt-margin.
func Slots(last, n, margin int) []int {
	var out []int
	if last >= math.MaxInt-margin {
		return nil
	}
	for t := max(last+1, 0); len(out) < n && t <= math.MaxInt-margin; t++ {
		out = append(out, t)
	}
	return out
}

// Sweep flips the bits of data one at a time (all of them, or, if data
// has more than maxBits bits, every stride-th bit with an odd stride
// bits/maxBits, which covers the whole snapshot and every bit position of
// a byte) and requires restore (into a policy that then must be
// unchanged: unchanged reports it) to refuse every variant with an error
// wrapping sentinel. It returns the number of variants tried.
func Sweep(t testing.TB, data []byte, maxBits int, sentinel error, restore func([]byte) error, unchanged func() bool) int {
	t.Helper()
	bits := len(data) * 8
	stride := 1
	if bits > maxBits {
		stride = bits/maxBits | 1
	}
	n := 0
	v := bytes.Clone(data)
	for i := 0; i < bits; i += stride {
		v[i/8] ^= 1 << (i % 8)
		err := restore(v)
		v[i/8] ^= 1 << (i % 8)
		n++
		if err == nil {
			t.Fatalf("bit %d (byte %d %q) flipped: restored", i, i/8, data[i/8])
		}
		if !errors.Is(err, sentinel) {
			t.Fatalf("bit %d flipped: error %v does not wrap %v", i, err, sentinel)
		}
		if !unchanged() {
			t.Fatalf("bit %d flipped: a refused restore changed the policy", i)
		}
	}
	return n
}

// Restore checks the restore property of a fuzz target on data and, if
// data is an envelope, on data resealed (so that altered states reach the
// semantic validation): a fresh policy either refuses it with an error
// wrapping sentinel and stays unchanged, or accepts it, then run (which
// drives up to 10 slots on valid input and checks every decision's
// feasibility) succeeds, and the snapshot it then saves restores into
// another fresh policy that saves the same bytes.
func Restore(t *testing.T, data []byte, sentinel error, fresh func() Policy, run func(Policy) error) {
	t.Helper()
	variants := [][]byte{data}
	if re, err := snapshot.Reseal(data); err == nil && !bytes.Equal(re, data) {
		variants = append(variants, re)
	}
	for _, d := range variants {
		p := fresh()
		before, err := p.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.UnmarshalBinary(d); err != nil {
			if !errors.Is(err, sentinel) {
				t.Fatalf("error %v does not wrap %v", err, sentinel)
			}
			after, _ := p.MarshalBinary()
			if !bytes.Equal(before, after) {
				t.Fatalf("a refused restore changed the policy: %s", d)
			}
			continue
		}
		if err := run(p); err != nil {
			t.Fatalf("restored %s, then: %v", d, err)
		}
		saved, err := p.MarshalBinary()
		if err != nil {
			t.Fatalf("restored %s, ran, then MarshalBinary: %v", d, err)
		}
		q := fresh()
		if err := q.UnmarshalBinary(saved); err != nil {
			t.Fatalf("restored %s, ran, saved %s, which does not restore: %v", d, saved, err)
		}
		again, err := q.MarshalBinary()
		if err != nil || !bytes.Equal(saved, again) {
			t.Fatalf("round trip: %s != %s (%v)", again, saved, err)
		}
	}
}
