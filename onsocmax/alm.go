package onsocmax

import (
	"fmt"
	"math"
)

// CeilingMaxOuter and CeilingMaxInner bound ALMSettings.MaxOuter (10^6)
// and MaxInner (10^7): with both at MaxInt one job's solve had no
// iteration cap left.
const (
	CeilingMaxOuter = 1_000_000
	CeilingMaxInner = 10_000_000
)

// Terms is a separable convex objective sum_i h_i(x_i). Term returns
// h_i(x) and h_i'(x) for x in the hard domain of the problem; both must be
// finite there.
type Terms interface {
	Term(i int, x float64) (value, deriv float64)
}

// Deriver is implemented by Terms that can return h_i'(x) alone more
// cheaply; the inner solver uses only derivatives.
type Deriver interface {
	Deriv(i int, x float64) float64
}

// LinearRow is one constraint sum_j Coef[j] x[Index[j]] <= Bound. A nil
// Index means every variable (in order); a nil Coef means all ones.
type LinearRow struct {
	Index []int
	Coef  []float64
	Bound float64
}

// SeparableProblem is
//
//	minimise   sum_i h_i(x_i)
//	subject to Rows:  a_k . x <= b_k          (multipliers lambda_k, paper's mu)
//	           x_i <= Upper_i                 (multipliers y_i, paper's (18))
//	           x_i >= Lower_i                 (multipliers z_i, paper's (19))
//	           DomainLo_i <= x_i <= DomainHi_i (hard, kept by projection)
//
// The Rows and the Upper/Lower bounds are handled by the augmented
// Lagrangian with the slack variables eliminated as in (23)-(24); the domain
// box is where h_i is defined and is enforced exactly in the inner
// minimisation. Nil Upper, Lower, DomainLo or DomainHi mean no such bound.
type SeparableProblem struct {
	N                  int
	Terms              Terms
	Rows               []LinearRow
	Upper, Lower       []float64
	DomainLo, DomainHi []float64
}

// ALMSettings configures the augmented-Lagrangian method (Algorithm 2).
// A zero field takes the default given in its comment; the defaults are
// Table II of paper 001 except the final tolerances (see the package
// documentation and TableII).
type ALMSettings struct {
	Sigma0       float64 // initial penalty sigma_0; 0.97
	P            float64 // penalty growth p > 1 on a failed outer step; 1.002
	Theta1       float64 // theta_1 in (0, 1]; 0.99
	Theta2       float64 // theta_2 in [theta_1, 1]; 0.999
	GradTol      float64 // final inner tolerance eta; 1e-9 (Table II: 0.1)
	ViolationTol float64 // final violation tolerance epsilon; 1e-9 (Table II: 10)
	LearningRate float64 // initial inner step; 2
	Decay        float64 // inner backtracking factor in (0, 1); 0.95
	// MinShrink is the smallest factor by which the tolerances eta_k and
	// epsilon_k shrink after a successful outer step; 10. Algorithm 2
	// divides by sigma_k, which is below 1 for sigma_0 = 0.97.
	MinShrink      float64
	MaxOuter       int  // outer iterations; 1000; at most CeilingMaxOuter
	MaxInner       int  // inner iterations per outer iteration; 20000; at most CeilingMaxInner
	PaperViolation bool // use the signed sum of (25) instead of absolute values
	// PaperSchedule updates the multipliers only after an outer iteration
	// with v <= epsilon_k, as Algorithm 2 does. With Table II's p = 1.002
	// and theta_1 = 0.99 that test can fail for thousands of iterations
	// (the violation falls like 1/sigma, epsilon_k like 1/sigma^0.99), so
	// the default updates them after every outer iteration.
	PaperSchedule bool
}

// TableII returns the literal hyper-parameters of Table II of paper 001
// (eta = 0.1, epsilon = 10). They stop Algorithm 2 long before the 1e-6
// accuracy of the default settings.
func TableII() ALMSettings {
	return ALMSettings{Sigma0: 0.97, P: 1.002, Theta1: 0.99, Theta2: 0.999,
		GradTol: 0.1, ViolationTol: 10, LearningRate: 2, Decay: 0.95}
}

func (s *ALMSettings) withDefaults() (ALMSettings, error) {
	var o ALMSettings
	if s != nil {
		o = *s
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Sigma0, 0.97)
	def(&o.P, 1.002)
	def(&o.Theta1, 0.99)
	def(&o.Theta2, 0.999)
	def(&o.GradTol, 1e-9)
	def(&o.ViolationTol, 1e-9)
	def(&o.LearningRate, 2)
	def(&o.Decay, 0.95)
	def(&o.MinShrink, 10)
	if o.MaxOuter == 0 {
		o.MaxOuter = 5000
	}
	if o.MaxInner == 0 {
		o.MaxInner = 20000
	}
	switch {
	case !(o.Sigma0 > 0) || math.IsInf(o.Sigma0, 0):
		return o, fmt.Errorf("%w: Sigma0 = %v", ErrSettings, o.Sigma0)
	case !(o.P > 1) || math.IsInf(o.P, 0):
		return o, fmt.Errorf("%w: P = %v, want > 1", ErrSettings, o.P)
	case !(o.Theta1 > 0 && o.Theta1 <= o.Theta2 && o.Theta2 <= 1):
		return o, fmt.Errorf("%w: theta1 = %v, theta2 = %v, want 0 < theta1 <= theta2 <= 1", ErrSettings, o.Theta1, o.Theta2)
	case !(o.GradTol > 0) || !(o.ViolationTol > 0):
		return o, fmt.Errorf("%w: GradTol = %v, ViolationTol = %v", ErrSettings, o.GradTol, o.ViolationTol)
	case !(o.LearningRate > 0) || math.IsInf(o.LearningRate, 0):
		return o, fmt.Errorf("%w: LearningRate = %v", ErrSettings, o.LearningRate)
	case !(o.Decay > 0 && o.Decay < 1):
		return o, fmt.Errorf("%w: Decay = %v, want in (0, 1)", ErrSettings, o.Decay)
	case !(o.MinShrink >= 1):
		return o, fmt.Errorf("%w: MinShrink = %v, want >= 1", ErrSettings, o.MinShrink)
	case o.MaxOuter < 0 || o.MaxInner < 0 || o.MaxOuter > CeilingMaxOuter || o.MaxInner > CeilingMaxInner:
		return o, fmt.Errorf("%w: MaxOuter = %d, MaxInner = %d, want in [0, CeilingMaxOuter = %d] and [0, CeilingMaxInner = %d]",
			ErrSettings, o.MaxOuter, o.MaxInner, CeilingMaxOuter, CeilingMaxInner)
	}
	return o, nil
}

// ALM is the augmented-Lagrangian solver of Algorithm 2 with its
// workspace. Reusing one ALM across calls avoids allocation once its
// buffers have grown. An ALM is not safe for concurrent use.
type ALM struct {
	Settings ALMSettings

	set                     ALMSettings
	prob                    *SeparableProblem
	sigma                   float64
	lambda, act             []float64 // row multipliers and activities
	yU, zL                  []float64 // bound multipliers
	grad, gn, yk, xprev, xn []float64
	lo, hi                  []float64
	step                    float64
	p3                      p3Terms
	p3Lo, p3Hi              []float64
	p3Rows                  [1]LinearRow
	p3Prob                  SeparableProblem
}

// Multipliers returns the row multipliers lambda of the last Minimize
// (the paper's mu for P3). The slice is reused by the next call.
func (a *ALM) Multipliers() []float64 { return a.lambda }

func grow(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// Minimize runs Algorithm 2 on prob from the starting point in dst (clipped
// to the domain) and leaves the final iterate in dst. It panics if
// len(dst) != prob.N or a bound slice has another length; it returns an
// error wrapping ErrSettings for invalid settings and ErrValue for a
// row index out of range or non-finite data.
func (a *ALM) Minimize(dst []float64, prob *SeparableProblem) (SolveResult, error) {
	n := prob.N
	if len(dst) != n {
		panic(panicLen)
	}
	for _, b := range [][]float64{prob.Upper, prob.Lower, prob.DomainLo, prob.DomainHi} {
		if b != nil && len(b) != n {
			panic(panicLen)
		}
	}
	set, err := a.Settings.withDefaults()
	if err != nil {
		return SolveResult{}, err
	}
	for k, row := range prob.Rows {
		if row.Index != nil && row.Coef != nil && len(row.Index) != len(row.Coef) {
			return SolveResult{}, fmt.Errorf("%w: row %d has %d indices and %d coefficients", ErrDimension, k, len(row.Index), len(row.Coef))
		}
		if row.Index == nil && row.Coef != nil && len(row.Coef) != n {
			return SolveResult{}, fmt.Errorf("%w: dense row %d has %d coefficients, want %d", ErrDimension, k, len(row.Coef), n)
		}
		for _, j := range row.Index {
			if j < 0 || j >= n {
				return SolveResult{}, fmt.Errorf("%w: row %d index %d", ErrValue, k, j)
			}
		}
		if math.IsNaN(row.Bound) || math.IsInf(row.Bound, 0) {
			return SolveResult{}, fmt.Errorf("%w: row %d bound %v", ErrValue, k, row.Bound)
		}
	}
	a.set, a.prob = set, prob
	m := len(prob.Rows)
	a.lambda = grow(a.lambda, m)
	a.act = grow(a.act, m)
	for _, s := range []*[]float64{&a.yU, &a.zL, &a.grad, &a.gn, &a.yk, &a.xprev, &a.xn, &a.lo, &a.hi} {
		*s = grow(*s, n)
	}
	clear(a.lambda)
	clear(a.yU)
	clear(a.zL)
	for i := range n {
		a.lo[i], a.hi[i] = math.Inf(-1), math.Inf(1)
		if prob.DomainLo != nil {
			a.lo[i] = prob.DomainLo[i]
		}
		if prob.DomainHi != nil {
			a.hi[i] = prob.DomainHi[i]
		}
		if !(a.lo[i] <= a.hi[i]) {
			return SolveResult{}, fmt.Errorf("%w: domain index %d is [%v, %v]", ErrValue, i, a.lo[i], a.hi[i])
		}
		if math.IsNaN(dst[i]) {
			dst[i] = 0
		}
		dst[i] = math.Min(a.hi[i], math.Max(a.lo[i], dst[i]))
	}

	a.sigma = set.Sigma0
	a.step = set.LearningRate
	eta := 1 / a.sigma
	eps := 1 / math.Pow(a.sigma, set.Theta1)
	res := SolveResult{Status: IterationLimit}
	for k := 0; k < set.MaxOuter; k++ {
		tol := math.Max(eta, set.GradTol)
		pg, inner, ok := a.inner(dst, math.Min(tol, 1))
		res.Inner += inner
		res.Iterations = k + 1
		v := a.violation(dst)
		res.Violation = v
		if math.IsNaN(pg) || math.IsInf(pg, 0) || math.IsNaN(v) || math.IsInf(v, 0) {
			res.Status = Failure
			return res, fmt.Errorf("%w: ALM: non-finite iterate at outer iteration %d (gradient norm %v, violation %v)", ErrValue, k+1, pg, v)
		}
		if pg <= set.GradTol && v <= set.ViolationTol {
			res.Status = Success
			if !ok {
				res.Status = InnerIterationLimit
			}
			break
		}
		passed := v <= math.Max(eps, set.ViolationTol)
		if passed || !set.PaperSchedule {
			// Lines 13-17. By default the multipliers are updated after
			// every outer iteration (the method of multipliers); Algorithm
			// 2 updates them only when v <= epsilon_k.
			a.updateMultipliers(dst)
		}
		if passed {
			shrink := math.Max(a.sigma, set.MinShrink)
			eta /= shrink
			eps /= math.Pow(shrink, set.Theta2)
		} else {
			a.sigma *= set.P
			// Deviation: Algorithm 2 resets eta to 1/sigma, which with
			// p = 1.002 loosens it and can stall; tighten it instead.
			eta = math.Min(eta/set.MinShrink, 1/a.sigma)
			eps = 1 / math.Pow(a.sigma, set.Theta1)
		}
	}
	if m > 0 {
		res.Mu = a.lambda[0]
	}
	return res, nil
}

// rowActivity fills a.act with a_k . x - b_k.
func (a *ALM) rowActivity(x []float64) {
	for k, row := range a.prob.Rows {
		var s float64
		switch {
		case row.Index == nil && row.Coef == nil:
			for _, v := range x {
				s += v
			}
		case row.Index == nil:
			for j, c := range row.Coef {
				s += c * x[j]
			}
		case row.Coef == nil:
			for _, j := range row.Index {
				s += x[j]
			}
		default:
			for t, j := range row.Index {
				s += row.Coef[t] * x[j]
			}
		}
		a.act[k] = s - row.Bound
	}
}

// lagrangian returns L_sigma of (24) at x and, if grad != nil, its gradient.
func (a *ALM) lagrangian(x, grad []float64) float64 {
	p, sig := a.prob, a.sigma
	a.rowActivity(x)
	var L float64
	for i, xi := range x {
		v, d := p.Terms.Term(i, xi)
		L += v
		if p.Upper != nil {
			t := math.Max(a.yU[i]+sig*(xi-p.Upper[i]), 0)
			L += (t*t - a.yU[i]*a.yU[i]) / (2 * sig)
			d += t
		}
		if p.Lower != nil {
			t := math.Max(a.zL[i]+sig*(p.Lower[i]-xi), 0)
			L += (t*t - a.zL[i]*a.zL[i]) / (2 * sig)
			d -= t
		}
		if grad != nil {
			grad[i] = d
		}
	}
	for k, row := range p.Rows {
		t := math.Max(a.lambda[k]+sig*a.act[k], 0)
		L += (t*t - a.lambda[k]*a.lambda[k]) / (2 * sig)
		if grad == nil || t == 0 {
			continue
		}
		row.addScaled(grad, t)
	}
	return L
}

// gradient writes the gradient of L_sigma at x to grad (values are not
// needed by the inner solver).
func (a *ALM) gradient(x, grad []float64) {
	d, ok := a.prob.Terms.(Deriver)
	if !ok {
		a.lagrangian(x, grad)
		return
	}
	p, sig := a.prob, a.sigma
	a.rowActivity(x)
	for i, xi := range x {
		g := d.Deriv(i, xi)
		if p.Upper != nil {
			g += math.Max(a.yU[i]+sig*(xi-p.Upper[i]), 0)
		}
		if p.Lower != nil {
			g -= math.Max(a.zL[i]+sig*(p.Lower[i]-xi), 0)
		}
		grad[i] = g
	}
	for k, row := range p.Rows {
		t := math.Max(a.lambda[k]+sig*a.act[k], 0)
		if t == 0 {
			continue
		}
		row.addScaled(grad, t)
	}
}

// projGradNorm returns max_i |x_i - P(x_i - g_i)|, the stationarity measure
// of the inner problem on the domain box.
func (a *ALM) projGradNorm(x, g []float64) float64 {
	var m float64
	for i, xi := range x {
		z := math.Min(a.hi[i], math.Max(a.lo[i], xi-g[i]))
		m = math.Max(m, math.Abs(xi-z))
	}
	return m
}

// inner minimises L_sigma over the domain box by accelerated projected
// gradient (FISTA with gradient restart) until the projected-gradient norm
// is at most tol. The step is found by backtracking by Decay on the local
// curvature test (g(x+) - g(y)).(x+ - y) <= |x+ - y|^2/step, which, unlike
// the function-value Armijo test, stays reliable at the 1e-9 level where
// L_sigma's rounding noise dominates. It returns the final norm, the
// iterations used and whether tol was met.
func (a *ALM) inner(x []float64, tol float64) (float64, int, bool) {
	set := a.set
	a.gradient(x, a.gn)
	pg := a.projGradNorm(x, a.gn)
	copy(a.xprev, x)
	copy(a.yk, x)
	tk := 1.0
	it := 0
	for ; it < set.MaxInner && pg > tol; it++ {
		a.gradient(a.yk, a.grad)
		for bt := 0; ; bt++ {
			var curv, dd float64
			for i, yi := range a.yk {
				a.xn[i] = math.Min(a.hi[i], math.Max(a.lo[i], yi-a.step*a.grad[i]))
			}
			a.gradient(a.xn, a.gn)
			for i, yi := range a.yk {
				d := a.xn[i] - yi
				curv += (a.gn[i] - a.grad[i]) * d
				dd += d * d
			}
			if curv*a.step <= dd || bt >= 2000 {
				break
			}
			if math.IsNaN(curv) || math.IsInf(curv, 0) {
				return pg, it, false // the terms left their finite domain
			}
			a.step *= set.Decay
		}
		var restart float64
		for i := range x {
			restart += (a.yk[i] - a.xn[i]) * (a.xn[i] - x[i])
		}
		copy(a.xprev, x)
		copy(x, a.xn)
		tn := (1 + math.Sqrt(1+4*tk*tk)) / 2
		beta := (tk - 1) / tn
		if restart > 0 {
			tn, beta = 1, 0
		}
		for i := range x {
			a.yk[i] = math.Min(a.hi[i], math.Max(a.lo[i], x[i]+beta*(x[i]-a.xprev[i])))
		}
		tk = tn
		pg = a.projGradNorm(x, a.gn)
		a.step /= set.Decay // let the step recover slowly
	}
	return pg, it, pg <= tol
}

// violation returns (25): sum over constraints of |max(g, -multiplier/sigma)|
// (the signed sum if PaperViolation).
func (a *ALM) violation(x []float64) float64 {
	p, sig := a.prob, a.sigma
	a.rowActivity(x)
	var v float64
	add := func(g, mult float64) {
		t := math.Max(g, -mult/sig)
		if !a.set.PaperViolation {
			t = math.Abs(t)
		}
		v += t
	}
	for k := range p.Rows {
		add(a.act[k], a.lambda[k])
	}
	for i, xi := range x {
		if p.Upper != nil {
			add(xi-p.Upper[i], a.yU[i])
		}
		if p.Lower != nil {
			add(p.Lower[i]-xi, a.zL[i])
		}
	}
	return v
}

// updateMultipliers is lines 13-17 of Algorithm 2.
func (a *ALM) updateMultipliers(x []float64) {
	p, sig := a.prob, a.sigma
	a.rowActivity(x)
	for k := range p.Rows {
		a.lambda[k] = math.Max(a.lambda[k]+sig*a.act[k], 0)
	}
	for i, xi := range x {
		if p.Upper != nil {
			a.yU[i] = math.Max(a.yU[i]+sig*(xi-p.Upper[i]), 0)
		}
		if p.Lower != nil {
			a.zL[i] = math.Max(a.zL[i]+sig*(p.Lower[i]-xi), 0)
		}
	}
}

// p3Terms adapts P3 to Terms: h_r(x) = Phi_r(x) - f_nr(x) - Beta_r x / C_r.
type p3Terms struct{ p *P3 }

// minDeriv is where the derivative of a utility with f'(0) = +Inf (Sqrt)
// is evaluated at x = 0 so that the gradient stays finite.
const minDeriv = 1e-12

func (t p3Terms) Term(r int, x float64) (float64, float64) {
	p := t.p
	c := p.Capacity[r]
	u := p.Utility[r]
	b := p.Beta[r] / c
	v := p.cost(r, x) - u.Value(x) - b*x
	d := p.Pricing.MarginalCost(p.level(r, x), c) - u.Deriv(math.Max(x, minDeriv)) - b
	return v, d
}

// Deriv returns h_r'(x).
func (t p3Terms) Deriv(r int, x float64) float64 {
	p := t.p
	c := p.Capacity[r]
	return p.Pricing.MarginalCost(p.level(r, x), c) - p.Utility[r].Deriv(math.Max(x, minDeriv)) - p.Beta[r]/c
}

// SolveP3 solves P3 with Algorithm 2 and writes a feasible solution to dst:
// the ALM iterate is clipped to [0, min(XBar_r, C_r - omega_r)] and scaled
// down if it exceeds Rho (by at most the final violation). The constraint
// x_r <= XBar_r is penalised (multipliers y of (18)); x_r >= 0 and
// x_r <= C_r - omega_r form the hard domain where f_nr and Phi_r are defined.
// It panics if len(dst) != p.Len() and returns an error for invalid data.
func (a *ALM) SolveP3(dst []float64, p *P3) (SolveResult, error) {
	n := p.Len()
	if len(dst) != n {
		panic(panicLen)
	}
	if err := p.Validate(); err != nil {
		return SolveResult{}, err
	}
	if n == 0 || p.Rho == 0 {
		clear(dst)
		return SolveResult{Mu: p.zeroTargetMu(), Status: Trivial}, nil
	}
	a.p3Lo = grow(a.p3Lo, n)
	a.p3Hi = grow(a.p3Hi, n)
	clear(a.p3Lo)
	var top float64
	for r := range n {
		a.p3Hi[r] = math.Max(0, p.Capacity[r]-p.Usage[r])
		dst[r] = p.Upper(r)
		top += dst[r]
	}
	// Start from the largest allocation (scaled into sum x <= rho): where
	// P3 is indifferent (linear f_nr at phi = iota) the iterate stays on
	// the serving side, as Theorem 1's Case I assumes.
	if top > p.Rho {
		for r := range dst {
			dst[r] *= p.Rho / top
		}
	}
	a.p3 = p3Terms{p}
	a.p3Rows[0] = LinearRow{Bound: p.Rho}
	a.p3Prob = SeparableProblem{N: n, Terms: a.p3, Rows: a.p3Rows[:], Upper: p.XBar, DomainLo: a.p3Lo, DomainHi: a.p3Hi}
	res, err := a.Minimize(dst, &a.p3Prob)
	if err != nil {
		return res, err
	}
	var sum float64
	for r := range dst {
		dst[r] = math.Min(p.Upper(r), math.Max(0, dst[r]))
		sum += dst[r]
	}
	if sum > p.Rho {
		s := p.Rho / sum
		for r := range dst {
			dst[r] *= s
		}
	}
	res.Objective = p.Objective(dst)
	return res, nil
}

// addScaled adds t times the row's coefficient vector to dst (all ones
// when Coef is nil, over every coordinate when Index is nil).
func (row LinearRow) addScaled(dst []float64, t float64) {
	switch {
	case row.Index == nil && row.Coef == nil:
		for i := range dst {
			dst[i] += t
		}
	case row.Index == nil:
		for j, c := range row.Coef {
			dst[j] += t * c
		}
	case row.Coef == nil:
		for _, j := range row.Index {
			dst[j] += t
		}
	default:
		for q, j := range row.Index {
			dst[j] += t * row.Coef[q]
		}
	}
}
