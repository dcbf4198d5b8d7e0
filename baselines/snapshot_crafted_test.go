package baselines_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/internal/snapshottest"
)

// TestCraftedSnapshotsRefusedAll: for every family but ocorp (whose cases
// are in package ocorp), states with a recomputed check whose values no
// run reaches, or whose parts contradict each other, are refused with the
// family's ErrSnapshot and snapshot.ErrCorrupt (or the family's own
// sentinel for a malformed part), and leave the policy unchanged.
func TestCraftedSnapshotsRefusedAll(t *testing.T) {
	n := func(v any) json.Number { return json.Number(fmt.Sprint(v)) }
	stats := func(st map[string]any) map[string]any { return st["stats"].(map[string]any) }
	firstRes := func(st map[string]any) map[string]any { return st["reservations"].([]any)[0].(map[string]any) }
	firstActive := func(st map[string]any) map[string]any { return st["active"].([]any)[0].(map[string]any) }
	cases := map[string][]struct {
		name    string
		corrupt bool // also wraps snapshot.ErrCorrupt
		edit    func(st map[string]any)
	}{
		"ogasched.Policy": {
			{"state {}", true, func(st map[string]any) { clear(st) }},
			{"y above the capacity, own check recomputed too", true, func(st map[string]any) { st["y"].([]any)[0] = n(1e300) }},
		},
		"DRF": {
			{"last -2", true, func(st map[string]any) { st["last"] = n(-2) }},
			{"state {}", true, func(st map[string]any) { clear(st) }},
		},
		"onsocmax.Policy": {
			{"state {}", true, func(st map[string]any) { clear(st) }},
			{"x 1e300", true, func(st map[string]any) { firstRes(st)["x"] = n(1e300) }},
			{"x NaN-free but above MaxValue with a huge capacity", true, func(st map[string]any) {
				cp := st["capacity"].([]any)
				for i := range cp {
					cp[i] = n(1e300)
				}
				firstRes(st)["x"] = n(1e16)
			}},
			{"a reservation given twice", true, func(st map[string]any) {
				rs := st["reservations"].([]any)
				st["reservations"] = append([]any{rs[0]}, rs...)
			}},
			{"reservations before the first Decide", true, func(st map[string]any) {
				st["started"], st["now"] = false, n(0)
			}},
			{"now near MaxInt", true, func(st map[string]any) { st["now"] = n(math.MaxInt - 1) }},
		},
		"MAX-FIRST": {
			{"remaining above rho", true, func(st map[string]any) {
				a := firstActive(st)
				a["rem"] = n(1e9)
			}},
			{"last MaxInt", true, func(st map[string]any) { st["last"] = n(math.MaxInt) }},
			{"active left out", true, func(st map[string]any) { delete(st, "active") }},
		},
		"EQUAL-SHARE": {
			{"a job twice", true, func(st map[string]any) {
				st["active"] = append(st["active"].([]any), st["active"].([]any)[0])
			}},
		},
		"esdp.Policy": {
			{"state {}", true, func(st map[string]any) { clear(st) }},
			{"sum above count", false, func(st map[string]any) { stats(st)["sum"].([]any)[0] = n(1e9) }},
			{"count negative", false, func(st map[string]any) { stats(st)["count"].([]any)[0] = n(-1) }},
			{"stats key miscased", false, func(st map[string]any) {
				s := stats(st)
				s["Count"] = s["count"]
				delete(s, "count")
			}},
			{"stats key left out", false, func(st map[string]any) { delete(stats(st), "sum") }},
			{"last_t MaxInt", false, func(st map[string]any) { st["last_t"] = n(math.MaxInt) }},
			{"pending above the capacities", false, func(st map[string]any) {
				st["pending"] = []any{n(0), n(1), n(2), n(3), n(4), n(5)}
			}},
		},
		"LWTF": {
			{"waiting time MaxInt", true, func(st map[string]any) { st["wait"].([]any)[0] = n(math.MaxInt) }},
			{"waiting time above last_t+1", true, func(st map[string]any) {
				last, _ := st["last_t"].(json.Number).Int64()
				st["wait"].([]any)[1] = n(last + 2)
			}},
			{"pending above the capacities", false, func(st map[string]any) {
				st["pending"] = []any{n(0), n(1), n(2), n(3), n(4), n(5)}
			}},
		},
		"HSWF": {{"sum NaN-like (1e400)", false, func(st map[string]any) { stats(st)["sum"].([]any)[0] = n("1e400") }}},
		"CUCB": {{"pending before any Decide", false, func(st map[string]any) {
			st["started"], st["last_t"], st["pending"] = false, n(0), []any{n(0)}
		}}},
		"Thompson": {{"generator state cut", false, func(st map[string]any) { st["rng"] = "AAAA" }}},
		"LCF":      {{"wait in a state without it", false, func(st map[string]any) { st["wait"] = []any{n(0), n(0)} }}},
		"Tetris":   {{"last -2", true, func(st map[string]any) { st["last"] = n(-2) }}},
		"SRPT":     {{"state {}", true, func(st map[string]any) { clear(st) }}},
		"FirstFit": {{"last -2", true, func(st map[string]any) { st["last"] = n(-2) }}},
		"HSWF-channel": {{"pending above the capacities", false, func(st map[string]any) {
			st["pending"] = []any{n(0), n(1), n(2), n(3), n(4), n(5)}
		}}},
	}
	seen := 0
	for _, c := range allStateful() {
		for _, e := range cases[c.name] {
			seen++
			t.Run(c.name+"/"+e.name, func(t *testing.T) {
				src := c.fresh(t)
				c.drive(t, src, 0, 4)
				data := must[[]byte](t)(src.MarshalBinary())
				victim := c.fresh(t)
				c.drive(t, victim, 0, 1)
				before := must[[]byte](t)(victim.MarshalBinary())
				require.NoError(t, victim.UnmarshalBinary(snapshottest.Edit(t, data, func(map[string]any) {})), "unedited")
				require.NoError(t, victim.UnmarshalBinary(before))
				bad := snapshottest.Edit(t, data, e.edit)
				if c.name == "ogasched.Policy" {
					bad = resealOGA(t, bad)
				}
				err := victim.UnmarshalBinary(bad)
				require.ErrorIs(t, err, c.sentinel, "%s", bad)
				if e.corrupt {
					require.ErrorIs(t, err, snapshot.ErrCorrupt, "%s", bad)
				}
				t.Log(err)
				require.Equal(t, string(before), string(must[[]byte](t)(victim.MarshalBinary())), "a refused restore changed the policy")
				c.drive(t, victim, 1, 3) // and it decides on
			})
		}
	}
	total := 0
	for _, v := range cases {
		total += len(v)
	}
	require.Equal(t, total, seen, "a case names no policy")
}

// resealOGA recomputes the state's own check field of an ogasched.Policy
// snapshot (ogasched/snapshot.go, policyState.sum) and then the envelope's.
func resealOGA(t *testing.T, data []byte) []byte {
	return snapshottest.Edit(t, data, func(st map[string]any) {
		if st["y"] == nil {
			return
		}
		d, _ := st["decided"].(json.Number).Int64()
		h := snapshot.NewHasher("msched/ogasched.Policy.state").Int(int(d))
		if st["observed"] == true {
			h.Int(1)
		} else {
			h.Int(0)
		}
		var y []float64
		for _, v := range st["y"].([]any) {
			f, _ := v.(json.Number).Float64()
			y = append(y, f)
		}
		st["check"] = h.Floats(y).Sum()
	})
}
