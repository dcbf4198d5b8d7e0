package ogasched

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
)

// BestFixedSettings configures BestFixed. The zero value asks for a relative
// duality gap of 1e-6 within 20000 iterations.
type BestFixedSettings struct {
	// Tol is the relative duality gap at which BestFixed stops:
	// Bound - Value <= Tol * max(1, |Value|). 0 means 1e-6; it must be in
	// [0, 1).
	Tol float64
	// MaxIter bounds the gradient iterations; 0 means 20000. It must be in
	// [0, MaxBestFixedIter].
	MaxIter int
	// Workers is the number of goroutines of the exact projection (as
	// Settings.Workers); 0 means 1. The result does not depend on it. It
	// must be in [0, MaxWorkers].
	Workers int
}

// MaxBestFixedIter bounds BestFixedSettings.MaxIter.
const MaxBestFixedIter = 10_000_000

// BestFixedResult is the outcome of BestFixed.
type BestFixedResult struct {
	// Y is a feasible fixed allocation (flat layout y[e*K+k]): it satisfies
	// (5)-(6) exactly (it is the output of the exact projection).
	Y []float64
	// Value is sum_t q(x(t), Y), the comparator of the regret (10) attained
	// by Y.
	Value float64
	// Bound is a certified upper bound on max_{y in Y} sum_t q(x(t), y):
	// the Lagrangian dual value of the penalty's max at the best weights
	// found (see BestFixed). The optimum lies in [Value, Bound].
	Bound float64
	// Iterations is the number of gradient iterations made.
	Iterations int
	// Converged reports Bound - Value <= Tol * max(1, |Value|).
	Converged bool
}

// Gap returns the relative duality gap (Bound - Value) / max(1, |Value|).
func (r *BestFixedResult) Gap() float64 {
	return (r.Bound - r.Value) / math.Max(1, math.Abs(r.Value))
}

// BestFixed returns the best fixed allocation in hindsight y* of (10),
// argmax over y in Y of sum_t q(x(t), y), for the arrivals of tr: the
// comparator of OGASched's regret. A user measures the regret of any policy
// on their own arrivals as Value minus the policy's total reward.
//
// Accuracy: the result carries a certificate. Value is attained by the
// feasible Y; Bound is an upper bound on the optimum, so the optimum is
// within Bound - Value of Value whatever happened numerically. BestFixed
// stops when that gap is at most Tol * max(1, |Value|) (Converged) or after
// MaxIter iterations (Converged false; the gap is then still valid).
//
// Method. q is linear in x, so sum_t q(x(t), y) = q(X, y) with
// X = sum_t x(t). The maximum over k of the penalty is smoothed by
// mu log sum_k exp(beta_k S_lk / mu) (within mu ln K per unit of X_l), and
// the smooth concave problem is solved by accelerated projected gradient
// (FISTA with backtracking and adaptive restart, the exact projection of
// package projection), with mu decreasing tenfold in stages; a stage whose
// smoothing bias mu ln K is above the gap asked for ends as soon as 50
// iterations gain less than 1e-5 of that bias (the 1e-6 gap of the large
// instance: 13 350 iterations before, 5 250 now). The bound is
// weak duality: for weights w_l in the simplex over k,
// q(X, y) <= sum_l X_l [sum f - sum_k w_lk beta_k S_lk], whose maximum over
// Y separates into one problem per (r,k) block, each bounded by its
// Lagrangian in the capacity multiplier (minimised by bisection); w is the
// smoothed maximum's softmax at the current point.
//
// Cost: O(MaxIter * |E| K log) time, O(|E| K) memory. It returns an error
// wrapping ErrDimension or ErrValue for a trace that does not fit p.
func BestFixed(p *Problem, tr *Trace, s BestFixedSettings) (*BestFixedResult, error) {
	if p == nil || tr == nil {
		return nil, fmt.Errorf("%w: nil problem or trace", ErrDimension)
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if tr.Ports != p.NumPorts() {
		return nil, fmt.Errorf("%w: trace has %d ports, problem %d", ErrDimension, tr.Ports, p.NumPorts())
	}
	if err := tr.Validate(); err != nil {
		return nil, err
	}
	if s.Tol == 0 {
		s.Tol = 1e-6
	}
	if !(s.Tol > 0 && s.Tol < 1) {
		return nil, fmt.Errorf("%w: Tol = %v, want in [0, 1)", ErrSettings, s.Tol)
	}
	if s.MaxIter == 0 {
		s.MaxIter = 20000
	}
	if s.Workers < 0 || s.Workers > MaxWorkers {
		return nil, fmt.Errorf("%w: Workers = %d outside [0, %d]", ErrSettings, s.Workers, MaxWorkers)
	}
	if s.MaxIter < 0 || s.MaxIter > MaxBestFixedIter {
		return nil, fmt.Errorf("%w: MaxIter = %d outside [0, %d]", ErrSettings, s.MaxIter, MaxBestFixedIter)
	}
	X := make([]float64, p.NumPorts())
	for _, x := range tr.Arrivals {
		for l, v := range x {
			X[l] += v
		}
	}
	for l, v := range X {
		if math.IsInf(v, 0) {
			return nil, fmt.Errorf("%w: total arrivals of port %d overflow", ErrValue, l)
		}
	}
	return bestFixed(p, X, s)
}

// bfState holds the buffers of BestFixed.
type bfState struct {
	p    *Problem
	X    []float64 // total arrivals, scaled by 1/sum(X) for conditioning
	pol  *Policy   // for its block layout and exact projection
	w    []float64 // softmax weights w[l*K+k]
	v    []float64 // beta_k S_lk
	grad []float64
}

// smooth returns F_mu(y) and, if grad is not nil, its gradient; it leaves the
// softmax weights of y in st.w.
func (st *bfState) smooth(y []float64, mu float64, grad []float64) float64 {
	p := st.p
	g, K := p.Graph, p.K
	F := 0.0
	for l, xl := range st.X {
		lo, hi := g.LeftRange(l)
		v, w := st.v[l*K:(l+1)*K], st.w[l*K:(l+1)*K]
		m := math.Inf(-1)
		for k := 0; k < K; k++ {
			sk := 0.0
			for e := lo; e < hi; e++ {
				sk += y[e*K+k]
			}
			v[k] = p.Beta[k] * sk
			m = math.Max(m, v[k])
		}
		z := 0.0
		for k := 0; k < K; k++ {
			w[k] = math.Exp((v[k] - m) / mu)
			z += w[k]
		}
		for k := range w {
			w[k] /= z
		}
		if xl == 0 {
			if grad != nil {
				clear(grad[lo*K : hi*K])
			}
			continue
		}
		gain := st.pol.rt.portValue(l, y)
		if grad != nil {
			st.pol.rt.portDerivs(grad, l, y)
			for e := lo; e < hi; e++ {
				ge := grad[e*K : e*K+K]
				for k := range ge {
					ge[k] = xl * (ge[k] - w[k]*p.Beta[k])
				}
			}
		}
		F += xl * (gain - (m + mu*math.Log(z)))
	}
	return F
}

// bound returns the dual upper bound of q(X, .) for the weights in st.w.
func (st *bfState) bound() float64 {
	p := st.p
	g, K := p.Graph, p.K
	total := 0.0
	for r := 0; r < g.NumRight(); r++ {
		es := g.RightEdges(r)
		us := p.Utility[r]
		for k := 0; k < K; k++ {
			u := us[k]
			c := p.Capacity[r][k]
			// phi(mu) = mu c + sum_l max_{0<=y<=a} X_l f(y) - (X_l w beta + mu) y.
			phi := func(mu float64) (val, used float64) {
				val = mu * c
				for _, e := range es {
					l := g.Edge(e).Left
					xl, a := st.X[l], p.Demand[l][k]
					price := xl*st.w[l*K+k]*p.Beta[k] + mu
					y := 0.0
					if xl > 0 {
						y = min(max(u.InvDeriv(price/xl), 0), a)
					}
					h := -price * y
					if y != 0 {
						h += xl * u.Value(y)
					}
					val += h
					used += y
				}
				return val, used
			}
			best, used := phi(0)
			if used > c {
				// used(mu) is non-increasing: find used(mu) = c by the
				// Illinois variant of false position on [lo, hi] (any mu
				// gives a valid bound, the smallest phi seen is kept).
				lo, hi := 0.0, 0.0
				for _, e := range es {
					l := g.Edge(e).Left
					hi = max(hi, st.X[l]*u.DerivBound())
				}
				gLo := used - c
				val, uHi := phi(hi)
				best = min(best, val)
				gHi := uHi - c
				side := 0
				for it := 0; it < 100 && gHi < 0 && hi-lo > 1e-10*hi; it++ {
					mid := hi - gHi*(hi-lo)/(gHi-gLo)
					if !(mid > lo && mid < hi) {
						mid = lo + (hi-lo)/2
					}
					val, um := phi(mid)
					best = min(best, val)
					gm := um - c
					switch {
					case gm > 0:
						lo, gLo = mid, gm
						if side == -1 {
							gHi /= 2
						}
						side = -1
					case gm < 0:
						hi, gHi = mid, gm
						if side == 1 {
							gLo /= 2
						}
						side = 1
					default:
						lo, hi = mid, mid
					}
				}
			}
			total += best
		}
	}
	return total
}

func bestFixed(p *Problem, X []float64, s BestFixedSettings) (*BestFixedResult, error) {
	n := p.Dim()
	res := &BestFixedResult{Y: make([]float64, n)}
	sumX := floats.Sum(X)
	if sumX == 0 {
		res.Converged = true
		return res, nil
	}
	pol, err := New(p, Settings{Step: Constant(0), Workers: s.Workers})
	if err != nil {
		return nil, err
	}
	defer pol.Close()
	K := p.K
	st := &bfState{p: p, X: make([]float64, len(X)), pol: pol,
		w: make([]float64, len(X)*K), v: make([]float64, len(X)*K), grad: make([]float64, n)}
	for l, v := range X {
		st.X[l] = v / sumX
	}
	// Scale of the penalty term: the largest beta_k sum_{r in R_l} a_l^k.
	scale := 0.0
	g := p.Graph
	for l := range X {
		lo, hi := g.LeftRange(l)
		for k := 0; k < K; k++ {
			scale = math.Max(scale, p.Beta[k]*float64(hi-lo)*p.Demand[l][k])
		}
	}
	if scale == 0 {
		scale = 1
	}
	ub := make([]float64, n) // a_l^k per flat index
	for e := 0; e < g.NumEdges(); e++ {
		copy(ub[e*K:(e+1)*K], p.Demand[g.Edge(e).Left])
	}
	y := make([]float64, n)     // current iterate (feasible)
	yPrev := make([]float64, n) // previous iterate
	vpt := make([]float64, n)   // momentum point
	z := make([]float64, n)
	d := make([]float64, n)
	yNew := make([]float64, n)
	bestY := make([]float64, n)
	bestV := p.Reward(st.X, y) // y = 0 is feasible
	bestB := math.Inf(1)
	const stages = 6
	muMin := 0.01 * scale * math.Pow(10, -(stages-1))
	mu := 0.01 * scale
	tol := s.Tol / sumX // the objective is scaled by 1/sumX
	check := func() bool {
		if v := p.Reward(st.X, y); v > bestV {
			bestV = v
			copy(bestY, y)
		}
		for _, m := range [...]float64{mu, muMin} {
			st.smooth(y, m, nil)
			bestB = math.Min(bestB, st.bound())
		}
		return bestB-bestV <= tol*math.Max(1, math.Abs(bestV)*sumX)
	}
	L := 1.0
	perStage := max(1, s.MaxIter/stages)
	it := 0
	done := check()
	for stage := 0; stage < stages && !done && it < s.MaxIter; stage++ {
		copy(yPrev, y)
		tk := 1.0
		Fcur := st.smooth(y, mu, nil)
		Fmark := math.Inf(-1)
		last := stage == stages-1
		for j := 0; (j < perStage || last) && it < s.MaxIter; j++ {
			it++
			tNext := (1 + math.Sqrt(1+4*tk*tk)) / 2
			mom := (tk - 1) / tNext
			for i := range vpt {
				vpt[i] = min(max(y[i]+mom*(y[i]-yPrev[i]), 0), ub[i])
			}
			Fv := st.smooth(vpt, mu, st.grad)
			var Fn float64
			for {
				for i := range z {
					z[i] = vpt[i] + st.grad[i]/L
				}
				pol.projectFlat(yNew, z)
				Fn = st.smooth(yNew, mu, nil)
				floats.SubTo(d, yNew, vpt)
				if Fn >= Fv+floats.Dot(st.grad, d)-L/2*floats.Dot(d, d)-1e-14*math.Abs(Fv) || L > 1e300 {
					break
				}
				L *= 2
			}
			if math.IsNaN(Fn) || math.IsInf(Fn, 0) {
				return nil, fmt.Errorf("%w: BestFixed: non-finite smoothed objective %v at iteration %d", ErrValue, Fn, it)
			}
			if Fn < Fcur { // adaptive restart: drop the momentum, keep y
				tk = 1
				copy(yPrev, y)
				continue
			}
			copy(yPrev, y)
			copy(y, yNew)
			Fcur, tk = Fn, tNext
			L /= 1.05
			if it%50 == 0 {
				if done = check(); done {
					break
				}
				// The stage's smoothed problem is solved to well within
				// its smoothing bias (mu ln K per unit of the scaled X)
				// when 50 iterations gain less than 1e-3 of it: go on to
				// the next, smaller mu.
				// Only while that bias is above the gap asked for: the
				// stages below it are the ones that reach Tol.
				bias := mu * math.Log(float64(max(K, 2)))
				if !last && bias > tol*math.Max(1, math.Abs(bestV)*sumX) && Fcur-Fmark < bfStall*bias {
					break
				}
				Fmark = Fcur
			}
		}
		if !done {
			done = check()
		}
		mu = math.Max(mu/10, muMin)
	}
	res.Iterations = it
	copy(res.Y, bestY)
	res.Value = p.Reward(X, bestY)
	res.Bound = math.Max(bestB*sumX, res.Value)
	if math.IsNaN(res.Value) || math.IsInf(res.Value, 0) || math.IsNaN(res.Bound) || math.IsInf(res.Bound, 0) {
		return nil, fmt.Errorf("%w: BestFixed: non-finite value %v or bound %v after %d iterations", ErrValue, res.Value, res.Bound, it)
	}
	res.Converged = res.Bound-res.Value <= s.Tol*math.Max(1, math.Abs(res.Value))
	return res, nil
}

// bfStall ends a stage of BestFixed whose smoothing bias is above the gap
// asked for when 50 iterations gain less than bfStall times that bias
// (measured on the Table II and large instances: 1e-3 and 1e-4 left the
// later stages too far from their optimum, 0 spends every stage's share of
// MaxIter).
const bfStall = 1e-5
