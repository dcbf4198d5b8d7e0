package trace

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// DLRMResourceNames are the K = 6 resource types of the DLRM gang mapping,
// in the units of DLRMUnits.
var DLRMResourceNames = []string{"CPU", "GPU", "MEM", "RDMA", "DISK", "CN-SLOT"}

// DLRMUnits are the sizes of one unit of each resource of
// DLRMResourceNames, in the trace's units: 8 vCPUs, 1 GPU, 64 GiB, 25 %
// of an RNIC, 256 GiB of disk, one CN slot. With them the most frequent
// HN instance (8 vCPU, 1 GPU, 25 % RDMA, 120 GiB, 680 GiB) is about
// (1, 1, 1.9, 1, 2.7, 0): every type of the same magnitude, as in Table II.
var DLRMUnits = []float64{8, 1, 64, 25, 256, 1}

// DLRMNode is one server class of the derived cluster, in the trace's
// units (vCPUs, GPUs, GiB, percent of one RNIC, GiB, CN slots).
type DLRMNode struct {
	CPU, GPU, MemoryGiB, RDMA, DiskGiB, CNSlots float64
}

// DLRMGangSettings configures the DLRM gang mapping. Zero fields take the
// defaults in brackets.
type DLRMGangSettings struct {
	// SlotSeconds is the length of one slot [3600: an hour].
	SlotSeconds float64
	// MaxComponents bounds |Q_l| of a job type [8].
	MaxComponents int
	// CNNodes, HNNodes: servers of each class [32, 16].
	CNNodes, HNNodes int
	// CN, HN: the server classes [DefaultDLRMCN, DefaultDLRMHN].
	CN, HN DLRMNode
	// Seed draws the OGASched utilities and beta (Table II).
	Seed uint64
	// Limits bounds T, the servers, T x job types [Limits{}].
	Limits Limits
}

// DefaultDLRMCN and DefaultDLRMHN are the server classes assumed for the
// trace, which lists no nodes (see the package doc, "# DLRM gangs").
var (
	DefaultDLRMCN = DLRMNode{CPU: 256, GPU: 0, MemoryGiB: 2048, RDMA: 200, DiskGiB: 4096, CNSlots: 110}
	DefaultDLRMHN = DLRMNode{CPU: 128, GPU: 8, MemoryGiB: 1024, RDMA: 400, DiskGiB: 8192, CNSlots: 0}
)

func (o DLRMGangSettings) withDefaults() DLRMGangSettings {
	if o.SlotSeconds == 0 {
		o.SlotSeconds = 3600
	}
	if o.MaxComponents == 0 {
		o.MaxComponents = 8
	}
	if o.CNNodes == 0 {
		o.CNNodes = 32
	}
	if o.HNNodes == 0 {
		o.HNNodes = 16
	}
	if o.CN == (DLRMNode{}) {
		o.CN = DefaultDLRMCN
	}
	if o.HN == (DLRMNode{}) {
		o.HN = DefaultDLRMHN
	}
	return o
}

// DLRMGang is the gang view of the DLRM trace, usable by both families:
// the model, the arrivals x_l(t) (1 when an instance of app l was created
// in slot t), and, for OGASched-gang, utilities and beta drawn as in
// Table II (the trace has no rewards; ESDP draws its own valuations).
type DLRMGang struct {
	Model    *bipartite.GangModel
	Arrivals [][]float64 // [t][l]
	Apps     []string    // job type l is app Apps[l]
	// CN[l], HN[l]: the components of each role of job type l.
	CN, HN      []int
	Utility     [][]utility.Utility
	Beta        []float64
	SlotSeconds float64
	// Timed counts the instances with a creation time (the arrivals).
	Timed int
}

// checkDLRMInstance applies the reader's rules to a hand-built instance
// (DLRMGangInstance indexes by Role: Role 7 panicked, issue 30) and names
// the first field that breaks them, its value and the limit. MaxPerNode,
// which the mapping does not use, is not checked (its zero value, which a
// hand-built instance has, is not one the reader returns).
func checkDLRMInstance(in *DLRMInstance, lim Limits) error {
	maxR, maxT := lim.MaxResource, float64(lim.MaxTime)
	switch {
	case in.Name == "":
		return fmt.Errorf("empty Name")
	case in.App == "":
		return fmt.Errorf("empty App")
	case in.Role != RoleCN && in.Role != RoleHN:
		return fmt.Errorf("field Role = %d, want RoleCN (0) or RoleHN (1)", int(in.Role))
	case in.CPU < 0 || in.CPU > maxR:
		return fmt.Errorf("CPU = %d, want [0, MaxResource = %d]", in.CPU, maxR)
	case in.GPU < 0 || in.GPU > maxR:
		return fmt.Errorf("GPU = %d, want [0, MaxResource = %d]", in.GPU, maxR)
	case in.RDMA < 0 || in.RDMA > 100:
		return fmt.Errorf("RDMA = %d, want [0, 100]", in.RDMA)
	case !(in.MemoryGiB >= 0 && in.MemoryGiB <= float64(maxR)):
		return fmt.Errorf("MemoryGiB = %v, want [0, MaxResource = %d]", in.MemoryGiB, maxR)
	case !(in.DiskGiB >= 0 && in.DiskGiB <= float64(maxR)):
		return fmt.Errorf("DiskGiB = %v, want [0, MaxResource = %d]", in.DiskGiB, maxR)
	}
	for _, f := range []struct {
		has  bool
		v    float64
		name string
	}{{in.HasCreation, in.Creation, "Creation"}, {in.HasScheduled, in.Scheduled, "Scheduled"}, {in.HasDeletion, in.Deletion, "Deletion"}} {
		if f.has && !(f.v >= 0 && f.v <= maxT) {
			return fmt.Errorf("%s = %v, want [0, MaxTime = %d]", f.name, f.v, lim.MaxTime)
		}
	}
	if in.HasCreation && in.HasScheduled && in.Scheduled < in.Creation {
		return fmt.Errorf("field Scheduled = %v before Creation = %v", in.Scheduled, in.Creation)
	}
	if in.HasDeletion && ((in.HasCreation && in.Deletion < in.Creation) || (in.HasScheduled && in.Deletion < in.Scheduled)) {
		return fmt.Errorf("field Deletion = %v before Creation or Scheduled", in.Deletion)
	}
	return nil
}

func dlrmCapacity(n DLRMNode) []float64 {
	v := []float64{n.CPU, n.GPU, n.MemoryGiB, n.RDMA, n.DiskGiB, n.CNSlots}
	for k := range v {
		v[k] /= DLRMUnits[k]
	}
	return v
}

// DLRMGangInstance maps the DLRM trace to a gang instance. Job type l is
// one app (service), in order of first appearance; its components are a
// serving unit of its two roles in the app's own CN:HN proportion, scaled
// to at most MaxComponents (at least one of each role the app has); each
// component demands its role's most frequent request in the app (in
// DLRMUnits; CN components also one CN slot, so that they run only on CN
// servers, as HN components run only where there are GPUs); m_l is every
// component (a GPU-disaggregated service is useless without both of its
// parts). Every app may use every server. x_l(t) = 1 when an instance of
// app l was created in slot t of SlotSeconds from the trace start;
// instances created before the start (no creation time) are the initial
// load and not arrivals. Errors wrap ErrEmpty (no instances, no timed
// instances), ErrValue (a bad option, or an instance that breaks the
// reader's rules: a hand-built Role other than RoleCN and RoleHN, a value
// out of range; the error names the instance, the field, the value and
// the limit) or ErrTooLarge (Limits above their ceilings, or T, servers or
// T x apps above Limits).
func DLRMGangInstance(ins []DLRMInstance, opt DLRMGangSettings) (*DLRMGang, error) {
	if len(ins) == 0 {
		return nil, fmt.Errorf("%w: no DLRM instances", ErrEmpty)
	}
	if err := opt.Limits.Validate(); err != nil {
		return nil, fmt.Errorf("DLRMGangOptions.Limits: %w", err)
	}
	lim := opt.Limits.withDefaults()
	if len(ins) > lim.MaxRows {
		return nil, fmt.Errorf("%w: %d instances, limit MaxRows = %d", ErrTooLarge, len(ins), lim.MaxRows)
	}
	if err := checkScale("DLRMGangSettings.SlotSeconds", opt.SlotSeconds); err != nil {
		return nil, err
	}
	opt = opt.withDefaults()
	if opt.MaxComponents < 2 || opt.MaxComponents > 1024 {
		return nil, fmt.Errorf("%w: DLRMGangSettings.MaxComponents = %d, want [2, 1024]", ErrValue, opt.MaxComponents)
	}
	if opt.CNNodes < 0 || opt.HNNodes < 0 || opt.CNNodes+opt.HNNodes < 1 {
		return nil, fmt.Errorf("%w: DLRMGangSettings.CNNodes, HNNodes = %d, %d, want >= 0 and not both 0", ErrValue, opt.CNNodes, opt.HNNodes)
	}
	if err := lim.checkSlots("DLRM servers", int64(opt.CNNodes)+int64(opt.HNNodes)); err != nil {
		return nil, err
	}
	for _, n := range []DLRMNode{opt.CN, opt.HN} {
		for _, v := range []float64{n.CPU, n.GPU, n.MemoryGiB, n.RDMA, n.DiskGiB, n.CNSlots} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > float64(lim.MaxResource) {
				return nil, fmt.Errorf("%w: DLRMGangSettings node capacity %v, want finite in [0, MaxResource = %d]", ErrValue, v, lim.MaxResource)
			}
		}
	}
	for i := range ins {
		if err := checkDLRMInstance(&ins[i], lim); err != nil {
			return nil, fmt.Errorf("%w: DLRM instance %d (%.64q): %s", ErrValue, i, ins[i].Name, err)
		}
	}
	// Apps in order of first appearance.
	idx := map[string]int{}
	var apps []string
	type shape struct {
		cpu, gpu, rdma int64
		mem, disk      float64
	}
	type roleStat struct {
		n      int
		shapes map[shape]int
	}
	var stats [][2]roleStat
	last := 0.0
	timed := 0
	for _, in := range ins {
		l, ok := idx[in.App]
		if !ok {
			l = len(apps)
			idx[in.App] = l
			apps = append(apps, in.App)
			stats = append(stats, [2]roleStat{{shapes: map[shape]int{}}, {shapes: map[shape]int{}}})
		}
		st := &stats[l][in.Role]
		st.n++
		st.shapes[shape{in.CPU, in.GPU, in.RDMA, in.MemoryGiB, in.DiskGiB}]++
		if in.HasCreation {
			timed++
			last = max(last, in.Creation)
		}
	}
	if timed == 0 {
		return nil, fmt.Errorf("%w: no DLRM instance has a creation time", ErrEmpty)
	}
	T64 := math.Floor(last/opt.SlotSeconds) + 1
	if T64 > float64(lim.MaxSlots) {
		return nil, fmt.Errorf("%w: T = %v slots of %v s, limit MaxSlots = %d", ErrTooLarge, T64, opt.SlotSeconds, lim.MaxSlots)
	}
	T := int(T64)
	if err := lim.checkCells("DLRM arrivals T × apps", T, len(apps)); err != nil {
		return nil, err
	}
	const K = 6
	out := &DLRMGang{Apps: apps, SlotSeconds: opt.SlotSeconds, Timed: timed,
		CN: make([]int, len(apps)), HN: make([]int, len(apps))}
	jobs := make([]bipartite.GangJob, len(apps))
	for l := range apps {
		n := [2]int{stats[l][RoleCN].n, stats[l][RoleHN].n}
		total := n[0] + n[1]
		q := [2]int{}
		scale := max(1, float64(total)/float64(opt.MaxComponents))
		for role := range 2 {
			if n[role] > 0 {
				q[role] = max(1, int(math.Round(float64(n[role])/scale)))
			}
		}
		for q[0]+q[1] > opt.MaxComponents { // rounding up may exceed by one per role
			if q[0] >= q[1] && q[0] > 1 {
				q[0]--
			} else {
				q[1]--
			}
		}
		out.CN[l], out.HN[l] = q[0], q[1]
		d := make([]float64, 0, (q[0]+q[1])*K)
		for role := range 2 {
			if q[role] == 0 {
				continue
			}
			// The most frequent shape; ties by the smallest (cpu, gpu, rdma, mem, disk).
			var best shape
			bestN := -1
			for s, c := range stats[l][role].shapes {
				if c > bestN || (c == bestN && cmpShape(s.cpu, s.gpu, s.rdma, s.mem, s.disk, best.cpu, best.gpu, best.rdma, best.mem, best.disk) < 0) {
					best, bestN = s, c
				}
			}
			vec := []float64{float64(best.cpu), float64(best.gpu), best.mem, float64(best.rdma), best.disk, 0}
			if role == int(RoleCN) {
				vec[5] = 1
			}
			for k := range vec {
				vec[k] /= DLRMUnits[k]
			}
			for range q[role] {
				d = append(d, vec...)
			}
		}
		jobs[l].Demand = d
	}
	R := opt.CNNodes + opt.HNNodes
	capacity := make([]float64, 0, R*K)
	for r := range R {
		if r < opt.CNNodes {
			capacity = append(capacity, dlrmCapacity(opt.CN)...)
		} else {
			capacity = append(capacity, dlrmCapacity(opt.HN)...)
		}
	}
	if err := lim.checkCells("DLRM graph apps × servers", len(apps), R); err != nil {
		return nil, err
	}
	edges := make([]bipartite.Edge, 0, len(apps)*R)
	for l := range apps {
		for r := range R {
			edges = append(edges, bipartite.Edge{Left: l, Right: r})
		}
	}
	g, err := bipartite.NewGraph(len(apps), R, edges)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrValue, err)
	}
	if out.Model, err = bipartite.NewGangModel(g, K, capacity, jobs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrValue, err)
	}
	flat := make([]float64, T*len(apps))
	out.Arrivals = make([][]float64, T)
	for t := range out.Arrivals {
		out.Arrivals[t] = flat[t*len(apps) : (t+1)*len(apps) : (t+1)*len(apps)]
	}
	for _, in := range ins {
		if in.HasCreation {
			out.Arrivals[int(in.Creation/opt.SlotSeconds)][idx[in.App]] = 1
		}
	}
	// OGASched utilities and beta as in Table II.
	rng := rand.New(rand.NewPCG(opt.Seed, 0xd1a5))
	kinds := []utility.Kind{utility.Linear, utility.Log, utility.Reciprocal, utility.Poly}
	out.Utility = make([][]utility.Utility, R)
	for r := range out.Utility {
		out.Utility[r] = make([]utility.Utility, K)
		for k := range K {
			u, err := utility.New(kinds[rng.IntN(len(kinds))], 1+0.5*rng.Float64())
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrValue, err)
			}
			out.Utility[r][k] = u
		}
	}
	out.Beta = make([]float64, K)
	for k := range out.Beta {
		out.Beta[k] = 0.3 + 0.2*rng.Float64()
	}
	return out, nil
}

func cmpShape(c1, g1, r1 int64, m1, d1 float64, c2, g2, r2 int64, m2, d2 float64) int {
	return cmp.Or(cmp.Compare(c1, c2), cmp.Compare(g1, g2), cmp.Compare(r1, r2), cmp.Compare(m1, m2), cmp.Compare(d1, d2))
}
