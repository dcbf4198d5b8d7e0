package ogasched

import (
	"fmt"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/utility"
)

// Snapshot format of a GangPolicy.
const (
	gangFormat  = "msched/ogasched.GangPolicy"
	gangVersion = 1
)

// gangFingerprint hashes everything a GangPolicy's decisions depend on:
// the gang model (graph, K, capacities, demands, minima), the relaxed
// policy's fingerprint (relaxation, step, projection), the reading and the
// seed.
func gangFingerprint(m *bipartite.GangModel, _ *Problem, inner string, s GangSettings) string {
	h := snapshot.NewHasher(gangFormat)
	g := m.Graph()
	h.Int(g.NumLeft()).Int(g.NumRight()).Int(g.NumEdges())
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		h.Int(ed.Left).Int(ed.Right)
	}
	h.Int(m.K())
	for r := 0; r < m.NumServers(); r++ {
		h.Floats(m.Capacity(r))
	}
	for l := 0; l < m.NumJobs(); l++ {
		lo, hi := m.Components(l)
		h.Int(hi - lo).Int(m.Min(l))
		for c := lo; c < hi; c++ {
			h.Floats(m.Demand(c))
		}
	}
	h.String(inner).Int(int(s.Reading)).Int(int(s.Seed >> 32)).Int(int(s.Seed & 0xffffffff))
	return h.Sum()
}

// MarshalBinary implements encoding.BinaryMarshaler: the snapshot
//
//	{"format":"msched/ogasched.GangPolicy","version":1,"model":FINGERPRINT,
//	 "state":{"decided":t,"observed":bool,"y":[...],"check":SUM}}
//
// of the relaxation's y(t) and the slot counters (the rounding keeps no
// state: it is a function of y(t), x(t), t and the seed). FINGERPRINT
// covers the gang model, the relaxation (utilities, beta), the step, the
// reading and the seed.
func (o *GangPolicy) MarshalBinary() ([]byte, error) {
	st := policyState{Decided: o.inner.decided, Observed: o.inner.observed, Y: o.inner.y}
	st.Check = st.sum()
	return snapshot.Encode(gangFormat, gangVersion, o.model, st)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler. Restore into a
// policy freshly built by NewGang on the same model with the same settings
// (any Workers). Another format, version or model, altered bytes, a wrong
// length, a negative or non-finite value, or a y outside the relaxation's
// feasible set (box and capacities) give an error wrapping ErrSnapshot, and
// the policy is left unchanged.
func (o *GangPolicy) UnmarshalBinary(data []byte) error {
	var st policyState
	if err := snapshot.Decode(data, gangFormat, gangVersion, o.model, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	in := o.inner
	if err := in.checkState(&st); err != nil {
		return err
	}
	in.decided, in.observed = st.Decided, st.Observed
	copy(in.y, st.Y)
	for i, j := range in.perm {
		in.yb[i] = in.y[j]
	}
	return nil
}

// MarshalJSON returns the same bytes as MarshalBinary.
func (o *GangPolicy) MarshalJSON() ([]byte, error) { return o.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (o *GangPolicy) UnmarshalJSON(data []byte) error { return o.UnmarshalBinary(data) }

// rebuild returns OGASched-gang on model, a changed cluster, with settings
// s (which must fit model: Utility per new server), carrying the learned
// relaxation over as Policy.Rebuild does: component q of new job l'
// continues component q of old job Jobs[l'] when the old job has one, and
// y of every (component, server) pair that survives keeps its value; the
// result is projected onto the new feasible set. The slot counters carry
// over. o is not changed. Errors wrap ErrDimension, ErrValue or
// ErrSettings (a nil model, a different K, an invalid mapping, settings
// that NewGang rejects).
func (o *GangPolicy) rebuild(model *bipartite.GangModel, s GangSettings, mp bipartite.GangMapping) (*GangPolicy, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	if model == nil {
		return nil, fmt.Errorf("%w: ChangeCluster: nil gang model", ErrDimension)
	}
	if model.K() != o.m.K() {
		return nil, fmt.Errorf("%w: ChangeCluster: K = %d, the policy's model has K = %d", ErrDimension, model.K(), o.m.K())
	}
	full, err := mp.Resolve(o.m, model)
	if err != nil {
		return nil, fmt.Errorf("%w: ChangeCluster: %w", ErrDimension, err)
	}
	jobs, servers := full.Jobs, full.Servers
	if s.Utility != nil {
		// Utility follows the servers; a new server gets the zero value's
		// linear a = 1 for every type.
		u := make([][]utility.Utility, model.NumServers())
		for r, or := range servers {
			if or >= 0 && or < len(s.Utility) {
				u[r] = slices.Clone(s.Utility[or])
				continue
			}
			u[r] = make([]utility.Utility, model.K())
			for k := range u[r] {
				u[r][k] = utility.Utility{Kind: utility.Linear, A: 1}
			}
		}
		s.Utility = u
	}
	relax, err := GangRelaxation(model, s)
	if err != nil {
		return nil, err
	}
	ports := slices.Repeat([]int{-1}, model.NumComponents())
	for l, ol := range jobs {
		if ol < 0 {
			continue
		}
		lo, hi := model.Components(l)
		olo, ohi := o.m.Components(ol)
		for q := 0; q < hi-lo && q < ohi-olo; q++ {
			ports[lo+q] = olo + q
		}
	}
	// Policy.Rebuild keeps o.inner's settings; the step must be re-derived
	// from the new relaxation when s leaves it nil.
	in := o.inner
	saved := in.set
	in.set = Settings{Step: s.Step, Horizon: s.Horizon, Workers: s.Workers, Logger: s.Logger}
	inner, err := in.rebuild(relax, Mapping{Ports: ports, Nodes: servers})
	in.set = saved
	if err != nil {
		return nil, err
	}
	s.Init = nil
	return newGang(model, s, relax, inner), nil
}

// ChangeCluster moves o, in place, onto model, a changed cluster built
// from o's current model by a bipartite.GangModel edit method (AddServer,
// RemoveServer, AddJob, RemoveJob) with its mapping mp, under the
// cluster-change contract of package bipartite. The settings stay o's
// (the seed cannot change); GangSettings.Utility, when set, follows the
// servers through mp and a new server gets linear utilities with a = 1
// (the zero value's). The learned relaxation carries over: y of every
// (component, server) pair that survives keeps its value (component q of
// new job type l' continues component q of mp.Jobs[l']), and the result
// is projected onto the new feasible set; the slot counters carry over.
// A snapshot taken afterwards restores into NewGang(model, o.Settings()).
// On error (a nil model, another K, a bad mapping: ErrDimension) o is
// unchanged; on success o's old projection workers are released.
func (o *GangPolicy) ChangeCluster(model *bipartite.GangModel, mp bipartite.GangMapping) error {
	n, err := o.rebuild(model, o.set, mp)
	if err != nil {
		return err
	}
	o.inner.Close()
	*o = *n
	return nil
}
