package esdp

import (
	"errors"
	"fmt"
	"math"
)

// Mode selects how a Policy solves P3(t) once every channel it may choose
// has been played.
type Mode int

const (
	// ModeAuto, the zero value, runs the exact dynamic program (Algorithm
	// 2) whenever it fits the budget of Settings.Oracle (MaxBytes, and
	// MaxCells if set) and the scalable oracle in the slots where it does
	// not. Its decisions are those of ModeExact in every slot where
	// ModeExact returns a decision at all.
	ModeAuto Mode = iota
	// ModeExact always runs the dynamic program; a slot whose tables
	// exceed the budget fails with ErrTooLarge (the paper's algorithm).
	ModeExact
	// ModeScalable always runs the scalable oracle (see Policy.Decide).
	ModeScalable
)

var modeNames = [...]string{ModeAuto: "auto", ModeExact: "exact", ModeScalable: "scalable"}

func (m Mode) String() string {
	if m >= 0 && int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// scalableRounds bounds the Lagrangian rounds of the scalable oracle: each
// is one knapsack solved by branch and bound.
const scalableRounds = 8

// solveScalable approximately maximises P3(t) without its constant delta,
//
//	f(x) = v^.x + sqrt(sigma^2.x)  subject to (1)-(2),
//
// with sigma^2 in p.sig (unscaled, 0 for an unplayed edge, which is then
// not playable) and v^ in p.mean. For every lambda > 0,
// sqrt(S) <= S/(2 lambda) + lambda/2 (equality at lambda = sqrt(S)), so
//
//	max f <= lambda/2 + max_x (v^ + sigma^2/(2 lambda)).x
//
// and the knapsack on the right, solved by branch and bound, gives both a
// feasible x (evaluated exactly) and a certified upper bound (its Bound,
// exact when optimality is proven). Starting from lambda = sqrt(sum of
// the enabled sigma^2)/2, each round sets lambda = sqrt(sigma^2.x) of the
// last x (the tangent at the last point). It writes the best x into p.best
// and returns f(x) and the smallest upper bound found.
func (p *Policy) solveScalable() (f, ub float64, nodes int64, err error) {
	total := 0.0
	for e, on := range p.enabled {
		if on {
			total += p.sig[e]
		}
	}
	lam := math.Sqrt(total) / 2
	if !(lam > 0) {
		lam = 1
	}
	f, ub = math.Inf(-1), math.Inf(1)
	for round := 0; round < scalableRounds; round++ {
		for e := range p.val {
			p.val[e] = p.mean[e] + p.sig[e]/(2*lam)
		}
		r, err := p.sorc.SolveKnapsack(&p.kp)
		if err != nil {
			return 0, 0, nodes, err
		}
		nodes += r.Nodes
		ub = math.Min(ub, lam/2+r.Bound)
		v, s := 0.0, 0.0
		for e, on := range r.X {
			if on {
				v += p.mean[e]
				s += p.sig[e]
			}
		}
		if fx := v + math.Sqrt(s); fx > f {
			f = fx
			copy(p.best, r.X)
		}
		next := math.Sqrt(s)
		if !(next > 0) || math.Abs(next-lam) <= 1e-12*lam {
			break
		}
		lam = next
	}
	if math.IsInf(f, -1) || math.IsNaN(ub) {
		return 0, 0, nodes, errors.New("esdp: scalable oracle found no solution")
	}
	return f, math.Max(ub, f), nodes, nil
}
