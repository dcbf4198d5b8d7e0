package ogasched

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/utility"
)

// Issue 12, class 3: utilities the gradient cannot handle are rejected by
// NewProblem with an error that says why, instead of panicking in Observe.
func TestNewProblemRejectsUnboundedDerivatives(t *testing.T) {
	g := bipartite.Complete(1, 1)
	for _, c := range []struct {
		name string
		u    utility.Utility
		want string
	}{
		{"sqrt", utility.Utility{Kind: utility.Sqrt, A: 1}, "infinite derivative at 0"},
		// Outside utility's own [MinA, MaxA]: rejected by the utility check.
		{"linear a=1e308", utility.Utility{Kind: utility.Linear, A: 1e308}, "MaxA"},
		{"reciprocal a=1e-200", utility.Utility{Kind: utility.Reciprocal, A: 1e-200}, "MinA"},
		// Inside [MinA, MaxA] but with f'(0) above MaxValue: the gradient
		// steps would overflow.
		{"linear a=1e16", utility.Utility{Kind: utility.Linear, A: 1e16}, "overflow"},
		{"reciprocal a=1e-20", utility.Utility{Kind: utility.Reciprocal, A: 1e-20}, "overflow"},
		{"log a=1e16", utility.Utility{Kind: utility.Log, A: 1e16}, "overflow"},
	} {
		_, err := NewProblem(g, [][]float64{{1}}, [][]float64{{1}}, [][]utility.Utility{{c.u}}, []float64{0.5})
		require.ErrorIs(t, err, ErrValue, c.name)
		require.Contains(t, err.Error(), c.want, c.name)
		require.Contains(t, err.Error(), "utility[0][0]", c.name)
	}
	// A bad utility keeps its cause matchable (%w on both).
	_, err := NewProblem(g, [][]float64{{1}}, [][]float64{{1}}, [][]utility.Utility{{{Kind: utility.Log, A: -1}}}, []float64{0.5})
	require.ErrorIs(t, err, ErrValue)
	require.ErrorIs(t, err, utility.ErrParameter)
	// Huge finite demands and capacities are bounded too.
	for _, v := range []float64{1e300, math.MaxFloat64} {
		u := mustU(t, utility.Linear, 1)
		_, err = NewProblem(g, [][]float64{{v}}, [][]float64{{1}}, [][]utility.Utility{{u}}, []float64{0.5})
		require.ErrorIs(t, err, ErrValue)
		_, err = NewProblem(g, [][]float64{{1}}, [][]float64{{v}}, [][]utility.Utility{{u}}, []float64{0.5})
		require.ErrorIs(t, err, ErrValue)
	}
	_, err = Generate(Config{Ports: 2, Nodes: 2, K: 1, EdgeProb: 1, Contention: 1, Utility: "sqrt", ALo: 1, AHi: 1, BetaHi: 0.5}, rand.New(rand.NewPCG(1, 1)))
	require.ErrorIs(t, err, ErrSettings)
}

// Issue 12, class 7: constructors and entry points return errors on nil.
func TestNilInputsReturnErrors(t *testing.T) {
	require.NotPanics(t, func() {
		_, err := New(nil, Settings{})
		require.ErrorIs(t, err, ErrDimension)
		_, err = New(&Problem{}, Settings{})
		require.ErrorIs(t, err, ErrDimension)
		_, err = New(&Problem{Graph: bipartite.Complete(1, 1), K: 1, Beta: []float64{0.5}}, Settings{})
		require.ErrorIs(t, err, ErrDimension)
		_, err = Run(nil, &Trace{Ports: 1}, nil, RunSettings{})
		require.ErrorIs(t, err, ErrDimension)
		_, err = Run(handProblem(t), nil, nil, RunSettings{})
		require.ErrorIs(t, err, ErrDimension)
		_, err = Run(handProblem(t), &Trace{Ports: 2}, []OnlinePolicy{nil}, RunSettings{})
		require.ErrorIs(t, err, ErrSettings)
		_, err = Expand(nil, nil)
		require.ErrorIs(t, err, ErrDimension)
		_, err = BestFixed(&Problem{}, &Trace{Ports: 1}, BestFixedSettings{})
		require.ErrorIs(t, err, ErrDimension)
	})
}

// Issue 12, classes 1 and 6: declared sizes are bounded before allocating,
// and settings out of range are errors.
func TestHostileSizesAndSettings(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cfg := DefaultConfig()
	for _, c := range []struct {
		name string
		mod  func(*Config)
	}{
		{"ports MaxInt", func(c *Config) { c.Ports = math.MaxInt }},
		{"ports x nodes", func(c *Config) { c.Ports, c.Nodes = 1<<20, 1<<20 }},
		{"K huge", func(c *Config) { c.K = 1 << 30 }},
		{"negative nodes", func(c *Config) { c.Nodes = -1 }},
		{"contention Inf", func(c *Config) { c.Contention = math.Inf(1) }},
		{"contention NaN", func(c *Config) { c.Contention = math.NaN() }},
		{"AHi Inf", func(c *Config) { c.AHi = math.Inf(1) }},
		{"edge prob NaN", func(c *Config) { c.EdgeProb = math.NaN() }},
		{"beta > 1", func(c *Config) { c.BetaHi = 2 }},
		{"unknown utility", func(c *Config) { c.Utility = "cubic" }},
	} {
		c2 := cfg
		c.mod(&c2)
		_, err := Generate(c2, rng)
		require.ErrorIs(t, err, ErrSettings, c.name)
	}
	for _, c := range []struct {
		ports, T int
		rho      float64
	}{{math.MaxInt, 2, 0.5}, {1 << 20, 1 << 20, 0.5}, {0, 1, 0.5}, {1, -1, 0.5}, {1, 1, math.NaN()}} {
		_, err := BernoulliTrace(c.ports, c.T, c.rho, rng)
		require.ErrorIs(t, err, ErrSettings, "%+v", c)
	}
	p := handProblem(t)
	for _, s := range []Settings{{Workers: -1}, {Workers: math.MaxInt}, {Horizon: -1}, {Init: []float64{1}}, {Init: nanInit(p)}} {
		_, err := New(p, s)
		require.Error(t, err, "%+v", s)
	}
	_, err := Run(p, &Trace{Ports: 2}, nil, RunSettings{Workers: -1})
	require.ErrorIs(t, err, ErrSettings)
	_, err = Run(p, &Trace{Ports: 2}, nil, RunSettings{CheckTol: math.NaN()})
	require.ErrorIs(t, err, ErrSettings)
	_, err = Expand(p, []int{math.MaxInt, math.MaxInt})
	require.ErrorIs(t, err, ErrValue)
	_, err = Expand(p, []int{MaxDim, 1})
	require.ErrorIs(t, err, ErrValue)
	_, err = Expand(p, []int{-1, 1})
	require.ErrorIs(t, err, ErrValue)
}

func nanInit(p *Problem) []float64 {
	y := make([]float64, p.Dim())
	y[0] = math.NaN()
	return y
}

// Issue 12, classes 6 and 8: Decide and Observe validate the slot and the
// arrivals and leave the policy unchanged on error.
func TestDecideObserveHostileInputsLeavePolicyUnchanged(t *testing.T) {
	p := handProblem(t)
	pol, err := New(p, Settings{Step: Constant(0.5)})
	require.NoError(t, err)
	defer pol.Close()
	good := []float64{1, 1}
	_, err = pol.Decide(0, good)
	require.NoError(t, err)
	require.NoError(t, pol.Observe(0, good))
	_, err = pol.Decide(3, good) // slots may skip
	require.NoError(t, err)
	require.NoError(t, pol.Observe(3, good))
	state := func() []byte {
		b, err := pol.MarshalBinary()
		require.NoError(t, err)
		return b
	}
	before := state()
	bad := []struct {
		name string
		x    []float64
		err  error
	}{
		{"short", []float64{1}, ErrDimension},
		{"long", []float64{1, 1, 1}, ErrDimension},
		{"NaN", []float64{math.NaN(), 1}, ErrValue},
		{"+Inf", []float64{1, math.Inf(1)}, ErrValue},
		{"-Inf", []float64{math.Inf(-1), 1}, ErrValue},
		{"negative", []float64{-1, 1}, ErrValue},
		{"huge", []float64{1e300, 1}, ErrValue},
	}
	for _, c := range bad {
		_, err := pol.Decide(4, c.x)
		require.ErrorIs(t, err, c.err, "Decide %s", c.name)
		require.Equal(t, before, state(), "Decide %s changed the policy", c.name)
	}
	for _, c := range []struct {
		name string
		t    int
	}{{"negative slot", -1}, {"MinInt slot", math.MinInt}, {"same slot again", 3}, {"backwards", 1}} {
		_, err := pol.Decide(c.t, good)
		require.ErrorIs(t, err, ErrSlot, "Decide %s", c.name)
		require.ErrorIs(t, pol.Observe(c.t, good), ErrSlot, "Observe %s", c.name)
		require.Equal(t, before, state(), "%s changed the policy", c.name)
	}
	_, err = pol.Decide(4, good)
	require.NoError(t, err)
	before = state()
	for _, c := range bad {
		require.ErrorIs(t, pol.Observe(4, c.x), c.err, "Observe %s", c.name)
		require.Equal(t, before, state(), "Observe %s changed the policy", c.name)
	}
	for _, s := range []int{3, 5, -1} {
		require.ErrorIs(t, pol.Observe(s, good), ErrSlot, "Observe(%d) after Decide(4)", s)
	}
	require.NoError(t, pol.Observe(4, good))
	require.ErrorIs(t, pol.Observe(4, good), ErrSlot, "a second Observe of one slot")
	// A step that overflows is refused without moving y.
	big, err := New(p, Settings{Step: Constant(math.MaxFloat64)})
	require.NoError(t, err)
	defer big.Close()
	_, err = big.Decide(0, good)
	require.NoError(t, err)
	y0 := append([]float64(nil), big.Y()...)
	require.ErrorIs(t, big.Observe(0, []float64{1e15, 1e15}), ErrValue)
	require.Equal(t, y0, big.Y())
	// A step that returns NaN is refused: at New when it does so at once
	// (TestSettingsRejectBadSteps), at Observe when only later.
	_, err = New(p, Settings{Step: Constant(math.NaN())})
	require.ErrorIs(t, err, ErrSettings)
	nan, err := New(p, Settings{Step: nanAfter(2)})
	require.NoError(t, err)
	defer nan.Close()
	_, err = nan.Decide(5, good)
	require.NoError(t, err)
	require.ErrorIs(t, nan.Observe(5, good), ErrValue)
	// MaxInt is a valid slot, and nothing comes after it.
	_, err = pol.Decide(math.MaxInt, good)
	require.NoError(t, err)
	require.NoError(t, pol.Observe(math.MaxInt, good))
	_, err = pol.Decide(math.MaxInt, good)
	require.ErrorIs(t, err, ErrSlot, "nothing comes after MaxInt")
}

// nanAfter is a caller's step schedule that breaks from slot n on.
type nanAfter int

func (n nanAfter) Eta(t int, _ float64) float64 {
	if t >= int(n) {
		return math.NaN()
	}
	return 0.1
}

// Issue 12, classes 1 and 6 for the decoders.
func TestDecodersRejectHostileJSON(t *testing.T) {
	p := handProblem(t)
	valid, err := json.Marshal(p)
	require.NoError(t, err)
	var q Problem
	require.NoError(t, json.Unmarshal(valid, &q))
	graph := func(left, right string) string {
		return strings.Replace(strings.Replace(string(valid), `"left":2`, `"left":`+left, 1), `"right":2`, `"right":`+right, 1)
	}
	require.Contains(t, string(valid), `"left":2`)
	for name, in := range map[string]string{
		"left 1e9":        graph("1000000000", "2"),
		"left MaxInt64":   graph("9223372036854775807", "2"),
		"right 1e18":      graph("2", "1000000000000000000"),
		"left -1":         graph("-1", "2"),
		"left float":      graph("1e9", "2"),
		"k huge":          strings.Replace(string(valid), `"k":2`, `"k":100000000`, 1),
		"k mismatch":      strings.Replace(string(valid), `"k":2`, `"k":3`, 1),
		"trailing":        string(valid) + " {}",
		"trailing junk":   string(valid) + "x",
		"unknown field":   strings.Replace(string(valid), `"version":1`, `"version":1,"extra":1`, 1),
		"no graph":        `{"version":1,"k":1,"beta":[0.5]}`,
		"null graph":      `{"version":1,"graph":null,"k":1,"beta":[0.5]}`,
		"version 2":       strings.Replace(string(valid), `"version":1,"graph"`, `"version":2,"graph"`, 1),
		"sqrt utility":    strings.Replace(string(valid), `"kind":"log"`, `"kind":"sqrt"`, 1),
		"overflow number": strings.Replace(string(valid), `"beta":[`, `"beta":[1e999,`, 1),
		"empty":           ``,
		"array":           `[]`,
	} {
		var q Problem
		require.NotPanics(t, func() { err = q.UnmarshalJSON([]byte(in)) }, name)
		require.Error(t, err, name)
	}
	for name, in := range map[string]string{
		"negative ports": `{"version":1,"ports":-3,"arrivals":[]}`,
		"zero ports":     `{"version":1,"ports":0,"arrivals":[]}`,
		"huge ports":     `{"version":1,"ports":9223372036854775807,"arrivals":[]}`,
		"ragged":         `{"version":1,"ports":2,"arrivals":[[1,0],[1]]}`,
		"negative count": `{"version":1,"ports":1,"arrivals":[[-1]]}`,
		"huge count":     `{"version":1,"ports":1,"arrivals":[[1e300]]}`,
		"trailing":       `{"version":1,"ports":1,"arrivals":[[1]]} x`,
		"unknown field":  `{"version":1,"ports":1,"arrivals":[[1]],"T":5}`,
		"version 0":      `{"ports":1,"arrivals":[[1]]}`,
	} {
		var tr Trace
		require.NotPanics(t, func() { err = tr.UnmarshalJSON([]byte(in)) }, name)
		require.Error(t, err, name)
	}
}

func TestSettingsValidateJoinsEveryProblem(t *testing.T) {
	require.NoError(t, Settings{}.Validate())
	err := Settings{Workers: -1, Horizon: -2}.Validate()
	require.ErrorIs(t, err, ErrSettings)
	require.Contains(t, err.Error(), "Workers = -1")
	require.Contains(t, err.Error(), "Horizon = -2")
}

// TestSettingsRejectBadSteps: step schedules that cannot give a finite
// step are settings errors at New, not errors at the first Decide (issue
// 12 audit finding 10).
func TestSettingsRejectBadSteps(t *testing.T) {
	for _, st := range []Step{
		Geometric{Eta0: math.NaN(), Lambda: 0.9}, Geometric{Eta0: 1, Lambda: math.Inf(1)}, Geometric{Eta0: 1, Lambda: 0},
		Theory{}, Theory{Diam: math.Inf(1), T: 10}, TheoryAnytime{Diam: math.Inf(1)}, TheoryAnytime{Diam: -1},
		Constant(math.NaN()), Constant(-1),
	} {
		err := Settings{Step: st}.Validate()
		require.ErrorIs(t, err, ErrSettings, "%#v", st)
	}
	for _, st := range []Step{nil, PaperGeometric(), Theory{Diam: 1, T: 10}, TheoryAnytime{Diam: 2}, Constant(0.1)} {
		require.NoError(t, Settings{Step: st}.Validate(), "%#v", st)
	}
}

// TestDecodersRejectRepeatedKeys: encoding/json keeps the last of a
// repeated key; the decoders refuse it, and miscased keys (issue 12 audit
// finding 4).
func TestDecodersRejectRepeatedKeys(t *testing.T) {
	p := handProblem(t)
	valid, err := json.Marshal(p)
	require.NoError(t, err)
	for _, bad := range []string{
		strings.Replace(string(valid), `"beta":`, `"beta":[0.3],"beta":`, 1),
		strings.Replace(string(valid), `"version":1`, `"VERSION":1`, 1),
	} {
		var q Problem
		require.ErrorIs(t, json.Unmarshal([]byte(bad), &q), ErrValue, bad)
	}
	var tr Trace
	require.ErrorIs(t, json.Unmarshal([]byte(`{"version":1,"ports":2,"ports":3,"arrivals":[[0,1,1]]}`), &tr), ErrValue)
}

// TestDecideNilArrivals: Decide does not use x, so nil is accepted and
// gives the same y(t) as any valid x; Observe needs x (nil: ErrDimension,
// nothing changes).
func TestDecideNilArrivals(t *testing.T) {
	p := handProblem(t)
	a, err := New(p, Settings{})
	require.NoError(t, err)
	b, err := New(p, Settings{})
	require.NoError(t, err)
	x := make([]float64, p.NumPorts())
	for l := range x {
		x[l] = 1
	}
	for s := range 4 {
		ya, err := a.Decide(s, nil)
		require.NoError(t, err)
		yb, err := b.Decide(s, x)
		require.NoError(t, err)
		require.Equal(t, yb, ya, "slot %d", s)
		require.ErrorIs(t, a.Observe(s, nil), ErrDimension)
		require.NoError(t, a.Observe(s, x))
		require.NoError(t, b.Observe(s, x))
	}
}
