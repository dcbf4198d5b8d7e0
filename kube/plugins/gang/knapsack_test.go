package gang

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	tf "k8s.io/kubernetes/pkg/scheduler/testing/framework"
)

func TestKnapsackPlacesWhereFirstFitFails(t *testing.T) {
	nodes := tf.BuildNodeInfos([]*v1.Node{node("n1", 4), node("n2", 3)})
	ps := []*v1.Pod{pod("a", "", "", 3), pod("b", "", "", 2), pod("c", "", "", 2)}
	require.False(t, FirstFit{}.Place(make([]string, 3), ps, nodes, nil), "first fit: a on n1 leaves 1+3 for 2+2")
	dst := make([]string, 3)
	require.True(t, (&Knapsack{}).Place(dst, ps, nodes, nil))
	require.Equal(t, []string{"n2", "n1", "n1"}, dst)
	// 8 CPUs asked of 7: nothing placed.
	ps[1] = pod("b", "", "", 3)
	dst = []string{"x", "y", "z"}
	require.False(t, (&Knapsack{}).Place(dst, ps, nodes, nil))
	require.Equal(t, []string{"", "", ""}, dst)
}

// TestKnapsackMatchesBruteForce: on small random groups the oracle places
// the group exactly when some assignment fits (brute force over every
// assignment), and its placement respects every node's free CPU.
func TestKnapsackMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	k := &Knapsack{}
	for it := range 300 {
		nn, np := 1+rng.IntN(3), 1+rng.IntN(5)
		caps := make([]int64, nn)
		var ns []*v1.Node
		for j := range caps {
			caps[j] = int64(1 + rng.IntN(6))
			ns = append(ns, node(fmt.Sprint("n", j), caps[j]))
		}
		dem := make([]int64, np)
		var ps []*v1.Pod
		for i := range dem {
			dem[i] = int64(1 + rng.IntN(4))
			ps = append(ps, pod(fmt.Sprint("p", i), "", "", dem[i]))
		}
		want := fits(dem, caps, 0, make([]int64, nn))
		dst := make([]string, np)
		got := k.Place(dst, ps, tf.BuildNodeInfos(ns), nil)
		require.Equal(t, want, got, "instance %d: demands %v capacities %v", it, dem, caps)
		if got {
			used := map[string]int64{}
			for i, n := range dst {
				used[n] += dem[i]
			}
			for j, c := range caps {
				require.LessOrEqual(t, used[fmt.Sprint("n", j)], c, "instance %d: node %d over capacity", it, j)
			}
		}
	}
}

func fits(dem, caps []int64, i int, used []int64) bool {
	if i == len(dem) {
		return true
	}
	for j := range caps {
		if used[j]+dem[i] <= caps[j] {
			used[j] += dem[i]
			ok := fits(dem, caps, i+1, used)
			used[j] -= dem[i]
			if ok {
				return true
			}
		}
	}
	return false
}
