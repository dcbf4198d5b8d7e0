package baselines

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
)

// TestMeshBaselinesWrapFamilySentinel is issue 22 class 7: NewMaxFirst and
// NewEqualShare with a capacity list of the wrong length wrapped only
// bipartite.ErrDimension; they now wrap onsocmax.ErrDimension (the
// family's sentinel) and keep bipartite's as a second cause.
func TestMeshBaselinesWrapFamilySentinel(t *testing.T) {
	bad := &bipartite.Mesh{Nodes: 2, Slots: 3, Capacity: make([]float64, 5)}
	_, err := NewMaxFirst(bad)
	require.ErrorIs(t, err, onsocmax.ErrDimension)
	require.ErrorIs(t, err, bipartite.ErrDimension)
	_, err = NewEqualShare(bad)
	require.ErrorIs(t, err, onsocmax.ErrDimension)
	require.ErrorIs(t, err, bipartite.ErrDimension)
	_, err = NewMaxFirst(nil)
	require.ErrorIs(t, err, onsocmax.ErrValue)
}
