package ogasched

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// The batched reward of Run and the batched gradient of Policy.Observe
// equal Problem.RewardParts and Problem.Gradient bit for bit, on
// random instances with every kind OGASched accepts (linear, log,
// reciprocal, poly, alpha-fair, proportional fair), zero and non-zero
// coordinates (kept from slot to slot, so that the reward's memo is used,
// or changed to 0, -0 or a new value), 0/1 and count arrivals.
func TestBatchedRewardIsBitIdentical(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 2))
	kinds := []utility.Kind{utility.Linear, utility.Log, utility.Reciprocal, utility.Poly, utility.ProportionalFair}
	for trial := 0; trial < 40; trial++ {
		L, R, K := 1+rng.IntN(6), 1+rng.IntN(8), 1+rng.IntN(4)
		g, err := bipartite.Bernoulli(L, R, 0.5, rng)
		require.NoError(t, err)
		demand := make([][]float64, L)
		for l := range demand {
			demand[l] = make([]float64, K)
			for k := range demand[l] {
				demand[l][k] = 5 * rng.Float64()
			}
		}
		capacity := make([][]float64, R)
		util := make([][]utility.Utility, R)
		for r := range capacity {
			capacity[r] = make([]float64, K)
			util[r] = make([]utility.Utility, K)
			for k := range capacity[r] {
				capacity[r][k] = 10 * rng.Float64()
				a := 0.5 + rng.Float64()
				var u utility.Utility
				if rng.IntN(6) == 0 {
					u, err = utility.NewAlphaFair(a, 2*rng.Float64())
				} else {
					u, err = utility.New(kinds[rng.IntN(len(kinds))], a)
				}
				require.NoError(t, err)
				util[r][k] = u
			}
		}
		beta := make([]float64, K)
		for k := range beta {
			beta[k] = rng.Float64()
		}
		p, err := NewProblem(g, demand, capacity, util, beta)
		require.NoError(t, err)
		rt := newRewardTables(p)
		sc := rt.scratch()
		y := make([]float64, p.Dim())
		for s := 0; s < 20; s++ {
			x := make([]float64, L)
			for l := range x {
				switch rng.IntN(4) {
				case 0:
				case 1:
					x[l] = float64(rng.IntN(5))
				default:
					x[l] = 1
				}
			}
			// Half the coordinates keep their previous value (parts'
			// memo hits), the others become 0, -0 or a new value.
			for j := range y {
				switch rng.IntN(6) {
				case 0, 1, 2:
				case 3:
					y[j] = 0
				case 4:
					y[j] = math.Copysign(0, -1)
				default:
					y[j] = math.Ldexp(rng.Float64(), rng.IntN(12)-6)
				}
			}
			wgrad := p.Gradient(nil, x, y)
			ggrad := make([]float64, len(y))
			for j := range ggrad {
				ggrad[j] = math.NaN() // every coordinate must be written
			}
			rt.gradient(ggrad, sc.sums, x, y)
			for j := range wgrad {
				require.Equal(t, math.Float64bits(wgrad[j]), math.Float64bits(ggrad[j]), "trial %d slot %d gradient[%d]", trial, s, j)
			}
			wg, wp := p.RewardParts(x, y)
			gg, gp := rt.parts(sc, x, y)
			require.Equal(t, math.Float64bits(wg), math.Float64bits(gg), "trial %d slot %d gain", trial, s)
			require.Equal(t, math.Float64bits(wp), math.Float64bits(gp), "trial %d slot %d penalty", trial, s)
		}
	}
}

// Run's rewards are RewardParts' bit for bit, for a learning policy (its
// y changes every slot).
func TestRunRewardsMatchRewardParts(t *testing.T) {
	p, xs, _ := snapInstance(t)
	pol, err := New(p, Settings{})
	require.NoError(t, err)
	defer pol.Close()
	ref, err := New(p, Settings{})
	require.NoError(t, err)
	defer ref.Close()
	res, err := Run(p, &Trace{Ports: p.NumPorts(), Arrivals: xs}, []OnlinePolicy{pol}, RunSettings{})
	require.NoError(t, err)
	for s, x := range xs {
		y, err := ref.Decide(s, x)
		require.NoError(t, err)
		g, pen := p.RewardParts(x, y)
		require.Equal(t, math.Float64bits(g), math.Float64bits(res.Series[0].Gain[s]))
		require.Equal(t, math.Float64bits(pen), math.Float64bits(res.Series[0].Penalty[s]))
		require.NoError(t, ref.Observe(s, x))
	}
}

// BenchmarkReward compares RewardParts with the batched reward of Run on
// the paper's two sizes, at a learned y.
func BenchmarkReward(b *testing.B) {
	for _, cfg := range benchConfigs {
		p, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		require.NoError(b, err)
		tr, err := BernoulliTrace(p.NumPorts(), 64, 0.7, rand.New(rand.NewPCG(2, 2)))
		require.NoError(b, err)
		pol, err := New(p, Settings{})
		require.NoError(b, err)
		for s := 0; s < 20; s++ {
			_, err := pol.Decide(s, tr.Arrivals[s])
			require.NoError(b, err)
			require.NoError(b, pol.Observe(s, tr.Arrivals[s]))
		}
		y := append([]float64(nil), pol.Y()...)
		pol.Close()
		b.Run(fmt.Sprintf("RewardParts/n=%d", p.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				p.RewardParts(tr.Arrivals[i%64], y)
				i++
			}
		})
		rt := newRewardTables(p)
		sc := rt.scratch()
		b.Run(fmt.Sprintf("batched/n=%d", p.Dim()), func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				rt.parts(sc, tr.Arrivals[i%64], y)
				i++
			}
		})
	}
}

// Run's fused reward-and-gradient pass for OGASched on its own problem
// gives the same series, bit for bit, as the separate reward and Observe
// it uses for a policy built on another (equal) problem; with every kind
// OGASched accepts and the paper's projection too.
func TestRunFusedPassMatchesSeparate(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 7))
	kinds := append([]utility.Kind{utility.ProportionalFair}, allKinds...)
	for trial := 0; trial < 6; trial++ {
		p := randomProblem(t, 5, 7, 3, kinds, rng)
		q := *p // another *Problem, equal: Run cannot fuse
		tr, err := BernoulliTrace(p.NumPorts(), 60, 0.6, rng)
		require.NoError(t, err)
		for _, paper := range []bool{false, true} {
			s := Settings{Step: Theory{Diam: p.Diameter(), T: 60}, PaperProjection: paper}
			fused, err := New(p, s)
			require.NoError(t, err)
			apart, err := New(&q, s)
			require.NoError(t, err)
			res, err := Run(p, tr, []OnlinePolicy{fused, apart}, RunSettings{})
			require.NoError(t, err)
			a, b := res.Series[0], res.Series[1]
			for i := range a.Reward {
				require.Equal(t, math.Float64bits(b.Gain[i]), math.Float64bits(a.Gain[i]), "trial %d slot %d gain", trial, i)
				require.Equal(t, math.Float64bits(b.Penalty[i]), math.Float64bits(a.Penalty[i]), "trial %d slot %d penalty", trial, i)
			}
			for j := range fused.Y() {
				require.Equal(t, math.Float64bits(apart.Y()[j]), math.Float64bits(fused.Y()[j]))
			}
			fused.Close()
			apart.Close()
		}
	}
}
