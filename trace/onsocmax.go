package trace

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/onsocmax"
	"github.com/msched/msched/utility"
)

// OnSocMaxSettings configures the OnSocMax mapping. Zero fields take the
// defaults in brackets (Section IV-A of the OnSocMax paper where it has
// one).
type OnSocMaxSettings struct {
	Nodes       int   // nodes sampled uniformly [10]
	Slots       int   // slots of the window [24]
	SlotSeconds int64 // slot length [3600]
	// Day is the window (of Slots*SlotSeconds seconds from the first
	// creation) to map, counted from 1 [0: the window with the most pod
	// creations].
	Day     int
	MaxJobs int // jobs kept, in creation order [0: all in the window]
	// CapacityScale multiplies every unit's capacity [1]; below 1 it
	// emulates a congested cluster (the trace's own nodes are lightly
	// loaded by its pods).
	CapacityScale float64
	Seed          uint64
	// Limits bounds the trace's values, Slots, SlotSeconds and the
	// resource units of all jobs [Limits{}: the defaults].
	Limits Limits
}

// OnSocMaxInstance is the OnSocMax view of a trace.
type OnSocMaxInstance struct {
	Instance *onsocmax.Instance
	Nodes    []int // mesh node i is the trace's Nodes[Nodes[i]]
	Pods     []int // job n comes from the timed pod Pods[n]
	Day      int   // the window used, counted from 1
}

// OnSocMax maps a window of the trace to an OnSocMax instance. The mesh is
// Nodes sampled nodes x Slots hourly slots, and the capacity of unit
// (node, slot) is the node's cores times the slot length in hours (core-
// hours). Each pod created in the window is a job: arrival = its creation
// slot, deadline = its deletion slot (clipped to the window), workload
// rho_n = cores x duration in hours (duration = deletion - scheduled, or
// deletion - creation for pods never scheduled), xbar_nr = its cores x
// slot hours (it cannot use more of one node in one slot), and R_n = every
// slot of [arrival, deadline] on every sampled node it fits (resources and
// GPU model: service locality). Utilities and beta are drawn as the paper's
// generator does (linear, a ~ U[1, 3], beta ~ U[0.1, 0.5]), since the trace
// has none. Jobs that fit no sampled node are dropped (counted in the
// returned instance's size only).
func OnSocMax(tr *Trace, opt OnSocMaxSettings) (*OnSocMaxInstance, error) {
	if err := opt.Limits.CheckTrace(tr); err != nil {
		return nil, err
	}
	if err := checkScale("OnSocMaxSettings.CapacityScale", opt.CapacityScale); err != nil {
		return nil, err
	}
	if err := checkOptions(option{"OnSocMaxSettings.Nodes", int64(opt.Nodes), 0}, option{"OnSocMaxSettings.Slots", int64(opt.Slots), 0},
		option{"OnSocMaxSettings.SlotSeconds", opt.SlotSeconds, 0}, option{"OnSocMaxSettings.Day", int64(opt.Day), 0},
		option{"OnSocMaxSettings.MaxJobs", int64(opt.MaxJobs), 0}); err != nil {
		return nil, err
	}
	lim := opt.Limits.withDefaults()
	if opt.Nodes <= 0 {
		opt.Nodes = 10
	}
	if opt.Slots <= 0 {
		opt.Slots = 24
	}
	if opt.SlotSeconds <= 0 {
		opt.SlotSeconds = 3600
	}
	if opt.CapacityScale == 0 {
		opt.CapacityScale = 1
	}
	if err := lim.checkSlots("OnSocMaxSettings.Slots", int64(opt.Slots)); err != nil {
		return nil, err
	}
	if opt.SlotSeconds > lim.MaxTime {
		return nil, fmt.Errorf("%w: OnSocMaxSettings.SlotSeconds = %d, limit MaxTime = %d", ErrTooLarge, opt.SlotSeconds, lim.MaxTime)
	}
	first, last, ok := CreationSpan(tr.Pods)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no creation times", ErrEmpty, tr.PodFile)
	}
	pods := timed(tr.Pods)
	// Slots <= 2^31 and SlotSeconds, last-first <= MaxTime <= 2^62 (both
	// checked), so window and the window indices fit int64 as long as
	// MaxTime*MaxSlots does; saturate instead of trusting a raised limit.
	window := int64(opt.Slots) * opt.SlotSeconds
	if opt.SlotSeconds != 0 && window/opt.SlotSeconds != int64(opt.Slots) {
		window = math.MaxInt64
	}
	nwin := (last-first)/window + 1
	day := int64(opt.Day) - 1
	if day < 0 {
		// The busiest window, smallest index on ties, without a table of
		// all nwin windows (a span of 1e15 s made that 92 GB).
		idx := make([]int64, len(pods))
		for i, p := range pods {
			idx[i] = (p.Creation - first) / window
		}
		slices.Sort(idx)
		best, bestCount := int64(0), 0
		for i := 0; i < len(idx); {
			j := i
			for j < len(idx) && idx[j] == idx[i] {
				j++
			}
			if j-i > bestCount {
				best, bestCount = idx[i], j-i
			}
			i = j
		}
		day = best
	}
	if day >= nwin {
		return nil, fmt.Errorf("%w: window %d beyond the trace's %d windows", ErrEmpty, day+1, nwin)
	}
	rng := rand.New(rand.NewPCG(opt.Seed, 0x05c))
	nodes := SampleNodes(tr.Nodes, opt.Nodes, rng)
	if err := lim.checkCells("OnSocMax pods × nodes (the fit test)", len(pods), len(nodes)); err != nil {
		return nil, err
	}
	if err := (bipartite.Limits{}).CheckMesh(len(nodes), opt.Slots); err != nil {
		return nil, fmt.Errorf("trace: OnSocMax: %w", err)
	}
	capacity := make([]float64, len(nodes)*opt.Slots)
	hours := float64(opt.SlotSeconds) / 3600
	for i, ni := range nodes {
		for t := range opt.Slots {
			capacity[i*opt.Slots+t] = opt.CapacityScale * float64(tr.Nodes[ni].CPUMilli) / CPUUnitMilli * hours
		}
	}
	m, err := bipartite.NewMesh(len(nodes), opt.Slots, capacity)
	if err != nil {
		return nil, err
	}
	start := first + day*window // <= last: day < nwin
	inst := &OnSocMaxInstance{Instance: &onsocmax.Instance{Mesh: m}, Nodes: nodes, Day: int(day) + 1}
	var fit []int
	totalUnits := 0
	for pi, p := range pods {
		if p.Creation < start || p.Creation-start >= window {
			continue
		}
		if opt.MaxJobs > 0 && len(inst.Pods) == opt.MaxJobs {
			break
		}
		fit = fit[:0]
		for i, ni := range nodes {
			if p.Shape().Fits(tr.Nodes[ni]) {
				fit = append(fit, i)
			}
		}
		// Draw the job's parameters whether or not it is kept, so that the
		// kept jobs do not depend on the node sample's fit.
		a := 1 + 2*rng.Float64()
		if len(fit) == 0 {
			continue
		}
		arr := int((p.Creation - start) / opt.SlotSeconds)
		dl := min(int((p.Deletion-start)/opt.SlotSeconds), opt.Slots-1)
		cores := math.Max(1, float64(p.CPUMilli)/CPUUnitMilli)
		units, err := m.Available(nil, fit, arr, dl)
		if err != nil {
			return nil, err
		}
		totalUnits += len(units)
		if totalUnits > lim.MaxCells {
			return nil, fmt.Errorf("%w: OnSocMax: the jobs up to pod %d (%q) use %d resource units in all, limit MaxCells = %d", ErrTooLarge, pi, p.Name, totalUnits, lim.MaxCells)
		}
		u, err := utility.New(utility.Linear, a)
		if err != nil {
			return nil, err
		}
		j := onsocmax.Job{ID: len(inst.Instance.Jobs), Arrival: arr, Deadline: dl,
			Rho: cores * float64(p.Duration()) / 3600, Units: units, XBar: make([]float64, len(units)),
			Beta: make([]float64, len(units)), Utility: make([]utility.Utility, len(units))}
		for q := range units {
			j.XBar[q] = cores * hours
			j.Beta[q] = 0.1 + 0.4*rng.Float64()
			j.Utility[q] = u
		}
		inst.Instance.Jobs = append(inst.Instance.Jobs, j)
		inst.Pods = append(inst.Pods, pi)
	}
	if len(inst.Instance.Jobs) == 0 {
		return nil, fmt.Errorf("%w: no job of window %d fits the sampled nodes", ErrEmpty, day+1)
	}
	if err := inst.Instance.Validate(); err != nil {
		return nil, err
	}
	return inst, nil
}
