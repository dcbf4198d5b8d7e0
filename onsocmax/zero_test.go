package onsocmax

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/utility"
)

// TestZeroSettingsArePaper: Settings{} validates and New accepts it with
// the paper's bounds, computed here by hand from the documented ranges
// (a in [1, 3], beta in [0.1, 0.5], C in 20 ± 6·2, xbar in 7 ± 6·1,
// minUnit 0.01): iota is log's a/(1+xbar) at a = 1, xbar = 13, plus
// 0.1/32; v is sqrt's a/(2 sqrt(minUnit)) at a = 3, plus 0.5/8. The
// explicit bounds give the same policy (same snapshot fingerprint).
func TestZeroSettingsArePaper(t *testing.T) {
	require.NoError(t, Settings{}.Validate())
	wantIota := 1.0/14 + 0.1/32
	wantV := 3/(2*math.Sqrt(DefaultMinUnit)) + 0.5/8
	m := rollMesh(t, 3, 4, 1)
	p, err := New(m, Settings{})
	require.NoError(t, err)
	pr := p.Pricing()
	assert.InDelta(t, wantIota, pr.Iota, 1e-15)
	assert.InDelta(t, wantV, pr.V, 1e-12)
	q, err := New(m, Settings{Iota: pr.Iota, V: pr.V})
	require.NoError(t, err)
	assert.Equal(t, q.model, p.model, "Settings{} is the explicit paper bounds")
	_, err = p.Decide(0, []Job{oneUnitJob(1, 2)})
	require.NoError(t, err)
	data, err := p.MarshalBinary()
	require.NoError(t, err)
	require.NoError(t, q.UnmarshalBinary(data))

	// MinUnit moves sqrt's bound: a/(2 sqrt(0.04)) = 7.5 at a = 3.
	p, err = New(m, Settings{MinUnit: 0.04})
	require.NoError(t, err)
	assert.InDelta(t, 7.5+0.5/8, p.Pricing().V, 1e-12)

	// The linear-only default generator has the tight bounds by hand.
	iota, v, err := DefaultConfig().MarginalBounds(0)
	require.NoError(t, err)
	assert.InDelta(t, 1+0.1/32, iota, 1e-15)
	assert.InDelta(t, 3+0.5/8, v, 1e-15)
	_, _, err = DefaultConfig().MarginalBounds(math.NaN())
	require.ErrorIs(t, err, ErrValue)
	_, _, err = Config{}.MarginalBounds(0)
	require.ErrorIs(t, err, ErrValue)
}

// TestConfigBoundsContainEveryJob: over many seeds, the marginal welfare
// of every unit of every job Generate draws (Instance.MarginalBounds of
// the instance) lies within Config.MarginalBounds, and within the zero
// Settings' bounds for the paper's kinds; and a policy with Settings{}
// rejects none of those jobs as out of bounds. The wide configurations
// spread capacity and xbar so far that a third of the draws hit the
// floors (C at 1e-3, xbar at 0); TestClipNormal checks the clipping at
// GenerateSigmas, which a normal draw reaches with probability 2e-9.
func TestConfigBoundsContainEveryJob(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 100
	}
	pi, pv, err := paperBounds(DefaultMinUnit)
	require.NoError(t, err)
	kinds := [][]utility.Kind{{utility.Linear}, {utility.Log}, {utility.Sqrt}, paperKinds}
	for _, ks := range kinds {
		for _, wide := range []bool{false, true} {
			c := DefaultConfig()
			c.Kinds = ks
			c.Jobs = 40
			if wide { // draws below the floors, clipped by Generate
				c.CapStd, c.XBarStd = 40, 20
			}
			ci, cv, err := c.MarginalBounds(0)
			require.NoError(t, err)
			rejected := 0
			for seed := range seeds {
				in, err := Generate(c, rand.New(rand.NewPCG(uint64(seed), 77)))
				require.NoError(t, err)
				if len(in.Jobs) == 0 {
					continue
				}
				ii, iv, err := in.MarginalBounds(0)
				require.NoError(t, err)
				require.GreaterOrEqual(t, ii, ci, "kinds %v wide %v seed %d", ks, wide, seed)
				require.LessOrEqual(t, iv, cv, "kinds %v wide %v seed %d", ks, wide, seed)
				if wide {
					continue
				}
				require.GreaterOrEqual(t, ii, pi, "paper bounds, kinds %v seed %d", ks, seed)
				require.LessOrEqual(t, iv, pv, "paper bounds, kinds %v seed %d", ks, seed)
				if seed%10 == 0 {
					p, err := New(in.Mesh, Settings{})
					require.NoError(t, err)
					for s := range in.Mesh.Slots {
						var batch []Job
						for _, j := range in.Jobs {
							if j.Arrival == s {
								batch = append(batch, j)
							}
						}
						d, err := p.Decide(s, batch)
						require.NoError(t, err)
						for _, o := range d.Outcomes {
							if o.Reason == AboveBounds || o.Reason == BelowBounds {
								rejected++
							}
						}
					}
				}
			}
			require.Zero(t, rejected, "kinds %v", ks)
		}
	}
}

type fixedNormal float64

func (f fixedNormal) NormFloat64() float64 { return float64(f) }

// TestClipNormal: Generate's draws stop at mean ± GenerateSigmas·std and
// at the floor, and are untouched inside.
func TestClipNormal(t *testing.T) {
	for _, c := range []struct{ z, mean, std, floor, want float64 }{
		{0.5, 20, 2, 1e-3, 21},
		{-5.9, 20, 2, 1e-3, 20 - 2*5.9},
		{10, 20, 2, 1e-3, 32},
		{-10, 20, 2, 1e-3, 8},
		{-10, 7, 1, 0, 1},
		{-3, 1, 1, 0, 0},
		{math.Inf(1), 7, 1, 0, 13},
	} {
		assert.Equal(t, c.want, clipNormal(fixedNormal(c.z), c.mean, c.std, c.floor), "%+v", c)
	}
}
