package ogasched

import (
	"fmt"
	"math"
	"slices"

	coresnap "github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// ErrState is wrapped by every error restoring a saved state.
var ErrState = statestore.ErrState

// stateFormat and stateVersion identify the saved-state file. Version 2
// added the integrity check (the core's snapshot envelope); a version 1
// state is refused: delete it to start fresh.
const (
	stateFormat  = "msched/kube.OGASched"
	stateVersion = 2
)

// savedPort is one port of a saved state.
type savedPort struct {
	Key    string    `json:"key"`
	Demand []float64 `json:"demand"`
	// Y maps a node name to y_(l,r) (K values) for the nodes of the port.
	Y map[string][]float64 `json:"y"`
}

// savedState is the state inside the saved file: the resource types (a
// file saved under other Resources is refused), the learner's step count
// and, per port, its demand and learned y by node name. Nodes are named,
// not numbered, so the state survives nodes joining or leaving while the
// scheduler was down: their y is dropped or starts at 0.
//
// The file is the msched core's snapshot envelope (as the ESDP and OCORP
// policies' snapshots): {"format":"msched/kube.OGASched","version":2,
// "model":<policy>,"check":"sha256:…","state":savedState}. The check is
// the SHA-256 of the state, so a bit flip that stays in range (steps 4 to
// 5, a digit of y) is refused rather than restored and overwritten; it
// detects damage, not a deliberate edit (anyone who can write the object
// can recompute it).
type savedState struct {
	Policy    string      `json:"policy"`
	Resources []string    `json:"resources"`
	Steps     int         `json:"steps"`
	Ports     []savedPort `json:"ports"`
}

// marshalState returns the engine's state. Edges whose y is all zero are
// left out (a restored port starts at 0 on a node it does not name), which
// keeps the state of a large cluster small.
func (e *engine) marshalState() ([]byte, error) {
	st := savedState{Policy: e.policy, Steps: e.steps, Resources: []string{}, Ports: []savedPort{}}
	for _, n := range e.names {
		st.Resources = append(st.Resources, string(n))
	}
	K := e.K()
	for l, p := range e.ports {
		sp := savedPort{Key: p.key, Demand: p.demand, Y: map[string][]float64{}}
		switch {
		case e.m != nil && l < e.m.ports:
			start := e.edgeStart(l)
			for i, r := range e.edgeOf[l] {
				eid := start + i
				if v := e.y[eid*K : (eid+1)*K]; slices.ContainsFunc(v, func(x float64) bool { return x != 0 }) {
					sp.Y[e.m.nodes[r]] = v
				}
			}
		case e.carry != nil:
			for n, v := range e.carry[p.key] {
				sp.Y[n] = v
			}
		}
		st.Ports = append(st.Ports, sp)
	}
	return coresnap.Encode(stateFormat, stateVersion, e.policy, st)
}

// unmarshalState restores a state saved by marshalState into the engine,
// replacing its ports and learned y (the next sync rebuilds the model). It checks format, version, policy, resource types,
// sizes and values, and leaves the engine unchanged on error.
func (e *engine) unmarshalState(b []byte) error {
	var st savedState
	if err := coresnap.Decode(b, stateFormat, stateVersion, e.policy, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	if st.Policy != e.policy {
		return fmt.Errorf("%w: policy = %q, want %q", ErrState, st.Policy, e.policy)
	}
	names := make([]string, e.K())
	for k, n := range e.names {
		names[k] = string(n)
	}
	if !slices.Equal(st.Resources, names) {
		return fmt.Errorf("%w: resources = %v, want %v", ErrState, st.Resources, names)
	}
	if st.Steps < 0 {
		return fmt.Errorf("%w: steps = %d, want >= 0", ErrState, st.Steps)
	}
	if len(st.Ports) > e.args.MaxPorts {
		return fmt.Errorf("%w: %d ports, above maxPorts %d", ErrState, len(st.Ports), e.args.MaxPorts)
	}
	K := e.K()
	seen := map[string]bool{}
	for i, p := range st.Ports {
		if seen[p.Key] {
			return fmt.Errorf("%w: ports[%d].key = %q twice", ErrState, i, p.Key)
		}
		seen[p.Key] = true
		if len(p.Demand) != K || !nonNegative(p.Demand) {
			return fmt.Errorf("%w: ports[%d].demand = %v, want %d finite values >= 0", ErrState, i, p.Demand, K)
		}
		for n, v := range p.Y {
			if len(v) != K || !nonNegative(v) {
				return fmt.Errorf("%w: ports[%d].y[%q] = %v, want %d finite values >= 0", ErrState, i, n, v, K)
			}
		}
	}
	e.invalidate()
	e.ports, e.portIdx = nil, map[string]int{}
	e.carry = map[string]map[string][]float64{}
	for l, p := range st.Ports {
		e.portIdx[p.Key] = l
		e.ports = append(e.ports, port{key: p.Key, demand: p.Demand})
		e.carry[p.Key] = p.Y
	}
	e.steps = st.Steps
	return nil
}

func nonNegative(v []float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return false
		}
	}
	return true
}
