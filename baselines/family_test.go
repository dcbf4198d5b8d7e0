package baselines_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/ocorp"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// familyPolicy is what every stateful policy of msched offers, main policy or
// baseline: the OnlinePolicy contract and the snapshot pair. The helpers
// below are instantiated with concrete types (*ogasched.Policy,
// *baselines.DRF, ...): no type assertion anywhere.
type familyPolicy[O, D any] interface {
	bipartite.OnlinePolicy[O, D]
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

// familyRun drives policies of one family through the same code.
type familyRun[O, D any, P familyPolicy[O, D]] struct {
	mk       func() (P, error)     // a fresh policy on the model
	obs      func(t int) O         // the observation of slot t
	after    func(P, int, D) error // the feedback step after Decide (nil: none)
	enc      func(D) string        // the decision, bit for bit
	scribble func(D)               // overwrites a returned decision
	slots    int
}

// decisions runs slots [from, to) on p and returns the encoded decisions;
// with scribble it overwrites every decision after encoding it, which the
// decision-lifetime rule of package bipartite allows (the policy never
// reads a returned decision back).
func (f familyRun[O, D, P]) decisions(t *testing.T, p P, from, to int, scribble bool) []string {
	t.Helper()
	var out []string
	for s := from; s < to; s++ {
		d, err := p.Decide(s, f.obs(s))
		require.NoError(t, err, "%s: Decide(%d)", p.Name(), s)
		out = append(out, f.enc(d))
		if f.after != nil {
			require.NoError(t, f.after(p, s, d), "%s: after Decide(%d)", p.Name(), s)
		}
		if scribble {
			f.scribble(d)
		}
	}
	return out
}

// check runs the three promises every family makes, on one policy:
// a restore from a snapshot continues bit for bit; a caller overwriting a
// returned decision changes nothing the policy does (the decision-lifetime
// rule); Name is stable.
func (f familyRun[O, D, P]) check(t *testing.T) string {
	t.Helper()
	ref, err := f.mk()
	require.NoError(t, err)
	want := f.decisions(t, ref, 0, f.slots, false)

	scr, err := f.mk()
	require.NoError(t, err)
	got := f.decisions(t, scr, 0, f.slots, true)
	require.Equal(t, want, got, "%s: overwriting returned decisions changed later decisions", ref.Name())

	a, err := f.mk()
	require.NoError(t, err)
	half := f.slots / 2
	first := f.decisions(t, a, 0, half, false)
	snap, err := a.MarshalBinary()
	require.NoError(t, err)
	b, err := f.mk()
	require.NoError(t, err)
	require.NoError(t, b.UnmarshalBinary(snap))
	rest := f.decisions(t, b, half, f.slots, false)
	require.Equal(t, want, append(first, rest...), "%s: restore did not continue bit for bit", ref.Name())
	return ref.Name()
}

func floatsBits(y []float64) string { return fmt.Sprintf("%x", y) }

func TestFamilyShapeOGASched(t *testing.T) {
	p, err := ogasched.Generate(ogasched.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	xs := func(s int) []float64 {
		r := rand.New(rand.NewPCG(3, uint64(s)))
		x := make([]float64, p.NumPorts())
		for l := range x {
			if r.Float64() < 0.7 {
				x[l] = 1
			}
		}
		return x
	}
	nan := func(y []float64) {
		for i := range y {
			y[i] = math.NaN()
		}
	}
	main := familyRun[[]float64, []float64, *ogasched.Policy]{
		mk:    func() (*ogasched.Policy, error) { return ogasched.New(p, ogasched.Settings{}) },
		obs:   xs,
		after: func(o *ogasched.Policy, s int, _ []float64) error { return o.Observe(s, xs(s)) },
		enc:   floatsBits, scribble: nan, slots: 12,
	}
	drf := familyRun[[]float64, []float64, *baselines.DRF]{
		mk:  func() (*baselines.DRF, error) { return baselines.NewDRF(p, baselines.DRFSettings{}) },
		obs: xs, enc: floatsBits, scribble: nan, slots: 12,
	}
	bl := familyRun[[]float64, []float64, *baselines.OGASchedBaseline]{
		mk: func() (*baselines.OGASchedBaseline, error) {
			return baselines.NewOGASchedBaseline("SPREADING", p, baselines.OGASchedBaselineSettings{})
		},
		obs: xs, enc: floatsBits, scribble: nan, slots: 12,
	}
	require.Equal(t, "OGASched", main.check(t)[:8])
	require.Equal(t, "DRF", drf.check(t))
	require.Equal(t, "SPREADING", bl.check(t))
}

func TestFamilyShapeESDP(t *testing.T) {
	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	arrived := func(s int) []bool {
		r := rand.New(rand.NewPCG(5, uint64(s)))
		a := make([]bool, in.NumPorts())
		for l := range a {
			a[l] = r.Float64() < in.Arrival[l]
		}
		return a
	}
	feedback := func(s int, x []bool) esdp.Feedback {
		r := rand.New(rand.NewPCG(7, uint64(s)))
		fb := esdp.Feedback{Chosen: append([]bool(nil), x...), Reward: make([]float64, len(x))}
		for e := range fb.Reward {
			fb.Reward[e] = min(1, max(0, in.Mean[e]+in.Std[e]*r.NormFloat64()))
		}
		return fb
	}
	enc := func(x []bool) string { return fmt.Sprint(x) }
	flip := func(x []bool) {
		for e := range x {
			x[e] = !x[e]
		}
	}
	main := familyRun[[]bool, []bool, *esdp.Policy]{
		mk:    func() (*esdp.Policy, error) { return esdp.New(&in.Cluster, esdp.Settings{}) },
		obs:   arrived,
		after: func(p *esdp.Policy, s int, x []bool) error { return p.Observe(s, feedback(s, x)) },
		enc:   enc, scribble: flip, slots: 10,
	}
	hswf := familyRun[[]bool, []bool, *baselines.HSWF]{
		mk:    func() (*baselines.HSWF, error) { return baselines.NewHSWF(&in.Cluster, baselines.HSWFSettings{}) },
		obs:   arrived,
		after: func(p *baselines.HSWF, s int, x []bool) error { return p.Observe(s, feedback(s, x)) },
		enc:   enc, scribble: flip, slots: 10,
	}
	require.Equal(t, "ESDP", main.check(t))
	require.Equal(t, "HSWF", hswf.check(t))
}

func TestFamilyShapeOnSocMax(t *testing.T) {
	cfg := onsocmax.DefaultConfig()
	in, err := onsocmax.Generate(cfg, rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	iota, v, err := in.MarginalBounds(0)
	require.NoError(t, err)
	bySlot := map[int][]onsocmax.Job{}
	last := 0
	for _, j := range in.Jobs {
		bySlot[j.Arrival] = append(bySlot[j.Arrival], j)
		last = max(last, j.Arrival)
	}
	slots := min(last+1, 12)
	jobs := func(s int) []onsocmax.Job { return bySlot[s] }
	enc := func(d onsocmax.Decision) string { return fmt.Sprintf("%v|%v", d.Allocations, d.Outcomes) }
	nan := func(d onsocmax.Decision) {
		for i := range d.Allocations {
			d.Allocations[i].X = math.NaN()
			d.Allocations[i].Node = -1
		}
	}
	main := familyRun[[]onsocmax.Job, onsocmax.Decision, *onsocmax.Policy]{
		mk:  func() (*onsocmax.Policy, error) { return onsocmax.New(in.Mesh, onsocmax.Settings{Iota: iota, V: v}) },
		obs: jobs, enc: enc, scribble: nan, slots: slots,
	}
	mf := familyRun[[]onsocmax.Job, onsocmax.Decision, *baselines.MaxFirst]{
		mk: func() (*baselines.MaxFirst, error) {
			return baselines.NewMaxFirst(in.Mesh, baselines.MaxFirstSettings{})
		},
		obs: jobs, enc: enc, scribble: nan, slots: slots,
	}
	require.Equal(t, "OnSocMax", main.check(t))
	require.Equal(t, "MAX-FIRST", mf.check(t))
}

func TestFamilyShapeOCORP(t *testing.T) {
	ms := []ocorp.Machine{{Cores: 8, Memory: 64}, {Cores: 4, Memory: 32}}
	// Ten jobs, each active from its arrival for its processing time,
	// whatever the policy did (the observation does not depend on the
	// decisions, so every run sees the same slots).
	var jobs []ocorp.Job
	r := rand.New(rand.NewPCG(9, 9))
	for j := range 10 {
		jobs = append(jobs, ocorp.Job{Arrival: j / 2, Cores: 1 + r.IntN(6), Memory: r.IntN(16), Processing: 2 + r.IntN(5)})
	}
	obs := func(s int) ocorp.Obs {
		var o ocorp.Obs
		for id, j := range jobs {
			if done := s - j.Arrival; done >= 0 && done < j.Processing {
				o.Jobs = append(o.Jobs, ocorp.ActiveJob{ID: id, Job: j, Remaining: int64(j.Processing-done) * int64(j.Cores)})
			}
		}
		return o
	}
	enc := func(d ocorp.Decision) string { return fmt.Sprint(d.Placements) }
	bad := func(d ocorp.Decision) {
		for i := range d.Placements {
			d.Placements[i] = ocorp.Placement{Job: -7, Machine: 99, Cores: -1}
		}
	}
	main := familyRun[ocorp.Obs, ocorp.Decision, *ocorp.Policy]{
		mk:  func() (*ocorp.Policy, error) { return ocorp.New(ms, ocorp.Settings{}) },
		obs: obs, enc: enc, scribble: bad, slots: 10,
	}
	srpt := familyRun[ocorp.Obs, ocorp.Decision, *ocorp.Priority]{
		mk:  func() (*ocorp.Priority, error) { return baselines.NewSRPT(ms, baselines.PrioritySettings{}) },
		obs: obs, enc: enc, scribble: bad, slots: 10,
	}
	tetris := familyRun[ocorp.Obs, ocorp.Decision, *baselines.Tetris]{
		mk:  func() (*baselines.Tetris, error) { return baselines.NewTetris(ms, baselines.TetrisSettings{}) },
		obs: obs, enc: enc, scribble: bad, slots: 10,
	}
	require.Equal(t, "OCORP", main.check(t))
	require.Equal(t, "SRPT", srpt.check(t))
	require.Equal(t, "Tetris", tetris.check(t))
}

// changer is a stateful policy with the cluster-change method of the
// contract of package bipartite, on models M with mappings Map.
type changer[O, D, M, Map any] interface {
	familyPolicy[O, D]
	ChangeCluster(M, Map) error
}

// changeRun checks the cluster-change contract on one policy: a change
// with a bad mapping fails and leaves the policy unchanged (same snapshot
// bytes); a good change is in place, and a snapshot taken after it
// restores into a policy built by mk on the current (changed) model and
// continues bit for bit.
func changeRun[O, D, M, Map any, P changer[O, D, M, Map]](t *testing.T, mk func(M) (P, error), before, after M, good, bad Map,
	obs func(int) O, step func(P, int, D) error, enc func(D) string) {
	t.Helper()
	drive := func(p P, from, to int) []string {
		var out []string
		for s := from; s < to; s++ {
			d, err := p.Decide(s, obs(s))
			require.NoError(t, err, "%s: Decide(%d)", p.Name(), s)
			out = append(out, enc(d))
			if step != nil {
				require.NoError(t, step(p, s, d), "%s: step %d", p.Name(), s)
			}
		}
		return out
	}
	p, err := mk(before)
	require.NoError(t, err)
	drive(p, 0, 5)
	snap0, err := p.MarshalBinary()
	require.NoError(t, err)
	require.Error(t, p.ChangeCluster(after, bad), "%s: a bad mapping is refused", p.Name())
	snap1, err := p.MarshalBinary()
	require.NoError(t, err)
	require.Equal(t, snap0, snap1, "%s: a failed change changed the policy", p.Name())

	require.NoError(t, p.ChangeCluster(after, good), "%s", p.Name())
	snap, err := p.MarshalBinary()
	require.NoError(t, err)
	q, err := mk(after)
	require.NoError(t, err)
	require.NoError(t, q.UnmarshalBinary(snap), "%s: restore after a change needs the current model", p.Name())
	stale, err := mk(before)
	require.NoError(t, err)
	require.Error(t, stale.UnmarshalBinary(snap), "%s: the model before the change is refused", p.Name())
	require.Equal(t, drive(p, 5, 10), drive(q, 5, 10), "%s: the restored policy continues bit for bit", p.Name())
}

func TestClusterChangeContractOGASched(t *testing.T) {
	p, err := ogasched.Generate(ogasched.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	q, m, err := p.RemoveNode(1)
	require.NoError(t, err)
	bad := ogasched.Mapping{Ports: m.Ports, Nodes: append([]int{p.NumNodes() + 5}, m.Nodes[1:]...)}
	xs := func(s int) []float64 {
		x := make([]float64, p.NumPorts())
		for l := range x {
			x[l] = float64((s + l) % 2)
		}
		return x
	}
	changeRun(t, func(pr *ogasched.Problem) (*ogasched.Policy, error) { return ogasched.New(pr, ogasched.Settings{}) },
		p, q, m, bad, xs, func(o *ogasched.Policy, s int, _ []float64) error { return o.Observe(s, xs(s)) }, floatsBits)
	changeRun(t, func(pr *ogasched.Problem) (*baselines.DRF, error) {
		return baselines.NewDRF(pr, baselines.DRFSettings{})
	},
		p, q, m, bad, xs, nil, floatsBits)
}

func TestClusterChangeContractESDP(t *testing.T) {
	in, err := esdp.Generate(esdp.DefaultConfig(), rand.New(rand.NewPCG(1, 2)))
	require.NoError(t, err)
	cl := &in.Cluster
	nc, m, err := cl.RemoveServer(0)
	require.NoError(t, err)
	// The helper keeps every surviving channel's data under its new index.
	for e := range nc.NumEdges() {
		ed := nc.Graph.Edge(e)
		old, ok := cl.Graph.EdgeID(m.Ports[ed.Left], m.Servers[ed.Right])
		require.True(t, ok)
		require.Equal(t, cl.Demand[old*cl.K:old*cl.K+cl.K], nc.Demand[e*nc.K:e*nc.K+nc.K])
		require.Equal(t, cl.Cost[old], nc.Cost[e])
	}
	require.Equal(t, cl.Graph.NumRight()-1, nc.Graph.NumRight())
	bad := esdp.Mapping{Ports: m.Ports, Servers: append([]int{99999}, m.Servers[1:]...)}
	arrived := func(s int) []bool {
		a := make([]bool, cl.NumPorts())
		for l := range a {
			a[l] = (s+l)%3 != 0
		}
		return a
	}
	fb := func(s int, x []bool) esdp.Feedback {
		f := esdp.Feedback{Chosen: append([]bool(nil), x...), Reward: make([]float64, len(x))}
		for e := range f.Reward {
			f.Reward[e] = float64((s*7+e*3)%10) / 10
		}
		return f
	}
	enc := func(x []bool) string { return fmt.Sprint(x) }
	changeRun(t, func(c *esdp.Cluster) (*esdp.Policy, error) { return esdp.New(c, esdp.Settings{}) },
		cl, nc, m, bad, arrived, func(p *esdp.Policy, s int, x []bool) error { return p.Observe(s, fb(s, x)) }, enc)
	changeRun(t, func(c *esdp.Cluster) (*baselines.LWTF, error) { return baselines.NewLWTF(c, baselines.LWTFSettings{}) },
		cl, nc, m, bad, arrived, func(p *baselines.LWTF, s int, x []bool) error { return p.Observe(s, fb(s, x)) }, enc)
}

func TestClusterChangeContractOCORP(t *testing.T) {
	before := []ocorp.Machine{{Cores: 8, Memory: 64}, {Cores: 4, Memory: 32}, {Cores: 6, Memory: 48}}
	// Machine 1 leaves, a new one joins at the end: survivors keep their
	// order, renumbered compactly.
	after := []ocorp.Machine{before[0], before[2], {Cores: 5, Memory: 40}}
	good := ocorp.Mapping{Machines: []int{0, 2, -1}}
	bad := ocorp.Mapping{Machines: []int{0, 0, -1}}
	var jobs []ocorp.Job
	r := rand.New(rand.NewPCG(4, 4))
	for j := range 12 {
		jobs = append(jobs, ocorp.Job{Arrival: j / 2, Cores: 1 + r.IntN(4), Memory: r.IntN(16), Processing: 2 + r.IntN(4)})
	}
	obs := func(s int) ocorp.Obs {
		var o ocorp.Obs
		for id, j := range jobs {
			if done := s - j.Arrival; done >= 0 && done < j.Processing {
				o.Jobs = append(o.Jobs, ocorp.ActiveJob{ID: id, Job: j, Remaining: int64(j.Processing-done) * int64(j.Cores)})
			}
		}
		return o
	}
	enc := func(d ocorp.Decision) string { return fmt.Sprint(d.Placements) }
	changeRun(t, func(ms []ocorp.Machine) (*ocorp.Policy, error) { return ocorp.New(ms, ocorp.Settings{Fill: true}) },
		before, after, good, bad, obs, nil, enc)
	changeRun(t, func(ms []ocorp.Machine) (*ocorp.Plus, error) {
		return ocorp.NewPlus(ms, ocorp.PlusSettings{Alpha: 1, Base: ocorp.Settings{Fill: true}})
	}, before, after, good, bad, obs, nil, enc)
	changeRun(t, func(ms []ocorp.Machine) (*ocorp.Priority, error) {
		return baselines.NewSRPT(ms, baselines.PrioritySettings{})
	},
		before, after, good, bad, obs, nil, enc)
	changeRun(t, func(ms []ocorp.Machine) (*baselines.Tetris, error) {
		return baselines.NewTetris(ms, baselines.TetrisSettings{})
	},
		before, after, good, bad, obs, nil, enc)
}

func TestClusterChangeContractOnSocMax(t *testing.T) {
	const nodes, w = 4, 6
	c := make([]float64, nodes*w)
	for r := range c {
		c[r] = 6 + float64(r%5)
	}
	before, err := bipartite.NewMesh(nodes, w, c)
	require.NoError(t, err)
	// Node 1 leaves, a node joins at the end; the edit functions build
	// each step, and the mappings compose (new -> old).
	mid, m1, err := onsocmax.RemoveNode(before, 1)
	require.NoError(t, err)
	after, m2, err := onsocmax.AddNode(mid, []float64{9, 9, 9, 9, 9, 9})
	require.NoError(t, err)
	good := onsocmax.Mapping{Nodes: make([]int, after.Nodes)}
	for i, o := range m2.Nodes {
		good.Nodes[i] = -1
		if o >= 0 {
			good.Nodes[i] = m1.Nodes[o]
		}
	}
	require.Equal(t, []int{0, 2, 3, -1}, good.Nodes)
	require.NoError(t, good.Validate(before, after))
	bad := onsocmax.Mapping{Nodes: []int{0, 0, 3, -1}}
	// Jobs on nodes 0..2, which both meshes have, with deadlines up to
	// W+1 slots ahead; units in the window numbering node*W + slot%W.
	jobs := func(s int) []onsocmax.Job {
		r := rand.New(rand.NewPCG(uint64(s), 5))
		var out []onsocmax.Job
		for k := range 1 + r.IntN(3) {
			dl := s + r.IntN(w+2)
			j := onsocmax.Job{ID: 100*s + k, Arrival: s, Deadline: dl, Rho: 4 + 8*r.Float64()}
			for node := range 3 {
				if (node+k)%3 == 2 {
					continue
				}
				for q := s; q <= min(dl, s+w-1); q++ {
					j.Units = append(j.Units, node*w+q%w)
					j.XBar = append(j.XBar, 1+3*r.Float64())
					j.Beta = append(j.Beta, 0.1+0.4*r.Float64())
					j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 1 + 2*r.Float64()})
				}
			}
			out = append(out, j)
		}
		return out
	}
	enc := func(d onsocmax.Decision) string {
		s := ""
		for _, a := range d.Allocations {
			s += fmt.Sprintf("%d/%d/%d/%x ", a.Job, a.Unit, a.Slot, math.Float64bits(a.X))
		}
		return s + fmt.Sprint(d.Outcomes)
	}
	changeRun(t, func(m *bipartite.Mesh) (*onsocmax.Policy, error) { return onsocmax.New(m, onsocmax.Settings{}) },
		before, after, good, bad, jobs, nil, enc)
	changeRun(t, func(m *bipartite.Mesh) (*baselines.MaxFirst, error) {
		return baselines.NewMaxFirst(m, baselines.MaxFirstSettings{})
	}, before, after, good, bad, jobs, nil, enc)
	changeRun(t, func(m *bipartite.Mesh) (*baselines.EqualShare, error) {
		return baselines.NewEqualShare(m, baselines.EqualShareSettings{})
	}, before, after, good, bad, jobs, nil, enc)
}
