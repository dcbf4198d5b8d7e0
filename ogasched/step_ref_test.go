package ogasched

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/floats"

	"github.com/msched/msched/projection"
)

// referenceStep is one exact OGASched step written plainly: z = y + eta
// grad q(x, .)(y) with the (53) step on the gradient's norm, then every
// block (r, k), in (r, k) order, projected by projection.CappedSimplex.
func referenceStep(p *Problem, step Step, t int, x, y []float64) []float64 {
	g, K := p.Graph, p.K
	grad := p.Gradient(nil, x, y)
	eta := step.Eta(t, norm2(grad))
	z := make([]float64, len(y))
	for j := range y {
		z[j] = y[j] + eta*grad[j]
	}
	out := make([]float64, len(y))
	for r := 0; r < g.NumRight(); r++ {
		es := g.RightEdges(r)
		for k := 0; k < K; k++ {
			zb, ub := make([]float64, len(es)), make([]float64, len(es))
			for i, e := range es {
				zb[i], ub[i] = z[e*K+k], p.Demand[g.Edge(e).Left][k]
			}
			yb := make([]float64, len(es))
			projection.CappedSimplex(yb, zb, ub, p.Capacity[r][k])
			for i, e := range es {
				out[e*K+k] = yb[i]
			}
		}
	}
	return out
}

// TestStepMatchesBlockwiseProjection: the policy's step (loose blocks
// clipped in one loop first, the others through the Projector, 1 or 3
// workers) equals the plain block-by-block step bit for bit, on instances
// where some blocks are loose, some tight, some exactly at the threshold
// (sum of bounds = capacity) and some have zero bounds.
func TestStepMatchesBlockwiseProjection(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 10; trial++ {
		p := randomProblem(t, 6, 9, 3, allKinds, rng)
		g, K := p.Graph, p.K
		loose, tight := 0, 0
		for r := 0; r < g.NumRight(); r++ {
			for k := 0; k < K; k++ {
				sum := 0.0
				for _, e := range g.RightEdges(r) {
					sum += p.Demand[g.Edge(e).Left][k]
				}
				switch rng.IntN(4) {
				case 0:
					p.Capacity[r][k] = sum // at the threshold: classified tight by the margin
				case 1:
					p.Capacity[r][k] = 2*sum + 1
				}
				if sum*(1+4*float64(len(g.RightEdges(r)))*0x1p-52) <= p.Capacity[r][k] {
					loose++
				} else {
					tight++
				}
			}
		}
		if trial%3 == 0 {
			for l := range p.Demand {
				p.Demand[l][0] = 0
			}
		}
		require.Positive(t, loose)
		require.Positive(t, tight)
		tr, err := BernoulliTrace(p.NumPorts(), 40, 0.7, rng)
		require.NoError(t, err)
		for _, workers := range []int{1, 3} {
			step := Theory{Diam: p.Diameter(), T: 40}
			pol, err := New(p, Settings{Step: step, Workers: workers})
			require.NoError(t, err)
			requireReferenceSteps(t, pol, step, tr, "trial %d workers %d", trial, workers)
			pol.Close()
		}
	}
}

// norm2 equals floats.Norm to rounding on ordinary, huge and tiny vectors.
func TestNorm2(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for _, scale := range []float64{1, 1e-170, 1e-300, 1e170, 1e300, 0} {
		for _, n := range []int{0, 1, 3, 4, 7, 1000} {
			x := make([]float64, n)
			for i := range x {
				x[i] = scale * (rng.Float64() - 0.5)
			}
			want, got := floats.Norm(x, 2), norm2(x)
			if want == 0 {
				require.Zero(t, got)
				continue
			}
			require.InEpsilon(t, want, got, 1e-13, "scale %g n %d", scale, n)
		}
	}
}

// The same on generated instances (Table II and a denser one), where most
// tight blocks are projected eight at a time (projection.CappedSimplex8)
// and the rest by the Projector.
func TestStepMatchesBlockwiseProjectionGenerated(t *testing.T) {
	for _, prob := range []float64{0.3, 0.6} {
		cfg := DefaultConfig()
		cfg.EdgeProb = prob
		rng := rand.New(rand.NewPCG(3, uint64(prob*10)))
		p, err := Generate(cfg, rng)
		require.NoError(t, err)
		tr, err := BernoulliTrace(p.NumPorts(), 30, 0.7, rng)
		require.NoError(t, err)
		step := Theory{Diam: p.Diameter(), T: 30}
		for _, workers := range []int{1, 2} {
			pol, err := New(p, Settings{Step: step, Workers: workers})
			require.NoError(t, err)
			require.NotEmpty(t, pol.groups, "no interleaved group: the test would not cover them")
			require.NotEmpty(t, pol.bsTight.Caps, "no single tight block")
			requireReferenceSteps(t, pol, step, tr, "edge prob %v workers %d", prob, workers)
			pol.Close()
		}
	}
}

// requireReferenceSteps runs pol over tr and requires its decision after
// every Observe to equal referenceStep's bit for bit.
func requireReferenceSteps(t *testing.T, pol *Policy, step Step, tr *Trace, msg string, args ...any) {
	t.Helper()
	p := pol.Problem()
	y := make([]float64, p.Dim())
	for s, x := range tr.Arrivals {
		_, err := pol.Decide(s, x)
		require.NoError(t, err)
		require.NoError(t, pol.Observe(s, x))
		y = referenceStep(p, step, s, x, y)
		for j := range y {
			if math.Float64bits(y[j]) != math.Float64bits(pol.Y()[j]) {
				require.Failf(t, "step differs", "slot %d coordinate %d: %v, reference %v; "+msg, append([]any{s, j, pol.Y()[j], y[j]}, args...)...)
			}
		}
	}
}
