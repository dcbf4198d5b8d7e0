package ocorp

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/internal/snapshottest"
)

func jobsOf(st map[string]any) []map[string]any {
	var out []map[string]any
	for _, j := range st["jobs"].([]any) {
		out = append(out, j.(map[string]any))
	}
	return out
}

func num(v any) float64 {
	f, _ := v.(json.Number).Float64()
	return f
}

// TestCraftedSnapshotsRefused: states with a recomputed check (so that
// only the semantic validation stands between them and the policy) whose
// values no run reaches, or whose parts contradict each other, are
// refused with ErrSnapshot and ErrCorrupt, the policy is unchanged and
// decides on.
func TestCraftedSnapshotsRefused(t *testing.T) {
	huge := json.Number("1e308")
	cases := []struct {
		name   string
		policy string
		edit   func(st map[string]any)
	}{
		{"state replaced by {}", "OCORP", func(st map[string]any) { clear(st) }},
		{"jobs left out", "OCORP", func(st map[string]any) { delete(st, "jobs") }},
		{"lambda 1e308", "OCORP", func(st map[string]any) { jobsOf(st)[0]["lambda"] = huge }},
		{"lambda 1e308 (OCORP+M)", "OCORP+M", func(st map[string]any) { jobsOf(st)[0]["lambda"] = huge }},
		{"lambda 1e308 (OCORP+)", "OCORP+a10", func(st map[string]any) { jobsOf(st)[0]["lambda"] = huge }},
		{"lambda above the bound", "OCORP", func(st map[string]any) {
			b := (&Settings{K: 2, Step: ExperimentStep{K: 2}}).bounds(int(num(st["last"])), 0, false)
			jobsOf(st)[0]["lambda"] = json.Number(fmtG(b.lambda * 1.01))
		}},
		{"gmax 1e300", "OCORP", func(st map[string]any) { st["gmax"] = json.Number("1e300") }},
		{"vol 1e308 (found by FuzzRestoreNumbers: 4 vol overflowed)", "OCORP", func(st map[string]any) { st["vol"] = huge }},
		{"gamma below gmax", "OCORP", func(st map[string]any) { st["gamma"] = json.Number(fmtG(num(st["gmax"]) / 2)) }},
		{"gamma above max(gmax, 4 vol)", "OCORP", func(st map[string]any) {
			st["gamma"] = json.Number(fmtG(4*num(st["vol"]) + num(st["gmax"]) + 1))
		}},
		{"vol below the live jobs", "OCORP", func(st map[string]any) { st["vol"] = json.Number("0") }},
		{"jobs before the first slot", "OCORP", func(st map[string]any) { st["last"] = json.Number("-1") }},
		{"decisions in OCORP", "OCORP", func(st map[string]any) { st["decisions"] = json.Number("1") }},
		{"nu 1e308", "OCORP+a10", func(st map[string]any) { st["nu"].([]any)[0] = huge }},
		{"tau 1e308", "OCORP+a10", func(st map[string]any) { jobsOf(st)[0]["tau"] = huge }},
		{"nu 1e308 (alpha 10, not normalised)", "OCORP+raw", func(st map[string]any) { st["nu"].([]any)[1] = huge }},
		{"tau above 2(2 alpha + 1) with Normalize", "OCORP+a10", func(st map[string]any) { jobsOf(st)[0]["tau"] = json.Number("42.5") }},
		{"decisions after the slots", "OCORP+a10", func(st map[string]any) {
			st["decisions"] = json.Number(fmtG(num(st["last"]) + 2))
		}},
		{"rates summing above 1", "OCORP+a10", func(st map[string]any) {
			j := jobsOf(st)[0]
			j["prev"], j["machines"], j["rates"] = true, []any{json.Number("0"), json.Number("1")}, []any{json.Number("0.75"), json.Number("0.5")}
		}},
		{"prev without a decision", "OCORP+a10", func(st map[string]any) {
			st["decisions"] = json.Number("0")
		}},
		{"last -5", "Transient", func(st map[string]any) { st["last"] = json.Number("-5") }},
	}
	ctors := statefulCtors()
	ctors["OCORP+raw"] = func(ms []Machine) (statefulPolicy, error) { return NewPlus(ms, PlusSettings{Alpha: 10}) }
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mk := ctors[c.policy]
			src, err := mk(snapMachines)
			require.NoError(t, err)
			w := newWorld(4, snapMachines)
			for range 8 {
				w.step(t, src)
			}
			data, err := src.MarshalBinary()
			require.NoError(t, err)
			victim, err := mk(snapMachines)
			require.NoError(t, err)
			wv := newWorld(5, snapMachines)
			wv.t = 1
			wv.step(t, victim)
			before, err := victim.MarshalBinary()
			require.NoError(t, err)
			// The unedited state, resealed, restores: the edit is what is refused.
			require.NoError(t, victim.UnmarshalBinary(snapshottest.Edit(t, data, func(map[string]any) {})))
			require.NoError(t, victim.UnmarshalBinary(before))

			bad := snapshottest.Edit(t, data, c.edit)
			err = victim.UnmarshalBinary(bad)
			require.ErrorIs(t, err, ErrSnapshot, "%s", bad)
			require.ErrorIs(t, err, snapshot.ErrCorrupt, "%s", bad)
			t.Log(err)
			after, err := victim.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, string(before), string(after), "a refused restore changed the policy")
			wv.step(t, victim) // and the policy decides on
		})
	}
}

func fmtG(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReachableStatesRestore: every state a run reaches restores: the
// bounds never refuse a policy's own snapshot, over long runs with the
// experiment step, a fixed Gamma, the theory step and OCORP+ with and
// without normalisation.
func TestReachableStatesRestore(t *testing.T) {
	ts, err := NewTheoryStep(1000, 2, 0.5)
	require.NoError(t, err)
	ctors := map[string]func(ms []Machine) (statefulPolicy, error){
		"OCORP":            func(ms []Machine) (statefulPolicy, error) { return New(ms, Settings{}) },
		"OCORP-Gamma2.5e3": func(ms []Machine) (statefulPolicy, error) { return New(ms, Settings{Gamma: 2500.5}) },
		"OCORP+M-theory":   func(ms []Machine) (statefulPolicy, error) { return NewM(ms, Settings{Step: ts, InitLambda: 3}) },
		"OCORP+a10":        func(ms []Machine) (statefulPolicy, error) { return NewPlus(ms, PlusSettings{Alpha: 10}) },
		"OCORP+a0.01-norm": func(ms []Machine) (statefulPolicy, error) {
			return NewPlus(ms, PlusSettings{Alpha: 0.01, Normalize: true})
		},
		"OCORP+a100-Gamma": func(ms []Machine) (statefulPolicy, error) {
			return NewPlus(ms, PlusSettings{Alpha: 100, Base: Settings{Gamma: 5000}})
		},
	}
	slots := reachableSlots
	if testing.Short() {
		slots = 40
	}
	for name, mk := range ctors {
		t.Run(name, func(t *testing.T) {
			p, err := mk(snapMachines)
			require.NoError(t, err)
			w := newWorld(11, snapMachines)
			maxLambda := 0.0
			for range slots {
				w.step(t, p)
				data, err := p.MarshalBinary()
				require.NoError(t, err)
				q, err := mk(snapMachines)
				require.NoError(t, err)
				require.NoError(t, q.UnmarshalBinary(data), "slot %d", w.t)
				var env struct {
					State dualState `json:"state"`
				}
				require.NoError(t, json.Unmarshal(data, &env))
				for _, j := range env.State.Jobs {
					maxLambda = max(maxLambda, j.Lambda)
				}
			}
			require.False(t, math.IsInf(maxLambda, 0))
			t.Logf("%d slots, largest lambda %.4g", slots, maxLambda)
		})
	}
}
