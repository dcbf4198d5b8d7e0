package ogasched

import "math"

// Step is a step-size schedule eta_t. Eta is called once per slot with the
// slot t (0-based) and the Euclidean norm of the gradient of that slot.
type Step interface {
	Eta(t int, gradNorm float64) float64
}

// Geometric is the experiments' schedule eta_t = Eta0 * Lambda^t
// (eta_{t+1} = lambda eta_t); the paper uses Eta0 = 25, Lambda = 0.9999.
type Geometric struct{ Eta0, Lambda float64 }

// Eta implements Step.
func (s Geometric) Eta(t int, _ float64) float64 { return s.Eta0 * math.Pow(s.Lambda, float64(t)) }

// Theory is the theory-driven step (53): eta_t = Diam / (||grad q(t)|| sqrt T).
// A zero gradient gives eta = 0 (nothing to move).
type Theory struct {
	Diam float64 // diam(Y), e.g. Problem.Diameter()
	T    int     // horizon
}

// Eta implements Step.
func (s Theory) Eta(_ int, gradNorm float64) float64 {
	if gradNorm == 0 {
		return 0
	}
	return s.Diam / (gradNorm * math.Sqrt(float64(s.T)))
}

// Constant is eta_t = Eta, the step of the regret analysis (41)-(42).
type Constant float64

// Eta implements Step.
func (s Constant) Eta(int, float64) float64 { return float64(s) }

// OptimalConstant returns the constant step diam/(G sqrt T) that attains
// the bound (39).
func (p *Problem) OptimalConstant(T int) Constant {
	return Constant(p.Diameter() / (p.GradBound() * math.Sqrt(float64(T))))
}
