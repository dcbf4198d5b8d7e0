package ocorp

import (
	"fmt"
	"slices"
)

// A cluster that changes while the scheduler runs. Every policy of the
// package takes AddMachine and RemoveMachine between two Decide calls:
//
//   - AddMachine(m) appends m as machine len(Machines()): the indices of
//     the others do not change.
//   - RemoveMachine(i) removes machine i: the machines after it move down
//     one index (i+1 becomes i, ...), as in a slice. The jobs that ran on
//     it are preempted: they stay in the caller's observation with their
//     remaining work and are placed on the other machines from the next
//     Decide (OCORP+ forgets their rates on the removed machine, so the
//     switching cost (32) does not hold them there).
//
// The learned state of the rest is carried over: lambda_j of every live
// job, the running terms of Gamma (the online Gamma of (27) then uses the
// new total of cores, 4 sum_j v_j / sum_i C_i), OCORP+'s rates on the
// remaining machines and their prices nu. A live job whose memory no
// longer fits any machine is an *UnfitError at the next Decide (drop it
// from the observation). Decisions name machines by their index at the
// time of the Decide, so re-read Machines() (or keep your own list in
// step) after every change. A snapshot is fingerprinted on the machines:
// restore it into a policy on the same machines (rebuild with New and
// replay the same AddMachine/RemoveMachine calls, then restore).
//
// Errors: an invalid machine wraps ErrValue, an index out of range or the
// removal of the last machine wraps ErrMachine, more than MaxMachines
// machines wraps ErrTooLarge; the policy is then unchanged.

// withMachine returns ms with m appended, validated.
func withMachine(ms []Machine, m Machine) ([]Machine, error) {
	if len(ms) >= MaxMachines {
		return nil, fmt.Errorf("%w: machine %d: more than MaxMachines = %d machines", ErrTooLarge, len(ms), MaxMachines)
	}
	out := append(slices.Clip(ms), m)
	if err := ValidateMachines(out); err != nil {
		return nil, fmt.Errorf("add machine %d: %w", len(ms), err)
	}
	return out, nil
}

// withoutMachine returns ms without machine i.
func withoutMachine(ms []Machine, i int) ([]Machine, error) {
	if i < 0 || i >= len(ms) {
		return nil, fmt.Errorf("%w: remove machine %d of %d", ErrMachine, i, len(ms))
	}
	if len(ms) == 1 {
		return nil, fmt.Errorf("%w: remove machine %d: the last machine", ErrMachine, i)
	}
	return slices.Delete(slices.Clone(ms), i, i+1), nil
}

// setMachines installs the validated ms in the dual state and a new packer.
func (c *core) setMachines(ms []Machine) error {
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	c.pk = pk
	c.d.setMachines(ms)
	return nil
}

// AddMachine appends machine m (see the package's rules for a changing
// cluster in machines.go: indices of the others unchanged, state kept).
func (o *Policy) AddMachine(m Machine) error {
	ms, err := withMachine(o.c.d.ms, m)
	if err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// RemoveMachine removes machine i; machines after i move down one index.
// Jobs that ran on it are placed elsewhere from the next Decide.
func (o *Policy) RemoveMachine(i int) error {
	ms, err := withoutMachine(o.c.d.ms, i)
	if err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// AddMachine appends machine m, as Policy.AddMachine does.
func (o *M) AddMachine(m Machine) error {
	ms, err := withMachine(o.c.d.ms, m)
	if err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// RemoveMachine removes machine i, as Policy.RemoveMachine does.
func (o *M) RemoveMachine(i int) error {
	ms, err := withoutMachine(o.c.d.ms, i)
	if err != nil {
		return err
	}
	return o.c.setMachines(ms)
}

// AddMachine appends machine m, as Policy.AddMachine does; its price nu
// starts at 0.
func (o *Plus) AddMachine(m Machine) error {
	ms, err := withMachine(o.d.ms, m)
	if err != nil {
		return err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	o.pk = pk
	o.d.setMachines(ms)
	o.res.Nu = append(o.res.Nu, 0)
	return nil
}

// RemoveMachine removes machine i, as Policy.RemoveMachine does: the rates
// of the previous decision on it are forgotten (the jobs are preempted, no
// switching cost holds them), those on later machines move down one index
// with them, and its price nu is dropped.
func (o *Plus) RemoveMachine(i int) error {
	ms, err := withoutMachine(o.d.ms, i)
	if err != nil {
		return err
	}
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	o.pk = pk
	o.d.setMachines(ms)
	if len(o.res.Nu) > i {
		o.res.Nu = slices.Delete(o.res.Nu, i, i+1)
	}
	for e, k := range o.prevM {
		switch {
		case k == i:
			o.prevM[e] = -1
		case k > i:
			o.prevM[e] = k - 1
		}
	}
	return nil
}

// AddMachine appends machine m, as Policy.AddMachine does.
func (p *Priority) AddMachine(m Machine) error {
	ms, err := withMachine(p.pk.ms, m)
	if err != nil {
		return err
	}
	return p.setMachines(ms)
}

// RemoveMachine removes machine i, as Policy.RemoveMachine does.
func (p *Priority) RemoveMachine(i int) error {
	ms, err := withoutMachine(p.pk.ms, i)
	if err != nil {
		return err
	}
	return p.setMachines(ms)
}

func (p *Priority) setMachines(ms []Machine) error {
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	p.pk, p.maxMem = pk, maxMemory(ms)
	return nil
}

// Machines returns a copy of the current machines.
func (p *Priority) Machines() []Machine { return slices.Clone(p.pk.ms) }
