package ocorp

import (
	"fmt"
	"slices"
)

// Mapping relates a changed list of machines to the current one:
// Machines[i'] is the current index of the machine that machine i' of the
// new list continues, -1 for a new machine (the cluster-change contract of
// package bipartite). A nil Machines is the identity on the indices both
// lists have. AddMachine and RemoveMachine are the one-machine cases:
// AddMachine's mapping is the identity plus -1 at the end, RemoveMachine(i)'s
// the identity without i.
type Mapping struct {
	Machines []int
}

// Validate checks the new machines ms (ValidateMachines, at most
// MaxMachines) and m against n current machines: one entry per new
// machine, each -1 or a current index, none twice (nil is the identity).
// Errors wrap ErrValue, ErrEmpty, ErrTooLarge, ErrDimension or ErrMachine.
func (m Mapping) Validate(ms []Machine, n int) error {
	_, err := m.resolve(ms, n)
	return err
}

// resolve checks the new machines ms and m against n current machines and
// returns the full mapping.
func (m Mapping) resolve(ms []Machine, n int) ([]int, error) {
	if len(ms) > MaxMachines {
		return nil, fmt.Errorf("%w: ChangeCluster: %d machines, more than MaxMachines = %d", ErrTooLarge, len(ms), MaxMachines)
	}
	if err := ValidateMachines(ms); err != nil {
		return nil, fmt.Errorf("ChangeCluster: %w", err)
	}
	mp := m.Machines
	if mp == nil {
		mp = make([]int, len(ms))
		for i := range mp {
			mp[i] = i
			if i >= n {
				mp[i] = -1
			}
		}
	}
	if len(mp) != len(ms) {
		return nil, fmt.Errorf("%w: ChangeCluster: len(Mapping.Machines) = %d, want %d machines", ErrDimension, len(mp), len(ms))
	}
	seen := make(map[int]bool, len(mp))
	for i, v := range mp {
		if v < -1 || v >= n || (v >= 0 && seen[v]) {
			return nil, fmt.Errorf("%w: ChangeCluster: Mapping.Machines[%d] = %d out of [-1, %d) or repeated", ErrMachine, i, v, n)
		}
		if v >= 0 {
			seen[v] = true
		}
	}
	return mp, nil
}

// ChangeCluster moves o, in place, onto the machines ms, with m mapping
// each new machine to the current one it continues (-1 = new), under the
// cluster-change contract of package bipartite. The learned state
// (lambda_j, the running terms of Gamma) carries over as with AddMachine
// and RemoveMachine; the jobs that ran on a machine that leaves are placed
// elsewhere from the next Decide. A snapshot taken afterwards restores into
// a policy built by New on ms. On error (invalid machines: ErrValue,
// ErrEmpty, ErrTooLarge; a bad mapping: ErrDimension, ErrMachine) o is
// unchanged.
func (o *Policy) ChangeCluster(ms []Machine, m Mapping) error {
	if _, err := m.resolve(ms, len(o.c.d.ms)); err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// ChangeCluster moves o onto ms in place, as Policy.ChangeCluster does.
func (o *M) ChangeCluster(ms []Machine, m Mapping) error {
	if _, err := m.resolve(ms, len(o.c.d.ms)); err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// ChangeCluster moves o onto ms in place, as Policy.ChangeCluster does:
// the rates and the price nu of a machine that stays follow it to its new
// index; those of a machine that leaves are forgotten (its jobs are
// preempted, no switching cost holds them); a new machine's price starts
// at 0.
func (o *Plus) ChangeCluster(ms []Machine, m Mapping) error {
	mp, err := m.resolve(ms, len(o.d.ms))
	if err != nil {
		return err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	newIndex := make([]int, len(o.d.ms))
	for i := range newIndex {
		newIndex[i] = -1
	}
	nu := make([]float64, len(ms))
	for i, old := range mp {
		if old >= 0 {
			newIndex[old] = i
			if old < len(o.res.Nu) {
				nu[i] = o.res.Nu[old]
			}
		}
	}
	o.pk = pk
	o.d.setMachines(ms)
	o.res.Nu = nu
	for e, k := range o.prevM {
		if k >= 0 && k < len(newIndex) {
			o.prevM[e] = newIndex[k]
		}
	}
	return nil
}

// ChangeCluster moves p onto ms in place, as Policy.ChangeCluster does (a
// priority rule learns nothing; the slot order carries over).
func (p *Priority) ChangeCluster(ms []Machine, m Mapping) error {
	if _, err := m.resolve(ms, len(p.pk.ms)); err != nil {
		return err
	}
	return p.setMachines(slices.Clone(ms))
}
