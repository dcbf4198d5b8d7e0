package ogasched

import (
	"math"

	"github.com/msched/msched/utility"
)

// Utility groups of the batched reward: one tight loop per group, no
// dispatch per coordinate. Every other kind (AlphaFair, a future kind)
// goes through utility.Value in groupOther.
const (
	groupLinear = iota
	groupLog    // Log and ProportionalFair: a log1p(y)
	groupRecip
	groupPoly
	groupOther
	numGroups
)

// rewardTables are the read-only tables of the batched reward of one
// problem: for port l and group c, the flat indices j = e*K+k of its
// coordinates in that group, idx[ptr[l*numGroups+c]:ptr[l*numGroups+c+1]],
// ascending, with the utility's coefficient in a (groupOther looks the
// utility up in the problem). Run builds them once and shares them,
// read-only, among the goroutines of all policies; a Policy keeps its own
// for the gradient. 12 bytes per coordinate.
type rewardTables struct {
	p   *Problem
	ptr []int
	idx []int32
	a   []float64
}

func groupOf(k utility.Kind) int {
	switch k {
	case utility.Linear:
		return groupLinear
	case utility.Log, utility.ProportionalFair:
		return groupLog
	case utility.Reciprocal:
		return groupRecip
	case utility.Poly:
		return groupPoly
	}
	return groupOther
}

// newRewardTables builds the tables of a validated p: O(|E| K) time and
// memory.
func newRewardTables(p *Problem) *rewardTables {
	g, K := p.Graph, p.K
	L := g.NumLeft()
	rt := &rewardTables{p: p, ptr: make([]int, L*numGroups+1)}
	n := p.Dim()
	rt.idx, rt.a = make([]int32, 0, n), make([]float64, 0, n)
	for l := 0; l < L; l++ {
		lo, hi := g.LeftRange(l)
		for c := 0; c < numGroups; c++ {
			for e := lo; e < hi; e++ {
				us := p.Utility[g.Edge(e).Right]
				for k := 0; k < K; k++ {
					if groupOf(us[k].Kind) == c {
						rt.idx = append(rt.idx, int32(e*K+k)) // e*K+k < MaxDim = 2^25
						rt.a = append(rt.a, us[k].A)
					}
				}
			}
			rt.ptr[l*numGroups+c+1] = len(rt.idx)
		}
	}
	return rt
}

// rewardScratch is one policy's working memory for rewardTables.parts. It
// memoises: vals[j] = f_j(prev[j]) for every coordinate j of a non-linear
// group, so that a coordinate whose value did not change since the
// policy's previous slot is not evaluated again (the baselines repeat
// 85 % of their non-zero values from slot to slot, OGASched its capped
// ones). Equal float64 values other than ±0 have equal bits, and f(±0)
// adds nothing to a sum, so the memo changes no result.
type rewardScratch struct {
	vals []float64 // f_r^k(prev[j]) at flat index j
	prev []float64 // the y[j] vals[j] was computed from (0 at first: f(0) = 0)
	sums []float64 // per type k: sum over R_l of y
}

func (rt *rewardTables) scratch() *rewardScratch {
	n := rt.p.Dim()
	return &rewardScratch{vals: make([]float64, n), prev: make([]float64, n), sums: make([]float64, rt.p.K)}
}

// parts returns Problem.RewardParts(x, y), bit for bit: it evaluates the
// utilities of the ports with a job group by group (a tight loop per kind,
// no dispatch per coordinate; a non-linear value only where y changed
// since the previous call with sc), then sums them and the per-type loads
// in one pass in exactly RewardParts' order (edges ascending, types
// ascending; f(0) = 0 adds nothing, as RewardParts skipping y = 0). It
// does not allocate. x and y have the problem's lengths (checked by the
// caller); sc belongs to one policy.
func (rt *rewardTables) parts(sc *rewardScratch, x, y []float64) (gain, penalty float64) {
	p := rt.p
	g, K := p.Graph, p.K
	vals, prev, sums := sc.vals, sc.prev, sc.sums[:K]
	beta := p.Beta[:K]
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		base := l * numGroups
		for c := 0; c < numGroups; c++ {
			lo, hi := rt.ptr[base+c], rt.ptr[base+c+1]
			idx, as := rt.idx[lo:hi], rt.a[lo:hi]
			switch c {
			case groupLinear:
				for i, j := range idx {
					vals[j] = as[i] * y[j]
				}
			case groupLog:
				for i, j := range idx {
					if v := y[j]; v != prev[j] {
						prev[j] = v
						vals[j] = as[i] * math.Log1p(v)
					}
				}
			case groupRecip:
				for i, j := range idx {
					v, a := y[j], as[i]
					vals[j] = v / (a * (v + a))
				}
			case groupPoly:
				for i, j := range idx {
					if v := y[j]; v != prev[j] {
						prev[j] = v
						a := as[i]
						vals[j] = a * v / (math.Sqrt(v+1) + 1)
					}
				}
			default:
				for _, j := range idx {
					if v := y[j]; v != prev[j] {
						prev[j] = v
						vals[j] = 0
						if v != 0 {
							vals[j] = rt.util(int(j)).Value(v)
						}
					}
				}
			}
		}
		lo, hi := g.LeftRange(l)
		gl, _, over := sumPort(vals, sums, y, beta, lo, hi)
		gain += xl * gl
		penalty += xl * over
	}
	return gain, penalty
}

// util returns the utility of flat coordinate j = e*K+k.
func (rt *rewardTables) util(j int) utility.Utility {
	K := rt.p.K
	return rt.p.Utility[rt.p.Graph.Edge(j/K).Right][j%K]
}

// dominant returns k*_l of (27) (smallest index on ties) from the per-type
// sums of port l's coordinates, summed in Problem.dominant's order, and
// the overhead beta_{k*} sum, exactly as Problem.dominant.
func (rt *rewardTables) dominant(sums, y []float64, lo, hi int) (kstar int, over float64) {
	p := rt.p
	K := p.K
	clear(sums)
	for e := lo; e < hi; e++ {
		for k, v := range y[e*K : e*K+K] {
			sums[k] += v
		}
	}
	over = math.Inf(-1)
	for k, s := range sums {
		if v := p.Beta[k] * s; v > over {
			over, kstar = v, k
		}
	}
	return kstar, over
}

// gradient stores Problem.Gradient(dst, x, y) in dst, bit for bit: the
// derivatives group by group (a tight loop per kind, no dispatch per
// coordinate), then the overhead term and the factor x_l in Gradient's
// order. sums has length K. It does not allocate; lengths are the
// caller's.
func (rt *rewardTables) gradient(dst, sums, x, y []float64) {
	p := rt.p
	g, K := p.Graph, p.K
	for l, xl := range x {
		lo, hi := g.LeftRange(l)
		if xl == 0 {
			clear(dst[lo*K : hi*K])
			continue
		}
		kstar, _ := rt.dominant(sums, y, lo, hi)
		rt.portDerivs(dst, l, y)
		b := p.Beta[kstar]
		for e := lo; e < hi; e++ {
			row := dst[e*K : e*K+K]
			row[kstar] -= b
			for k, d := range row {
				row[k] = xl * d
			}
		}
	}
}

// portValue returns sum over port l's coordinates of f_j(y_j), group by
// group (no dispatch per coordinate; the order differs from RewardParts').
func (rt *rewardTables) portValue(l int, y []float64) float64 {
	base := l * numGroups
	s := 0.0
	for c := 0; c < numGroups; c++ {
		lo, hi := rt.ptr[base+c], rt.ptr[base+c+1]
		idx, as := rt.idx[lo:hi], rt.a[lo:hi]
		switch c {
		case groupLinear:
			for i, j := range idx {
				s += as[i] * y[j]
			}
		case groupLog:
			for i, j := range idx {
				if v := y[j]; v != 0 {
					s += as[i] * math.Log1p(v)
				}
			}
		case groupRecip:
			for i, j := range idx {
				v, a := y[j], as[i]
				s += v / (a * (v + a))
			}
		case groupPoly:
			for i, j := range idx {
				if v := y[j]; v != 0 {
					a := as[i]
					s += a * v / (math.Sqrt(v+1) + 1)
				}
			}
		default:
			for _, j := range idx {
				if v := y[j]; v != 0 {
					s += rt.util(int(j)).Value(v)
				}
			}
		}
	}
	return s
}

// portDerivs sets dst[j] = f_j'(y_j) for port l's coordinates, group by
// group, as gradient does.
func (rt *rewardTables) portDerivs(dst []float64, l int, y []float64) {
	base := l * numGroups
	for c := 0; c < numGroups; c++ {
		lo, hi := rt.ptr[base+c], rt.ptr[base+c+1]
		idx, as := rt.idx[lo:hi], rt.a[lo:hi]
		switch c {
		case groupLinear:
			for i, j := range idx {
				dst[j] = as[i]
			}
		case groupLog:
			for i, j := range idx {
				dst[j] = as[i] / (y[j] + 1)
			}
		case groupRecip:
			for i, j := range idx {
				v, a := y[j], as[i]
				dst[j] = 1 / ((v + a) * (v + a))
			}
		case groupPoly:
			for i, j := range idx {
				dst[j] = as[i] / (2 * math.Sqrt(y[j]+1))
			}
		default:
			for _, j := range idx {
				dst[j] = rt.util(int(j)).Deriv(y[j])
			}
		}
	}
}

// partsGrad returns parts(sc, x, y) and stores gradient(dst, sc.sums, x,
// y) in dst, both bit for bit, in one pass over the coordinates of the
// ports with a job: each coordinate's value and derivative from one load
// (sharing sqrt(y+1) for poly and y+a for reciprocal: the same operations
// as apart), the per-type sums once. It does not use parts' memo (a
// learner's y changes every slot) and leaves sc.prev alone.
func (rt *rewardTables) partsGrad(sc *rewardScratch, dst, x, y []float64) (gain, penalty float64) {
	p := rt.p
	g, K := p.Graph, p.K
	vals, sums := sc.vals, sc.sums[:K]
	beta := p.Beta[:K]
	for l, xl := range x {
		lo, hi := g.LeftRange(l)
		if xl == 0 {
			clear(dst[lo*K : hi*K])
			continue
		}
		base := l * numGroups
		for c := 0; c < numGroups; c++ {
			plo, phi := rt.ptr[base+c], rt.ptr[base+c+1]
			idx, as := rt.idx[plo:phi], rt.a[plo:phi]
			switch c {
			case groupLinear:
				for i, j := range idx {
					a := as[i]
					vals[j] = a * y[j]
					dst[j] = a
				}
			case groupLog:
				for i, j := range idx {
					v, a := y[j], as[i]
					vals[j] = 0
					if v != 0 {
						vals[j] = a * math.Log1p(v)
					}
					dst[j] = a / (v + 1)
				}
			case groupRecip:
				for i, j := range idx {
					v, a := y[j], as[i]
					w := v + a
					vals[j] = v / (a * w)
					dst[j] = 1 / (w * w)
				}
			case groupPoly:
				for i, j := range idx {
					v, a := y[j], as[i]
					s := math.Sqrt(v + 1)
					vals[j] = a * v / (s + 1)
					dst[j] = a / (2 * s)
				}
			default:
				for _, j := range idx {
					v := y[j]
					u := rt.util(int(j))
					vals[j] = 0
					if v != 0 {
						vals[j] = u.Value(v)
					}
					dst[j] = u.Deriv(v)
				}
			}
		}
		gl, kstar, over := sumPort(vals, sums, y, beta, lo, hi)
		b := beta[kstar]
		for e := lo; e < hi; e++ {
			row := dst[e*K : e*K+K]
			row[kstar] -= b
			for k, d := range row {
				row[k] = xl * d
			}
		}
		gain += xl * gl
		penalty += xl * over
	}
	return gain, penalty
}

// sumPort returns, for the edges [lo, hi) of one port, the gain (the sum
// of vals in RewardParts' order: edges ascending, types ascending), the
// dominant type k* of (27) (smallest index on ties) and its overhead
// beta_{k*} sum_e y_e^{k*}, the per-type sums formed in Problem.dominant's
// order, in one pass. len(sums) = len(beta) = K.
func sumPort(vals, sums, y, beta []float64, lo, hi int) (gl float64, kstar int, over float64) {
	K := len(sums)
	clear(sums)
	for e := lo; e < hi; e++ {
		ye, ve := y[e*K:e*K+K], vals[e*K:e*K+K]
		for k := range sums {
			gl += ve[k]
			sums[k] += ye[k]
		}
	}
	over = math.Inf(-1)
	for k, s := range sums {
		if v := beta[k] * s; v > over {
			over, kstar = v, k
		}
	}
	return gl, kstar, over
}
