package esdp

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// permute calls f with every permutation of p (Heap's algorithm).
func permute(p []int, f func()) {
	var rec func(k int)
	rec = func(k int) {
		if k <= 1 {
			f()
			return
		}
		for i := 0; i < k-1; i++ {
			rec(k - 1)
			if k%2 == 0 {
				p[i], p[k-1] = p[k-1], p[i]
			} else {
				p[0], p[k-1] = p[k-1], p[0]
			}
		}
		rec(k - 1)
	}
	rec(len(p))
}

// TestHungarianBruteForce: the assignment hungarian returns costs the
// minimum over every permutation, on random n×n matrices (n <= 7) with
// ties and forbidden (large) entries.
func TestHungarianBruteForce(t *testing.T) {
	var ps polishState
	for it := range 3000 {
		rng := rand.New(rand.NewPCG(uint64(it), 77))
		n := 1 + rng.IntN(7)
		N := n + 1
		ps.cost = growF(ps.cost, N*N)
		for i := 1; i <= n; i++ {
			for j := 1; j <= n; j++ {
				v := -rng.Float64()
				switch rng.IntN(6) {
				case 0:
					v = 100 // forbidden
				case 1:
					v = -float64(rng.IntN(3)) / 2 // ties
				}
				ps.cost[i*N+j] = v
			}
		}
		hungarian(&ps, n)
		got := 0.0
		seen := make([]bool, n+1)
		for j := 1; j <= n; j++ {
			i := ps.p[j]
			require.False(t, seen[i], "row %d assigned twice", i)
			seen[i] = true
			got += ps.cost[i*N+j]
		}
		want := math.Inf(1)
		perm := make([]int, n)
		for j := range perm {
			perm[j] = j
		}
		permute(perm, func() {
			c := 0.0
			for j, i := range perm {
				c += ps.cost[(i+1)*N+j+1]
			}
			want = min(want, c)
		})
		require.InDelta(t, want, got, 1e-9, "instance %d (n = %d)", it, n)
	}
}

// TestGangPolishBruteForce: on small random instances (integer demands,
// so components share demand vectors) and a feasible placement of each,
// polish keeps the placement feasible with the same components placed,
// never lowers its value, reports its new value, and reaches the best
// reassignment of every class of equal demand vectors among the servers
// its members occupy, found by enumerating every permutation per class.
func TestGangPolishBruteForce(t *testing.T) {
	improved, n := 0, 10000
	if testing.Short() {
		n = 3000
	}
	for it := range n {
		rng := rand.New(rand.NewPCG(uint64(it), 78))
		p := randomGangKnapsack(t, rng, 4, 4, 3)
		m := p.Channels.Model()
		C := m.NumComponents()
		// a random feasible placement (the oracle's scratch sized by a
		// solve first)
		o := GangOracle{Settings: GangOracleSettings{MaxNodes: 1, Iterations: 1}}
		x := make([]int, C)
		_, err := o.Solve(x, p)
		require.NoError(t, err)
		for try := 0; try < 20; try++ {
			y := make([]int, C)
			for c := range y {
				y[c] = -1
				lo, hi := p.Channels.Range(c)
				if p.Arrived[m.Job(c)] && hi > lo && rng.IntN(4) > 0 {
					y[c] = p.Channels.Server(lo + rng.IntN(hi-lo))
				}
			}
			if chk, err := m.Check(p.Arrived, y); err == nil && chk.Violations == 0 {
				x = y
				break
			}
		}
		before := gangValue(t, p, x)

		// brute force: every permutation of every class's servers
		var classes [][]int
		for c := 0; c < C; c++ {
			if x[c] < 0 {
				continue
			}
			placed := false
			for k, cl := range classes {
				if sameDemand(m.Demand(cl[0]), m.Demand(c)) {
					classes[k] = append(cl, c)
					placed = true
					break
				}
			}
			if !placed {
				classes = append(classes, []int{c})
			}
		}
		want := 0.0
		for _, cl := range classes {
			srv := make([]int, len(cl))
			for j, c := range cl {
				srv[j] = x[c]
			}
			perm := make([]int, len(cl))
			for j := range perm {
				perm[j] = j
			}
			best := math.Inf(-1)
			permute(perm, func() {
				v := 0.0
				for j, c := range cl {
					i, ok := p.Channels.Channel(c, srv[perm[j]])
					if !ok || !p.Channels.Fits(i) {
						return
					}
					v += p.Value[i]
				}
				best = max(best, v)
			})
			want += best
		}

		s := gangSolve{o: &o, ch: p.Channels, p: p, K: m.K()}
		copy(o.inc, x)
		s.incVal = before
		s.tol = 1e-12 * max(1, math.Abs(before))
		gained := s.polish()
		y := o.inc[:C]
		after := gangValue(t, p, y) // feasible under GangModel.Check
		for c := range x {
			require.Equal(t, x[c] >= 0, y[c] >= 0, "instance %d: component %d placed before and not after, or back", it, c)
		}
		require.InDelta(t, after, s.incVal, 1e-9, "instance %d: reported value", it)
		require.GreaterOrEqual(t, after, before-1e-12, "instance %d", it)
		require.InDelta(t, want, after, 1e-9, "instance %d: the best reassignment", it)
		require.Equal(t, gained, s.incVal > before, "instance %d", it)
		if gained {
			improved++
		}
	}
	t.Logf("polish improved %d of %d placements", improved, n)
	require.Greater(t, improved, n/60) // 3 %: the test exercises improvements
}
