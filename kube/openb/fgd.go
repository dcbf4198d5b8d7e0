package openb

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/msched/msched/kube/plugins/gpushare"
	"github.com/msched/msched/trace"
)

// FGD protocol (issue 32): the replay of FGD's artifact (Weng et al.,
// USENIX ATC'23, hkust-adsl/kubernetes-scheduler-simulator) on the device
// model of kube/plugins/gpushare. See the package documentation, section
// "FGD protocol".

// ErrFGD reports a protocol input refused (no GPU nodes, no pods, a bad
// profile or option).
var ErrFGD = errors.New("openb: FGD protocol")

// FGD protocol profiles beyond gpushare.Policies.
const (
	// FGDLearned is msched's learned-prior FGD: FGD's score over a target
	// workload learned online from the arrivals (gpushare.Learner), which
	// starts knowing nothing.
	FGDLearned = "FGD-learned"
	// TieBestFit, appended to a profile name ("FGD+BF"), breaks the
	// profile's ties by BestFit's score (then by the smallest name)
	// instead of by the node name alone.
	TieBestFit = "+BF"
)

// FGDProfiles lists the profiles of the FGD protocol, in table order.
var FGDProfiles = append(append(slices.Clone(gpushare.Policies), FGDLearned, "FGD"+TieBestFit, FGDLearned+TieBestFit), FGDMschedProfiles...)

// MaxFGDPods bounds the inflated pod list (a declared ratio cannot ask
// for more).
const MaxFGDPods = 1 << 22

// FGDCluster is the cluster of the FGD protocol: the trace's GPU nodes
// (FGD's 1 213 nodes, 6 212 GPUs), sorted by name, replicated Replicas
// times (names suffixed "-r<i>" after the first copy).
func FGDCluster(tr *trace.Trace, replicas int) ([]*gpushare.Node, error) {
	if replicas < 1 || replicas > 64 {
		return nil, fmt.Errorf("%w: replicas %d outside [1, 64]", ErrFGD, replicas)
	}
	var nodes []*gpushare.Node
	for r := range replicas {
		for _, n := range tr.Nodes {
			if n.GPU == 0 {
				continue
			}
			name := n.Name
			if r > 0 {
				name = fmt.Sprintf("%s-r%d", n.Name, r)
			}
			g, err := gpushare.NewNode(name, n.Model, n.CPUMilli, n.MemoryMiB, n.GPU)
			if err != nil {
				return nil, err
			}
			nodes = append(nodes, g)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("%w: no GPU nodes", ErrFGD)
	}
	slices.SortFunc(nodes, func(a, b *gpushare.Node) int { return strings.Compare(a.Name, b.Name) })
	return nodes, nil
}

// FGDRequest is the device-model request of a trace pod.
func FGDRequest(p trace.Pod) (gpushare.Request, error) {
	r := gpushare.Request{CPUMilli: p.CPUMilli, MemoryMiB: p.MemoryMiB}
	if p.NumGPU > 0 && p.GPUMilli > 0 {
		r.GPUCount, r.GPUMilli = p.NumGPU, int64(p.GPUMilli)
		r.Models = p.GPUSpec
	}
	if err := r.Check(); err != nil {
		return r, fmt.Errorf("pod %s: %w", p.Name, err)
	}
	return r, nil
}

// FGDPods returns the trace's pods as requests, shuffled with the seed,
// then FGD's inflation (its tuneUpPods): pods drawn uniformly with
// replacement from the trace (before the shuffle) are appended while the
// arrived GPU demand plus the drawn pod's per-GPU milli stays within
// ratio × capacityMilli (FGD compares the per-GPU milli, not the pod's
// total; msched keeps that quirk). One PCG stream seeded (seed, seed)
// draws the shuffle and the samples.
func FGDPods(tr *trace.Trace, seed uint64, ratio float64, capacityMilli int64) ([]gpushare.Request, error) {
	if !(ratio >= 0 && ratio <= 100) {
		return nil, fmt.Errorf("%w: ratio %v outside [0, 100]", ErrFGD, ratio)
	}
	base := make([]gpushare.Request, 0, len(tr.Pods))
	var total int64
	for _, p := range tr.Pods {
		r, err := FGDRequest(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFGD, err)
		}
		base = append(base, r)
		total += r.TotalGPUMilli()
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("%w: no pods", ErrFGD)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	pods := slices.Clone(base)
	rng.Shuffle(len(pods), func(i, j int) { pods[i], pods[j] = pods[j], pods[i] })
	target := ratio * float64(capacityMilli)
	for {
		r := base[rng.IntN(len(base))]
		if float64(total+r.GPUMilli) > target {
			break
		}
		if len(pods) >= MaxFGDPods {
			return nil, fmt.Errorf("%w: inflation past %d pods (ratio %v)", ErrFGD, MaxFGDPods, ratio)
		}
		total += r.TotalGPUMilli()
		pods = append(pods, r)
	}
	return pods, nil
}

// FGDOptions are the knobs of one FGD-protocol run.
type FGDOptions struct {
	// RandomTies breaks ties among the best nodes uniformly at random
	// (upstream kube-scheduler's selectHost) instead of by the smallest
	// node name (FGD's simulator).
	RandomTies bool
	// Seed seeds the run's random choices (Random's node and GPU, random
	// ties).
	Seed uint64
	// Direct computes FGD's fragmentation directly at every score, without
	// the gpushare.FragMemo (the same placements, bit for bit, only
	// slower: for tests and benchmarks).
	Direct bool
	// Record keeps every pod's placement in FGDResult.Placements.
	Record bool
}

// FGDPlacement is one pod's placement: the node's index in the nodes
// given to RunFGD (-1: no node could hold it) and its GPU ids.
type FGDPlacement struct {
	Node int
	GPUs []int
}

// FGDBins is the largest arrived-demand bin (130 %).
const FGDBins = 130

// FGDResult is one profile's run on one seed.
type FGDResult struct {
	Profile string
	Seed    uint64
	Pods    int
	Failed  int // pods no node could hold
	// Alloc[k] is the GPU allocation ratio (allocated GPU milli over
	// capacity, %) once the arrived GPU demand first reached k % of
	// capacity (the final state for bins never reached).
	Alloc [FGDBins + 1]float64
	// FragAmount[k] and FragRatio[k] for k = 50, 55, ..., 100: FGD's
	// fragmented GPU milli (over the trace's target workload) as % of
	// capacity, and as % of the idle GPUs, at the same moments.
	FragAmount map[int]float64
	FragRatio  map[int]float64
	// Cycles are the times of each pod's filter, score and choice.
	Cycles []time.Duration
	Wall   time.Duration
	// Placements, in pod order, with FGDOptions.Record.
	Placements []FGDPlacement
}

// RunFGD places pods one at a time on a copy of nodes with the profile,
// as FGD's simulator does (no departures): filter by the device model,
// score every feasible node, take the best (ties: smallest name, or
// random), reserve the profile's GPU choice. w is the trace's target
// workload (FGD's prior, and the fragmentation measure).
func RunFGD(nodes []*gpushare.Node, pods []gpushare.Request, w *gpushare.Workload, profile string, o FGDOptions) (*FGDResult, error) {
	if len(nodes) == 0 || len(pods) == 0 {
		return nil, fmt.Errorf("%w: %d nodes, %d pods", ErrFGD, len(nodes), len(pods))
	}
	rng := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	var sc gpushare.Scorer
	var learner *gpushare.Learner
	var tie gpushare.Scorer
	name := profile
	if base, ok := strings.CutSuffix(profile, TieBestFit); ok {
		name = base
		tie = gpushare.NewScorer("BestFit", nil, nil)
	}
	switch name {
	case FGDLearned:
		learner = gpushare.NewLearner(100)
		sc = &gpushare.FGD{W: learner.Workload, Label: profile, Cache: true, Memo: gpushare.NewFragMemo()}
	case "Random":
		sc = gpushare.NewScorer(name, w, rng)
		tie = nil
	default:
		if s, t, l, ok := fgdMsched(name, w, tie); ok {
			sc, tie, learner = s, t, l
		} else {
			sc = gpushare.NewScorer(name, w, rng)
		}
	}
	if f, ok := sc.(*gpushare.FGD); ok && o.Direct {
		f.Memo = nil
	}
	if sc == nil {
		return nil, fmt.Errorf("%w: unknown profile %q (known: %s)", ErrFGD, profile, strings.Join(FGDProfiles, ", "))
	}
	ns := make([]*gpushare.Node, len(nodes))
	var capMilli int64
	for i, n := range nodes {
		ns[i] = n.Clone()
		capMilli += int64(len(n.GPUs)) * gpushare.Milli
	}
	res := &FGDResult{Profile: profile, Seed: o.Seed, Pods: len(pods), FragAmount: map[int]float64{}, FragRatio: map[int]float64{},
		Cycles: make([]time.Duration, 0, len(pods))}
	start := time.Now()
	m := newFGDMetrics(res, ns, w, capMilli)
	feasible := make([]int, 0, len(ns))
	scores := make([]int64, len(ns))
	ids := make([][]int, len(ns))
	record := m.record
	for _, r := range pods {
		t0 := time.Now()
		if learner != nil {
			learner.Observe(r)
		}
		m.arrived += r.TotalGPUMilli()
		feasible = feasible[:0]
		for i, n := range ns {
			if n.Fits(r) {
				feasible = append(feasible, i)
			}
		}
		if len(feasible) == 0 {
			if o.Record {
				res.Placements = append(res.Placements, FGDPlacement{Node: -1})
			}
			res.Failed++
			res.Cycles = append(res.Cycles, time.Since(t0))
			record()
			continue
		}
		var pick int
		if name == "Random" {
			pick = feasible[rng.IntN(len(feasible))]
			_, ids[pick] = sc.Score(ns[pick], r)
		} else {
			lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
			for _, i := range feasible {
				scores[i], ids[i] = sc.Score(ns[i], r)
				lo, hi = min(lo, scores[i]), max(hi, scores[i])
			}
			if sc.Normalize() {
				for _, i := range feasible {
					if hi == lo {
						scores[i] = 0
					} else {
						scores[i] = (scores[i] - lo) * gpushare.MaxNodeScore / (hi - lo)
					}
				}
				hi = math.MinInt64
				for _, i := range feasible {
					hi = max(hi, scores[i])
				}
			}
			pick = -1
			var bestTie int64
			ties := 0
			for _, i := range feasible {
				if scores[i] != hi {
					continue
				}
				switch {
				case tie != nil:
					v, _ := tie.Score(ns[i], r)
					if pick < 0 || v > bestTie {
						pick, bestTie = i, v
					}
				case o.RandomTies:
					ties++
					if rng.IntN(ties) == 0 {
						pick = i
					}
				case pick < 0:
					pick = i
				}
			}
		}
		if err := ns[pick].Assign(r, ids[pick]); err != nil {
			return nil, fmt.Errorf("%w: %s chose GPUs %v on %s: %w", ErrFGD, profile, ids[pick], ns[pick].Name, err)
		}
		m.allocated += r.TotalGPUMilli()
		if o.Record {
			res.Placements = append(res.Placements, FGDPlacement{Node: pick, GPUs: slices.Clone(ids[pick])})
		}
		res.Cycles = append(res.Cycles, time.Since(t0))
		record()
	}
	m.finish()
	res.Wall = time.Since(start)
	return res, nil
}

// FGDWorkload is FGD's target workload of the trace before inflation
// (shapes covering 95 % of the pods, CPU pods included).
func FGDWorkload(tr *trace.Trace) (*gpushare.Workload, error) {
	reqs := make([]gpushare.Request, 0, len(tr.Pods))
	for _, p := range tr.Pods {
		r, err := FGDRequest(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrFGD, err)
		}
		reqs = append(reqs, r)
	}
	return gpushare.WorkloadOf(reqs, gpushare.Coverage), nil
}
