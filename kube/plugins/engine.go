package plugins

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/types"
	resourcehelper "k8s.io/component-helpers/resource"

	"github.com/msched/msched/utility"
)

// maxSeen bounds the set of pods counted as arrivals but not yet bound;
// past it the set is cleared (a pod may then be counted twice).
const maxSeen = 1 << 16

// port is one job type: its key (label value or request shape) and its
// demand a_l^k in units.
type port struct {
	key    string
	demand []float64
}

// model is one immutable generation of the mapping: ports x nodes, the
// learned y for the current slot and the score rows computed from it.
// Score reads it without a lock.
type model struct {
	nodes   []string
	nodeIdx map[string]int
	ports   int
	// rows[l][r] is the score of node r for port l (0..100), nil until
	// computed for the current slot.
	rows [][]int64
}

// engine maps Kubernetes onto an OGASched problem and runs a learner on it.
// Its methods are safe for concurrent use.
type engine struct {
	mu     sync.Mutex
	args   *Args
	policy string
	names  []v1.ResourceName
	units  []float64
	kind   utility.Kind

	ports   []port
	portIdx map[string]int

	m        *model
	capacity [][]float64 // per node of m, in units
	edgeOf   [][]int     // edgeOf[l] = right vertex of each edge of port l, in edge order
	lrn      learner
	y        []float64 // decision for the current slot (owned by lrn)

	slot    int64 // absolute slot of the current decision; -1 before the first
	checked int64 // slot at which the node set was last compared
	dirty   bool  // learned state changed since the last save
	steps   int   // slots stepped so far (the learner's t)
	x       []float64
	seen    map[types.UID]struct{}

	// carry holds y values to seed the next build with, by port key and
	// node name (from a restored file or a previous generation).
	carry map[string]map[string][]float64
}

func newEngine(a *Args, policy string) (*engine, error) {
	kind, err := utility.ParseKind(a.Utility)
	if err != nil {
		return nil, err
	}
	e := &engine{args: a, policy: policy, kind: kind, portIdx: map[string]int{}, slot: -1, seen: map[types.UID]struct{}{}}
	for _, r := range a.Resources {
		q, err := resource.ParseQuantity(r.Unit)
		if err != nil {
			return nil, err
		}
		e.names = append(e.names, v1.ResourceName(r.Name))
		e.units = append(e.units, q.AsApproximateFloat64())
	}
	return e, nil
}

// K returns the number of resource types.
func (e *engine) K() int { return len(e.names) }

// demandOf returns the pod's requests of the resource types, in units.
func (e *engine) demandOf(pod *v1.Pod) []float64 {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	d := make([]float64, e.K())
	for k, n := range e.names {
		if q, ok := req[n]; ok {
			d[k] = q.AsApproximateFloat64() / e.units[k]
		}
	}
	return d
}

// capacityOf returns the node's allocatable resource types, in units.
func (e *engine) capacityOf(n *v1.Node) []float64 {
	c := make([]float64, e.K())
	for k, name := range e.names {
		if q, ok := n.Status.Allocatable[name]; ok {
			c[k] = q.AsApproximateFloat64() / e.units[k]
		}
	}
	return c
}

// portKey returns the pod's port key: the PortLabel value, or its shape.
func (e *engine) portKey(pod *v1.Pod, demand []float64) string {
	if e.args.PortLabel != "" {
		if v, ok := pod.Labels[e.args.PortLabel]; ok {
			return "label:" + v
		}
	}
	var b strings.Builder
	b.WriteString("shape:")
	for k, d := range demand {
		if k > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%s=%g", e.names[k], d)
	}
	return b.String()
}

// portOf returns the port index of the pod, adding a port (and dropping the
// current model so that the next rows call rebuilds it) when the key is new
// and MaxPorts allows; -1 when it does not.
func (e *engine) portOf(pod *v1.Pod) int {
	d := e.demandOf(pod)
	key := e.portKey(pod, d)
	if l, ok := e.portIdx[key]; ok {
		return l
	}
	if len(e.ports) >= e.args.MaxPorts || !finite(d) {
		return -1
	}
	e.portIdx[key] = len(e.ports)
	e.ports = append(e.ports, port{key: key, demand: d})
	e.x = append(e.x, 0)
	e.invalidate()
	return len(e.ports) - 1
}

// invalidate keeps the learned y of the current model in carry and drops
// the model; the next rows call rebuilds it.
func (e *engine) invalidate() {
	if e.m == nil || e.lrn == nil {
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

// arrive counts the pod as an arrival of the current slot (once per pod
// until it is bound) and advances the slot to now (seconds).
func (e *engine) arrive(pod *v1.Pod, now float64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(now)
	l := e.portOf(pod)
	if l < 0 {
		return
	}
	if _, ok := e.seen[pod.UID]; ok {
		return
	}
	if len(e.seen) >= maxSeen {
		clear(e.seen)
	}
	e.seen[pod.UID] = struct{}{}
	e.x[l]++
}

// bound forgets the pod (it will not be counted again).
func (e *engine) bound(uid types.UID) {
	e.mu.Lock()
	delete(e.seen, uid)
	e.mu.Unlock()
}

// advance moves to the slot of now: the learner steps on the arrivals of
// the finished slot and gives the next y. Slots without arrivals are
// skipped (their gradient is zero, so OGASched would not move).
func (e *engine) advance(now float64) {
	s := int64(math.Floor(now / e.args.SlotSeconds))
	if e.slot < 0 {
		e.slot = s
		return
	}
	if s <= e.slot {
		return
	}
	e.slot = s
	any := slices.ContainsFunc(e.x, func(v float64) bool { return v > 0 })
	if !any {
		return
	}
	if e.lrn != nil && len(e.x) == e.m.ports {
		y, err := e.lrn.next(e.steps, e.x)
		if err == nil && finite(y) {
			e.y = y
			e.steps++
			e.m = e.m.withoutRows()
			e.dirty = true
		}
	}
	clear(e.x)
}

func (m *model) withoutRows() *model {
	c := *m
	c.rows = make([][]int64, m.ports)
	return &c
}

// nodeSource lists the cluster's nodes (the scheduler's snapshot).
type nodeSource func() []*v1.Node

// current returns the model for the nodes, rebuilding it when the node set
// changed or a port was added. It returns nil when no model can be built.
func (e *engine) current(nodes []*v1.Node) *model {
	if e.m != nil && sameNodes(e.m, nodes) {
		return e.m
	}
	if e.m != nil {
		e.invalidate()
	}
	if len(e.ports) == 0 || len(nodes) == 0 {
		return nil
	}
	if err := e.build(nodes); err != nil {
		return nil
	}
	return e.m
}

func sameNodes(m *model, nodes []*v1.Node) bool {
	if len(nodes) != len(m.nodes) {
		return false
	}
	for _, n := range nodes {
		if _, ok := m.nodeIdx[n.Name]; !ok {
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
	m := &model{nodeIdx: make(map[string]int, len(sorted)), ports: len(e.ports), rows: make([][]int64, len(e.ports))}
	capacity := make([][]float64, len(sorted))
	for r, n := range sorted {
		m.nodes = append(m.nodes, n.Name)
		m.nodeIdx[n.Name] = r
		capacity[r] = e.capacityOf(n)
		if !finite(capacity[r]) {
			return fmt.Errorf("node %s: capacity %v", n.Name, capacity[r])
		}
	}
	demand := make([][]float64, len(e.ports))
	for l, p := range e.ports {
		demand[l] = p.demand
	}
	p, err := buildProblem(demand, capacity, e.kind, e.args.UtilityCoefficient, *e.args.Beta, K)
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
	e.m, e.capacity, e.edgeOf, e.lrn, e.y = m, capacity, edgeOf, lrn, lrn.state()
	e.carry = nil
	return nil
}

// rows returns the model and the score row of the pod's port (nil when the
// plugin has no opinion on this pod), computing it once per slot.
func (e *engine) rowsFor(pod *v1.Pod, now float64, nodes nodeSource) (*model, []int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.advance(now)
	l := e.portOf(pod)
	if l < 0 {
		return nil, nil
	}
	m := e.m
	if m == nil || l >= m.ports || e.checked != e.slot {
		m = e.current(nodes())
		e.checked = e.slot
		if m == nil {
			return nil, nil
		}
	}
	if m.rows[l] == nil {
		m.rows[l] = e.row(l)
	}
	return m, m.rows[l]
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
