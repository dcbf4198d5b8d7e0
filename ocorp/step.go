package ocorp

import (
	"fmt"
	"math"
)

// Step is the step size mu of the dual update (10) in slot t (t >= 1).
type Step interface {
	Mu(t int) float64
}

// ExperimentStep is the step of the paper's experiments (Section VI-1):
// mu = t^(k + 0.5).
type ExperimentStep struct{ K float64 }

// Mu returns t^(K + 0.5).
func (s ExperimentStep) Mu(t int) float64 { return math.Pow(float64(t), s.K+0.5) }

// TheoryStep is the constant step of Theorem 3: mu = T^(k - beta) with
// 0 <= beta < 1 over a horizon of T slots.
type TheoryStep struct {
	T       int
	K, Beta float64
}

// NewTheoryStep validates T >= 1, k >= 1 and beta in [0, 1).
func NewTheoryStep(T int, k, beta float64) (TheoryStep, error) {
	if T < 1 || !(k >= 1) || math.IsInf(k, 0) || !(beta >= 0 && beta < 1) {
		return TheoryStep{}, fmt.Errorf("%w: T = %d, k = %v, beta = %v", ErrSettings, T, k, beta)
	}
	return TheoryStep{T: T, K: k, Beta: beta}, nil
}

// Mu returns T^(K - Beta), whatever t.
func (s TheoryStep) Mu(int) float64 { return math.Pow(float64(s.T), s.K-s.Beta) }
