package trace

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/ocorp"
)

// OCORPSettings configures the OCORP mapping. Zero fields take the defaults
// in brackets.
type OCORPSettings struct {
	SlotSeconds int64 // slot length [600: ten minutes]
	Jobs        int   // the first Jobs scheduled pods by creation [all]
	Machines    int   // nodes sampled uniformly [all]; -1 also means all
	// MaxProcessing caps p_j in slots [0: no cap]. Pods that run to the
	// end of the trace (deletion = trace end) are long-running services,
	// not batch jobs; a cap keeps them from dominating flowtime.
	MaxProcessing int
	Seed          uint64
	// Limits bounds the trace's values and the horizon: every job's
	// arrival + processing, in slots, is at most MaxSlots [Limits{}: the
	// defaults].
	Limits Limits
}

// OCORPInstance is the OCORP view of a trace.
type OCORPInstance struct {
	Jobs     []ocorp.Job
	Machines []ocorp.Machine
	Pods     []int // Jobs[j] comes from the timed pod Pods[j]
	Nodes    []int // Machines[i] is the trace's Nodes[Nodes[i]]
	// Skipped counts pods without a scheduled time (never ran: no p_j);
	// Unfit counts pods whose memory exceeds every sampled machine.
	Skipped, Unfit int
}

// OCORP maps a trace to OCORP jobs and machines: a_j is the creation slot,
// d_j = ceil(cpu_milli/1000) (at least 1), m_j = ceil(memory_mib/4096)
// (4 GiB units), p_j = ceil((deletion - scheduled)/slot) (at least 1,
// capped by MaxProcessing); machines have floor(cpu_milli/1000) cores and
// floor(memory_mib/4096) memory units. GPUs are not a resource of OCORP and
// are ignored. Pods that were never scheduled, and pods whose memory
// exceeds every sampled machine, are skipped and counted.
func OCORP(tr *Trace, opt OCORPSettings) (*OCORPInstance, error) {
	if err := opt.Limits.CheckTrace(tr); err != nil {
		return nil, err
	}
	if err := checkOptions(option{"OCORPSettings.SlotSeconds", opt.SlotSeconds, 0}, option{"OCORPSettings.Jobs", int64(opt.Jobs), 0},
		option{"OCORPSettings.Machines", int64(opt.Machines), -1}, option{"OCORPSettings.MaxProcessing", int64(opt.MaxProcessing), 0}); err != nil {
		return nil, err
	}
	lim := opt.Limits.withDefaults()
	if opt.SlotSeconds <= 0 {
		opt.SlotSeconds = 600
	}
	first, _, ok := CreationSpan(tr.Pods)
	if !ok {
		return nil, fmt.Errorf("%w: %s has no creation times", ErrEmpty, tr.PodFile)
	}
	inst := &OCORPInstance{}
	maxMem := 0
	n := opt.Machines
	if n < 0 {
		n = 0
	}
	for _, ni := range SampleNodes(tr.Nodes, n, rand.New(rand.NewPCG(opt.Seed, 0x0c0))) {
		nd := tr.Nodes[ni]
		m := ocorp.Machine{Cores: int(nd.CPUMilli / CPUUnitMilli), Memory: int(nd.MemoryMiB / MemUnitMiB)}
		if m.Cores < 1 {
			continue // a node without a whole core cannot host a job
		}
		inst.Machines = append(inst.Machines, m)
		inst.Nodes = append(inst.Nodes, ni)
		maxMem = max(maxMem, m.Memory)
	}
	for i, p := range timed(tr.Pods) {
		if p.Scheduled < 0 {
			inst.Skipped++
			continue
		}
		if opt.Jobs > 0 && len(inst.Jobs) == opt.Jobs {
			break
		}
		if ceilDiv(p.MemoryMiB, MemUnitMiB) > int64(maxMem) {
			inst.Unfit++
			continue
		}
		proc := ceilDiv(p.Deletion-p.Scheduled, opt.SlotSeconds)
		if opt.MaxProcessing > 0 {
			proc = min(proc, int64(opt.MaxProcessing))
		}
		arrival := (p.Creation - first) / opt.SlotSeconds
		proc = max(1, proc)
		// Both terms are at most MaxTime: the sum cannot overflow.
		if end := arrival + proc; end > int64(lim.MaxSlots) {
			return nil, fmt.Errorf("%w: OCORP: timed pod %d (%q): arrival + processing = %d + %d slots of %d s, limit MaxSlots = %d (a simulator would step through every slot)",
				ErrTooLarge, i, p.Name, arrival, proc, opt.SlotSeconds, lim.MaxSlots)
		}
		j := ocorp.Job{
			Arrival:    int(arrival),
			Cores:      int(max(1, ceilDiv(p.CPUMilli, CPUUnitMilli))),
			Memory:     int(ceilDiv(p.MemoryMiB, MemUnitMiB)),
			Processing: int(proc),
		}
		inst.Jobs = append(inst.Jobs, j)
		inst.Pods = append(inst.Pods, i)
	}
	switch {
	case len(inst.Machines) == 0:
		return nil, fmt.Errorf("%w: no sampled node has a whole core (cpu_milli >= %d), so no machine", ErrEmpty, CPUUnitMilli)
	case len(inst.Jobs) == 0 && inst.Unfit > 0:
		return nil, fmt.Errorf("%w: none of the %d scheduled pods of %s fits the memory of a sampled machine", ErrEmpty, inst.Unfit, tr.PodFile)
	case len(inst.Jobs) == 0:
		return nil, fmt.Errorf("%w: no scheduled pods in %s", ErrEmpty, tr.PodFile)
	}
	if err := ocorp.ValidateJobs(inst.Jobs); err != nil {
		return nil, err
	}
	if err := ocorp.ValidateMachines(inst.Machines); err != nil {
		return nil, err
	}
	return inst, nil
}

// ceilDiv returns ceil(a/b) for a >= 0, b > 0 without the overflow of
// (a+b-1)/b near MaxInt64.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}
