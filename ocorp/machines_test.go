package ocorp

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type elastic interface {
	statefulPolicy
	AddMachine(Machine) error
	RemoveMachine(int) error
	Machines() []Machine
}

// TestChangingCluster: machines join and leave mid-run; every decision is
// feasible for the machines of its slot (world.step checks it), lambda of
// the live jobs is carried over, and bad operations leave the policy
// unchanged.
func TestChangingCluster(t *testing.T) {
	for name, mk := range statefulCtors() {
		t.Run(name, func(t *testing.T) {
			sp, err := mk(snapMachines)
			require.NoError(t, err)
			p := sp.(elastic)
			w := newWorld(11, snapMachines)
			ops := []func() (int, error){ // returns the machine index touched
				func() (int, error) { return 1, p.RemoveMachine(1) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 16, Memory: 32}) },
				func() (int, error) { return 0, p.RemoveMachine(0) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 2, Memory: 16}) },
				func() (int, error) { return -1, p.AddMachine(Machine{Cores: 3, Memory: 4}) },
				func() (int, error) { return 2, p.RemoveMachine(2) },
			}
			for _, op := range ops {
				for range 6 {
					w.step(t, p)
				}
				lambdas := map[int]float64{}
				for _, a := range w.live {
					lambdas[a.ID] = lambdaOf(p, a.ID)
				}
				i, err := op()
				require.NoError(t, err)
				if i >= 0 {
					w.ms = slices.Delete(w.ms, i, i+1)
				} else {
					w.ms = p.Machines()
				}
				require.Equal(t, w.ms, p.Machines())
				for id, l := range lambdas {
					require.Equal(t, l, lambdaOf(p, id), "lambda of job %d carried over", id)
				}
				// Drop live jobs that no longer fit (the documented rule).
				mm := maxMemory(w.ms)
				w.live = slices.DeleteFunc(w.live, func(a ActiveJob) bool { return a.Memory > mm })
			}
			for range 6 {
				w.step(t, p)
			}
			before, _ := p.MarshalBinary()
			assert.ErrorIs(t, p.RemoveMachine(-1), ErrMachine)
			assert.ErrorIs(t, p.RemoveMachine(len(w.ms)), ErrMachine)
			assert.ErrorIs(t, p.AddMachine(Machine{Cores: 0}), ErrValue)
			after, _ := p.MarshalBinary()
			assert.Equal(t, before, after)
			one, _ := mk([]Machine{{Cores: 1, Memory: 1}})
			assert.ErrorIs(t, one.(elastic).RemoveMachine(0), ErrMachine, "the last machine")
		})
	}
}

func lambdaOf(p OnlinePolicy, id int) float64 {
	switch q := p.(type) {
	case *Policy:
		return q.Lambda(id)
	case *M:
		return q.Lambda(id)
	case *Plus:
		return q.Lambda(id)
	}
	return 0
}
