package ogasched

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/snapshot"
)

// Snapshot format of a Policy.
const (
	policyFormat  = "msched/ogasched.Policy"
	policyVersion = 1
)

// policyState is the learned state of a Policy: everything that, with the
// model, determines its future decisions. The step schedules of this
// package are functions of the slot only, so the slot counters are their
// whole state.
type policyState struct {
	Decided  int       `json:"decided"`  // t of the latest Decide, -1 before the first
	Observed bool      `json:"observed"` // Observe(decided) was called
	Y        []float64 `json:"y"`        // y in the flat layout y[e*K+k]
	Check    string    `json:"check"`    // fingerprint of the three fields above
}

func (s *policyState) sum() string {
	h := snapshot.NewHasher(policyFormat + ".state").Int(s.Decided)
	if s.Observed {
		h.Int(1)
	} else {
		h.Int(0)
	}
	return h.Floats(s.Y).Sum()
}

// Fingerprint returns 16 hex digits that hash the exact bits of
// everything in p that decisions depend on: the graph, K, demands,
// capacities, utilities and beta. Two problems fingerprint equal only if
// all of these are bit-identical. Snapshots of this family and of its
// baselines carry it, so that state restores only into the same model.
func (p *Problem) Fingerprint() string {
	return p.hash("msched/ogasched.Problem").Sum()
}

func (p *Problem) hash(format string) *snapshot.Hasher {
	h := snapshot.NewHasher(format)
	g := p.Graph
	h.Int(g.NumLeft()).Int(g.NumRight()).Int(g.NumEdges())
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		h.Int(ed.Left).Int(ed.Right)
	}
	h.Int(p.K).Floats(p.Beta)
	for _, a := range p.Demand {
		h.Floats(a)
	}
	for _, c := range p.Capacity {
		h.Floats(c)
	}
	for _, us := range p.Utility {
		for _, u := range us {
			h.Int(int(u.Kind)).Float(u.A).Float(u.Alpha)
		}
	}
	return h
}

// fingerprint hashes everything the decisions of a policy depend on: the
// problem (Problem.Fingerprint), the step schedule and the projection.
// Workers and Logger do not change decisions and are left out; Init is
// overridden by the restored y.
func fingerprint(p *Problem, step Step, paper bool) string {
	h := p.hash(policyFormat)
	switch s := step.(type) {
	case Geometric:
		h.String("Geometric").Float(s.Eta0).Float(s.Lambda)
	case Theory:
		h.String("Theory").Float(s.Diam).Int(s.T)
	case TheoryAnytime:
		h.String("TheoryAnytime").Float(s.Diam)
	case Constant:
		h.String("Constant").Float(float64(s))
	default:
		h.String(fmt.Sprintf("%T %#v", step, step))
	}
	if paper {
		h.Int(1)
	} else {
		h.Int(0)
	}
	return h.Sum()
}

// MarshalBinary implements encoding.BinaryMarshaler: the snapshot
//
//	{"format":"msched/ogasched.Policy","version":1,"model":FINGERPRINT,
//	 "check":"sha256:…","state":{"decided":t,"observed":bool,"y":[...],"check":SUM}}
//
// of y(t) and the slot counters. FINGERPRINT covers the problem, the step
// schedule and the projection (not Workers or Logger), so that a snapshot
// restores only into a policy that would take the same decisions. A
// user-defined Step is fingerprinted by its %#v, and any state it keeps
// itself is not saved.
func (o *Policy) MarshalBinary() ([]byte, error) {
	st := policyState{Decided: o.decided, Observed: o.observed, Y: o.y}
	st.Check = st.sum()
	return snapshot.Encode(policyFormat, policyVersion, o.model, st)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. Restore into a
// policy freshly built by New on the same problem with the same step (any
// Workers). A snapshot of another format, version or model, truncated or
// altered bytes, a wrong length or a non-finite or negative value give an
// error wrapping ErrSnapshot (and the internal/snapshot cause), and the
// policy is left unchanged.
func (o *Policy) UnmarshalBinary(data []byte) error {
	var st policyState
	if err := snapshot.Decode(data, policyFormat, policyVersion, o.model, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if err := o.checkState(&st); err != nil {
		return err
	}
	o.decided, o.observed = st.Decided, st.Observed
	copy(o.y, st.Y)
	for i, j := range o.perm {
		o.yb[i] = o.y[j]
	}
	return nil
}

func (o *Policy) checkState(st *policyState) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %w: "+format, append([]any{ErrSnapshot, snapshot.ErrCorrupt}, args...)...)
	}
	if st.Decided < -1 {
		return bad("decided = %d, want >= -1", st.Decided)
	}
	if st.Decided == -1 && st.Observed {
		return bad("observed = true before any Decide")
	}
	if len(st.Y) != o.p.Dim() {
		return bad("len(y) = %d, want Dim = %d", len(st.Y), o.p.Dim())
	}
	for j, v := range st.Y {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return bad("y[%d] = %v, want finite and >= 0", j, v)
		}
	}
	if s := st.sum(); s != st.Check {
		return bad("check = %q, want %q (the state was altered)", st.Check, s)
	}
	if !o.paper {
		if err := o.p.Feasible(st.Y, 1e-9*(1+o.p.scale())); err != nil {
			return fmt.Errorf("%w: %w: %w", ErrSnapshot, snapshot.ErrCorrupt, err)
		}
	}
	return nil
}

// MarshalJSON returns the same bytes as MarshalBinary.
func (o *Policy) MarshalJSON() ([]byte, error) { return o.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (o *Policy) UnmarshalJSON(data []byte) error { return o.UnmarshalBinary(data) }
