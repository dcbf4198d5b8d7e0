package esdp

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNilAndHostileConstructors is issue 12 class 7: every constructor and
// entry point returns an error on nil or hostile input, never panics.
func TestNilAndHostileConstructors(t *testing.T) {
	_, err := New(nil, Settings{})
	require.ErrorIs(t, err, ErrDimension)
	_, err = New(&Cluster{}, Settings{})
	require.ErrorIs(t, err, ErrDimension)
	var in *Instance
	require.ErrorIs(t, in.Validate(), ErrDimension)
	_, err = Run(nil, nil, RunSettings{T: 10, Seed: 1})
	require.ErrorIs(t, err, ErrDimension)
	good, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	_, err = Run(good, []OnlinePolicy{nil}, RunSettings{T: 10, Seed: 1})
	require.ErrorIs(t, err, ErrValue)
	_, err = Run(good, nil, RunSettings{T: math.MaxInt, Seed: 1})
	require.ErrorIs(t, err, ErrSettings)
	_, err = New(&good.Cluster, Settings{M: math.MaxInt})
	require.ErrorIs(t, err, ErrSettings)
	_, err = New(&good.Cluster, Settings{Alpha: math.NaN()})
	require.ErrorIs(t, err, ErrSettings)
	_, err = Generate(DefaultConfig(), nil)
	require.ErrorIs(t, err, ErrSettings)

	bad := []func(c *Config){
		func(c *Config) { c.Ports = math.MaxInt },
		func(c *Config) { c.Ports, c.Servers = 1<<20, 1<<20 },
		func(c *Config) { c.K = 1 << 40 },
		func(c *Config) { c.DemandHi = math.MaxInt },
		func(c *Config) { c.DemandLo, c.DemandHi = 0, math.MaxInt },
		func(c *Config) { c.CapHi = math.MaxInt },
		func(c *Config) { c.CapLo, c.CapHi = 3, 2 },
		func(c *Config) { c.CapHi = 0 },
		func(c *Config) { c.CapacityRule = 7 },
		func(c *Config) { c.EdgeProb = math.NaN() },
		func(c *Config) { c.ArrivalProb = math.Inf(1) },
		func(c *Config) { c.MeanHi = math.Inf(1) },
		func(c *Config) { c.CostStd = math.NaN() },
		func(c *Config) { c.Alpha = 0 },
	}
	for i, mod := range bad {
		cfg := DefaultConfig()
		mod(&cfg)
		_, err := Generate(cfg, rand.New(rand.NewPCG(1, 1)))
		require.ErrorIs(t, err, ErrSettings, "case %d", i)
	}
}

// TestObserveRejectsUnchosenEdges is issue 12 class 6 (esdp): feedback for
// an edge the decision did not choose, for another slot, or twice, is an
// error naming the edge and leaves the statistics unchanged.
func TestObserveRejectsUnchosenEdges(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(3, 1)))
	require.NoError(t, err)
	p, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	arrived := slices.Repeat([]bool{true}, in.NumPorts())
	x, err := p.Decide(0, arrived)
	require.NoError(t, err)
	un := slices.Index(x, false)
	require.GreaterOrEqual(t, un, 0)
	fb := Feedback{Chosen: slices.Clone(x), Reward: slices.Repeat([]float64{0.5}, in.NumEdges())}
	fb.Chosen[un] = true
	before := p.Stats()
	err = p.Observe(0, fb)
	require.ErrorIs(t, err, ErrValue)
	require.Contains(t, err.Error(), "edge")
	require.Equal(t, before, p.Stats(), "policy changed by rejected feedback")
	fb.Chosen[un] = false
	require.ErrorIs(t, p.Observe(1, fb), ErrSlot) // wrong slot
	require.Equal(t, before, p.Stats())
	require.NoError(t, p.Observe(0, fb))
	require.ErrorIs(t, p.Observe(0, fb), ErrSlot) // twice
}

// TestInstanceDecoderHostile is issue 12 classes 1 and 6 for the instance
// decoder: huge declared sizes are refused before allocating, malformed
// arity and trailing garbage are errors, and nothing panics.
func TestInstanceDecoderHostile(t *testing.T) {
	const g = `{"version":1,"left":1,"right":2,"edges":[[0,0],[0,1]]}`
	ok := `{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`
	var in Instance
	require.NoError(t, json.Unmarshal([]byte(ok), &in))
	bad := []string{
		ok + ` {}`,
		ok + `x`,
		`{"version":1,"graph":{"version":1,"left":1e9,"right":1,"edges":[]},"k":1,"demand":[],"capacity":[1],"cost":[],"mean":[],"std":[],"arrival":[]}`,
		`{"version":1,"graph":{"version":1,"left":9223372036854775807,"right":1,"edges":[]},"k":1,"demand":[],"capacity":[1],"cost":[],"mean":[],"std":[],"arrival":[]}`,
		`{"version":1,"graph":{"version":1,"left":-1,"right":1,"edges":[]},"k":1}`,
		`{"version":1,"graph":{"version":1,"left":1,"right":1e300,"edges":[]},"k":1}`,
		`{"version":1,"graph":null}`,
		`{"version":1}`,
		`{"version":1,"graph":` + g + `,"k":9223372036854775807,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1,1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2]],"capacity":[2,3],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[-2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,1e400],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[1.5]}`,
		`{"version":1,"graph":` + g + `,"k":1,"demand":[[1],[2]],"capacity":[2],"cost":[0.5,0.4],"mean":[0.5,0.7],"std":[0.1,0.2],"arrival":[0.9,0.9]}`,
		`{"version":2}`,
		``,
		`[]`,
	}
	for i, s := range bad {
		var in Instance
		require.Error(t, json.Unmarshal([]byte(s), &in), "case %d: %s", i, s)
	}
}

// TestHugeValuedInstanceRuns: an instance with capacities and demands at
// math.MaxInt and extreme means decodes, and a run of ESDP either works or
// returns an error; it never panics.
func TestHugeValuedInstanceRuns(t *testing.T) {
	in := smallHugeInstance(t)
	in.Mean[0], in.Std[1] = 1e308, 1e308
	p, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	res, err := Run(in, []OnlinePolicy{p}, RunSettings{T: 20, Seed: 1})
	require.NoError(t, err)
	require.LessOrEqual(t, res.Series[0].TotalRegret, res.TotalOptimal+1e-9)
}

// TestHostileSlotsAndShapes: extreme slot numbers and wrong arrival lengths
// are errors, not panics.
func TestHostileSlotsAndShapes(t *testing.T) {
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(9, 1)))
	require.NoError(t, err)
	p, err := New(&in.Cluster, Settings{})
	require.NoError(t, err)
	arrived := slices.Repeat([]bool{true}, in.NumPorts())
	_, err = p.Decide(math.MaxInt, arrived)
	require.ErrorIs(t, err, ErrSlot)
	_, err = p.Decide(math.MaxInt-1, arrived) // far future: a decision or an error, no panic
	_ = err
	x := make([]bool, in.NumEdges())
	require.ErrorIs(t, in.Feasible(x, []bool{true}), ErrDimension)
	require.ErrorIs(t, in.Feasible(x[:1], nil), ErrDimension)
}
