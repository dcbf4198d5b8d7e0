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
// ascending, with the utility's coefficient in a (and the utility itself in
// util, for groupOther). Run builds them once and shares them, read-only,
// among the goroutines of all policies.
type rewardTables struct {
	p    *Problem
	ptr  []int
	idx  []int
	a    []float64
	util []utility.Utility
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
	rt.idx, rt.a, rt.util = make([]int, 0, n), make([]float64, 0, n), make([]utility.Utility, 0, n)
	for l := 0; l < L; l++ {
		lo, hi := g.LeftRange(l)
		for c := 0; c < numGroups; c++ {
			for e := lo; e < hi; e++ {
				us := p.Utility[g.Edge(e).Right]
				for k := 0; k < K; k++ {
					if groupOf(us[k].Kind) == c {
						rt.idx = append(rt.idx, e*K+k)
						rt.a = append(rt.a, us[k].A)
						rt.util = append(rt.util, us[k])
					}
				}
			}
			rt.ptr[l*numGroups+c+1] = len(rt.idx)
		}
	}
	return rt
}

// rewardScratch is one goroutine's working memory for rewardTables.parts.
type rewardScratch struct {
	vals []float64 // f_r^k(y_j) at flat index j
	sums []float64 // per type k: sum over R_l of y
}

func (rt *rewardTables) scratch() *rewardScratch {
	return &rewardScratch{vals: make([]float64, rt.p.Dim()), sums: make([]float64, rt.p.K)}
}

// parts returns Problem.RewardParts(x, y), bit for bit: it evaluates the
// utilities of the ports with a job group by group (a tight loop per kind,
// no dispatch per coordinate), then sums them and the dominant overhead in
// exactly RewardParts' order. It does not allocate. x and y have the
// problem's lengths (checked by the caller).
func (rt *rewardTables) parts(sc *rewardScratch, x, y []float64) (gain, penalty float64) {
	p := rt.p
	g, K := p.Graph, p.K
	vals, sums := sc.vals, sc.sums
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		base := l * numGroups
		// Values, group by group (only y != 0 is read back below).
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
					if v := y[j]; v != 0 {
						vals[j] = as[i] * math.Log1p(v)
					}
				}
			case groupRecip:
				for i, j := range idx {
					if v := y[j]; v != 0 {
						a := as[i]
						vals[j] = v / (a * (v + a))
					}
				}
			case groupPoly:
				for i, j := range idx {
					if v := y[j]; v != 0 {
						a := as[i]
						vals[j] = a * v / (math.Sqrt(v+1) + 1)
					}
				}
			default:
				us := rt.util[lo:hi]
				for i, j := range idx {
					if v := y[j]; v != 0 {
						vals[j] = us[i].Value(v)
					}
				}
			}
		}
		// Sums in RewardParts' order: edges ascending, types ascending,
		// skipping y = 0 (f(0) = 0); the overhead sums per type over the
		// edges ascending, as dominant does.
		lo, hi := g.LeftRange(l)
		gl := 0.0
		clear(sums)
		for j := lo * K; j < hi*K; j++ {
			if y[j] != 0 {
				gl += vals[j]
			}
		}
		for e := lo; e < hi; e++ {
			row := y[e*K : e*K+K]
			for k, v := range row {
				sums[k] += v
			}
		}
		over := math.Inf(-1)
		for k, s := range sums {
			if v := p.Beta[k] * s; v > over {
				over = v
			}
		}
		gain += xl * gl
		penalty += xl * over
	}
	return gain, penalty
}
