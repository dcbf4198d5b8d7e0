package baselines_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/msched/msched/baselines"
	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/snapshottest"
	"github.com/msched/msched/ocorp"
	"github.com/msched/msched/ogasched"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// stateful is one stateful policy or baseline of a family: fresh builds it
// on a small model, drive runs slots [from, to) on valid input checking
// every decision's feasibility, and sentinel is its family's ErrSnapshot.
type stateful struct {
	name     string
	sentinel error
	fresh    func(t testing.TB) snapshottest.Policy
	drive    func(t testing.TB, p snapshottest.Policy, from, to int)
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		require.NoError(t, err)
		return v
	}
}

// allStateful lists every stateful policy and baseline of the four
// families on small models.
func allStateful() []stateful {
	var out []stateful
	// OGASched and its baselines: 2 ports x 2 nodes, K = 1.
	ogaDrive := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		pr := ogaTiny(t)
		for s := from; s < to; s++ {
			rng := rand.New(rand.NewPCG(5, uint64(s)))
			x := []float64{float64(rng.IntN(2)), float64(rng.IntN(3))}
			y, err := p.(ogasched.OnlinePolicy).Decide(s, x)
			require.NoError(t, err, "slot %d", s)
			if pol, ok := p.(*ogasched.Policy); ok {
				require.NoError(t, pr.Feasible(y, 1e-9), "slot %d", s)
				require.NoError(t, pol.Observe(s, x), "slot %d", s)
			} else {
				require.NoError(t, pr.Feasible(y, 1e-9), "slot %d", s)
			}
		}
	}
	for _, c := range []struct {
		name string
		mk   func(*ogasched.Problem) (snapshottest.Policy, error)
	}{
		{"ogasched.Policy", func(p *ogasched.Problem) (snapshottest.Policy, error) { return ogasched.New(p, ogasched.Settings{}) }},
		{"DRF", func(p *ogasched.Problem) (snapshottest.Policy, error) { return baselines.NewDRF(p) }},
		{"FAIRNESS", func(p *ogasched.Problem) (snapshottest.Policy, error) { return baselines.NewFairness(p) }},
		{"BINPACKING", func(p *ogasched.Problem) (snapshottest.Policy, error) { return baselines.NewBinPacking(p) }},
		{"SPREADING", func(p *ogasched.Problem) (snapshottest.Policy, error) { return baselines.NewSpreading(p) }},
	} {
		out = append(out, stateful{c.name, ogasched.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[snapshottest.Policy](t)(c.mk(ogaTiny(t))) }, ogaDrive})
	}
	// OnSocMax and its baselines: 2 nodes x 3 slots.
	mesh := func(t testing.TB) *bipartite.Mesh {
		return must[*bipartite.Mesh](t)(bipartite.NewMesh(2, 3, []float64{4, 4, 3, 5, 5, 5}))
	}
	osmDrive := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		for s := from; s < to; s++ {
			jobs := sweepJobs(9, s, 2, 3)
			freshIDs(t, p, jobs)
			d, err := p.(onsocmax.OnlinePolicy).Decide(s, jobs)
			require.NoError(t, err, "slot %d", s)
			for _, a := range d.Allocations {
				require.True(t, a.X >= 0, "slot %d: %+v", s, a)
			}
			if pol, ok := p.(*onsocmax.Policy); ok {
				// Reservations accumulate over slots: check the usage
				// levels against the policy's own cluster (nodes may have
				// been removed and added with other capacities).
				var env struct {
					State struct {
						Alive    []bool    `json:"alive"`
						Capacity []float64 `json:"capacity"`
					} `json:"state"`
				}
				require.NoError(t, json.Unmarshal(must[[]byte](t)(pol.MarshalBinary()), &env))
				for r, u := range pol.Usage() {
					if env.State.Alive[r/3] {
						require.LessOrEqual(t, u, env.State.Capacity[r]*(1+1e-9)+1e-12, "slot %d: unit %d", s, r)
					}
				}
				continue
			}
			use := map[[2]int]float64{}
			for _, a := range d.Allocations {
				use[[2]int{a.Node, a.Slot}] += a.X
			}
			for k, u := range use {
				require.LessOrEqual(t, u, []float64{4, 4, 3, 5, 5, 5}[k[0]*3+k[1]%3]*(1+1e-9)+1e-12, "slot %d: unit %v", s, k)
			}
		}
	}
	for _, c := range []struct {
		name string
		mk   func(*bipartite.Mesh) (snapshottest.Policy, error)
	}{
		{"onsocmax.Policy", func(m *bipartite.Mesh) (snapshottest.Policy, error) {
			return onsocmax.New(m, onsocmax.Settings{Iota: 1, V: 3.3})
		}},
		{"MAX-FIRST", func(m *bipartite.Mesh) (snapshottest.Policy, error) { return baselines.NewMaxFirst(m) }},
		{"EQUAL-SHARE", func(m *bipartite.Mesh) (snapshottest.Policy, error) { return baselines.NewEqualShare(m) }},
	} {
		out = append(out, stateful{c.name, onsocmax.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[snapshottest.Policy](t)(c.mk(mesh(t))) }, osmDrive})
	}
	// ESDP and its baselines: 2 ports x 3 servers, K = 1.
	esdpIn := func(t testing.TB) *esdp.Instance {
		return must[*esdp.Instance](t)(esdp.Generate(esdp.Config{Ports: 2, Servers: 3, K: 1, EdgeProb: 1, ArrivalProb: 0.8,
			DemandLo: 1, DemandHi: 1, MeanLo: 0.1, MeanHi: 1, CapLo: 2, CapHi: 2, Alpha: 0.5}, rand.New(rand.NewPCG(1, 1))))
	}
	esdpRun := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		in := esdpIn(t)
		pol := p.(interface {
			esdp.OnlinePolicy
			Observe(int, esdp.Feedback) error
		})
		arrived := make([]bool, in.NumPorts())
		z := make([]float64, in.NumEdges())
		for s := from; s < to; s++ {
			rng := rand.New(rand.NewPCG(8, uint64(s)))
			in.SampleArrivals(arrived, rng)
			in.SampleRewards(z, rng)
			x, err := pol.Decide(s, arrived)
			require.NoError(t, err, "slot %d", s)
			require.NoError(t, in.Feasible(x, arrived), "slot %d", s)
			require.NoError(t, pol.Observe(s, esdp.Feedback{Chosen: slices.Clone(x), Reward: z}), "slot %d", s)
		}
	}
	out = append(out, stateful{"esdp.Policy", esdp.ErrSnapshot,
		func(t testing.TB) snapshottest.Policy {
			return must[*esdp.Policy](t)(esdp.New(&esdpIn(t).Cluster, esdp.Settings{}))
		}, esdpRun})
	for _, m := range esdpStatefulMakers {
		out = append(out, stateful{m.name, esdp.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[esdpStateful](t)(m.mk(&esdpIn(t).Cluster)) }, esdpRun})
	}
	// OCORP, OCORP+M, OCORP+ (alpha = 10), the priority rules, Tetris.
	ocorpDrive := func(t testing.TB, p snapshottest.Policy, from, to int) {
		t.Helper()
		chk := must[*ocorp.Checker](t)(ocorp.NewChecker(sweepMachines))
		for s := from; s < to; s++ {
			obs := sweepObs(s)
			d, err := p.(ocorp.OnlinePolicy).Decide(s, obs)
			require.NoError(t, err, "slot %d", s)
			require.NoError(t, chk.Check(obs, d), "slot %d", s)
		}
	}
	for _, c := range []struct {
		name string
		mk   func([]ocorp.Machine) (snapshottest.Policy, error)
	}{
		{"OCORP", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return ocorp.New(ms, ocorp.Settings{}) }},
		{"OCORP+M", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return ocorp.NewM(ms, ocorp.Settings{}) }},
		{"OCORP+", func(ms []ocorp.Machine) (snapshottest.Policy, error) {
			return ocorp.NewPlus(ms, ocorp.PlusSettings{Alpha: 10})
		}},
		{"SRPT", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return baselines.NewSRPT(ms) }},
		{"SRVF", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return baselines.NewSRVF(ms) }},
		{"SVF", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return baselines.NewSVF(ms) }},
		{"SRF", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return baselines.NewSRF(ms) }},
		{"Tetris", func(ms []ocorp.Machine) (snapshottest.Policy, error) { return baselines.NewTetris(ms) }},
		{"FirstFit", func(ms []ocorp.Machine) (snapshottest.Policy, error) {
			return baselines.NewFirstFit(ms, baselines.FirstFitSettings{Order: baselines.OrderSRVF})
		}},
	} {
		out = append(out, stateful{c.name, ocorp.ErrSnapshot,
			func(t testing.TB) snapshottest.Policy { return must[snapshottest.Policy](t)(c.mk(sweepMachines)) }, ocorpDrive})
	}
	return out
}

// TestSnapshotBitFlipSweep: for one snapshot of every stateful policy and
// baseline (after 4 slots), every single-bit variant of the whole
// snapshot, envelope and state, is refused with the family's ErrSnapshot,
// and the policy it was restored into is unchanged. Every bit is flipped
// (the largest snapshot, MAX-FIRST's, has about 15 600 bits); under the
// race detector, which slows JSON decoding tenfold, at most sweepBits =
// 512 per snapshot, evenly spread (snapshottest.Sweep). The count of
// variants per policy is logged (-v).
func TestSnapshotBitFlipSweep(t *testing.T) { bitFlipSweep(t, allStateful()) }

// bitFlipSweep flips every bit (sweepBits under the race detector) of a
// snapshot of each policy taken after four slots; every variant must be
// refused with the family's ErrSnapshot and leave the target unchanged,
// while the clean snapshot restores and runs four more slots.
func bitFlipSweep(t *testing.T, cases []stateful) {
	start := time.Now()
	total := 0
	for _, c := range cases {
		src := c.fresh(t)
		c.drive(t, src, 0, 4)
		data, err := src.MarshalBinary()
		require.NoError(t, err, c.name)
		// The clean snapshot restores and runs on (the sweep is not vacuous).
		dst := c.fresh(t)
		c.drive(t, dst, 0, 1)
		before := must[[]byte](t)(dst.MarshalBinary())
		restored := c.fresh(t)
		require.NoError(t, restored.UnmarshalBinary(data), c.name)
		c.drive(t, restored, 4, 8)
		n := snapshottest.Sweep(t, data, sweepBits, c.sentinel, dst.UnmarshalBinary, func() bool {
			after, err := dst.MarshalBinary()
			return err == nil && string(after) == string(before)
		})
		if sweepBits >= len(data)*8 {
			require.Equal(t, len(data)*8, n, c.name)
		}
		t.Logf("%-20s %6d bytes, %7d variants, all refused", c.name, len(data), n)
		total += n
	}
	t.Logf("%d variants in %v", total, time.Since(start).Round(time.Millisecond))
}

// TestSnapshotRoundTripAll: every stateful policy restores its own
// snapshot and then decides exactly as the uninterrupted policy.
func TestSnapshotRoundTripAll(t *testing.T) {
	for _, c := range allStateful() {
		ref := c.fresh(t)
		c.drive(t, ref, 0, 4)
		data := must[[]byte](t)(ref.MarshalBinary())
		var js json.RawMessage
		require.NoError(t, json.Unmarshal(data, &js), c.name)
		p := c.fresh(t)
		require.NoError(t, p.UnmarshalBinary(data), c.name)
		c.drive(t, ref, 4, 8)
		c.drive(t, p, 4, 8)
		require.Equal(t, string(must[[]byte](t)(ref.MarshalBinary())), string(must[[]byte](t)(p.MarshalBinary())), fmt.Sprint(c.name))
	}
}

var sweepMachines = []ocorp.Machine{{Cores: 8, Memory: 16}, {Cores: 4, Memory: 8}, {Cores: 6, Memory: 12}}

// sweepObs is the observation of slot s: the jobs that arrived in the
// last 3 slots, two per slot (a function of s only, so that any slot can
// be observed after a restore).
func sweepObs(s int) ocorp.Obs {
	var obs ocorp.Obs
	for a := max(0, s-2); a <= s; a++ {
		rng := rand.New(rand.NewPCG(3, uint64(a)))
		for q := range 2 {
			j := ocorp.Job{Arrival: a, Cores: 1 + rng.IntN(6), Processing: 1 + rng.IntN(4), Memory: rng.IntN(17)}
			obs.Jobs = append(obs.Jobs, ocorp.ActiveJob{ID: a*2 + q, Job: j, Remaining: max(1, j.Volume()-int64(s-a))})
		}
	}
	return obs
}

// sweepJobs draws the OnSocMax arrivals of slot s from (seed, s): a few
// jobs on random nodes with deadlines up to W+1 slots ahead.
func sweepJobs(seed uint64, s, nodes, w int) []onsocmax.Job {
	rng := rand.New(rand.NewPCG(seed, uint64(s)))
	var jobs []onsocmax.Job
	for q := range rng.IntN(4) {
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

// freshIDs renumbers jobs so that no ID is one the policy still holds (a
// restored state may hold any IDs; a caller reuses an ID only once the job
// is gone).
func freshIDs(t testing.TB, p snapshottest.Policy, jobs []onsocmax.Job) {
	var env struct {
		State struct {
			Reservations []struct {
				Job int `json:"job"`
			} `json:"reservations"`
			Active []struct {
				Job struct {
					ID int `json:"id"`
				} `json:"job"`
			} `json:"active"`
		} `json:"state"`
	}
	require.NoError(t, json.Unmarshal(must[[]byte](t)(p.MarshalBinary()), &env))
	used := map[int]bool{}
	for _, r := range env.State.Reservations {
		used[r.Job] = true
	}
	for _, a := range env.State.Active {
		used[a.Job.ID] = true
	}
	for k := range jobs {
		for used[jobs[k].ID] {
			jobs[k].ID++
		}
		used[jobs[k].ID] = true
	}
}
