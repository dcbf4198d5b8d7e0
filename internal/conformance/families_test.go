package conformance

import (
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/ocorp"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// The tables: add a policy to its family's list and TestConformance checks
// it against every promise.

func ogaFamily() suite {
	return &family[*ogasched.Problem, ogasched.Mapping, []float64, []float64, []float64]{
		log:       "ogasched",
		sentinels: ogaschedSentinels,
		model: func() (*ogasched.Problem, error) {
			u := func(a float64) utility.Utility { return utility.Utility{Kind: utility.Log, A: a} }
			return ogasched.NewProblem(bipartite.Complete(3, 3),
				[][]float64{{3, 1}, {1, 2}, {2, 2}},
				[][]float64{{2, 3}, {8, 1}, {4, 4}},
				[][]utility.Utility{{u(1), u(1.2)}, {u(1.1), u(1)}, {u(1.3), u(1.4)}}, []float64{0.5, 0.3})
		},
		edit: func(p *ogasched.Problem) (*ogasched.Problem, ogasched.Mapping, ogasched.Mapping, error) {
			q, m, err := p.RemoveNode(1)
			return q, m, ogasched.Mapping{Ports: m.Ports, Nodes: []int{0, 0}}, err
		},
		obs: func(p *ogasched.Problem, s int) []float64 {
			r := rand.New(rand.NewPCG(3, uint64(s)))
			x := make([]float64, p.NumPorts())
			for l := range x {
				x[l] = float64(r.IntN(3))
			}
			return x
		},
		bad:      func(p *ogasched.Problem, s int) []float64 { return make([]float64, p.NumPorts()+1) },
		valid:    func(p *ogasched.Problem, _ []float64, y []float64) error { return p.Feasible(y, 1e-9) },
		feedback: func(_ *ogasched.Problem, _ int, x []float64, _ []float64) []float64 { return slices.Clone(x) },
		slots:    10,
		policies: []entry[*ogasched.Problem, []float64, []float64]{
			{name: "OGASched", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return ogasched.New(p, ogasched.Settings{Logger: l})
			}, alt: func(p *ogasched.Problem) (any, error) { return ogasched.New(p, ogasched.Settings{Workers: 3}) }},
			{name: "DRF", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewDRF(p, baselines.DRFSettings{Logger: l})
			}},
			{name: "FAIRNESS", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewFairness(p, baselines.FairnessSettings{Logger: l})
			}},
			{name: "BINPACKING", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewBinPacking(p, baselines.BinPackingSettings{Logger: l})
			}},
			{name: "SPREADING", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewSpreading(p, baselines.BinPackingSettings{Logger: l})
			}},
			{name: "BINPACKING-pod", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewBinPackingPod(p, baselines.BinPackingSettings{Logger: l})
			}},
			{name: "SPREADING-pod", mk: func(p *ogasched.Problem, l *slog.Logger) (any, error) {
				return baselines.NewSpreadingPod(p, baselines.BinPackingSettings{Logger: l})
			}},
		},
	}
}

func esdpFamily() suite {
	return &family[*esdp.Cluster, esdp.Mapping, []bool, []bool, esdp.Feedback]{
		log:       "esdp",
		sentinels: esdpSentinels,
		model: func() (*esdp.Cluster, error) {
			in, err := esdp.Generate(esdp.Config{Ports: 3, Servers: 4, K: 2, EdgeProb: 0.8, ArrivalProb: 0.8,
				DemandLo: 1, DemandHi: 2, CostMean: 0.5, CostStd: 0.1, MeanLo: 0.1, MeanHi: 1, CapLo: 2, CapHi: 4, Alpha: 0.5},
				rand.New(rand.NewPCG(1, 1)))
			if err != nil {
				return nil, err
			}
			return &in.Cluster, nil
		},
		edit: func(c *esdp.Cluster) (*esdp.Cluster, esdp.Mapping, esdp.Mapping, error) {
			d, m, err := c.RemoveServer(1)
			return d, m, esdp.Mapping{Ports: m.Ports, Servers: []int{0, 0}}, err
		},
		obs: func(c *esdp.Cluster, s int) []bool {
			r := rand.New(rand.NewPCG(5, uint64(s)))
			a := make([]bool, c.NumPorts())
			for l := range a {
				a[l] = r.IntN(5) > 0
			}
			return a
		},
		bad:   func(c *esdp.Cluster, s int) []bool { return make([]bool, c.NumPorts()+1) },
		valid: func(c *esdp.Cluster, arrived, x []bool) error { return c.Feasible(x, arrived) },
		feedback: func(c *esdp.Cluster, s int, _ []bool, x []bool) esdp.Feedback {
			r := rand.New(rand.NewPCG(7, uint64(s)))
			fb := esdp.Feedback{Chosen: slices.Clone(x), Reward: make([]float64, len(x))}
			for e := range fb.Reward {
				fb.Reward[e] = r.Float64()
			}
			return fb
		},
		slots: 10,
		policies: []entry[*esdp.Cluster, []bool, []bool]{
			{name: "ESDP", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return esdp.New(c, esdp.Settings{Logger: l})
			}},
			{name: "ESDP-scalable", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return esdp.New(c, esdp.Settings{Mode: esdp.ModeScalable, Logger: l})
			}},
			{name: "HSWF", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewHSWF(c, baselines.HSWFSettings{Logger: l})
			}},
			{name: "HSWF-channel", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewHSWFChannel(c, baselines.HSWFChannelSettings{Logger: l})
			}},
			{name: "LCF", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewLCF(c, baselines.LCFSettings{Logger: l})
			}},
			{name: "LWTF", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewLWTF(c, baselines.LWTFSettings{Logger: l})
			}},
			{name: "CUCB", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewCUCB(c, baselines.CUCBSettings{Logger: l})
			}},
			{name: "Thompson", mk: func(c *esdp.Cluster, l *slog.Logger) (any, error) {
				return baselines.NewThompson(c, baselines.ThompsonSettings{Seed: 3, Stream: 4, Logger: l})
			}},
		},
	}
}

// osmJobs draws slot s's OnSocMax arrivals on mesh m: a few jobs on
// random nodes with deadlines up to W+1 slots ahead, IDs unique per slot.
func osmJobs(m *bipartite.Mesh, s int) []onsocmax.Job {
	nodes, w := m.Nodes, m.Slots
	rng := rand.New(rand.NewPCG(9, uint64(s)))
	var jobs []onsocmax.Job
	for q := range 1 + rng.IntN(3) {
		j := onsocmax.Job{ID: s*8 + q, Arrival: s, Deadline: s + rng.IntN(w+2), Rho: 1 + 8*rng.Float64()}
		for i := range nodes {
			if rng.IntN(2) == 0 {
				continue
			}
			for t := s; t <= min(j.Deadline, s+w-1); t++ {
				j.Units = append(j.Units, i*w+t%w)
				j.XBar = append(j.XBar, 1+3*rng.Float64())
				j.Beta = append(j.Beta, 0.1+0.4*rng.Float64())
				j.Utility = append(j.Utility, utility.Utility{Kind: utility.Linear, A: 1 + 2*rng.Float64()})
			}
		}
		jobs = append(jobs, j)
	}
	return jobs
}

func osmFamily() suite {
	return &family[*bipartite.Mesh, onsocmax.Mapping, []onsocmax.Job, onsocmax.Decision, struct{}]{
		log:       "onsocmax",
		sentinels: onsocmaxSentinels,
		model: func() (*bipartite.Mesh, error) {
			return bipartite.NewMesh(3, 4, []float64{4, 4, 3, 5, 5, 5, 2, 6, 3, 3, 4, 4})
		},
		edit: func(m *bipartite.Mesh) (*bipartite.Mesh, onsocmax.Mapping, onsocmax.Mapping, error) {
			n, mp, err := onsocmax.RemoveNode(m, 1)
			return n, mp, onsocmax.Mapping{Nodes: []int{0}}, err
		},
		obs: osmJobs,
		bad: func(m *bipartite.Mesh, s int) []onsocmax.Job {
			jobs := osmJobs(m, s)
			jobs[0].Rho = math.NaN()
			return jobs
		},
		slots: 10,
		policies: []entry[*bipartite.Mesh, []onsocmax.Job, onsocmax.Decision]{
			{name: "OnSocMax", mk: func(m *bipartite.Mesh, l *slog.Logger) (any, error) {
				return onsocmax.New(m, onsocmax.Settings{Iota: 1, V: 3.3, Logger: l})
			}},
			{name: "MAX-FIRST", mk: func(m *bipartite.Mesh, l *slog.Logger) (any, error) {
				return baselines.NewMaxFirst(m, baselines.MaxFirstSettings{Logger: l})
			}},
			{name: "EQUAL-SHARE", mk: func(m *bipartite.Mesh, l *slog.Logger) (any, error) {
				return baselines.NewEqualShare(m, baselines.EqualShareSettings{Logger: l})
			}},
		},
	}
}

var ocMachines = []ocorp.Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 6, Memory: 12}}

// ocObs is the observation of slot s: the jobs that arrived in the last 3
// slots, two per slot (a function of s only).
func ocObs(_ []ocorp.Machine, s int) ocorp.Obs {
	var obs ocorp.Obs
	for a := max(0, s-2); a <= s; a++ {
		rng := rand.New(rand.NewPCG(3, uint64(a)))
		for q := range 2 {
			j := ocorp.Job{Arrival: a, Cores: 1 + rng.IntN(6), Processing: 1 + rng.IntN(4), Memory: rng.IntN(12)}
			obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: a*2 + q, Job: j, Remaining: max(1, j.Volume()-int64(s-a))})
		}
	}
	return obs
}

func ocFamily() suite {
	return &family[[]ocorp.Machine, ocorp.Mapping, ocorp.Obs, ocorp.Decision, struct{}]{
		log:       "ocorp",
		sentinels: ocorpSentinels,
		model:     func() ([]ocorp.Machine, error) { return slices.Clone(ocMachines), nil },
		edit: func(ms []ocorp.Machine) ([]ocorp.Machine, ocorp.Mapping, ocorp.Mapping, error) {
			return []ocorp.Machine{ms[0], ms[2]}, ocorp.Mapping{Machines: []int{0, 2}}, ocorp.Mapping{Machines: []int{0, 0}}, nil
		},
		obs: ocObs,
		bad: func(ms []ocorp.Machine, s int) ocorp.Obs {
			o := ocObs(ms, s)
			o.Jobs[0].Job.Cores = -1
			return o
		},
		valid: func(ms []ocorp.Machine, obs ocorp.Obs, d ocorp.Decision) error {
			c, err := ocorp.NewChecker(ms)
			if err != nil {
				return err
			}
			return c.Check(obs, d)
		},
		slots: 10,
		policies: []entry[[]ocorp.Machine, ocorp.Obs, ocorp.Decision]{
			{name: "OCORP", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return ocorp.New(ms, ocorp.Settings{Logger: l})
			}},
			{name: "OCORP+M", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return ocorp.NewM(ms, ocorp.Settings{Logger: l, Fill: true})
			}},
			{name: "OCORP+", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return ocorp.NewPlus(ms, ocorp.PlusSettings{Base: ocorp.Settings{Logger: l}, Alpha: 10})
			}},
			{name: "Transient", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return ocorp.NewTransient(ms, ocorp.PrioritySettings{Logger: l})
			}},
			{name: "SRPT", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewSRPT(ms, baselines.PrioritySettings{Logger: l})
			}},
			{name: "SRVF", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewSRVF(ms, baselines.PrioritySettings{Logger: l})
			}},
			{name: "SVF", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewSVF(ms, baselines.PrioritySettings{Logger: l})
			}},
			{name: "SRF", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewSRF(ms, baselines.PrioritySettings{Logger: l})
			}},
			{name: "Tetris", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewTetris(ms, baselines.TetrisSettings{Logger: l})
			}},
			{name: "FirstFit", mk: func(ms []ocorp.Machine, l *slog.Logger) (any, error) {
				return baselines.NewFirstFit(ms, baselines.FirstFitSettings{Logger: l})
			}},
		},
	}
}

// The sentinels of each family's errors.go.
var (
	ogaschedSentinels = []error{ogasched.ErrDimension, ogasched.ErrValue, ogasched.ErrVersion, ogasched.ErrSettings, ogasched.ErrSlot, ogasched.ErrSnapshot}
	esdpSentinels     = []error{esdp.ErrDimension, esdp.ErrValue, esdp.ErrTooLarge, esdp.ErrVersion, esdp.ErrSettings, esdp.ErrSlot, esdp.ErrSnapshot, esdp.ErrNotTerminated, esdp.ErrNodeLimit}
	onsocmaxSentinels = []error{onsocmax.ErrBounds, onsocmax.ErrValue, onsocmax.ErrDimension, onsocmax.ErrSettings, onsocmax.ErrVersion, onsocmax.ErrTooLarge, onsocmax.ErrUnsupported, onsocmax.ErrSlot, onsocmax.ErrNode, onsocmax.ErrSnapshot, onsocmax.ErrDuplicate, onsocmax.ErrIterationLimit}
	ocorpSentinels    = []error{ocorp.ErrValue, ocorp.ErrDimension, ocorp.ErrVersion, ocorp.ErrSettings, ocorp.ErrEmpty, ocorp.ErrInfeasible, ocorp.ErrFormat, ocorp.ErrUnfit, ocorp.ErrTooLarge, ocorp.ErrNotFinished, ocorp.ErrSlot, ocorp.ErrSnapshot, ocorp.ErrNotConverged, ocorp.ErrMachine}
)
