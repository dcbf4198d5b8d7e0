package ogasched

import "math"

// Step is a step-size schedule eta_t. Eta is called once per slot with the
// slot t (0-based) and the Euclidean norm of the gradient of that slot.
//
// The schedules, and what the regret analysis (39)-(42) covers:
//
//   - Theory (53), eta_t = diam/(||grad q(t)|| sqrt T): the paper's
//     theory-driven step, in the instance's own units. It is the default of
//     Settings when Settings.Horizon is set.
//   - TheoryAnytime, eta_t = diam/(||grad q(t)|| sqrt(t+1)): (53) with the
//     elapsed slots in place of the horizon, for callers that do not know
//     T. It is the default of Settings when Settings.Horizon is 0.
//   - Constant eta (Problem.OptimalConstant gives diam/(G sqrt T)): the step
//     of the theorem; the bound (39) holds for it with x in {0,1}^L.
//   - Geometric, eta_t = Eta0 Lambda^t; PaperGeometric returns the
//     experiments' literal Eta0 = 25, Lambda = 0.9999 (Table II). The
//     geometric schedule is outside the theorem's assumptions (its steps
//     neither stay constant nor shrink like 1/sqrt T), and its Eta0 = 25 is
//     in the units of the authors' trace: on the Table II instances of
//     Generate, (53) is about 0.14 along the trajectory, so Eta0 = 25 is
//     about 180 times too large, coordinates swing between 0 and their
//     bound every slot, and the regret is nearly linear (regret/sqrt T grows
//     with T; measured figures in the package documentation).
type Step interface {
	Eta(t int, gradNorm float64) float64
}

// Geometric is the experiments' schedule eta_t = Eta0 * Lambda^t
// (eta_{t+1} = lambda eta_t); the paper uses Eta0 = 25, Lambda = 0.9999
// (PaperGeometric). It is outside the assumptions of the regret bound (39).
type Geometric struct{ Eta0, Lambda float64 }

// PaperGeometric returns the literal step of the paper's experiments
// (Table II): Geometric{Eta0: 25, Lambda: 0.9999}. Eta0 = 25 is in the units
// of the authors' trace, not in those of an arbitrary instance; the
// default step of Settings is tied to (53) instead. Use this to reproduce the
// paper's literal setup.
func PaperGeometric() Geometric { return Geometric{Eta0: 25, Lambda: 0.9999} }

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

// TheoryAnytime is (53) without a horizon: eta_t = Diam / (||grad q(t)||
// sqrt(t+1)), t the 0-based slot. It needs no T and takes larger steps
// early on. A zero gradient gives eta = 0.
type TheoryAnytime struct {
	Diam float64 // diam(Y), e.g. Problem.Diameter()
}

// Eta implements Step.
func (s TheoryAnytime) Eta(t int, gradNorm float64) float64 {
	if gradNorm == 0 {
		return 0
	}
	return s.Diam / (gradNorm * math.Sqrt(float64(t)+1))
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
