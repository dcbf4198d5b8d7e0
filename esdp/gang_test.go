package esdp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
)

func TestGangRunDefault(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	p, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	res, err := RunGang(in, []GangOnlinePolicy{p}, RunSettings{T: 300, Seed: 1})
	require.NoError(t, err)
	require.Zero(t, res.Violations[0])
	require.Zero(t, res.OracleGap)
	s := res.Series[0]
	t.Logf("opt %.1f  esdp-gang %.1f  regret %.1f  wall %v", res.TotalOptimal, s.TotalExpected, s.TotalRegret, s.Wall)
	for tt, r := range s.Regret {
		require.GreaterOrEqual(t, r+res.OptimalBound[tt]-res.Optimal[tt], -1e-9, "slot %d", tt)
	}
}

// driveGang runs p for slots from..to-1 on in with the rewards' means as
// feedback-free draws from seed, and returns the decisions.
func driveGang(t testing.TB, p *GangPolicy, in *GangInstance, from, to int, seed uint64) [][]int {
	ch := p.Channels()
	rng := rand.New(rand.NewPCG(seed, 7))
	arr := make([]bool, in.Model.NumJobs())
	fb := GangFeedback{Server: make([]int, in.Model.NumComponents()), Reward: make([]float64, in.Model.NumComponents())}
	var out [][]int
	for tt := from; tt < to; tt++ {
		for l := range arr {
			arr[l] = rng.Float64() < in.Arrival[l]
		}
		x, err := p.Decide(tt, arr)
		require.NoError(t, err)
		out = append(out, append([]int(nil), x...))
		for c, s := range x {
			fb.Server[c], fb.Reward[c] = s, 0
			if s >= 0 {
				i, ok := ch.Channel(c, s)
				require.True(t, ok)
				fb.Reward[c] = in.Expected(i) * rng.Float64() * 2
				fb.Reward[c] = min(fb.Reward[c], 1)
			}
		}
		require.NoError(t, p.Observe(tt, fb))
	}
	return out
}

func TestGangSnapshotRoundTrip(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(2, 1)))
	require.NoError(t, err)
	a, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	driveGang(t, a, in, 0, 40, 1)
	// A decision awaiting its Observe travels with the snapshot.
	arr := make([]bool, in.Model.NumJobs())
	for l := range arr {
		arr[l] = true
	}
	x, err := a.Decide(40, arr)
	require.NoError(t, err)
	data, err := a.MarshalBinary()
	require.NoError(t, err)
	b, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	require.NoError(t, b.UnmarshalBinary(data))
	fb := GangFeedback{Server: append([]int(nil), x...), Reward: make([]float64, len(x))}
	require.NoError(t, a.Observe(40, fb))
	require.NoError(t, b.Observe(40, fb))
	da := driveGang(t, a, in, 41, 70, 3)
	db := driveGang(t, b, in, 41, 70, 3)
	require.Equal(t, da, db)

	// Another model or settings: ErrSnapshot, b unchanged.
	c, err := NewGang(in.Model, GangSettings{Rounds: 2})
	require.NoError(t, err)
	require.ErrorIs(t, c.UnmarshalBinary(data), ErrSnapshot)
	require.ErrorIs(t, b.UnmarshalBinary(data[:len(data)/2]), ErrSnapshot)
}

// TestGangSnapshotSemantic alters the values of a valid snapshot: each
// change must be rejected with ErrSnapshot and leave the policy as it was.
func TestGangSnapshotSemantic(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(3, 1)))
	require.NoError(t, err)
	p, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	driveGang(t, p, in, 0, 30, 1)
	good, err := p.MarshalBinary()
	require.NoError(t, err)
	ch := p.Channels()
	unfit := -1
	for i := 0; i < ch.Len(); i++ {
		if !ch.Fits(i) {
			unfit = i
			break
		}
	}
	require.GreaterOrEqual(t, unfit, 0)
	var env map[string]any
	mutate := func(f func(st map[string]any)) []byte {
		require.NoError(t, json.Unmarshal(good, &env))
		st := env["state"].(map[string]any)
		f(st)
		b, err := json.Marshal(env)
		require.NoError(t, err)
		return b
	}
	stats := func(st map[string]any) ([]any, []any) {
		s := st["stats"].(map[string]any)
		return s["count"].([]any), s["sum"].([]any)
	}
	cases := map[string][]byte{
		"sum above count": mutate(func(st map[string]any) { c, s := stats(st); c[0] = 1.0; s[0] = 5.0 }),
		"negative count":  mutate(func(st map[string]any) { c, _ := stats(st); c[1] = -1.0 }),
		"unfit channel":   mutate(func(st map[string]any) { c, s := stats(st); c[unfit] = 3.0; s[unfit] = 1.0 }),
		"short stats":     mutate(func(st map[string]any) { c, s := stats(st); st["stats"] = map[string]any{"count": c[1:], "sum": s[1:]} }),
		"negative slot":   mutate(func(st map[string]any) { st["last_t"] = -4.0 }),
		"pending short":   mutate(func(st map[string]any) { st["pending"] = []any{0.0} }),
		"pending server":  mutate(func(st map[string]any) { st["pending"] = pendingWith(in.Model.NumComponents(), 0, 1e6) }),
		"pending unknown": mutate(func(st map[string]any) { st["pending"] = pendingWith(in.Model.NumComponents(), 0, -2) }),
		"half placed":     mutate(func(st map[string]any) { st["pending"] = halfPlaced(t, p, in) }),
	}
	before := p.Count(0)
	for name, data := range cases {
		err := p.UnmarshalBinary(data)
		require.ErrorIs(t, err, ErrSnapshot, name)
		require.Equal(t, before, p.Count(0), name)
	}
	require.NoError(t, p.UnmarshalBinary(good))
}

func pendingWith(C, c int, v float64) []any {
	out := make([]any, C)
	for i := range out {
		out[i] = -1.0
	}
	out[c] = v
	return out
}

// halfPlaced returns a pending placement with one component of a job that
// needs at least two.
func halfPlaced(t testing.TB, p *GangPolicy, in *GangInstance) []any {
	m := in.Model
	ch := p.Channels()
	for l := 0; l < m.NumJobs(); l++ {
		lo, _ := m.Components(l)
		if m.Min(l) < 2 {
			continue
		}
		clo, chi := ch.Range(lo)
		for i := clo; i < chi; i++ {
			if ch.Fits(i) {
				return pendingWith(m.NumComponents(), lo, float64(ch.Server(i)))
			}
		}
	}
	t.Fatal("no job with m_l >= 2")
	return nil
}

func TestGangHostile(t *testing.T) {
	_, err := NewGang(nil, GangSettings{})
	require.ErrorIs(t, err, ErrDimension)
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(4, 1)))
	require.NoError(t, err)
	_, err = NewGang(in.Model, GangSettings{M: -1, Rounds: 99, Oracle: GangOracleSettings{Method: 7, MaxNodes: -1, Iterations: -1}})
	require.ErrorIs(t, err, ErrSettings)
	p, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	L, C := in.Model.NumJobs(), in.Model.NumComponents()
	arr := make([]bool, L)
	_, err = p.Decide(0, arr[:1])
	require.ErrorIs(t, err, ErrDimension)
	_, err = p.Decide(-1, arr)
	require.ErrorIs(t, err, ErrSlot)
	require.ErrorIs(t, p.Observe(0, GangFeedback{}), ErrSlot)
	for l := range arr {
		arr[l] = true
	}
	x, err := p.Decide(5, arr)
	require.NoError(t, err)
	_, err = p.Decide(5, arr)
	require.ErrorIs(t, err, ErrSlot)
	require.ErrorIs(t, p.Observe(4, GangFeedback{}), ErrSlot)
	require.ErrorIs(t, p.Observe(5, GangFeedback{Server: make([]int, 1)}), ErrDimension)
	bad := GangFeedback{Server: append([]int(nil), x...), Reward: make([]float64, C)}
	placed := -1
	for c, s := range x {
		if s >= 0 {
			placed = c
		}
	}
	require.GreaterOrEqual(t, placed, 0)
	bad.Reward[placed] = math.NaN()
	require.ErrorIs(t, p.Observe(5, bad), ErrValue)
	bad.Reward[placed] = 0.5
	bad.Server[placed] = x[placed] + 1
	require.ErrorIs(t, p.Observe(5, bad), ErrValue)
	bad.Server[placed] = x[placed]
	require.NoError(t, p.Observe(5, bad))
	require.Equal(t, 1, p.Count(mustChannel(t, p.Channels(), placed, x[placed])))
	require.ErrorIs(t, p.Observe(5, bad), ErrSlot)

	var o GangOracle
	_, err = o.Solve(nil, nil)
	require.ErrorIs(t, err, ErrDimension)
	ch := p.Channels()
	val := make([]float64, ch.Len())
	_, err = o.Solve(make([]int, C-1), &GangKnapsack{Channels: ch, Value: val})
	require.ErrorIs(t, err, ErrDimension)
	val[3] = math.Inf(1)
	_, err = o.Solve(make([]int, C), &GangKnapsack{Channels: ch, Value: val})
	require.ErrorIs(t, err, ErrValue)
	val[3] = 0
	_, err = o.Solve(make([]int, C), &GangKnapsack{Channels: ch, Value: val, Arrived: arr[:2]})
	require.ErrorIs(t, err, ErrDimension)
}

func mustChannel(t testing.TB, ch *GangChannels, c, r int) int {
	i, ok := ch.Channel(c, r)
	require.True(t, ok)
	return i
}

// TestGangChangeCluster removes server 0 and adds a server: the channels that
// remain keep their statistics, the new ones start unplayed.
func TestGangChangeCluster(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(5, 1)))
	require.NoError(t, err)
	p, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	driveGang(t, p, in, 0, 60, 1)
	old := in.Model
	R := old.NumServers()
	// New servers: old 1..R-1, then a new one.
	servers := make([]int, R)
	for r := range servers {
		servers[r] = r + 1
	}
	servers[R-1] = -1
	var edges []bipartite.Edge
	for e := 0; e < old.Graph().NumEdges(); e++ {
		ed := old.Graph().Edge(e)
		if ed.Right > 0 {
			edges = append(edges, bipartite.Edge{Left: ed.Left, Right: ed.Right - 1})
		}
	}
	for l := 0; l < old.NumJobs(); l++ {
		edges = append(edges, bipartite.Edge{Left: l, Right: R - 1})
	}
	g, err := bipartite.NewGraph(old.NumJobs(), R, edges)
	require.NoError(t, err)
	capv := make([]float64, 0, R*old.K())
	for r := 1; r < R; r++ {
		capv = append(capv, old.Capacity(r)...)
	}
	capv = append(capv, 2, 2, 2)
	jobs := make([]bipartite.GangJob, old.NumJobs())
	for l := range jobs {
		lo, hi := old.Components(l)
		var d []float64
		for c := lo; c < hi; c++ {
			d = append(d, old.Demand(c)...)
		}
		jobs[l] = bipartite.GangJob{Demand: d, Min: old.Min(l)}
	}
	nm, err := bipartite.NewGangModel(g, old.K(), capv, jobs)
	require.NoError(t, err)
	oldCh := p.Channels()
	counts := map[[2]int]int{}
	for i := 0; i < oldCh.Len(); i++ {
		counts[[2]int{oldCh.Component(i), oldCh.Server(i)}] = p.Count(i)
	}
	require.ErrorIs(t, p.ChangeCluster(nm, bipartite.GangMapping{Servers: servers[:1]}), ErrDimension)
	require.NoError(t, p.ChangeCluster(nm, bipartite.GangMapping{Servers: servers}))
	ch := p.Channels()
	kept := 0
	for i := 0; i < ch.Len(); i++ {
		c, r := ch.Component(i), ch.Server(i)
		if r == R-1 {
			require.Zero(t, p.Count(i))
			continue
		}
		require.Equal(t, counts[[2]int{c, r + 1}], p.Count(i), "channel %d", i)
		kept += p.Count(i)
	}
	require.Positive(t, kept)
	// The slot bookkeeping survives: t must still increase.
	_, err = p.Decide(59, make([]bool, nm.NumJobs()))
	require.ErrorIs(t, err, ErrSlot)
	_, err = p.Decide(60, make([]bool, nm.NumJobs()))
	require.NoError(t, err)
}

// TestGangAllocs checks that a steady slot (every channel played) of
// Decide and Observe allocates nothing, with each oracle method.
func TestGangAllocs(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(6, 1)))
	require.NoError(t, err)
	for _, meth := range []GangMethod{GangAuto, GangExact, GangScalable} {
		p, err := NewGang(in.Model, GangSettings{Oracle: GangOracleSettings{Method: meth}})
		require.NoError(t, err)
		driveGang(t, p, in, 0, 300, 1)
		require.False(t, p.Last().Explore)
		arr := make([]bool, in.Model.NumJobs())
		for l := range arr {
			arr[l] = l%3 != 0
		}
		C := in.Model.NumComponents()
		fb := GangFeedback{Server: make([]int, C), Reward: make([]float64, C)}
		tt := 300
		allocs := testing.AllocsPerRun(20, func() {
			x, err := p.Decide(tt, arr)
			if err != nil {
				t.Fatal(err)
			}
			copy(fb.Server, x)
			if err := p.Observe(tt, fb); err != nil {
				t.Fatal(err)
			}
			tt++
		})
		require.Zero(t, allocs, "%v", meth)
	}
}

// TestGangExactBounded: GangExact on a problem far too large to prove
// (the DLRM trace's shape) stops at its work budget with a feasible
// placement, Status NodeLimit and a certified gap, instead of running for
// hours.
func TestGangExactBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("seconds of search")
	}
	m := dlrmGangModel(t, 1, 1)
	ch, err := NewGangChannels(m)
	require.NoError(t, err)
	rng := rand.New(rand.NewPCG(1, 1))
	p := &GangKnapsack{Channels: ch, Value: make([]float64, ch.Len()), Arrived: make([]bool, m.NumJobs())}
	for i := range p.Value {
		p.Value[i] = rng.Float64()
	}
	for l := range p.Arrived {
		p.Arrived[l] = true
	}
	o := GangOracle{Settings: GangOracleSettings{Method: GangExact, MaxNodes: 1 << 14}}
	x := make([]int, m.NumComponents())
	r, err := o.Solve(x, p)
	require.NoError(t, err)
	require.Equal(t, NodeLimit, r.Status)
	require.ErrorIs(t, r.Status.Err(), ErrNodeLimit)
	require.Greater(t, r.Gap, 0.0)
	require.InDelta(t, gangValue(t, p, x), r.Value, 1e-9)
	require.LessOrEqual(t, r.Nodes, int64(1<<14))
}

// TestGangDecisionNotReadBack: a caller that scribbles on a returned
// decision changes nothing: Observe still checks against the decision
// made, and the next decision is the same as without the scribbling.
func TestGangDecisionNotReadBack(t *testing.T) {
	in, err := GenerateGang(DefaultGangConfig(), rand.New(rand.NewPCG(8, 1)))
	require.NoError(t, err)
	a, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	b, err := NewGang(in.Model, GangSettings{})
	require.NoError(t, err)
	arr := make([]bool, in.Model.NumJobs())
	for l := range arr {
		arr[l] = true
	}
	xa, err := a.Decide(0, arr)
	require.NoError(t, err)
	keep := append([]int(nil), xa...)
	xb, err := b.Decide(0, arr)
	require.NoError(t, err)
	for c := range xb {
		xb[c] = 0 // scribble
	}
	C := in.Model.NumComponents()
	fb := GangFeedback{Server: keep, Reward: make([]float64, C)}
	require.NoError(t, a.Observe(0, fb))
	require.NoError(t, b.Observe(0, fb))
	xa, err = a.Decide(1, arr)
	require.NoError(t, err)
	xb, err = b.Decide(1, arr)
	require.NoError(t, err)
	require.Equal(t, xa, xb)
}
