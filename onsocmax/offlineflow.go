package onsocmax

import (
	"fmt"
	"math"

	"github.com/msched/msched/utility"
)

// OfflineFlow returns the optimum of P1 for linear utilities, like
// OfflineLP, and an optimal x per job aligned with Job.Units. It is a
// FlowSolver with default settings (see FlowSolver for the method, its
// tolerances and its bound on the work); use a FlowSolver directly to reuse
// its buffers across instances. It returns ErrUnsupported for a non-linear
// utility and an error wrapping ErrIterationLimit if the augmentation limit
// is reached (never observed on valid instances; see the package
// documentation).
func OfflineFlow(in *Instance) (float64, [][]float64, error) {
	if err := in.Validate(); err != nil {
		return 0, nil, err
	}
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		x[n] = make([]float64, len(in.Jobs[n].Units))
	}
	var s FlowSolver
	res, err := s.Solve(x, in)
	if err != nil {
		return 0, nil, err
	}
	return res.Value, x, nil
}

// DefaultCapacityTol is the default FlowSettings.CapacityTol.
const DefaultCapacityTol = 1e-12

// FlowSettings configures FlowSolver. The zero value is the default.
type FlowSettings struct {
	// MaxAugmentations bounds the number of augmenting paths (one Dijkstra
	// each) of one Solve. 0 means DefaultMaxAugmentations(arcs) for the
	// instance's arcs job -> unit; negative is invalid.
	MaxAugmentations int
	// CapacityTol is the relative tolerance on residual capacities: a
	// residual capacity at most CapacityTol times the capacity of its arc
	// counts as saturated, so rounding residues never start an
	// augmentation. 0 means DefaultCapacityTol; it must lie in [0, 1e-3].
	CapacityTol float64
	// MaxWork bounds the arcs scanned by the shortest-path searches of one
	// Solve, so the time of a solve is bounded even when each search is
	// long (8000 jobs of a hostile trace took 43 s). 0 means
	// DefaultMaxFlowWork; negative is invalid. Reaching it stops the solve
	// like MaxAugmentations (ErrIterationLimit, a feasible flow).
	MaxWork int64
}

// CeilingMaxAugmentations and CeilingMaxFlowWork are the largest
// FlowSettings.MaxAugmentations and MaxWork (2^40 arc scans, hours of
// work); above them Validate returns an error.
const (
	CeilingMaxAugmentations = 1 << 40
	CeilingMaxFlowWork      = 1 << 40
)

// DefaultMaxFlowWork is the default FlowSettings.MaxWork: 2^28 arc scans,
// about 10 s here; a 20x default day scans 4.3e4 (1.6 ms).
const DefaultMaxFlowWork = 1 << 28

// DefaultMaxAugmentations is the default augmentation limit of FlowSolver
// for an instance with arcs job -> unit arcs: 8 (arcs + 16). Measured: at
// most 1.9 augmentations per arc over 10 000 generated and near-degenerate
// instances, 0.14 per arc on a 20x default day.
func DefaultMaxAugmentations(arcs int) int {
	if arcs > (math.MaxInt-128)/8 {
		return math.MaxInt
	}
	return 8 * (arcs + 16)
}

// Validate reports invalid settings, wrapping ErrSettings.
func (s FlowSettings) Validate() error {
	if s.MaxAugmentations < 0 || s.MaxAugmentations > CeilingMaxAugmentations {
		return fmt.Errorf("%w: FlowSettings.MaxAugmentations = %d, want in [0, CeilingMaxAugmentations = %d]", ErrSettings, s.MaxAugmentations, CeilingMaxAugmentations)
	}
	if s.MaxWork < 0 || s.MaxWork > CeilingMaxFlowWork {
		return fmt.Errorf("%w: FlowSettings.MaxWork = %d, want in [0, CeilingMaxFlowWork = %d]", ErrSettings, s.MaxWork, int64(CeilingMaxFlowWork))
	}
	if !(s.CapacityTol >= 0 && s.CapacityTol <= 1e-3) {
		return fmt.Errorf("%w: FlowSettings.CapacityTol = %v, want in [0, 1e-3]", ErrSettings, s.CapacityTol)
	}
	return nil
}

// FlowResult reports one FlowSolver.Solve.
type FlowResult struct {
	// Value is the P1 objective sum w_nr x_nr of the returned flow.
	Value float64
	// Augmentations is the number of augmenting paths.
	Augmentations int
	// Work is the number of arcs the shortest-path searches scanned.
	Work int64
	// Status is Success, Trivial (no arc of positive weight) or
	// IterationLimit (the returned flow is feasible but may not be optimal).
	Status Status
}

// FlowSolver solves P1 with linear utilities (the linear program of
// OfflineLP) as a min-cost flow
//
//	source -> job n  (capacity rho_n, cost 0)
//	job n -> unit r  (capacity xbar_nr, cost -w_nr, w_nr = a_nr + beta_nr/C_r)
//	unit r -> sink   (capacity C_r, cost 0)
//
// by successive shortest paths: Dijkstra on the reduced costs
// c(u,v) + pi(u) - pi(v) >= 0 with Johnson potentials pi (initialised by one
// pass over the layered graph, updated after each search, which stops when
// the sink is settled), one augmentation along the bottleneck of each path,
// until the cheapest path has non-negative cost. The optimal cost is convex
// in the flow value, so stopping there maximises the profit. Arcs with
// w_nr <= 0, xbar_nr = 0 or C_r = 0 are left out.
//
// Real-valued capacities: flows and capacities are float64. Each
// augmentation sets its bottleneck residual to exactly 0; a forward
// residual capacity (capacity minus flow) at most CapacityTol times the
// arc's capacity counts as saturated (so a rounding residue such as
// 1e-16 C never starts a path), while a reverse residual (the flow itself)
// counts whenever it is positive, since a flow of 1 on an arc of capacity
// 1e12 is not a rounding residue; and a path
// whose cost is above -1e-12 max|w| is not augmented (it changes the
// objective by less than rounding). Reduced costs below 0 by rounding are
// clamped to 0. The predecessor walk follows settled nodes only, each
// settled before the next, so it always reaches the source in at most
// #nodes steps; every loop is bounded and the number of augmentations is
// limited by Settings.MaxAugmentations.
//
// A FlowSolver keeps its buffers between calls; it is not safe for
// concurrent use. Its zero value is ready to use.
type FlowSolver struct {
	Settings FlowSettings
	g        flowGraph
}

// Solve writes to dst (one row per job, aligned with Job.Units) an optimal
// x of P1 for in, whose utilities must all be linear, and returns its value.
// It panics if dst does not have len(in.Jobs) rows of len(Job.Units).
// It validates in and s.Settings; it returns ErrUnsupported for a
// non-linear utility and, with Status IterationLimit and a feasible x in
// dst, an error wrapping ErrIterationLimit if MaxAugmentations is reached.
func (s *FlowSolver) Solve(dst [][]float64, in *Instance) (FlowResult, error) {
	if err := s.Settings.Validate(); err != nil {
		return FlowResult{}, err
	}
	if err := in.Validate(); err != nil {
		return FlowResult{}, err
	}
	checkRows(dst, in)
	w := s.g.weights(in)
	for n := range in.Jobs {
		j := &in.Jobs[n]
		for i := range j.Units {
			if j.Utility[i].Kind != utility.Linear {
				return FlowResult{}, fmt.Errorf("%w: job %d unit index %d has %v utility; the min-cost flow needs linear", ErrUnsupported, j.ID, i, j.Utility[i].Kind)
			}
		}
	}
	return s.solve(dst, in, w)
}

// checkRows panics if x does not have one row per job of the right length.
func checkRows(x [][]float64, in *Instance) {
	if len(x) != len(in.Jobs) {
		panic(panicLen)
	}
	for n := range in.Jobs {
		if len(x[n]) != len(in.Jobs[n].Units) {
			panic(panicLen)
		}
	}
}

// linearOpt writes to x a maximiser of sum w_nr x_nr over the P1 polytope
// (arcs of non-positive weight are left out) and returns the maximum. w
// must be finite.
func (in *Instance) linearOpt(x, w [][]float64) (float64, error) {
	var s FlowSolver
	res, err := s.solve(x, in, w)
	return res.Value, err
}

// weights fills the solver's weight rows with w_nr = a_nr + beta_nr/C_r
// (0 on units of zero capacity) and returns them.
func (g *flowGraph) weights(in *Instance) [][]float64 {
	g.w = growRows(g.w, in)
	for n := range in.Jobs {
		j := &in.Jobs[n]
		for i, r := range j.Units {
			g.w[n][i] = 0
			if c := in.Mesh.Capacity[r]; c > 0 {
				g.w[n][i] = j.Utility[i].A + j.Beta[i]/c
			}
		}
	}
	return g.w
}

// growRows returns rows shaped like the instance's jobs, reusing buf.
func growRows(buf [][]float64, in *Instance) [][]float64 {
	if cap(buf) < len(in.Jobs) {
		buf = append(buf[:cap(buf)], make([][]float64, len(in.Jobs)-cap(buf))...)
	}
	buf = buf[:len(in.Jobs)]
	for n := range in.Jobs {
		buf[n] = grow(buf[n], len(in.Jobs[n].Units))
	}
	return buf
}

// solve builds the network of weights w and runs successive shortest paths
// job by job (see the comment in the body).
func (s *FlowSolver) solve(x [][]float64, in *Instance, w [][]float64) (FlowResult, error) {
	// The source and the sink are merged into one node Z (id 0): a
	// job's supply arc Z -> job (capacity rho_n) and a unit's arc
	// unit -> Z (capacity C_r) close every path into a cycle, and the
	// residual arc job -> Z (the job's flow) lets a later job displace
	// it. Jobs are added one at a time; each is augmented along shortest
	// paths job -> ... -> Z while their cost is negative. Before job n is
	// added the residual network has no negative cycle (the flow is
	// optimal for jobs < n); job n has no entering residual arc, so the
	// searches from it are an ordinary single-source SSP and leave no
	// negative cycle either (the cost of its flow is convex in its
	// amount). Searches stop when Z is settled, so arcs leaving Z are
	// never scanned, and only the settled nodes' potentials move: the
	// work per search is local to the jobs that overlap the new one.
	g := &s.g
	capTol := s.Settings.CapacityTol
	if capTol == 0 {
		capTol = DefaultCapacityTol
	}
	nj := len(in.Jobs)
	nu := in.Mesh.NumUnits()
	if cap(g.unitNode) < nu {
		g.unitNode = make([]int32, nu)
		for r := range g.unitNode {
			g.unitNode[r] = -1
		}
	}
	g.unitNode = g.unitNode[:nu]
	g.reset()
	// Node ids: 0 is Z, 1..nj jobs, then units in order of first use.
	nodes := 1 + nj
	g.units = g.units[:0]
	g.supply = growInt32(g.supply, nj)
	maxW := 0.0
	for n := range in.Jobs {
		j := &in.Jobs[n]
		clear(x[n])
		g.supply[n] = -1
		if !(j.Rho > 0) {
			continue
		}
		first := true
		for i, r := range j.Units {
			c := in.Mesh.Capacity[r]
			wi := w[n][i]
			if c <= 0 || j.XBar[i] <= 0 || !(wi > 0) {
				continue
			}
			if first {
				g.supply[n] = int32(len(g.eu))
				g.addEdge(0, int32(1+n), j.Rho, 0)
				first = false
			}
			u := g.unitNode[r]
			if u < 0 {
				u = int32(nodes)
				nodes++
				g.unitNode[r] = u
				g.units = append(g.units, r)
			}
			g.jobArc = append(g.jobArc, flowRef{n: int32(n), i: int32(i), e: int32(len(g.eu))})
			g.addEdge(int32(1+n), u, j.XBar[i], -wi)
			maxW = math.Max(maxW, wi)
		}
	}
	for _, r := range g.units {
		g.addEdge(g.unitNode[r], 0, in.Mesh.Capacity[r], 0)
		g.unitNode[r] = -1 // restore for the next call
	}
	if len(g.jobArc) == 0 {
		return FlowResult{Status: Trivial}, nil
	}
	limit := s.Settings.MaxAugmentations
	if limit == 0 {
		limit = DefaultMaxAugmentations(len(g.jobArc))
	}
	maxWork := s.Settings.MaxWork
	if maxWork == 0 {
		maxWork = DefaultMaxFlowWork
	}
	g.build(nodes, capTol)
	g.work = 0
	res := FlowResult{Status: Success}
	stop := -1e-12 * maxW
jobs:
	for n := range in.Jobs {
		if g.supply[n] < 0 {
			continue
		}
		src := int32(1 + n)
		g.addJob(src)
		sup := g.fwd[g.supply[n]]
		for g.capa[sup] > g.tol[sup] {
			if res.Augmentations >= limit || g.work >= maxWork {
				res.Status = IterationLimit
				break jobs
			}
			cost, ok := g.search(src)
			if !ok || cost >= stop {
				break
			}
			g.movePotentials()
			if !g.augment(src, sup) {
				// Unreachable by construction (the walk follows settled
				// nodes); reported rather than looping.
				res.Status = IterationLimit
				break jobs
			}
			res.Augmentations++
		}
	}
	for _, rf := range g.jobArc {
		xbar := in.Jobs[rf.n].XBar[rf.i]
		a := g.fwd[rf.e]
		// The reverse residual is the flow, exact up to rounding relative
		// to the flow (xbar minus the forward residual would lose the
		// digits of a flow of 10 on an arc of capacity 1e8).
		f := math.Min(math.Max(g.capa[g.rev[a]], 0), xbar)
		x[rf.n][rf.i] = f
		res.Value += w[rf.n][rf.i] * f
	}
	res.Work = g.work
	if res.Status == IterationLimit {
		return res, fmt.Errorf("%w: min-cost flow stopped after %d augmentations and %d arc scans (FlowSettings.MaxAugmentations = %d, MaxWork = %d)", ErrIterationLimit, res.Augmentations, g.work, limit, maxWork)
	}
	return res, nil
}

type flowRef struct{ n, i, e int32 }

// flowGraph is a residual network in CSR form: the arcs leaving node u are
// start[u]..start[u+1]-1; rev[a] is the reverse arc of a.
type flowGraph struct {
	// Edge list before build.
	eu, ev      []int32
	ecap, ecost []float64
	jobArc      []flowRef
	work        int64 // arcs scanned by search since solve began
	units       []int
	supply      []int32 // job -> its edge Z -> job, -1 when the job has no arc
	unitNode    []int32 // mesh unit -> node id, -1 when unused
	w           [][]float64

	start     []int32
	to, rev   []int32
	fwd       []int32 // edge -> its forward arc
	capa, tol []float64
	cost      []float64
	pi, dist  []float64
	prev      []int32 // arc into v on the shortest-path tree
	settled   []bool
	order     []int32 // settled nodes of the last search, in order
	heap      []heapItem
	fill      []int32
}

type heapItem struct {
	d float64
	v int32
}

func (g *flowGraph) reset() {
	g.eu, g.ev, g.ecap, g.ecost = g.eu[:0], g.ev[:0], g.ecap[:0], g.ecost[:0]
	g.jobArc = g.jobArc[:0]
}

func (g *flowGraph) addEdge(u, v int32, c, w float64) {
	g.eu, g.ev = append(g.eu, u), append(g.ev, v)
	g.ecap, g.ecost = append(g.ecap, c), append(g.ecost, w)
}

func growInt32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// build lays the edges out in CSR with their reverse arcs.
func (g *flowGraph) build(n int, capTol float64) {
	m := 2 * len(g.eu)
	g.start = growInt32(g.start, n+1)
	clear(g.start)
	for e := range g.eu {
		g.start[g.eu[e]+1]++
		g.start[g.ev[e]+1]++
	}
	for u := range n {
		g.start[u+1] += g.start[u]
	}
	g.fill = growInt32(g.fill, n)
	copy(g.fill, g.start[:n])
	g.to, g.rev = growInt32(g.to, m), growInt32(g.rev, m)
	g.fwd = growInt32(g.fwd, len(g.eu))
	g.capa, g.tol, g.cost = grow(g.capa, m), grow(g.tol, m), grow(g.cost, m)
	for e := range g.eu {
		u, v := g.eu[e], g.ev[e]
		a, b := g.fill[u], g.fill[v]
		g.fill[u]++
		g.fill[v]++
		g.fwd[e] = a
		g.to[a], g.to[b] = v, u
		g.rev[a], g.rev[b] = b, a
		g.capa[a], g.capa[b] = g.ecap[e], 0
		// A forward residual is ecap minus the pushed flow, so its
		// rounding is relative to ecap; a reverse residual is a sum of
		// pushes, exact up to rounding relative to the flow itself (which
		// may be 1e-12 of ecap), so any positive value counts.
		g.tol[a], g.tol[b] = capTol*g.ecap[e], 0
		g.cost[a], g.cost[b] = g.ecost[e], -g.ecost[e]
	}
	g.pi, g.dist = grow(g.pi, n), grow(g.dist, n)
	g.prev = growInt32(g.prev, n)
	g.settled = growBool(g.settled, n)
	clear(g.pi)
	for v := range n {
		g.dist[v], g.prev[v], g.settled[v] = math.Inf(1), -1, false
	}
	g.order = g.order[:0]
	if cap(g.heap) < m+1 {
		g.heap = make([]heapItem, 0, m+1)
	}
	if cap(g.order) < n {
		g.order = make([]int32, 0, n)
	}
}

// addJob sets the potential of job node src so that its arcs to units have
// non-negative reduced cost: pi(src) = max_u pi(u) + w_{src,u}.
func (g *flowGraph) addJob(src int32) {
	p := 0.0
	for a := g.start[src]; a < g.start[src+1]; a++ {
		if v := g.to[a]; v != 0 && g.capa[a] > 0 {
			p = math.Max(p, g.pi[v]-g.cost[a])
		}
	}
	g.pi[src] = p
}

// search runs Dijkstra from src on the reduced costs c + pi(u) - pi(v),
// stopping when Z (node 0) is settled, and returns the true cost of the
// path to Z and whether Z is reachable. The arc src -> Z (src's own flow) is skipped.
func (g *flowGraph) search(src int32) (float64, bool) {
	for _, v := range g.order {
		g.dist[v], g.prev[v], g.settled[v] = math.Inf(1), -1, false
	}
	g.order = g.order[:0]
	g.dist[src] = 0
	g.order = append(g.order, src)
	h := append(g.heap[:0], heapItem{0, src})
	found := false
	for len(h) > 0 {
		it := h[0]
		h = heapPop(h)
		u := it.v
		if g.settled[u] || it.d > g.dist[u] {
			continue
		}
		g.settled[u] = true
		if u == 0 {
			found = true
			break
		}
		pu := g.pi[u]
		g.work += int64(g.start[u+1] - g.start[u])
		for a := g.start[u]; a < g.start[u+1]; a++ {
			if g.capa[a] <= g.tol[a] {
				continue
			}
			v := g.to[a]
			if g.settled[v] || (u == src && v == 0) {
				continue
			}
			rc := g.cost[a] + pu - g.pi[v]
			if rc < 0 {
				rc = 0 // rounding
			}
			if d := it.d + rc; d < g.dist[v] {
				if math.IsInf(g.dist[v], 1) {
					g.order = append(g.order, v)
				}
				g.dist[v] = d
				g.prev[v] = a
				h = heapPush(h, heapItem{d, v})
			}
		}
	}
	g.heap = h[:0]
	if !found {
		return 0, false
	}
	return g.dist[0] + g.pi[0] - g.pi[src], true
}

// movePotentials moves the potentials of the nodes settled by the last
// search: pi(v) -= dist(Z) - dist(v). Every reduced cost stays
// non-negative, the arcs of the shortest-path tree get reduced cost 0 (so
// do their reverses after the augmentation) and pi(Z) stays 0. It must be
// called only before an augmentation: after a search that does not
// augment, the move would give the source's arc src -> Z (its own flow)
// reduced cost pi(src) = -cost < 0.
func (g *flowGraph) movePotentials() {
	dz := g.dist[0]
	for _, v := range g.order {
		if g.settled[v] {
			g.pi[v] -= dz - g.dist[v]
		}
	}
}

// augment pushes the bottleneck capacity (with the supply arc sup) along
// the tree path src -> Z. The walk is bounded by the number of nodes; it
// reports false if the walk does not reach src (impossible for a tree of
// settled nodes).
func (g *flowGraph) augment(src, sup int32) bool {
	n := len(g.prev)
	f := g.capa[sup]
	v, steps := int32(0), 0
	for v != src {
		a := g.prev[v]
		if a < 0 || steps > n {
			return false
		}
		f = math.Min(f, g.capa[a])
		v = g.to[g.rev[a]]
		steps++
	}
	for v = 0; v != src; v = g.to[g.rev[g.prev[v]]] {
		a := g.prev[v]
		g.capa[a] -= f
		g.capa[g.rev[a]] += f
	}
	g.capa[sup] -= f
	g.capa[g.rev[sup]] += f
	return true
}

func heapPush(h []heapItem, it heapItem) []heapItem {
	h = append(h, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h[p].d <= it.d {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
	return h
}

func heapPop(h []heapItem) []heapItem {
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	if n == 0 {
		return h
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].d < h[c].d {
			c++
		}
		if h[c].d >= last.d {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = last
	return h
}
