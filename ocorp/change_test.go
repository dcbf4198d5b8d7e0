package ocorp

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChangeClusterEqualsOneMachineMethods: ChangeCluster with the mapping
// of RemoveMachine(i) (the identity without i) or of AddMachine (the
// identity plus -1) leaves every policy of the package in the state the
// one-machine method gives (same snapshot bytes, same later decisions), and
// OCORP+'s prices follow their machines.
func TestChangeClusterEqualsOneMachineMethods(t *testing.T) {
	type changer interface {
		statefulPolicy
		AddMachine(Machine) error
		RemoveMachine(int) error
		ChangeCluster([]Machine, Mapping) error
	}
	mks := map[string]func([]Machine) (changer, error){
		"OCORP":   func(ms []Machine) (changer, error) { return New(ms, Settings{Fill: true}) },
		"OCORP+M": func(ms []Machine) (changer, error) { return NewM(ms, Settings{Fill: true}) },
		"OCORP+": func(ms []Machine) (changer, error) {
			return NewPlus(ms, PlusSettings{Alpha: 1, Base: Settings{Fill: true}})
		},
		"SVF": func(ms []Machine) (changer, error) { return NewPriority("SVF", ms, VolumeKey) },
	}
	extra := Machine{Cores: 5, Memory: 16} // keeps every job placeable after a removal
	for name, mk := range mks {
		for _, remove := range []int{0, 1, 2} {
			a, err := mk(snapMachines)
			require.NoError(t, err)
			b, err := mk(snapMachines)
			require.NoError(t, err)
			wa, wb := newWorld(3, snapMachines), newWorld(3, snapMachines)
			for range 6 {
				require.Equal(t, wa.step(t, a), wb.step(t, b))
			}
			var nuBefore []float64
			if p, ok := a.(*Plus); ok {
				nuBefore = slices.Clone(p.res.Nu)
			}
			require.NoError(t, a.RemoveMachine(remove), name)
			ms := slices.Delete(slices.Clone(snapMachines), remove, remove+1)
			mp := slices.Delete([]int{0, 1, 2}, remove, remove+1)
			require.NoError(t, b.ChangeCluster(ms, Mapping{Machines: mp}), name)
			if p, ok := b.(*Plus); ok && len(nuBefore) == 3 {
				for i, old := range mp {
					require.Equal(t, nuBefore[old], p.res.Nu[i], "%s: nu of new machine %d", name, i)
				}
			}
			require.NoError(t, a.AddMachine(extra), name)
			require.NoError(t, b.ChangeCluster(append(slices.Clone(ms), extra), Mapping{Machines: []int{0, 1, -1}}), name)
			sa, err := a.MarshalBinary()
			require.NoError(t, err)
			sb, err := b.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, string(sa), string(sb), "%s remove %d", name, remove)
			wa.ms = append(slices.Clone(ms), extra)
			wb.ms = wa.ms
			for range 6 {
				require.Equal(t, wa.step(t, a), wb.step(t, b), "%s remove %d", name, remove)
			}
			before, err := b.MarshalBinary()
			require.NoError(t, err)
			require.ErrorIs(t, b.ChangeCluster(ms, Mapping{Machines: []int{0, 0}}), ErrMachine)
			require.ErrorIs(t, b.ChangeCluster(ms, Mapping{Machines: []int{0}}), ErrDimension)
			require.ErrorIs(t, b.ChangeCluster(nil, Mapping{}), ErrEmpty)
			after, err := b.MarshalBinary()
			require.NoError(t, err)
			require.Equal(t, before, after, "%s: a failed change changed the policy", name)
		}
	}
}
