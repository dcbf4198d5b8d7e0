package ogasched

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/msched/msched/utility"
)

// port is one job type: its key (label value or request shape) and its
// demand a_l^k in units.
type port struct {
	key    string
	demand []float64
}

// model is the node side of the current problem: the nodes (sorted by
// name) and their capacities in units, as of the last build.
type model struct {
	nodes    []string
	nodeIdx  map[string]int
	capacity [][]float64
	ports    int
}

// mapping turns pods and nodes into the model's numbers. It is immutable
// after newMapping, so the scheduling path and the learner share it.
type mapping struct {
	portLabel string
	names     []v1.ResourceName
	units     []float64
}

func newMapping(a *Args) (*mapping, error) {
	mp := &mapping{portLabel: a.PortLabel}
	for _, r := range a.Resources {
		q, err := resource.ParseQuantity(r.Unit)
		if err != nil {
			return nil, err
		}
		mp.names = append(mp.names, v1.ResourceName(r.Name))
		mp.units = append(mp.units, q.AsApproximateFloat64())
	}
	return mp, nil
}

// K returns the number of resource types.
func (mp *mapping) K() int { return len(mp.names) }

// demandOf returns the pod's requests of the resource types, in units.
func (mp *mapping) demandOf(pod *v1.Pod) []float64 {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	d := make([]float64, mp.K())
	for k, n := range mp.names {
		if q, ok := req[n]; ok {
			d[k] = q.AsApproximateFloat64() / mp.units[k]
		}
	}
	return d
}

// capacityOf returns the node's allocatable resource types, in units.
func (mp *mapping) capacityOf(n *v1.Node) []float64 {
	c := make([]float64, mp.K())
	for k, name := range mp.names {
		if q, ok := n.Status.Allocatable[name]; ok {
			c[k] = q.AsApproximateFloat64() / mp.units[k]
		}
	}
	return c
}

// portKey returns the pod's port key: the PortLabel value, or its shape.
func (mp *mapping) portKey(pod *v1.Pod, demand []float64) string {
	if mp.portLabel != "" && pod != nil {
		if v, ok := pod.Labels[mp.portLabel]; ok {
			return "label:" + v
		}
	}
	var b strings.Builder
	b.WriteString("shape:")
	for k, d := range demand {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%g", mp.names[k], d)
	}
	return b.String()
}

// engine maps Kubernetes onto an OGASched problem and runs a learner on
// it. It is owned by one goroutine (the plugin's learner loop; a test):
// its methods are not safe for concurrent use. The scheduling path reads
// only the snapshots it publishes.
type engine struct {
	*mapping
	args   *Args
	policy string
	kind   utility.Kind

	ports   []port
	portIdx map[string]int

	m      *model // nil until built, and after a port was added
	edgeOf [][]int
	lrn    learner
	y      []float64 // decision for the current slot (owned by lrn)
	steps  int       // slots stepped so far (the learner's t)

	// carry holds y values to seed the next build with, by port key and
	// node name (from a restored state or a previous generation).
	carry map[string]map[string][]float64
}

func newEngine(a *Args, policy string) (*engine, error) {
	kind, err := utility.ParseKind(a.Utility)
	if err != nil {
		return nil, err
	}
	mp, err := newMapping(a)
	if err != nil {
		return nil, err
	}
	return &engine{mapping: mp, args: a, policy: policy, kind: kind, portIdx: map[string]int{}}, nil
}

// addPort returns the index of the port key, adding it (and dropping the
// model so that the next sync rebuilds it) when it is new and MaxPorts
// allows; -1 when it does not, or the demand is not finite.
func (e *engine) addPort(key string, demand []float64) int {
	if l, ok := e.portIdx[key]; ok {
		return l
	}
	if len(e.ports) >= e.args.MaxPorts || len(demand) != e.K() || !nonNegative(demand) {
		return -1
	}
	e.portIdx[key] = len(e.ports)
	e.ports = append(e.ports, port{key: key, demand: slices.Clone(demand)})
	e.invalidate()
	return len(e.ports) - 1
}

// invalidate keeps the learned y of the current model in carry and drops
// the model; the next sync rebuilds it.
func (e *engine) invalidate() {
	if e.m == nil || e.lrn == nil {
		e.m = nil
		return
	}
	e.saveCarry()
	e.lrn.close()
	e.m, e.lrn, e.y = nil, nil, nil
}

func (e *engine) saveCarry() {
	K := e.K()
	if e.carry == nil {
		e.carry = map[string]map[string][]float64{}
	}
	for l := 0; l < e.m.ports; l++ {
		key := e.ports[l].key
		row := e.carry[key]
		if row == nil {
			row = map[string][]float64{}
			e.carry[key] = row
		}
		for i, r := range e.edgeOf[l] {
			eid := e.edgeStart(l) + i
			row[e.m.nodes[r]] = slices.Clone(e.y[eid*K : (eid+1)*K])
		}
	}
}

// edgeStart returns the id of port l's first edge.
func (e *engine) edgeStart(l int) int {
	s := 0
	for j := 0; j < l; j++ {
		s += len(e.edgeOf[j])
	}
	return s
}

// sync makes the model match the nodes: it rebuilds it (learned y carried
// over by port key and node name) when there is none, a port was added,
// the node set changed or a node's allocatable changed. It reports whether
// it rebuilt; ready reports whether a model exists afterwards (there are
// ports and nodes).
func (e *engine) sync(nodes []*v1.Node) (rebuilt, ready bool, err error) {
	if e.m != nil && e.sameNodes(nodes) {
		return false, true, nil
	}
	e.invalidate()
	if len(e.ports) == 0 || len(nodes) == 0 {
		return false, false, nil
	}
	if err := e.build(nodes); err != nil {
		return false, false, err
	}
	return true, true, nil
}

// sameNodes reports whether nodes are the model's, with the same
// allocatable.
func (e *engine) sameNodes(nodes []*v1.Node) bool {
	m := e.m
	if len(nodes) != len(m.nodes) {
		return false
	}
	for _, n := range nodes {
		r, ok := m.nodeIdx[n.Name]
		if !ok || !slices.Equal(m.capacity[r], e.capacityOf(n)) {
			return false
		}
	}
	return true
}

// build makes the model, problem and learner for the known ports and the
// nodes (sorted by name), seeding y from carry.
func (e *engine) build(nodes []*v1.Node) error {
	K := e.K()
	sorted := slices.Clone(nodes)
	slices.SortFunc(sorted, func(a, b *v1.Node) int { return cmp.Compare(a.Name, b.Name) })
	m := &model{nodeIdx: make(map[string]int, len(sorted)), ports: len(e.ports), capacity: make([][]float64, len(sorted))}
	for r, n := range sorted {
		m.nodes = append(m.nodes, n.Name)
		m.nodeIdx[n.Name] = r
		m.capacity[r] = e.capacityOf(n)
		if !nonNegative(m.capacity[r]) {
			return fmt.Errorf("node %s: allocatable %v in units, want finite values >= 0", n.Name, m.capacity[r])
		}
	}
	demand := make([][]float64, len(e.ports))
	for l, p := range e.ports {
		demand[l] = p.demand
	}
	p, err := buildProblem(demand, m.capacity, e.kind, e.args.UtilityCoefficient, *e.args.Beta, K)
	if err != nil {
		return err
	}
	g := p.Graph
	edgeOf := make([][]int, len(e.ports))
	var init []float64
	if e.carry != nil {
		init = make([]float64, p.Dim())
	}
	for l := range e.ports {
		lo, hi := g.LeftRange(l)
		for eid := lo; eid < hi; eid++ {
			r := g.Edge(eid).Right
			edgeOf[l] = append(edgeOf[l], r)
			if init != nil {
				if v, ok := e.carry[e.ports[l].key][m.nodes[r]]; ok && len(v) == K {
					copy(init[eid*K:], v)
				}
			}
		}
	}
	lrn, err := newLearner(e.policy, p, init)
	if err != nil {
		return err
	}
	e.m, e.edgeOf, e.lrn, e.y = m, edgeOf, lrn, lrn.state()
	e.carry = nil
	return nil
}

// step learns one finished slot with arrivals x (by port index; ports
// beyond len(x) had none): OGASched takes its projected gradient step and
// gives y for the next slot. The model must be in sync (sync returned
// ready); it reports whether y moved to a new slot.
func (e *engine) step(x []float64) (bool, error) {
	if e.m == nil || e.m.ports != len(e.ports) {
		return false, nil
	}
	full := make([]float64, len(e.ports))
	copy(full, x)
	y, err := e.lrn.next(e.steps, full)
	if err != nil {
		return false, err
	}
	if !finite(y) {
		return false, fmt.Errorf("step %d: the learner returned a non-finite y", e.steps)
	}
	e.y = y
	e.steps++
	return true, nil
}

// row computes the scores of port l: for node r, 100 times the mean over
// the types k the port asks for of y_(l,r)^k / a_l^k, the share of the
// port's demand the learned allocation puts on r.
func (e *engine) row(l int) []int64 {
	K := e.K()
	out := make([]int64, len(e.m.nodes))
	d := e.ports[l].demand
	start := e.edgeStart(l)
	for i, r := range e.edgeOf[l] {
		eid := start + i
		s, n := 0.0, 0
		for k := range K {
			if d[k] > 0 {
				s += e.y[eid*K+k] / d[k]
				n++
			}
		}
		if n > 0 {
			out[r] = int64(math.Round(100 * min(max(s/float64(n), 0), 1)))
		}
	}
	return out
}

// snapshot returns what the scheduling path reads until the next publish:
// the score rows of every port on every node. nil without a model.
func (e *engine) snapshot() *snapshot {
	if e.m == nil {
		return nil
	}
	s := &snapshot{
		steps:   e.steps,
		nodes:   e.m.nodes,
		nodeIdx: e.m.nodeIdx,
		keys:    make(map[string]int, len(e.ports)),
		rows:    make([][]int64, len(e.ports)),
		demand:  make([][]float64, len(e.ports)),
		scale:   make([]float64, e.K()),
	}
	s.full = len(e.ports) >= e.args.MaxPorts
	for l, p := range e.ports {
		s.keys[p.key] = l
		s.portKeys = append(s.portKeys, p.key)
		s.demand[l] = p.demand
		s.rows[l] = e.row(l)
	}
	for _, c := range e.m.capacity {
		for k, v := range c {
			s.scale[k] = max(s.scale[k], v)
		}
	}
	s.digest = s.computeDigest(e.ports)
	return s
}

// snapshot is one published generation of scores. It is immutable: Score,
// PreScore and SignPod read it without a lock (Plugin.snap, an
// atomic.Pointer).
type snapshot struct {
	steps    int
	nodes    []string
	nodeIdx  map[string]int
	keys     map[string]int // port key -> row
	portKeys []string       // row -> port key
	full     bool           // MaxPorts ports: new keys are bucketed
	rows     [][]int64      // rows[l][r]: score of node r for port l, 0..100
	demand   [][]float64    // demand of port l, in units
	scale    []float64      // largest node capacity per type (bucketing distance)
	digest   string
}

// computeDigest is an FNV-64a hash of the ports, nodes and scores: two
// replicas that publish the same digest score every pod alike.
// The bytes hashed are those of fmt's "%s|" per port and "%s=%d," per
// node (digestFmt, kept for the test), appended without fmt: with fmt it
// was 3 % of a learner-heavy replay's CPU (issue 32's profile).
func (s *snapshot) computeDigest(ports []port) string {
	h := fnv.New64a()
	var buf []byte
	for l, p := range ports {
		buf = append(append(buf[:0], p.key...), '|')
		h.Write(buf)
		for r, v := range s.rows[l] {
			buf = append(append(buf[:0], s.nodes[r]...), '=')
			buf = append(strconv.AppendInt(buf, v, 10), ',')
			h.Write(buf)
		}
	}
	return fmt.Sprintf("%016x", h.Sum64())
}

// lookup returns the row of the port key (s may be nil).
func (s *snapshot) lookup(key string) (int, bool) {
	if s == nil {
		return -1, false
	}
	l, ok := s.keys[key]
	return l, ok
}

// portFor returns the row of the pod's port: its own when the key is
// known, else the nearest known shape (bucketed). Nearest: among the ports
// asking for the same set of resource types (any port when none does),
// the smallest Euclidean distance between demands, each type divided by
// the largest node capacity of that type (types no node has count in
// units). Ties go to the lower port index (the earlier seen). -1 when
// there is no port.
func (s *snapshot) portFor(key string, demand []float64) (row int, bucketed bool) {
	if l, ok := s.keys[key]; ok {
		return l, false
	}
	best, bestSame, bestD := -1, false, math.Inf(1)
	for l, d := range s.demand {
		same := sameSupport(d, demand)
		if bestSame && !same {
			continue
		}
		dist := 0.0
		for k := range d {
			sc := s.scale[k]
			if !(sc > 0) {
				sc = 1
			}
			v := (d[k] - demand[k]) / sc
			dist += v * v
		}
		if (same && !bestSame) || dist < bestD {
			best, bestSame, bestD = l, same, dist
		}
	}
	return best, best >= 0
}

func sameSupport(a, b []float64) bool {
	for k := range a {
		if (a[k] > 0) != (b[k] > 0) {
			return false
		}
	}
	return true
}
