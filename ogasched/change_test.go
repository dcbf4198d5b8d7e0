package ogasched

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestChangeClusterInPlaceEqualsRebuild: ChangeCluster leaves the policy in
// the state the deprecated Rebuild returned (same snapshot, same later
// decisions), with parallel projection workers too (run with -race); a
// bad mapping leaves it unchanged.
func TestChangeClusterInPlaceEqualsRebuild(t *testing.T) {
	p, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(5, 5)))
	require.NoError(t, err)
	q, m, err := p.RemoveNode(2)
	require.NoError(t, err)
	for _, workers := range []int{1, 2} {
		a, err := New(p, Settings{Workers: workers})
		require.NoError(t, err)
		b, err := New(p, Settings{Workers: workers})
		require.NoError(t, err)
		x := make([]float64, p.NumPorts())
		for s := range 4 {
			for l := range x {
				x[l] = float64((s + l) % 2)
			}
			for _, pol := range []*Policy{a, b} {
				_, err := pol.Decide(s, x)
				require.NoError(t, err)
				require.NoError(t, pol.Observe(s, x))
			}
		}
		before, err := a.MarshalBinary()
		require.NoError(t, err)
		require.Error(t, a.ChangeCluster(q, Mapping{Ports: m.Ports, Nodes: m.Nodes[1:]}))
		unchanged, err := a.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, before, unchanged)

		require.NoError(t, a.ChangeCluster(q, m))
		nb, err := b.Rebuild(q, m)
		require.NoError(t, err)
		b.Close()
		sa, err := a.MarshalBinary()
		require.NoError(t, err)
		sb, err := nb.MarshalBinary()
		require.NoError(t, err)
		require.Equal(t, sb, sa)
		for s := 4; s < 8; s++ {
			for l := range x {
				x[l] = float64((s + l) % 2)
			}
			ya, err := a.Decide(s, x)
			require.NoError(t, err)
			yb, err := nb.Decide(s, x)
			require.NoError(t, err)
			require.Equal(t, yb, ya, "workers %d slot %d", workers, s)
			require.NoError(t, a.Observe(s, x))
			require.NoError(t, nb.Observe(s, x))
		}
		a.Close()
		nb.Close()
	}
}
