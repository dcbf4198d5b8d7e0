package onsocmax

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/strictjson"
	"github.com/msched/msched/utility"
)

func bitsOf(xs []float64) []uint64 {
	b := make([]uint64, len(xs))
	for i, x := range xs {
		b[i] = math.Float64bits(x)
	}
	return b
}

func lin(a float64) utility.Utility { return utility.Utility{Kind: utility.Linear, A: a} }

func oneUnitJob(id int, rho float64) Job {
	return Job{ID: id, Rho: rho, Units: []int{0}, XBar: []float64{rho}, Beta: []float64{0.1}, Utility: []utility.Utility{lin(2)}}
}

// TestDecideRejectsDuplicateIDs is issue 12 class 6: three copies of one
// job (rho = 3) in one batch used to get 9 units.
func TestDecideRejectsDuplicateIDs(t *testing.T) {
	m, err := bipartite.NewMesh(1, 1, []float64{100})
	require.NoError(t, err)
	pr, err := NewPricing(1, 3)
	require.NoError(t, err)
	p, err := newPolicyP(m, pr, nil)
	require.NoError(t, err)
	j := oneUnitJob(7, 3)
	dec, err := p.Decide(0, []Job{j, j, j})
	require.ErrorIs(t, err, ErrDuplicate)
	assert.Empty(t, dec.Allocations)
	assert.Equal(t, []float64{0}, p.Usage())
	// Distinct IDs are fine.
	j2 := oneUnitJob(8, 3)
	dec, err = p.Decide(0, []Job{j, j2})
	require.NoError(t, err)
	var sum float64
	for _, a := range dec.Allocations {
		sum += a.X
	}
	assert.LessOrEqual(t, sum, 6.0+1e-12)
}

// TestDecideAllOrNothing is issue 12 class 8: a batch [good, bad] returned
// an error and a decision and kept the good job's usage. Now the usage
// levels are restored bit for bit, whether the failure is found by
// validation or after the good job was allocated.
func TestDecideAllOrNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 8))
	in, err := Generate(DefaultConfig(), rng)
	require.NoError(t, err)
	pr, err := in.Pricing(0)
	require.NoError(t, err)
	for _, settings := range []*Settings{nil, {Solver: AugmentedLagrangian}, {NonPartitionable: true}} {
		p, err := newPolicyP(in.Mesh, pr, settings)
		require.NoError(t, err)
		// Play the first slots so the usage levels are not zero.
		next := 0
		for next < len(in.Jobs) && in.Jobs[next].Arrival < 3 {
			next++
		}
		for s := range 3 {
			lo := 0
			for lo < next && in.Jobs[lo].Arrival < s {
				lo++
			}
			hi := lo
			for hi < next && in.Jobs[hi].Arrival == s {
				hi++
			}
			_, err := p.Decide(s, in.Jobs[lo:hi])
			require.NoError(t, err)
		}
		before := bitsOf(p.Usage())
		last := p.Last()
		snap, err := p.MarshalBinary()
		require.NoError(t, err)
		var batch []Job
		for _, j := range in.Jobs {
			if j.Arrival >= 3 {
				batch = append(batch, j)
				if len(batch) == 2 {
					break
				}
			}
		}
		require.Len(t, batch, 2)
		ts := batch[0].Arrival
		batch[1].Arrival = ts
		batch[1].Units = nil
		batch[1].XBar, batch[1].Beta, batch[1].Utility = nil, nil, nil
		good := batch[0]
		bad := batch[1]
		bad.XBar = []float64{1} // arity mismatch: fails validation
		dec, err := p.Decide(ts, []Job{good, bad})
		require.ErrorIs(t, err, ErrDimension)
		assert.Empty(t, dec.Allocations)
		assert.Equal(t, before, bitsOf(p.Usage()))

		// A failure after the good job has been allocated.
		calls := 0
		testFailJob = func(j *Job) error {
			calls++
			if calls == 2 {
				return errors.New("injected")
			}
			return nil
		}
		dec, err = p.Decide(ts, []Job{good, batch[1]})
		testFailJob = nil
		require.Error(t, err)
		assert.Empty(t, dec.Allocations)
		assert.Equal(t, before, bitsOf(p.Usage()), "usage restored bit for bit")
		assert.Equal(t, last, p.Last())
		snap2, err := p.MarshalBinary()
		require.NoError(t, err)
		assert.Equal(t, string(snap), string(snap2), "window and reservations restored")
		// And the policy still works, with the same result as a fresh
		// decision of the good job alone.
		dec, err = p.Decide(ts, []Job{good})
		require.NoError(t, err)
		assert.NotEmpty(t, dec.Allocations)
	}
}

// TestDecideSlots: a negative slot, or one not after the previous
// Decide's, is an ErrSlot error, not an empty decision; a slot beyond the
// mesh's Slots rolls the window (it used to be ErrHorizon).
func TestDecideSlots(t *testing.T) {
	m, err := bipartite.NewMesh(2, 3, []float64{1, 1, 1, 1, 1, 1})
	require.NoError(t, err)
	pr, _ := NewPricing(1, 2)
	p, err := newPolicyP(m, pr, nil)
	require.NoError(t, err)
	for _, s := range []int{-1, math.MaxInt, math.MaxInt - 5, math.MinInt} {
		dec, err := p.Decide(s, nil)
		require.ErrorIs(t, err, ErrSlot, "slot %d", s)
		assert.Empty(t, dec.Allocations)
	}
	_, err = p.Decide(2, nil)
	require.NoError(t, err)
	for _, s := range []int{0, 2} {
		_, err = p.Decide(s, nil)
		require.ErrorIs(t, err, ErrSlot, "slot %d after 2", s)
	}
	_, err = p.Decide(10, nil)
	require.NoError(t, err)
	_, first := p.Window()
	assert.Equal(t, 10, first)
}

// TestHostileMeshes: a mesh whose Nodes*Slots wraps around to
// len(Capacity) passed bipartite's check and made Run loop 2^32 slots.
func TestHostileMeshes(t *testing.T) {
	pr, _ := NewPricing(1, 2)
	for _, m := range []*bipartite.Mesh{
		nil,
		{Nodes: 1 << 32, Slots: 1 << 32},
		{Nodes: math.MaxInt, Slots: 2},
		{Nodes: 1 << 20, Slots: 1 << 20},
		{Nodes: -1, Slots: -1, Capacity: []float64{1}},
		{Nodes: 0, Slots: 5},
	} {
		require.Error(t, ValidateMesh(m))
		_, err := newPolicyP(m, pr, nil)
		require.Error(t, err)
		in := &Instance{Mesh: m}
		require.Error(t, in.Validate())
		_, err = runOne(in, nil)
		require.Error(t, err)
	}
	err := ValidateMesh(&bipartite.Mesh{Nodes: 1 << 32, Slots: 1 << 32})
	require.ErrorIs(t, err, ErrTooLarge)
	assert.Contains(t, err.Error(), "MaxUnits")
}

// TestHostileConfigs: Generate refuses sizes it cannot hold, before
// allocating, and survives extreme means.
func TestHostileConfigs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, mod := range []func(*Config){
		func(c *Config) { c.Nodes, c.Slots = 1<<40, 1<<40 },
		func(c *Config) { c.Nodes = math.MaxInt },
		func(c *Config) { c.Jobs = MaxJobs + 1 },
		func(c *Config) { c.Nodes = -1 },
		func(c *Config) { c.ArrivalRate = math.NaN() },
		func(c *Config) { c.ArrivalRate = 1000 }, // e^-1000 underflows: the draw would be wrong
		func(c *Config) { c.MeanDuration = math.Inf(1) },
		func(c *Config) { c.AMin, c.AMax = 3, 1 },
		func(c *Config) { c.Kinds = nil },
		func(c *Config) { c.Locality = 0 },
	} {
		c := DefaultConfig()
		mod(&c)
		require.Error(t, c.Validate())
		_, err := Generate(c, rng)
		require.Error(t, err)
	}
	c := DefaultConfig()
	c.MeanDuration = 1e300 // every deadline at the horizon, no int overflow
	in, err := Generate(c, rng)
	require.NoError(t, err)
	for _, j := range in.Jobs {
		require.Equal(t, c.Slots-1, j.Deadline)
	}
	// The limit on generated (job, unit) pairs, lowered so that the test
	// does not allocate gigabytes.
	defer func(v int) { maxGeneratedUnits = v }(maxGeneratedUnits)
	maxGeneratedUnits = 1 << 16
	c = DefaultConfig()
	c.Nodes, c.Slots, c.Jobs, c.ArrivalRate, c.MeanDuration, c.Locality = 64, 1024, MaxJobs, 100, 1e300, 1
	_, err = Generate(c, rng)
	require.ErrorIs(t, err, ErrTooLarge)
}

// TestReadInstanceHostile: the decoder returns an error naming the problem
// for every hostile input, and never panics.
func TestReadInstanceHostile(t *testing.T) {
	good := `{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[5,5]},"jobs":[{"id":0,"arrival":0,"deadline":1,"rho":4,"units":[0,1],"xbar":[4,4],"beta":[0.2,0.1],"utility":[{"kind":"linear","a":1.5},{"kind":"linear","a":1}]}]}`
	in, err := ReadInstance(strings.NewReader(good + "\n \t"))
	require.NoError(t, err)
	require.Len(t, in.Jobs, 1)
	cases := map[string]string{
		"trailing garbage":   good + " x",
		"two objects":        good + good,
		"huge nodes":         `{"version":1,"mesh":{"nodes":4294967296,"slots":4294967296,"capacity":[]},"jobs":[]}`,
		"maxint nodes":       `{"version":1,"mesh":{"nodes":9223372036854775807,"slots":2,"capacity":[1]},"jobs":[]}`,
		"float nodes":        `{"version":1,"mesh":{"nodes":1e9,"slots":1,"capacity":[1]},"jobs":[]}`,
		"negative slots":     `{"version":1,"mesh":{"nodes":1,"slots":-1,"capacity":[1]},"jobs":[]}`,
		"capacity arity":     `{"version":1,"mesh":{"nodes":2,"slots":2,"capacity":[1,1,1]},"jobs":[]}`,
		"nan":                `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[NaN]},"jobs":[]}`,
		"overflow float":     `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[1e999]},"jobs":[]}`,
		"negative capacity":  `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[-1]},"jobs":[]}`,
		"missing mesh":       `{"version":1,"jobs":[]}`,
		"version":            `{"version":2,"mesh":{"nodes":1,"slots":1,"capacity":[1]},"jobs":[]}`,
		"xbar arity":         `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[0],"xbar":[],"beta":[0.2],"utility":[{"kind":"linear","a":1}]}]}`,
		"unit out of range":  `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[9223372036854775807],"xbar":[1],"beta":[0.2],"utility":[{"kind":"linear","a":1}]}]}`,
		"negative unit":      `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[-1],"xbar":[1],"beta":[0.2],"utility":[{"kind":"linear","a":1}]}]}`,
		"arrival maxint":     `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"arrival":9223372036854775807,"deadline":9223372036854775807,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]}]}`,
		"deadline < arrival": `{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[5,5]},"jobs":[{"id":0,"arrival":1,"deadline":0,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]}]}`,
		"duplicate ids":      `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":3,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]},{"id":3,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]}]}`,
		"repeated unit":      `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[0,0],"xbar":[1,1],"beta":[0,0],"utility":[{"kind":"linear","a":1},{"kind":"linear","a":1}]}]}`,
		"utility no kind":    `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":4,"units":[0],"xbar":[1],"beta":[0],"utility":[{"a":-1}]}]}`,
		"rho inf":            `{"version":1,"mesh":{"nodes":1,"slots":1,"capacity":[5]},"jobs":[{"id":0,"rho":1e400,"units":[],"xbar":[],"beta":[],"utility":[]}]}`,
		"unsorted arrivals":  `{"version":1,"mesh":{"nodes":1,"slots":2,"capacity":[5,5]},"jobs":[{"id":0,"arrival":1,"deadline":1,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]},{"id":1,"arrival":0,"deadline":0,"rho":4,"units":[],"xbar":[],"beta":[],"utility":[]}]}`,
		"empty":              ``,
		"not an object":      `[1,2,3]`,
	}
	for name, s := range cases {
		_, err := ReadInstance(strings.NewReader(s))
		require.Error(t, err, name)
	}
	_, err = ReadInstance(strings.NewReader(cases["huge nodes"]))
	require.ErrorIs(t, err, ErrTooLarge)
}

// TestLongUnitListValidates: the repeated-unit check is linear (a map) for
// long unit lists, so a job naming every unit of a large mesh validates
// quickly.
func TestLongUnitListValidates(t *testing.T) {
	const slots = 200000
	capacity := make([]float64, slots)
	for i := range capacity {
		capacity[i] = 1
	}
	m, err := bipartite.NewMesh(1, slots, capacity)
	require.NoError(t, err)
	j := Job{ID: 1, Deadline: slots - 1, Rho: 1}
	for r := range slots {
		j.Units = append(j.Units, r)
		j.XBar = append(j.XBar, 1)
		j.Beta = append(j.Beta, 0)
		j.Utility = append(j.Utility, lin(1))
	}
	require.NoError(t, j.Validate(m))
	j.Units[slots-1] = 0
	require.ErrorIs(t, j.Validate(m), ErrValue)
}

// TestNilPolicies: a nil or zero Policy and a nil policy given to Run are
// errors, not nil dereferences (issue 12 class 7).
func TestNilPolicies(t *testing.T) {
	pr, _ := NewPricing(1, 2)
	_, err := newPolicyP(nil, pr, nil)
	require.ErrorIs(t, err, ErrValue)
	_, err = newPolicyP(&bipartite.Mesh{Nodes: 1, Slots: 1, Capacity: []float64{1}}, Pricing{Iota: 1}, nil)
	require.Error(t, err)
	var p *Policy
	_, err = p.Decide(0, nil)
	require.ErrorIs(t, err, ErrValue)
	_, err = (&Policy{}).Decide(0, nil)
	require.ErrorIs(t, err, ErrValue)
	in, err := Generate(DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	require.NoError(t, err)
	_, err = runOne(in, nil)
	require.ErrorIs(t, err, ErrValue)
	_, err = runOne(in, p)
	require.Error(t, err)
}

// TestUnvalidatedInstances: exported functions that take an Instance
// validate it (or document their panics) instead of indexing with bad
// units.
func TestUnvalidatedInstances(t *testing.T) {
	m, _ := bipartite.NewMesh(1, 1, []float64{1})
	bad := &Instance{Mesh: m, Jobs: []Job{{ID: 1, Rho: 1, Units: []int{5}, XBar: []float64{1}, Beta: []float64{0}, Utility: []utility.Utility{lin(1)}}}}
	_, _, err := bad.MarginalBounds(0)
	require.ErrorIs(t, err, ErrValue)
	_, err = bad.Pricing(0)
	require.ErrorIs(t, err, ErrValue)
	good := &Instance{Mesh: m, Jobs: []Job{oneUnitJob(1, 1)}}
	for _, mu := range []float64{math.NaN(), math.Inf(1)} {
		_, _, err = good.MarginalBounds(mu)
		require.ErrorIs(t, err, ErrValue)
	}
	_, _, err = good.MarginalBounds(math.Inf(-1)) // <= 0: the default
	require.NoError(t, err)
	_, _, err = OfflineFlow(bad)
	require.Error(t, err)
	_, _, err = OfflineLP(bad)
	require.Error(t, err)
	_, err = OfflineConcave(bad, nil)
	require.Error(t, err)
	_, err = Generate(DefaultConfig(), nil)
	require.ErrorIs(t, err, ErrValue)
	require.PanicsWithValue(t, panicLen, func() { good.Welfare([][]float64{{1, 2}}) })
}

// TestReadInstanceStrictKeys: repeated, miscased and unknown keys at any
// depth are errors (encoding/json would keep the last of "rho":19.5,"rho":1).
func TestReadInstanceStrictKeys(t *testing.T) {
	ok := `{"version":1,"mesh":{"nodes":2,"slots":2,"capacity":[21.4,21.4,21.7,21.7]},"jobs":[{"id":0,"arrival":0,"deadline":1,"rho":19.5,"units":[0,1],"xbar":[7.3,7.3],"beta":[0.3,0.36],"utility":[{"kind":"linear","a":1.15},{"kind":"linear","a":1.08}]}]}`
	_, err := ReadInstance(strings.NewReader(ok))
	require.NoError(t, err)
	for _, bad := range []string{
		strings.Replace(ok, `"rho":19.5`, `"rho":19.5,"rho":1`, 1),
		strings.Replace(ok, `"capacity"`, `"zz":1,"capacity"`, 1),
		strings.Replace(ok, `"version":1`, `"Version":1`, 1),
		strings.Replace(ok, `"kind":"linear","a":1.15`, `"kind":"linear","a":1.15,"a":9`, 1),
	} {
		_, err := ReadInstance(strings.NewReader(bad))
		require.ErrorIs(t, err, ErrValue, bad)
		require.ErrorIs(t, err, strictjson.ErrKey, bad)
	}
}

// TestDecideRejectsLiveIDAcrossSlots: a job ID that still holds
// reservations in the window is refused in a later Decide (it could
// otherwise take rho again: 41.6 units for a job of rho 19.5 in the audit),
// the policy is left unchanged, and the ID is free again once its last
// reserved slot has left the window.
func TestDecideRejectsLiveIDAcrossSlots(t *testing.T) {
	m, err := bipartite.NewMesh(1, 2, []float64{100, 100})
	require.NoError(t, err)
	pr, err := NewPricing(1, 3)
	require.NoError(t, err)
	p, err := newPolicyP(m, pr, nil)
	require.NoError(t, err)
	job := func(id, slot int) Job {
		units, err := p.Units(nil, []int{0}, slot, slot+1)
		require.NoError(t, err)
		k := len(units)
		j := Job{ID: id, Arrival: slot, Deadline: slot + 1, Rho: 3, Units: units, XBar: make([]float64, k), Beta: make([]float64, k), Utility: make([]utility.Utility, k)}
		for i := range units {
			j.XBar[i], j.Beta[i], j.Utility[i] = 3, 0.1, lin(2)
		}
		return j
	}
	dec, err := p.Decide(0, []Job{job(7, 0)})
	require.NoError(t, err)
	require.NotEmpty(t, dec.Allocations)
	before, err := p.MarshalBinary()
	require.NoError(t, err)
	_, err = p.Decide(1, []Job{job(8, 1), job(7, 1)})
	require.ErrorIs(t, err, ErrDuplicate)
	after, err := p.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, before, after, "a refused Decide leaves the policy unchanged")
	// Slot 1 still holds job 7's reservation; at slot 2 it has left.
	_, err = p.Decide(2, []Job{job(7, 2)})
	require.NoError(t, err)
}
