package bipartite

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Gang limits. A component is one task component q of a gang job type l.
const (
	// DefaultMaxComponents bounds Σ_l |Q_l|, the components of a gang
	// model: 2^22 = 4,194,304 (with K = 8, 256 MiB of demands).
	DefaultMaxComponents = 1 << 22
	// CeilingMaxComponents is the largest MaxComponents any setting may
	// ask for: 2^28 components.
	CeilingMaxComponents = 1 << 28
	// MaxGangResources bounds K, the resource types of a gang model.
	MaxGangResources = 1 << 10
)

// GangJob is a gang job type l of the gang extensions of papers 000
// (§III-E) and 003 (§3.4): |Q_l| task components, component q demanding
// a_l^{q,k} of resource type k on the one server it is placed on, and the
// minimum m_l of components that must be placed in the same slot for the
// job to count at all (Kubernetes' min-available).
type GangJob struct {
	// Demand holds a_l^{q,k} at q*K+k; its length is |Q_l|·K, |Q_l| >= 1.
	// Demands are finite and non-negative.
	Demand []float64 `json:"demand"`
	// Min is m_l, 1 <= Min <= |Q_l|. The zero value means every component
	// (min-available left unset).
	Min int `json:"min,omitempty"`
}

// GangModel is the model shared by the gang extensions of every family:
// gang job types l (the left vertices of Graph), servers r (the right
// vertices), K resource types with per-server capacities c_{(k,r)}, and
// the job types' components. An edge (l, r) of Graph says that any
// component of l may be placed on r; a component is placed on a server
// only whole (its whole demand vector), and a job counts in a slot only
// when at least m_l of its components are placed (all-or-nothing).
//
// Components are numbered flat: job l owns the components lo..hi-1 of
// [GangModel.Components]. A GangModel is immutable after NewGangModel and
// safe for concurrent use; the slices its accessors return are views that
// must not be modified.
type GangModel struct {
	g        *Graph
	k        int
	capacity []float64 // c_{(k,r)} at r*K+k
	demand   []float64 // a at c*K+k over flat components c
	off      []int     // job l owns components off[l]..off[l+1]-1
	job      []int     // job of each component
	min      []int     // effective m_l
}

// NewGangModel validates and copies a gang model under the default
// Limits; see Limits.NewGangModel.
func NewGangModel(g *Graph, k int, capacity []float64, jobs []GangJob) (*GangModel, error) {
	return Limits{}.NewGangModel(g, k, capacity, jobs)
}

// NewGangModel returns the gang model of graph g (job types × servers),
// k resource types, per-server capacities capacity[r*k+kk] and one GangJob
// per left vertex of g. Errors wrap ErrNil (nil graph), ErrDimension
// (k outside [1, MaxGangResources], a length that does not match, a Min
// outside [0, |Q_l|]), ErrCapacity (a NaN, infinite or negative capacity
// or demand) or ErrTooLarge (Σ|Q_l| above MaxComponents), and name the
// index and value. Nothing is retained from the arguments but g.
func (lim Limits) NewGangModel(g *Graph, k int, capacity []float64, jobs []GangJob) (*GangModel, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	lim = lim.withDefaults()
	if g == nil {
		return nil, fmt.Errorf("%w: gang model graph", ErrNil)
	}
	if k < 1 || k > MaxGangResources {
		return nil, fmt.Errorf("%w: K = %d, want [1, %d]", ErrDimension, k, MaxGangResources)
	}
	R := g.NumRight()
	if n, ok := checked.Mul(R, k); !ok || len(capacity) != n {
		return nil, fmt.Errorf("%w: len(capacity) = %d, want servers×K = %d×%d", ErrDimension, len(capacity), R, k)
	}
	for i, c := range capacity {
		if math.IsNaN(c) || math.IsInf(c, 0) || c < 0 {
			return nil, fmt.Errorf("%w: capacity[%d] (server %d, resource %d) = %v, want finite >= 0", ErrCapacity, i, i/k, i%k, c)
		}
	}
	if len(jobs) != g.NumLeft() {
		return nil, fmt.Errorf("%w: len(jobs) = %d, want the graph's %d job types", ErrDimension, len(jobs), g.NumLeft())
	}
	total := 0
	for l, j := range jobs {
		if len(j.Demand) == 0 || len(j.Demand)%k != 0 {
			return nil, fmt.Errorf("%w: jobs[%d]: len(Demand) = %d, want a positive multiple of K = %d", ErrDimension, l, len(j.Demand), k)
		}
		q := len(j.Demand) / k
		if j.Min < 0 || j.Min > q {
			return nil, fmt.Errorf("%w: jobs[%d].Min = %d, want [0, %d] (0 = all components)", ErrDimension, l, j.Min, q)
		}
		var ok bool
		if total, ok = checked.Add(total, q); !ok || total > lim.MaxComponents {
			return nil, fmt.Errorf("%w: gang components > %d after job %d, limit MaxComponents=%d", ErrTooLarge, lim.MaxComponents, l, lim.MaxComponents)
		}
		for i, a := range j.Demand {
			if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 {
				return nil, fmt.Errorf("%w: jobs[%d].Demand[%d] (component %d, resource %d) = %v, want finite >= 0", ErrCapacity, l, i, i/k, i%k, a)
			}
		}
	}
	m := &GangModel{
		g:        g,
		k:        k,
		capacity: append([]float64(nil), capacity...),
		demand:   make([]float64, 0, total*k),
		off:      make([]int, len(jobs)+1),
		job:      make([]int, 0, total),
		min:      make([]int, len(jobs)),
	}
	for l, j := range jobs {
		q := len(j.Demand) / k
		m.off[l+1] = m.off[l] + q
		m.demand = append(m.demand, j.Demand...)
		for range q {
			m.job = append(m.job, l)
		}
		m.min[l] = j.Min
		if j.Min == 0 {
			m.min[l] = q
		}
	}
	return m, nil
}

// Graph returns the eligibility graph (job types × servers).
func (m *GangModel) Graph() *Graph { return m.g }

// K returns the number of resource types.
func (m *GangModel) K() int { return m.k }

// NumJobs returns the number of gang job types |L|.
func (m *GangModel) NumJobs() int { return len(m.min) }

// NumServers returns the number of servers |R|.
func (m *GangModel) NumServers() int { return m.g.NumRight() }

// NumComponents returns Σ_l |Q_l|.
func (m *GangModel) NumComponents() int { return len(m.job) }

// Components returns the flat component range lo..hi-1 of job type l. It
// panics if l is out of range.
func (m *GangModel) Components(l int) (lo, hi int) { return m.off[l], m.off[l+1] }

// Min returns m_l, the components job type l needs at once (Min of its
// GangJob, or |Q_l| where that was zero). It panics if l is out of range.
func (m *GangModel) Min(l int) int { return m.min[l] }

// Job returns the job type of flat component c. It panics if c is out of
// range.
func (m *GangModel) Job(c int) int { return m.job[c] }

// Demand returns a view of component c's demand vector a^{q,·} (length
// K). It panics if c is out of range.
func (m *GangModel) Demand(c int) []float64 { return m.demand[c*m.k : (c+1)*m.k : (c+1)*m.k] }

// Capacity returns a view of server r's capacity vector c_{(·,r)} (length
// K). It panics if r is out of range.
func (m *GangModel) Capacity(r int) []float64 {
	return m.capacity[r*m.k : (r+1)*m.k : (r+1)*m.k]
}

// Fits reports whether component c may be placed on server r on its own:
// (job(c), r) is an edge and its whole demand fits r's capacity under the
// capacity rule (Fits(a^{q,k}, c_{(k,r)}) for every k). It returns false
// for out-of-range c or r.
func (m *GangModel) Fits(c, r int) bool {
	if c < 0 || c >= len(m.job) || r < 0 || r >= m.g.NumRight() {
		return false
	}
	if _, ok := m.g.EdgeID(m.job[c], r); !ok {
		return false
	}
	a, cap := m.Demand(c), m.Capacity(r)
	for k := range a {
		if !Fits(a[k], cap[k]) {
			return false
		}
	}
	return true
}

// GangCheck is the verdict of GangModel.Check on one slot's placement.
type GangCheck struct {
	// Served counts the arrived jobs with at least m_l components placed.
	Served int
	// Placed counts the placed components of served jobs.
	Placed int
	// Violations counts every broken rule: a component placed on a server
	// out of range or not adjacent to its job, a component of a job that
	// did not arrive, a job with some but fewer than m_l components placed
	// (half-placed), and each (server, resource) whose load does not fit
	// its capacity under the capacity rule (Fits).
	Violations int
	// First describes the first violation found ("" when none).
	First string
}

// CheckTolerance is the relative tolerance of GangModel.Check, which is
// the capacity rule's: a load fits when Fits(load, c).
//
// Deprecated: use CapacityTol; Check no longer adds an absolute
// CheckTolerance (it accepted a load of 1e-9 on a capacity of 0).
const CheckTolerance = CapacityTol

// Check verifies one slot's placement independently of any policy: server
// holds, for every flat component, the server it is placed on or -1, and
// arrived says which job types arrived (len NumJobs). It returns an error
// wrapping ErrDimension only when a length does not match; every broken
// constraint is counted in Violations. Loads are summed over the
// components in index order and compared with Fits. Check allocates one
// load vector.
func (m *GangModel) Check(arrived []bool, server []int) (GangCheck, error) {
	var out GangCheck
	if len(arrived) != m.NumJobs() {
		return out, fmt.Errorf("%w: len(arrived) = %d, want %d job types", ErrDimension, len(arrived), m.NumJobs())
	}
	if len(server) != m.NumComponents() {
		return out, fmt.Errorf("%w: len(server) = %d, want %d components", ErrDimension, len(server), m.NumComponents())
	}
	violate := func(format string, args ...any) {
		if out.Violations == 0 {
			out.First = fmt.Sprintf(format, args...)
		}
		out.Violations++
	}
	R, K := m.NumServers(), m.k
	load := make([]float64, R*K)
	for l := range m.min {
		lo, hi := m.off[l], m.off[l+1]
		placed := 0
		for c := lo; c < hi; c++ {
			r := server[c]
			switch {
			case r == -1:
				continue
			case r < -1 || r >= R:
				violate("component %d of job %d on server %d, want -1 or [0, %d)", c, l, r, R)
				continue
			}
			if _, ok := m.g.EdgeID(l, r); !ok {
				violate("component %d of job %d on server %d, which is not adjacent to the job", c, l, r)
				continue
			}
			if !arrived[l] {
				violate("component %d of job %d placed, but the job did not arrive", c, l)
				continue
			}
			placed++
			for k, a := range m.Demand(c) {
				load[r*K+k] += a
			}
		}
		switch {
		case placed >= m.min[l]:
			out.Served++
			out.Placed += placed
		case placed > 0:
			violate("job %d half-placed: %d of its %d required components", l, placed, m.min[l])
		}
	}
	for i, v := range load {
		c := m.capacity[i]
		if !Fits(v, c) {
			violate("server %d resource %d loaded %v, capacity %v", i/K, i%K, v, c)
		}
	}
	return out, nil
}
