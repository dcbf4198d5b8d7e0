package baselines_test

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/internal/snapshottest"
	"github.com/msched/msched/ogasched"
)

// craftedCase is a resealed edit of a state that no run reaches.
type craftedCase struct {
	name    string
	corrupt bool // also wraps snapshot.ErrCorrupt
	edit    func(st map[string]any)
}

// TestGangCraftedSnapshotsRefused: issue 30. Restored states of the gang
// policies that no run can reach were accepted: the ESDP gang family with
// more plays than slots or plays before the first decision (12 cases),
// GangLWTF with a waiting time above the slot count, FAIRNESS-gang with
// arrival counts above the slots (arrived = MaxInt64 wrapped one slot
// later). Each is refused with the family's ErrSnapshot and leaves the
// policy byte-identical and deciding on.
func TestGangCraftedSnapshotsRefused(t *testing.T) {
	n := func(v any) json.Number { return json.Number(fmt.Sprint(v)) }
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	count := func(st map[string]any) []any { return st["stats"].(map[string]any)["count"].([]any) }
	esdpCases := []craftedCase{
		{"plays before the first decision", false, func(st map[string]any) {
			st["started"], st["last_t"], st["pending"] = false, n(0), nil
			if w, ok := st["wait"].([]any); ok {
				for l := range w {
					w[l] = n(0)
				}
			}
		}},
		{"more plays than slots", false, func(st map[string]any) {
			count(st)[0] = n(num(st["last_t"]) + 2)
		}},
		{"plays near MaxInt on two channels of one component", false, func(st map[string]any) {
			c := count(st)
			c[0], c[1] = n(math.MaxInt), n(math.MaxInt)
		}},
	}
	resealFair := func(st map[string]any) {
		h := snapshot.NewHasher("msched/baselines.GangBaseline.state").Int(int(num(st["last"])))
		served, arrived := st["served"].([]any), st["arrived"].([]any)
		h.Int(len(served))
		for i := range served {
			h.Int(int(num(served[i]))).Int(int(num(arrived[i])))
		}
		st["check"] = h.Sum()
	}
	cases := map[string][]craftedCase{
		"esdp.GangPolicy": esdpCases,
		"HSWF-gang":       esdpCases,
		"LCF-gang":        esdpCases,
		"LWTF-gang": append([]craftedCase{
			{"waiting time above last_t+1", true, func(st map[string]any) {
				st["wait"].([]any)[0] = n(num(st["last_t"]) + 2)
			}},
			{"waiting time MaxInt", true, func(st map[string]any) { st["wait"].([]any)[1] = n(math.MaxInt) }},
		}, esdpCases...),
		"FAIRNESS-gang": {
			{"arrived MaxInt64", true, func(st map[string]any) {
				st["arrived"].([]any)[0] = n(math.MaxInt64)
				resealFair(st)
			}},
			{"arrived above last+1", true, func(st map[string]any) {
				st["arrived"].([]any)[1] = n(num(st["last"]) + 2)
				resealFair(st)
			}},
			{"arrivals before the first slot", true, func(st map[string]any) {
				st["last"] = n(-1)
				st["served"].([]any)[0] = n(0)
				st["arrived"].([]any)[0] = n(1)
				resealFair(st)
			}},
		},
	}
	runCrafted(t, gangStateful(), cases)
}

// runCrafted restores each case's edit of a 4-slot state into a policy
// driven 1 slot, and checks the refusal, the policy left byte-identical,
// and that it decides on.
func runCrafted(t *testing.T, list []stateful, cases map[string][]craftedCase) {
	seen := 0
	for _, c := range list {
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

// TestSlotBaselinesJobPastWindowRefused: issue 30. MAX-FIRST and
// EQUAL-SHARE accepted a restored active job past its window (arrived W
// or more slots before the last slot, or a deadline before it), which no
// Decide keeps.
func TestSlotBaselinesJobPastWindowRefused(t *testing.T) {
	n := func(v any) json.Number { return json.Number(fmt.Sprint(v)) }
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	firstJob := func(st map[string]any) map[string]any {
		return st["active"].([]any)[0].(map[string]any)["job"].(map[string]any)
	}
	past := []craftedCase{
		{"last slot just past the window (arrival + W)", true, func(st map[string]any) {
			job := firstJob(st)
			st["last"] = n(num(job["arrival"]) + 3) // W = 3 slots
			for _, a := range st["active"].([]any) {
				a.(map[string]any)["job"].(map[string]any)["deadline"] = n(math.MaxInt32)
			}
		}},
		{"last slot far past the window", true, func(st map[string]any) {
			st["last"] = n(num(st["last"]) + 1000)
			for _, a := range st["active"].([]any) {
				a.(map[string]any)["job"].(map[string]any)["deadline"] = n(math.MaxInt32)
			}
		}},
	}
	runCrafted(t, allStateful(), map[string][]craftedCase{"MAX-FIRST": past, "EQUAL-SHARE": past})
}

// TestGangFairnessNoWrap: the largest reachable counts (arrived = served =
// MaxInt64 after the slots up to MaxInt-1) are accepted, and one more
// slot saturates them instead of wrapping to a negative count.
func TestGangFairnessNoWrap(t *testing.T) {
	var fair stateful
	for _, c := range gangStateful() {
		if c.name == "FAIRNESS-gang" {
			fair = c
		}
	}
	p := fair.fresh(t)
	fair.drive(t, p, 0, 2)
	num := func(v any) int64 { x, _ := v.(json.Number).Int64(); return x }
	data := snapshottest.Edit(t, must[[]byte](t)(p.MarshalBinary()), func(st map[string]any) {
		st["last"] = json.Number(fmt.Sprint(math.MaxInt - 1))
		for _, k := range []string{"served", "arrived"} {
			for i := range st[k].([]any) {
				st[k].([]any)[i] = json.Number(fmt.Sprint(int64(math.MaxInt64)))
			}
		}
		h := snapshot.NewHasher("msched/baselines.GangBaseline.state").Int(int(num(st["last"])))
		h.Int(len(st["served"].([]any)))
		for range st["served"].([]any) {
			h.Int(math.MaxInt64).Int(math.MaxInt64)
		}
		st["check"] = h.Sum()
	})
	require.NoError(t, p.UnmarshalBinary(data))
	_, err := p.(interface {
		Decide(int, []float64) (ogasched.GangDecision, error)
	}).Decide(math.MaxInt, []float64{1, 1})
	require.NoError(t, err)
	snapshottest.Edit(t, must[[]byte](t)(p.MarshalBinary()), func(st map[string]any) {
		for _, k := range []string{"served", "arrived"} {
			for _, v := range st[k].([]any) {
				require.Equal(t, int64(math.MaxInt64), num(v), k)
			}
		}
	})
}
