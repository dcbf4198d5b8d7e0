package onsocmax

import (
	"fmt"
	"math"

	"github.com/msched/msched/utility"
)

// OfflineFlow returns the optimum of P1 for linear utilities, like
// OfflineLP, by min-cost flow: source -> job n (capacity rho_n) -> unit r
// (capacity xbar_nr, cost -(a_nr + beta_nr/C_r)) -> sink (capacity C_r).
// Successive shortest paths (Bellman-Ford queue) augment while a path of
// negative cost exists; since the optimal cost is convex in the flow value,
// stopping there is optimal. It is exact up to floating-point rounding and
// has no size limit beyond time (each augmentation saturates an arc). It
// returns ErrUnsupported for a non-linear utility.
func OfflineFlow(in *Instance) (float64, [][]float64, error) {
	if err := in.Validate(); err != nil {
		return 0, nil, err
	}
	w := make([][]float64, len(in.Jobs))
	x := make([][]float64, len(in.Jobs))
	for n := range in.Jobs {
		j := &in.Jobs[n]
		w[n] = make([]float64, len(j.Units))
		x[n] = make([]float64, len(j.Units))
		for i, r := range j.Units {
			if j.Utility[i].Kind != utility.Linear {
				return 0, nil, fmt.Errorf("%w: job %d unit index %d has %v utility; OfflineFlow needs linear", ErrUnsupported, j.ID, i, j.Utility[i].Kind)
			}
			if c := in.Mesh.Capacity[r]; c > 0 {
				w[n][i] = j.Utility[i].A + j.Beta[i]/c
			}
		}
	}
	opt, err := in.linearOpt(x, w)
	return opt, x, err
}

// linearOpt writes to x a maximiser of sum w_nr x_nr over the P1 polytope
// (arcs of non-positive weight are left out) and returns the maximum.
func (in *Instance) linearOpt(x, w [][]float64) (float64, error) {
	var g flowGraph
	nj := len(in.Jobs)
	unitNode := make(map[int]int)
	type arcRef struct{ n, i, arc int }
	var refs []arcRef
	// Node ids: 0 source, 1 sink, 2..nj+1 jobs, then units.
	g.init(2 + nj)
	for n := range in.Jobs {
		j := &in.Jobs[n]
		clear(x[n])
		g.addArc(0, 2+n, j.Rho, 0)
		for i, r := range j.Units {
			c := in.Mesh.Capacity[r]
			if c <= 0 || j.XBar[i] <= 0 || !(w[n][i] > 0) {
				continue
			}
			u, ok := unitNode[r]
			if !ok {
				u = g.addNode()
				unitNode[r] = u
				g.addArc(u, 1, c, 0)
			}
			refs = append(refs, arcRef{n, i, g.addArc(2+n, u, j.XBar[i], -w[n][i])})
		}
	}
	if err := g.maxProfit(0, 1); err != nil {
		return 0, err
	}
	var opt float64
	for _, rf := range refs {
		f := math.Min(math.Max(g.flow(rf.arc), 0), in.Jobs[rf.n].XBar[rf.i])
		x[rf.n][rf.i] = f
		opt += w[rf.n][rf.i] * f
	}
	return opt, nil
}

type flowGraph struct {
	head           []int
	next, to       []int
	capa, cost     []float64
	orig           []float64
	dist           []float64
	prev           []int
	inQueue        []bool
	queue          []int
	relaxations    int
	maxRelaxations int
}

func (g *flowGraph) init(n int) {
	g.head = make([]int, n)
	for i := range g.head {
		g.head[i] = -1
	}
}

func (g *flowGraph) addNode() int {
	g.head = append(g.head, -1)
	return len(g.head) - 1
}

// addArc adds u->v and its reverse and returns the forward arc id.
func (g *flowGraph) addArc(u, v int, c, w float64) int {
	id := len(g.to)
	g.to = append(g.to, v, u)
	g.capa = append(g.capa, c, 0)
	g.orig = append(g.orig, c, 0)
	g.cost = append(g.cost, w, -w)
	g.next = append(g.next, g.head[u], g.head[v])
	g.head[u], g.head[v] = id, id+1
	return id
}

func (g *flowGraph) flow(arc int) float64 { return g.orig[arc] - g.capa[arc] }

const flowEps = 1e-12

func (g *flowGraph) maxProfit(s, t int) error {
	n := len(g.head)
	g.dist = make([]float64, n)
	g.prev = make([]int, n)
	g.inQueue = make([]bool, n)
	for iter := 0; ; iter++ {
		if iter > 1_000_000 {
			return fmt.Errorf("%w: min-cost flow did not terminate", ErrValue)
		}
		for i := range g.dist {
			g.dist[i], g.prev[i] = math.Inf(1), -1
		}
		g.dist[s] = 0
		g.queue = append(g.queue[:0], s)
		g.inQueue[s] = true
		relax := 0
		for qh := 0; qh < len(g.queue); qh++ {
			u := g.queue[qh]
			g.inQueue[u] = false
			for a := g.head[u]; a >= 0; a = g.next[a] {
				if g.capa[a] <= flowEps {
					continue
				}
				v := g.to[a]
				if d := g.dist[u] + g.cost[a]; d < g.dist[v]-1e-14 {
					g.dist[v], g.prev[v] = d, a
					if !g.inQueue[v] {
						g.queue = append(g.queue, v)
						g.inQueue[v] = true
					}
					relax++
					if relax > n*len(g.to)+10 {
						return fmt.Errorf("%w: negative cycle in the residual graph (rounding)", ErrValue)
					}
				}
			}
		}
		if math.IsInf(g.dist[t], 1) || g.dist[t] >= -1e-13 {
			return nil
		}
		f := math.Inf(1)
		for v := t; v != s; v = g.to[g.prev[v]^1] {
			f = math.Min(f, g.capa[g.prev[v]])
		}
		for v := t; v != s; v = g.to[g.prev[v]^1] {
			a := g.prev[v]
			g.capa[a] -= f
			g.capa[a^1] += f
		}
	}
}
