package ocorp

import (
	"fmt"
	"math"
)

// Step is the step size mu of the dual update (10) in the 0-based slot
// t >= 0 (the paper's slot t+1). Policies fingerprint a Step by its type
// and printed value (%T%+v) in snapshots.
type Step interface {
	Mu(t int) float64
}

// ExperimentStep is the step of the paper's experiments (Section VI-1):
// mu = t^(k + 0.5) in the paper's 1-based slot t.
type ExperimentStep struct{ K float64 }

// Mu returns (t+1)^(K + 0.5) for the 0-based slot t.
func (s ExperimentStep) Mu(t int) float64 { return math.Pow(float64(t)+1, s.K+0.5) }

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
