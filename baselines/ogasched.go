package baselines

import (
	"fmt"
	"math"
	"sort"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/ogasched"
)

// The OGASched-family baselines (paper 000, Section IV) observe the arrivals
// x(t) of the slot and return an allocation y in the flat layout of
// ogasched.Problem (y[e*K+k]) satisfying (5)-(6). A port with x_l(t) = 0
// gets nothing. The returned slice is owned by the policy and valid until
// the next Decide. None is safe for concurrent use.

var (
	_ bipartite.OnlinePolicy[[]float64, []float64] = (*DRF)(nil)
	_ bipartite.OnlinePolicy[[]float64, []float64] = (*Fairness)(nil)
	_ bipartite.OnlinePolicy[[]float64, []float64] = (*BinPacking)(nil)
)

// ogaBase holds the buffers shared by the OGASched-family baselines.
type ogaBase struct {
	p   *ogasched.Problem
	y   []float64
	rem []float64 // remaining capacity rem[r*K+k]
}

func newOgaBase(p *ogasched.Problem) ogaBase {
	return ogaBase{p: p, y: make([]float64, p.Dim()), rem: make([]float64, p.NumNodes()*p.K)}
}

func (b *ogaBase) reset(x []float64) error {
	if len(x) != b.p.NumPorts() {
		return fmt.Errorf("baselines: len(x) = %d, want %d ports", len(x), b.p.NumPorts())
	}
	for l, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return fmt.Errorf("baselines: x[%d] = %v", l, v)
		}
	}
	clear(b.y)
	K := b.p.K
	for r, c := range b.p.Capacity {
		copy(b.rem[r*K:(r+1)*K], c)
	}
	return nil
}

// fill gives edge e of port l min(a_l^k, remaining c_r^k) of every type k.
func (b *ogaBase) fill(l, e int) {
	K := b.p.K
	r := b.p.Graph.Edge(e).Right
	for k := 0; k < K; k++ {
		v := math.Min(b.p.Demand[l][k], b.rem[r*K+k])
		b.y[e*K+k] = v
		b.rem[r*K+k] -= v
	}
}

// DRF is dominant resource fairness [20]: ports with a job are served in
// ascending order of their dominant share s_l = max_k a_l^k / sum_{r in R_l}
// c_r^k (ties by port index); each greedily takes min(a_l^k, remaining
// c_r^k) of every type on every node of R_l (ascending node index).
type DRF struct {
	ogaBase
	order []int
}

// NewDRF returns DRF for p.
func NewDRF(p *ogasched.Problem) *DRF {
	d := &DRF{ogaBase: newOgaBase(p), order: make([]int, p.NumPorts())}
	share := make([]float64, p.NumPorts())
	for l := range share {
		d.order[l] = l
		for k := 0; k < p.K; k++ {
			c := 0.0
			for _, r := range p.Graph.LeftNeighbors(l) {
				c += p.Capacity[r][k]
			}
			s := 0.0
			if a := p.Demand[l][k]; a > 0 {
				s = math.Inf(1)
				if c > 0 {
					s = a / c
				}
			}
			share[l] = math.Max(share[l], s)
		}
	}
	sort.SliceStable(d.order, func(i, j int) bool { return share[d.order[i]] < share[d.order[j]] })
	return d
}

// Name implements bipartite.OnlinePolicy.
func (d *DRF) Name() string { return "DRF" }

// Decide implements bipartite.OnlinePolicy.
func (d *DRF) Decide(_ int, x []float64) ([]float64, error) {
	if err := d.reset(x); err != nil {
		return nil, err
	}
	for _, l := range d.order {
		if x[l] == 0 {
			continue
		}
		for _, e := range d.p.Graph.LeftEdges(l) {
			d.fill(l, e)
		}
	}
	return d.y, nil
}

// Fairness splits each node's capacity of each type among the ports with a
// job in proportion to their demands: y_(l,r)^k = min(a_l^k, c_r^k a_l^k /
// sum_{l' in L_r, x_l' > 0} a_l'^k). The paper's share sums over all of L_r;
// summing over the ports that have a job never gives less and leaves no
// capacity idle that a requesting port could use, the fairer comparison.
type Fairness struct{ ogaBase }

// NewFairness returns FAIRNESS for p.
func NewFairness(p *ogasched.Problem) *Fairness { return &Fairness{newOgaBase(p)} }

// Name implements bipartite.OnlinePolicy.
func (f *Fairness) Name() string { return "FAIRNESS" }

// Decide implements bipartite.OnlinePolicy.
func (f *Fairness) Decide(_ int, x []float64) ([]float64, error) {
	if err := f.reset(x); err != nil {
		return nil, err
	}
	g, K := f.p.Graph, f.p.K
	for r := 0; r < g.NumRight(); r++ {
		es := g.RightEdges(r)
		for k := 0; k < K; k++ {
			sum := 0.0
			for _, e := range es {
				if l := g.Edge(e).Left; x[l] > 0 {
					sum += f.p.Demand[l][k]
				}
			}
			if sum == 0 {
				continue
			}
			c := f.p.Capacity[r][k]
			for _, e := range es {
				if l := g.Edge(e).Left; x[l] > 0 {
					a := f.p.Demand[l][k]
					v := c * a / sum
					if v > a { // min(a, c a/sum) on finite non-negative values, without math.Min's NaN and -0 handling
						v = a
					}
					f.y[e*K+k] = v
				}
			}
		}
	}
	return f.y, nil
}

// BinPacking places jobs as Kubernetes pods with the MostAllocated score
// (Spread false) or the LeastAllocated score (Spread true, SPREADING).
// Ports with a job are served in index order; port l places
// max(1, round(x_l)) pods, each on one node of R_l that fits the whole demand
// a_l (every type k: remaining c_r^k >= a_l^k) and that the port does not use
// yet ((5) allows at most a_l^k per edge). Among fitting nodes it picks the
// highest score (MostAllocated) or the lowest (LeastAllocated), score =
// mean over types with c_r^k > 0 of (used + request)/c_r^k, ties by node
// index. A pod that fits nowhere stays pending (gets nothing).
type BinPacking struct {
	ogaBase
	Spread bool
}

// NewBinPacking returns BINPACKING (MostAllocated) for p.
func NewBinPacking(p *ogasched.Problem) *BinPacking { return &BinPacking{ogaBase: newOgaBase(p)} }

// NewSpreading returns SPREADING (LeastAllocated) for p.
func NewSpreading(p *ogasched.Problem) *BinPacking {
	return &BinPacking{ogaBase: newOgaBase(p), Spread: true}
}

// Name implements bipartite.OnlinePolicy.
func (b *BinPacking) Name() string {
	if b.Spread {
		return "SPREADING"
	}
	return "BINPACKING"
}

// Decide implements bipartite.OnlinePolicy.
func (b *BinPacking) Decide(_ int, x []float64) ([]float64, error) {
	if err := b.reset(x); err != nil {
		return nil, err
	}
	g, K := b.p.Graph, b.p.K
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		pods := max(1, int(math.Round(xl)))
		a := b.p.Demand[l]
		for ; pods > 0; pods-- {
			best, bestScore := -1, 0.0
			for _, e := range g.LeftEdges(l) {
				if b.used(e) {
					continue
				}
				r := g.Edge(e).Right
				score, n, fits := 0.0, 0, true
				for k := 0; k < K; k++ {
					rem := b.rem[r*K+k]
					if rem < a[k] {
						fits = false
						break
					}
					if c := b.p.Capacity[r][k]; c > 0 {
						score += (c - rem + a[k]) / c
						n++
					}
				}
				if !fits {
					continue
				}
				if n > 0 {
					score /= float64(n)
				}
				if best < 0 || (!b.Spread && score > bestScore) || (b.Spread && score < bestScore) {
					best, bestScore = e, score
				}
			}
			if best < 0 {
				break
			}
			b.fill(l, best)
		}
	}
	return b.y, nil
}

// used reports whether edge e already holds an allocation this slot.
func (b *BinPacking) used(e int) bool {
	K := b.p.K
	for k := 0; k < K; k++ {
		if b.y[e*K+k] != 0 {
			return true
		}
	}
	return false
}
