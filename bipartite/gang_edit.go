package bipartite

import (
	"fmt"
	"slices"
)

// GangMapping relates a changed gang model to the one it was derived
// from, under the cluster-change contract of this package: Jobs[l'] is
// the job type of the old model that job type l' of the new one
// continues, Servers[r'] the old server that new server r' continues, -1
// for a new one. Each old index appears at most once. Component q of new
// job type l' continues component q of old job type Jobs[l'] when the old
// job type has one. The edit methods of GangModel (AddServer,
// RemoveServer, AddJob, RemoveJob) return the mapping of their change;
// every gang policy's ChangeCluster(model, mapping) consumes it.
type GangMapping struct {
	Jobs, Servers []int
}

// Validate checks mp against the model from which to was derived: one
// entry per job type and per server of to, each -1 or an index of from,
// none twice. A nil slice is accepted as the identity on the indices both
// models have (new indices beyond from's are -1). Errors wrap ErrNil or
// ErrDimension and name the field, index and value.
func (mp GangMapping) Validate(from, to *GangModel) error {
	_, err := mp.Resolve(from, to)
	return err
}

// Resolve is Validate returning the full mapping: a nil slice of mp is
// replaced by the identity it stands for (a fresh slice); a given one is
// returned as is.
func (mp GangMapping) Resolve(from, to *GangModel) (GangMapping, error) {
	if from == nil || to == nil {
		return GangMapping{}, fmt.Errorf("%w: GangMapping: nil gang model", ErrNil)
	}
	jobs, err := resolveMapping("GangMapping.Jobs", mp.Jobs, to.NumJobs(), from.NumJobs())
	if err != nil {
		return GangMapping{}, err
	}
	servers, err := resolveMapping("GangMapping.Servers", mp.Servers, to.NumServers(), from.NumServers())
	if err != nil {
		return GangMapping{}, err
	}
	return GangMapping{Jobs: jobs, Servers: servers}, nil
}

// resolveMapping checks one side of a mapping (what names it in errors):
// m maps each of n new indices to one of old old indices or -1, none
// twice. A nil m is the identity on min(n, old) indices and -1 after. It
// returns the full mapping (a fresh slice when m is nil, m otherwise).
// Errors wrap ErrDimension.
func resolveMapping(what string, m []int, n, old int) ([]int, error) {
	if m == nil {
		m = make([]int, n)
		for i := range m {
			m[i] = i
			if i >= old {
				m[i] = -1
			}
		}
		return m, nil
	}
	if len(m) != n {
		return nil, fmt.Errorf("%w: len(%s) = %d, want %d", ErrDimension, what, len(m), n)
	}
	seen := make([]bool, old)
	for i, v := range m {
		if v < -1 || v >= old {
			return nil, fmt.Errorf("%w: %s[%d] = %d, want -1 or [0, %d)", ErrDimension, what, i, v, old)
		}
		if v >= 0 {
			if seen[v] {
				return nil, fmt.Errorf("%w: %s[%d] = %d repeats an old index", ErrDimension, what, i, v)
			}
			seen[v] = true
		}
	}
	return m, nil
}

// jobs returns the GangJob of every job type of m (copies).
func (m *GangModel) jobs() []GangJob {
	out := make([]GangJob, m.NumJobs())
	for l := range out {
		lo, hi := m.Components(l)
		out[l] = GangJob{Demand: slices.Clone(m.demand[lo*m.k : hi*m.k]), Min: m.min[l]}
	}
	return out
}

// editLimits returns limits that admit m grown by the given components
// and edges (an edit never fails for a model a user built under larger
// limits).
func (m *GangModel) editLimits(comps, edges int) Limits {
	lim := Limits{}.withDefaults()
	lim.MaxComponents = min(CeilingMaxComponents, max(lim.MaxComponents, m.NumComponents()+comps))
	lim.MaxEdges = min(CeilingMaxEdges, max(lim.MaxEdges, m.g.NumEdges()+edges))
	lim.MaxVertices = min(CeilingMaxVertices, max(lim.MaxVertices, m.NumJobs()+1, m.NumServers()+1))
	return lim
}

// derive builds the model with the job types and servers mp keeps (in its
// order), the given edges (in new indices), capacities and jobs.
func (m *GangModel) derive(what string, nl, nr int, edges []Edge, capacity []float64, jobs []GangJob, comps int) (*GangModel, error) {
	lim := m.editLimits(comps, len(edges)-m.g.NumEdges())
	g, err := lim.NewGraph(nl, nr, edges)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	out, err := lim.NewGangModel(g, m.k, capacity, jobs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

func identityMap(n int) []int {
	m := make([]int, n)
	for i := range m {
		m[i] = i
	}
	return m
}

// AddServer returns the model with one more server, index NumServers(),
// of capacity capacity (len K) and eligible for the job types jobs, and
// the GangMapping from the new model to m (the identity, -1 for the new
// server). m is not changed. A job type out of range or repeated, a
// capacity of the wrong length or not finite and non-negative is an
// error wrapping ErrDimension or ErrCapacity.
func (m *GangModel) AddServer(capacity []float64, jobs []int) (*GangModel, GangMapping, error) {
	if m == nil {
		return nil, GangMapping{}, fmt.Errorf("%w: AddServer: nil gang model", ErrNil)
	}
	if len(capacity) != m.k {
		return nil, GangMapping{}, fmt.Errorf("%w: AddServer: len(capacity) = %d, want K = %d", ErrDimension, len(capacity), m.k)
	}
	r := m.NumServers()
	edges := m.edgeList(-1, -1)
	for i, l := range jobs {
		if l < 0 || l >= m.NumJobs() || slices.Contains(jobs[:i], l) {
			return nil, GangMapping{}, fmt.Errorf("%w: AddServer: jobs[%d] = %d out of [0, %d) or repeated", ErrDimension, i, l, m.NumJobs())
		}
		edges = append(edges, Edge{Left: l, Right: r})
	}
	caps := append(slices.Clone(m.capacity), capacity...)
	out, err := m.derive("AddServer", m.NumJobs(), r+1, edges, caps, m.jobs(), 0)
	if err != nil {
		return nil, GangMapping{}, err
	}
	return out, GangMapping{Jobs: identityMap(m.NumJobs()), Servers: append(identityMap(r), -1)}, nil
}

// RemoveServer returns the model without server r and the GangMapping
// from the new model to m: the servers after r move down one index, in
// their old order; job types keep theirs. m is not changed. An index out
// of range or the last server is an error wrapping ErrDimension.
func (m *GangModel) RemoveServer(r int) (*GangModel, GangMapping, error) {
	if m == nil {
		return nil, GangMapping{}, fmt.Errorf("%w: RemoveServer: nil gang model", ErrNil)
	}
	ns := m.NumServers()
	if r < 0 || r >= ns || ns == 1 {
		return nil, GangMapping{}, fmt.Errorf("%w: RemoveServer: server %d of %d (the last server cannot be removed)", ErrDimension, r, ns)
	}
	edges := m.edgeList(-1, r)
	caps := slices.Delete(slices.Clone(m.capacity), r*m.k, (r+1)*m.k)
	out, err := m.derive("RemoveServer", m.NumJobs(), ns-1, edges, caps, m.jobs(), 0)
	if err != nil {
		return nil, GangMapping{}, err
	}
	return out, GangMapping{Jobs: identityMap(m.NumJobs()), Servers: slices.Delete(identityMap(ns), r, r+1)}, nil
}

// AddJob returns the model with one more gang job type, index NumJobs(),
// whose components may be placed on the given servers, and the
// GangMapping from the new model to m (the identity, -1 for the new job
// type). m is not changed. A server out of range or repeated, or a job
// that NewGangModel rejects, is an error wrapping ErrDimension,
// ErrCapacity or ErrTooLarge.
func (m *GangModel) AddJob(job GangJob, servers []int) (*GangModel, GangMapping, error) {
	if m == nil {
		return nil, GangMapping{}, fmt.Errorf("%w: AddJob: nil gang model", ErrNil)
	}
	l := m.NumJobs()
	edges := m.edgeList(-1, -1)
	for i, r := range servers {
		if r < 0 || r >= m.NumServers() || slices.Contains(servers[:i], r) {
			return nil, GangMapping{}, fmt.Errorf("%w: AddJob: servers[%d] = %d out of [0, %d) or repeated", ErrDimension, i, r, m.NumServers())
		}
		edges = append(edges, Edge{Left: l, Right: r})
	}
	jobs := append(m.jobs(), GangJob{Demand: slices.Clone(job.Demand), Min: job.Min})
	out, err := m.derive("AddJob", l+1, m.NumServers(), edges, slices.Clone(m.capacity), jobs, len(job.Demand)/max(m.k, 1))
	if err != nil {
		return nil, GangMapping{}, err
	}
	return out, GangMapping{Jobs: append(identityMap(l), -1), Servers: identityMap(m.NumServers())}, nil
}

// RemoveJob returns the model without job type l and the GangMapping from
// the new model to m: the job types after l move down one index, in their
// old order; servers keep theirs. m is not changed. An index out of range
// or the last job type is an error wrapping ErrDimension.
func (m *GangModel) RemoveJob(l int) (*GangModel, GangMapping, error) {
	if m == nil {
		return nil, GangMapping{}, fmt.Errorf("%w: RemoveJob: nil gang model", ErrNil)
	}
	nl := m.NumJobs()
	if l < 0 || l >= nl || nl == 1 {
		return nil, GangMapping{}, fmt.Errorf("%w: RemoveJob: job type %d of %d (the last job type cannot be removed)", ErrDimension, l, nl)
	}
	edges := m.edgeList(l, -1)
	jobs := slices.Delete(m.jobs(), l, l+1)
	out, err := m.derive("RemoveJob", nl-1, m.NumServers(), edges, slices.Clone(m.capacity), jobs, 0)
	if err != nil {
		return nil, GangMapping{}, err
	}
	return out, GangMapping{Jobs: slices.Delete(identityMap(nl), l, l+1), Servers: identityMap(m.NumServers())}, nil
}

// edgeList returns m's edges without those of job type dropL and server
// dropR (-1: none), renumbered past the dropped indices.
func (m *GangModel) edgeList(dropL, dropR int) []Edge {
	out := make([]Edge, 0, m.g.NumEdges())
	for e := range m.g.NumEdges() {
		ed := m.g.Edge(e)
		if ed.Left == dropL || ed.Right == dropR {
			continue
		}
		if dropL >= 0 && ed.Left > dropL {
			ed.Left--
		}
		if dropR >= 0 && ed.Right > dropR {
			ed.Right--
		}
		out = append(out, ed)
	}
	return out
}
