package ogasched

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/internal/snapshot"
)

// snapInstance is a small Table II style instance and a trace with gaps:
// slots[i] is the slot of the i-th step (0, 1, 3, 4, 7, ...).
func snapInstance(t testing.TB) (*Problem, [][]float64, []int) {
	rng := rand.New(rand.NewPCG(7, 3))
	cfg := DefaultConfig()
	cfg.Ports, cfg.Nodes = 6, 16
	p, err := Generate(cfg, rng)
	require.NoError(t, err)
	tr, err := BernoulliTrace(p.NumPorts(), 60, 0.7, rng)
	require.NoError(t, err)
	slots := make([]int, len(tr.Arrivals))
	s := 0
	for i := range slots {
		slots[i] = s
		s += 1 + i%3
	}
	return p, tr.Arrivals, slots
}

// drive runs steps [from, to) of the trace through pol and returns a copy
// of every decision. Every third step has no Observe (a slot whose
// feedback never came).
func drive(t testing.TB, pol *Policy, xs [][]float64, slots []int, from, to int) [][]float64 {
	var out [][]float64
	for i := from; i < to; i++ {
		y, err := pol.Decide(slots[i], xs[i])
		require.NoError(t, err)
		out = append(out, append([]float64(nil), y...))
		if i%3 != 2 {
			require.NoError(t, pol.Observe(slots[i], xs[i]))
		}
	}
	return out
}

func bitsEqual(t testing.TB, want, got [][]float64, msg string) {
	t.Helper()
	require.Equal(t, len(want), len(got), msg)
	for i := range want {
		require.Equal(t, len(want[i]), len(got[i]), msg)
		for j := range want[i] {
			if math.Float64bits(want[i][j]) != math.Float64bits(got[i][j]) {
				t.Fatalf("%s: step %d coordinate %d: %v (bits %x) != %v (bits %x)", msg, i, j,
					got[i][j], math.Float64bits(got[i][j]), want[i][j], math.Float64bits(want[i][j]))
			}
		}
	}
}

// Issue 13: run N slots, snapshot, restore into a fresh policy built by New
// on the same problem, run M more: decisions bit-identical to an
// uninterrupted run, for every step schedule and both projections, with the
// snapshot taken after an Observe and between a Decide and its Observe.
func TestSnapshotContinuationIsBitIdentical(t *testing.T) {
	p, xs, slots := snapInstance(t)
	T := len(xs)
	settings := map[string]Settings{
		"default":         {},
		"horizon":         {Horizon: 200},
		"paper geometric": {Step: PaperGeometric()},
		"constant":        {Step: p.OptimalConstant(200)},
		"paper proj":      {PaperProjection: true, Step: PaperGeometric()},
		"init":            {Init: initVector(p)},
	}
	for name, s := range settings {
		ref, err := New(p, s)
		require.NoError(t, err)
		want := drive(t, ref, xs, slots, 0, T)
		ref.Close()
		for _, N := range []int{0, 1, 2, 17, T - 1} {
			a, err := New(p, s)
			require.NoError(t, err)
			got := drive(t, a, xs, slots, 0, N)
			snap, err := a.MarshalBinary()
			require.NoError(t, err)
			js, err := json.Marshal(a)
			require.NoError(t, err)
			require.Equal(t, snap, js, "MarshalJSON gives the bytes of MarshalBinary")
			a.Close()

			s2 := s
			s2.Workers = 3 // decisions do not depend on the workers
			b, err := New(p, s2)
			require.NoError(t, err)
			if N%2 == 0 {
				require.NoError(t, b.UnmarshalBinary(snap))
			} else {
				require.NoError(t, json.Unmarshal(js, b))
			}
			got = append(got, drive(t, b, xs, slots, N, T)...)
			b.Close()
			bitsEqual(t, want, got, name)
		}
		// Between Decide and Observe: the restored policy takes the
		// pending Observe.
		a, err := New(p, s)
		require.NoError(t, err)
		got := drive(t, a, xs, slots, 0, 10)
		y, err := a.Decide(slots[10], xs[10])
		require.NoError(t, err)
		got = append(got, append([]float64(nil), y...))
		snap, err := a.MarshalBinary()
		require.NoError(t, err)
		a.Close()
		b, err := New(p, s)
		require.NoError(t, err)
		require.NoError(t, b.UnmarshalBinary(snap))
		require.NoError(t, b.Observe(slots[10], xs[10]))
		got = append(got, drive(t, b, xs, slots, 11, T)...)
		b.Close()
		bitsEqual(t, want, got, name+" mid-slot")
	}
}

func initVector(p *Problem) []float64 {
	y := make([]float64, p.Dim())
	for i := range y {
		y[i] = float64(i%5) / 4
	}
	return y
}

// A snapshot restores only into a policy on the same model; truncated or
// altered bytes are refused; every refusal wraps ErrSnapshot and the
// internal/snapshot cause and leaves the policy unchanged.
func TestSnapshotRejectsAndLeavesPolicyUnchanged(t *testing.T) {
	p, xs, slots := snapInstance(t)
	a, err := New(p, Settings{})
	require.NoError(t, err)
	defer a.Close()
	drive(t, a, xs, slots, 0, 20)
	snap, err := a.MarshalBinary()
	require.NoError(t, err)

	victim, err := New(p, Settings{})
	require.NoError(t, err)
	defer victim.Close()
	drive(t, victim, xs, slots, 0, 5)
	before, err := victim.MarshalBinary()
	require.NoError(t, err)
	unchanged := func(msg string) {
		t.Helper()
		now, err := victim.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, before, now, "%s changed the policy", msg)
	}

	// Another model: one capacity, another step, the paper projection.
	q := *p
	q.Capacity = append([][]float64(nil), p.Capacity...)
	q.Capacity[3] = append([]float64(nil), p.Capacity[3]...)
	q.Capacity[3][0] += 1
	for name, mk := range map[string]func() (*Policy, error){
		"capacity":   func() (*Policy, error) { return New(&q, Settings{}) },
		"step":       func() (*Policy, error) { return New(p, Settings{Step: PaperGeometric()}) },
		"horizon":    func() (*Policy, error) { return New(p, Settings{Horizon: 10}) },
		"projection": func() (*Policy, error) { return New(p, Settings{PaperProjection: true}) },
	} {
		other, err := mk()
		require.NoError(t, err)
		before, _ := other.MarshalBinary()
		err = other.UnmarshalBinary(snap)
		require.ErrorIs(t, err, ErrSnapshot, name)
		require.ErrorIs(t, err, snapshot.ErrModel, name)
		after, _ := other.MarshalBinary()
		require.Equal(t, before, after, name)
		other.Close()
	}

	// Every truncation.
	for n := 0; n < len(snap); n++ {
		err := victim.UnmarshalBinary(snap[:n])
		require.ErrorIs(t, err, ErrSnapshot, "truncated to %d bytes", n)
	}
	unchanged("a truncated snapshot")
	// Every single-byte alteration is refused (by the JSON syntax, the
	// envelope, the model fingerprint, the value checks or the state's
	// check sum), or, where it does not change the meaning (a digit of
	// the exponent form, whitespace), restores exactly the original state.
	for i := range snap {
		for _, c := range []byte{'0', '9', '-', '"', 'x', ' '} {
			if snap[i] == c {
				continue
			}
			alt := append([]byte(nil), snap...)
			alt[i] = c
			probe, err := New(p, Settings{})
			require.NoError(t, err)
			if err := probe.UnmarshalBinary(alt); err != nil {
				require.ErrorIs(t, err, ErrSnapshot, "byte %d -> %q", i, c)
			} else {
				got, _ := probe.MarshalBinary()
				require.Equal(t, snap, got, "byte %d -> %q was accepted with another meaning", i, c)
			}
			probe.Close()
		}
	}
	require.ErrorIs(t, victim.UnmarshalBinary(append(append([]byte(nil), snap...), '{')), ErrSnapshot)
	// A state with a wrong length, a NaN-like value or an infeasible y,
	// resealed with a valid check sum: the value checks refuse it.
	var env struct {
		Format  string      `json:"format"`
		Version int         `json:"version"`
		Model   string      `json:"model"`
		State   policyState `json:"state"`
	}
	require.NoError(t, json.Unmarshal(snap, &env))
	for name, edit := range map[string]func(*policyState){
		"short y":       func(s *policyState) { s.Y = s.Y[1:] },
		"negative":      func(s *policyState) { s.Y[0] = -1 },
		"above demand":  func(s *policyState) { s.Y[0] = 1e9 },
		"decided < -1":  func(s *policyState) { s.Decided = -2 },
		"observed @ -1": func(s *policyState) { s.Decided, s.Observed = -1, true },
	} {
		st := env.State
		st.Y = append([]float64(nil), env.State.Y...)
		edit(&st)
		st.Check = st.sum()
		bad, err := snapshot.Encode(env.Format, env.Version, env.Model, st)
		require.NoError(t, err)
		err = victim.UnmarshalBinary(bad)
		require.ErrorIs(t, err, ErrSnapshot, name)
		require.ErrorIs(t, err, snapshot.ErrCorrupt, name)
	}
	unchanged("an altered snapshot")
	// A restored policy honours the restored slots.
	require.NoError(t, victim.UnmarshalBinary(snap))
	_, err = victim.Decide(slots[19], xs[19])
	require.ErrorIs(t, err, ErrSlot)
}

// FuzzPolicySnapshot: arbitrary bytes given to UnmarshalBinary give an
// error or a restored policy whose y is feasible; never a panic, and a
// refusal leaves the policy unchanged.
func FuzzPolicySnapshot(f *testing.F) {
	p := handProblem(f)
	pol, err := New(p, Settings{})
	if err != nil {
		f.Fatal(err)
	}
	for s := 0; s < 3; s++ {
		if _, err := pol.Decide(s, []float64{1, 1}); err != nil {
			f.Fatal(err)
		}
		if err := pol.Observe(s, []float64{1, 0}); err != nil {
			f.Fatal(err)
		}
	}
	snap, err := pol.MarshalBinary()
	if err != nil {
		f.Fatal(err)
	}
	pol.Close()
	f.Add(snap)
	f.Add(snap[:len(snap)/2])
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		pol, err := New(p, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		defer pol.Close()
		before, _ := pol.MarshalBinary()
		if err := pol.UnmarshalBinary(b); err != nil {
			after, _ := pol.MarshalBinary()
			if string(before) != string(after) {
				t.Fatal("a refused snapshot changed the policy")
			}
			return
		}
		if err := p.Feasible(pol.Y(), 1e-6); err != nil {
			t.Fatalf("restored an infeasible y: %v", err)
		}
		if pol.decided >= 0 {
			if _, err := pol.Decide(pol.decided+1, []float64{1, 1}); err != nil && pol.decided != math.MaxInt {
				t.Fatal(err)
			}
		}
	})
}
