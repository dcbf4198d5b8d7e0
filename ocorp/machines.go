package ocorp

import (
	"fmt"
	"slices"
)

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
// addMachine and removeMachine are the cluster changes OCORP and OCORP+M
// share through their core.
func (c *core) addMachine(m Machine) error {
	ms, err := withMachine(c.d.ms, m)
	if err != nil {
		return err
	}
	return c.setMachines(ms)
}

func (c *core) removeMachine(i int) error {
	ms, err := withoutMachine(c.d.ms, i)
	if err != nil {
		return err
	}
	return c.setMachines(ms)
}

func (c *core) setMachines(ms []Machine) error {
	pk, err := NewPacker(ms)
	if err != nil {
		return err
	}
	c.pk = pk
	c.d.setMachines(ms)
	return nil
}

// AddMachine appends machine m as machine len(Machines()), keeping the
// learned state (package doc, "A changing cluster"). An invalid machine is
// an error wrapping ErrValue, more than MaxMachines machines ErrTooLarge;
// the policy is then unchanged.
func (o *Policy) AddMachine(m Machine) error { return o.c.addMachine(m) }

// RemoveMachine removes machine i; machines after i move down one index.
// Jobs that ran on it are placed elsewhere from the next Decide. An index
// out of range or the last machine is an error wrapping ErrMachine, and
// the policy is then unchanged.
func (o *Policy) RemoveMachine(i int) error { return o.c.removeMachine(i) }

// AddMachine appends machine m, as Policy.AddMachine does.
func (o *M) AddMachine(m Machine) error { return o.c.addMachine(m) }

// RemoveMachine removes machine i, as Policy.RemoveMachine does.
func (o *M) RemoveMachine(i int) error { return o.c.removeMachine(i) }

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
