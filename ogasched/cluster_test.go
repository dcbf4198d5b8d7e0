package ogasched

import (
	"bytes"
	"log/slog"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/utility"
)

// Issue 13: nodes and ports added and removed mid-run; every decision is
// feasible for the cluster of its slot, the learned y of the surviving
// edges is carried over, and the slot sequence continues.
func TestRebuildKeepsDecisionsFeasibleAsTheClusterChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	cfg := DefaultConfig()
	cfg.Ports, cfg.Nodes = 5, 12
	p, err := Generate(cfg, rng)
	require.NoError(t, err)
	pol, err := New(p, Settings{Horizon: 400})
	require.NoError(t, err)
	defer func() { pol.Close() }()

	lin, err := utility.New(utility.Log, 1.2)
	require.NoError(t, err)
	utils := make([]utility.Utility, p.K)
	for k := range utils {
		utils[k] = lin
	}
	type change struct {
		name  string
		apply func(*Problem) (*Problem, Mapping, error)
	}
	changes := map[int]change{
		30: {"node 4 leaves", func(q *Problem) (*Problem, Mapping, error) { return q.RemoveNode(4) }},
		60: {"a node joins", func(q *Problem) (*Problem, Mapping, error) {
			return q.AddNode([]float64{4, 8, 2, 0, 0, 1}, utils, []int{0, 2, 4})
		}},
		90: {"a port appears", func(q *Problem) (*Problem, Mapping, error) {
			return q.AddPort([]float64{3, 3, 1, 0, 0, 0}, []int{0, 5, q.NumNodes() - 1})
		}},
		120: {"port 1 goes", func(q *Problem) (*Problem, Mapping, error) { return q.RemovePort(1) }},
		150: {"node 0 leaves", func(q *Problem) (*Problem, Mapping, error) { return q.RemoveNode(0) }},
		180: {"the last node leaves", func(q *Problem) (*Problem, Mapping, error) { return q.RemoveNode(q.NumNodes() - 1) }},
	}
	cur := p
	slot, last := 0, -1
	for step := 0; step < 210; step++ {
		if c, ok := changes[step]; ok {
			q, m, err := c.apply(cur)
			require.NoError(t, err, c.name)
			next, err := pol.Rebuild(q, m)
			require.NoError(t, err, c.name)
			// Survivors keep their y (the exact projection of a feasible
			// point moves it by rounding at most).
			for e := 0; e < q.Graph.NumEdges(); e++ {
				ed := q.Graph.Edge(e)
				ol, or := m.Ports[ed.Left], m.Nodes[ed.Right]
				oe, ok := -1, false
				if ol >= 0 && or >= 0 {
					oe, ok = cur.Graph.EdgeID(ol, or)
				}
				for k := 0; k < q.K; k++ {
					got := next.Y()[e*q.K+k]
					if !ok {
						require.Zero(t, got, "%s: a new edge starts at 0", c.name)
						continue
					}
					want := pol.Y()[oe*q.K+k]
					require.InDelta(t, want, got, 1e-12*(1+want), "%s: edge (%d,%d) type %d", c.name, ed.Left, ed.Right, k)
				}
			}
			pol.Close()
			pol, cur = next, q
		}
		x := make([]float64, cur.NumPorts())
		for l := range x {
			if rng.Float64() < 0.7 {
				x[l] = 1
			}
		}
		y, err := pol.Decide(slot, x)
		require.NoError(t, err)
		require.NoError(t, cur.Feasible(y, 1e-9), "step %d", step)
		require.NoError(t, pol.Observe(slot, x))
		require.NoError(t, cur.Feasible(pol.Y(), 1e-9), "step %d after Observe", step)
		last = slot
		slot += 1 + step%2
	}
	require.Equal(t, 5, cur.NumPorts())
	require.Equal(t, 10, cur.NumNodes())
	// The last slot carries over: a Rebuild cannot go back in time.
	q, m, err := cur.RemoveNode(0)
	require.NoError(t, err)
	next, err := pol.Rebuild(q, m)
	require.NoError(t, err)
	defer next.Close()
	_, err = next.Decide(last, make([]float64, q.NumPorts()))
	require.ErrorIs(t, err, ErrSlot)
}

// Shrinking a capacity under a learned y: Rebuild re-projects, so the
// carried decision is feasible for the new capacity.
func TestRebuildReprojectsWhenCapacityShrinks(t *testing.T) {
	p := handProblem(t)
	pol, err := New(p, Settings{Step: Constant(5)})
	require.NoError(t, err)
	defer pol.Close()
	for s := 0; s < 5; s++ {
		_, err := pol.Decide(s, []float64{1, 1})
		require.NoError(t, err)
		require.NoError(t, pol.Observe(s, []float64{1, 1}))
	}
	q := *p
	q.Capacity = [][]float64{{1, 1}, {0.5, 0}}
	next, err := pol.Rebuild(&q, Mapping{Ports: []int{0, 1}, Nodes: []int{0, 1}})
	require.NoError(t, err)
	defer next.Close()
	require.NoError(t, q.Feasible(next.Y(), 1e-12))
	require.NoError(t, p.Feasible(pol.Y(), 1e-12), "the old policy is unchanged")
}

func TestClusterEditsRejectBadInput(t *testing.T) {
	p := handProblem(t)
	u, _ := utility.New(utility.Log, 1)
	var nilP *Problem
	_, _, err := nilP.RemoveNode(0)
	require.ErrorIs(t, err, ErrDimension)
	for name, err := range map[string]error{
		"remove node -1":  second(p.RemoveNode(-1)),
		"remove node 2":   second(p.RemoveNode(2)),
		"remove port 5":   second(p.RemovePort(5)),
		"add node port 9": second(p.AddNode([]float64{1, 1}, []utility.Utility{u, u}, []int{9})),
		"add node twice":  second(p.AddNode([]float64{1, 1}, []utility.Utility{u, u}, []int{0, 0})),
		"add port node 7": second(p.AddPort([]float64{1, 1}, []int{7})),
	} {
		require.ErrorIs(t, err, ErrValue, name)
	}
	for name, err := range map[string]error{
		"add node short capacity": second(p.AddNode([]float64{1}, []utility.Utility{u, u}, nil)),
		"add port short demand":   second(p.AddPort([]float64{1}, nil)),
	} {
		require.ErrorIs(t, err, ErrDimension, name)
	}
	_, _, err = p.AddNode([]float64{math.NaN(), 1}, []utility.Utility{u, u}, nil)
	require.ErrorIs(t, err, ErrValue)

	pol, err := New(p, Settings{})
	require.NoError(t, err)
	defer pol.Close()
	id := Mapping{Ports: []int{0, 1}, Nodes: []int{0, 1}}
	for name, c := range map[string]struct {
		q   *Problem
		m   Mapping
		err error
	}{
		"nil problem":    {nil, id, ErrDimension},
		"short map":      {p, Mapping{Ports: []int{0}, Nodes: []int{0, 1}}, ErrDimension},
		"repeated port":  {p, Mapping{Ports: []int{0, 0}, Nodes: []int{0, 1}}, ErrValue},
		"node too large": {p, Mapping{Ports: []int{0, 1}, Nodes: []int{0, 2}}, ErrValue},
		"node -2":        {p, Mapping{Ports: []int{0, 1}, Nodes: []int{-2, 1}}, ErrValue},
		"other K":        {tinyK1(t), Mapping{Ports: []int{0}, Nodes: []int{0}}, ErrDimension},
	} {
		_, err := pol.Rebuild(c.q, c.m)
		require.ErrorIs(t, err, c.err, name)
	}
}

func second[A, B any](_ A, _ B, err error) error { return err }

func tinyK1(t *testing.T) *Problem {
	q, _, err := handProblem(t).RemovePort(1)
	require.NoError(t, err)
	q2, err := NewProblem(q.Graph, [][]float64{{1}}, [][]float64{{1}, {1}},
		[][]utility.Utility{{q.Utility[0][0]}, {q.Utility[1][0]}}, []float64{0.5})
	require.NoError(t, err)
	return q2
}

// Settings.Logger gets one Debug record per Observe and one Info record
// per Rebuild; Validate joins every problem of a Settings.
func TestLoggerAndSettingsValidate(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p := handProblem(t)
	pol, err := New(p, Settings{Logger: log, Step: Constant(1)})
	require.NoError(t, err)
	defer pol.Close()
	for s := 0; s < 2; s++ {
		_, err := pol.Decide(s, []float64{1, 0})
		require.NoError(t, err)
		require.NoError(t, pol.Observe(s, []float64{1, 0}))
	}
	q, m, err := p.RemoveNode(1)
	require.NoError(t, err)
	next, err := pol.Rebuild(q, m)
	require.NoError(t, err)
	next.Close()
	out := buf.String()
	require.Equal(t, 2, strings.Count(out, "msg=observe family=ogasched"), out)
	require.Contains(t, out, "slot=1 gradNorm=")
	require.Contains(t, out, "msg=rebuild family=ogasched")

	err = Settings{Workers: -1, Horizon: -2, Init: []float64{math.NaN()}}.Validate()
	require.ErrorIs(t, err, ErrSettings)
	for _, field := range []string{"Workers = -1", "Horizon = -2", "Init[0] = NaN"} {
		require.ErrorContains(t, err, field)
	}
	_, err = New(p, Settings{Workers: MaxWorkers + 1})
	require.ErrorIs(t, err, ErrSettings)
	_, err = New(nil, Settings{})
	require.ErrorIs(t, err, ErrDimension)
}
