package ocorp

import (
	"fmt"
	"math"
	"slices"
)

// Packer turns per-job core targets into integral placements on machines:
// the rate step of Lemma 1 (eq. (22)) followed by the packing rule of
// Section IV-A ("servers from the largest capacity to the smallest; for each
// server the unassigned jobs with the largest CPU demands, as long as they
// fit"). Jobs that fit on no server whole are split over the servers with
// free cores (Remark 1). It holds all buffers, so a slot allocates nothing
// once they have grown. Not safe for concurrent use.
//
// A slot is: Reset, then any of Pack, Fill and Knapsack, then Placements.
type Packer struct {
	ms    []Machine
	byCap []int // machines by capacity, largest first (ties by index)
	maxC  int
	// capMem[k] is the largest memory of machines byCap[0..k] (FirstFit's
	// test of whether a job could fit whole on an empty machine).
	capMem []int

	jobs         []ActiveJob
	freeC, freeM []int
	place        []Placement // Job = index into jobs
	byID         []Placement // Placements: Job = ID
	ids          map[int]struct{}
	got          []int // cores placed per obs job
	headP, nextP []int // placements of each job (linked)
	target       []int
	// buckets of priority positions by distinct target (vals), doubly linked
	vals, bHead, lNext, lPrev []int
	stamp                     []int
	tok                       int
	open                      []int // machines with free cores, byCap order
	headM, nextM              []int
	kv                        []float64
	kw                        []int
	kz                        []bool
	kidx                      []int
}

// NewPacker returns a packer for the machines. Its memory is O(machines)
// plus O(jobs) per slot, whatever the machines' core counts.
func NewPacker(ms []Machine) (*Packer, error) {
	if err := ValidateMachines(ms); err != nil {
		return nil, err
	}
	p := &Packer{ms: append([]Machine(nil), ms...), ids: map[int]struct{}{}}
	p.byCap = make([]int, len(ms))
	for i := range p.byCap {
		p.byCap[i] = i
		p.maxC = max(p.maxC, ms[i].Cores)
	}
	slices.SortStableFunc(p.byCap, func(a, b int) int { return ms[b].Cores - ms[a].Cores })
	p.capMem = make([]int, len(ms))
	for k, i := range p.byCap {
		p.capMem[k] = ms[i].Memory
		if k > 0 {
			p.capMem[k] = max(p.capMem[k], p.capMem[k-1])
		}
	}
	p.freeC = make([]int, len(ms))
	p.freeM = make([]int, len(ms))
	p.stamp = make([]int, len(ms))
	p.headM = make([]int, len(ms))
	p.open = make([]int, 0, len(ms))
	return p, nil
}

// Machines returns the packer's machines (do not modify).
func (p *Packer) Machines() []Machine { return p.ms }

// Reset starts a slot for the given jobs with all machines free. It
// returns an error wrapping ErrValue if two jobs share an ID (decisions
// name jobs by ID), and the packer then holds no jobs.
func (p *Packer) Reset(jobs []ActiveJob) error {
	clear(p.ids)
	for k, a := range jobs {
		if _, dup := p.ids[a.ID]; dup {
			p.jobs = nil
			return fmt.Errorf("%w: job %d: duplicate id %d", ErrValue, k, a.ID)
		}
		p.ids[a.ID] = struct{}{}
	}
	p.jobs = jobs
	for i, m := range p.ms {
		p.freeC[i], p.freeM[i] = m.Cores, m.Memory
	}
	p.place = p.place[:0]
	n := len(jobs)
	p.got = grow(p.got, n)
	p.headP = grow(p.headP, n)
	p.target = grow(p.target, n)
	clear(p.got)
	for j := range p.headP {
		p.headP[j] = -1
	}
	return nil
}

// Placements returns the placements made since Reset, naming jobs by
// ActiveJob.ID. The slice is owned by the packer and valid until its next
// call. (The other methods name jobs by their index in the jobs given to
// Reset.)
func (p *Packer) Placements() []Placement {
	p.byID = append(p.byID[:0], p.place...)
	for e := range p.byID {
		p.byID[e].Job = p.jobs[p.byID[e].Job].ID
	}
	return p.byID
}

// Free returns the free cores and memory of machine i in the current slot
// (memory may be negative after Pack with ignoreMemory).
func (p *Packer) Free(i int) (cores, memory int) { return p.freeC[i], p.freeM[i] }

// Got returns the cores placed per job since Reset (owned by the packer).
func (p *Packer) Got() []int { return p.got }

func (p *Packer) put(j, i, c int, ignoreMemory bool) {
	p.nextP = append(p.nextP[:len(p.place)], p.headP[j])
	p.headP[j] = len(p.place)
	p.place = append(p.place, Placement{Job: j, Machine: i, Cores: c, Admit: true})
	p.freeC[i] -= c
	p.freeM[i] = subSat(p.freeM[i], p.jobs[j].Memory)
	p.got[j] += c
}

// subSat returns a - b for b >= 0, saturated at math.MinInt: with
// ignoreMemory a machine's free memory may go far below zero.
func subSat(a, b int) int {
	if a < math.MinInt+b {
		return math.MinInt
	}
	return a - b
}

func (p *Packer) memOK(j, i int, ignoreMemory bool) bool {
	return ignoreMemory || p.jobs[j].Memory <= p.freeM[i]
}

// Pack allocates cores to the jobs in priority order (indices into the
// jobs given to Reset), job j wanting want[j] cores in all at most
// (want has one entry per job; a want above the job's demand d_j counts
// as d_j, in Pack, Fill and FirstFit alike, as in Add). First the rate step of Lemma 1: walking the
// priority list, each job gets min(want, cores left in the cluster) as its
// target until the cluster's free cores are used up. Then the targets are
// packed largest first onto servers taken largest first; targets that fit
// no single server (memory or fragmentation) are split over servers with
// free cores in priority order; finally any cores still free go to the
// remaining jobs in priority order (Fill). With ignoreMemory the memory
// constraint (4c) is not enforced (the x step of Algorithm 1 with z = 1).
// It panics if len(want) differs from the number of jobs or priority
// holds an index out of range (programmer errors: the policies build both
// from the observation).
func (p *Packer) Pack(priority, want []int, ignoreMemory bool) {
	if len(want) != len(p.jobs) {
		panic("ocorp: len(want) != number of jobs")
	}
	total := 0
	for _, c := range p.freeC {
		total += c
	}
	used, cut := 0, 0
	for k, j := range priority {
		if used >= total {
			break
		}
		t := min(p.wants(j, want)-p.got[j], total-used)
		p.target[j] = max(t, 0)
		used += p.target[j]
		cut = k + 1
	}
	// Buckets of priority positions by target, in priority order. A
	// bucket per distinct target value (vals, ascending), not per core, so
	// memory is proportional to the jobs whatever the machines' sizes.
	p.vals = p.vals[:0]
	for k := 0; k < cut; k++ {
		if t := p.target[priority[k]]; t > 0 && t <= p.maxC {
			p.vals = append(p.vals, t)
		}
	}
	slices.Sort(p.vals)
	p.vals = slices.Compact(p.vals)
	p.bHead = grow(p.bHead, len(p.vals))
	for r := range p.bHead {
		p.bHead[r] = -1
	}
	p.lNext = grow(p.lNext, cut)
	p.lPrev = grow(p.lPrev, cut)
	for k := cut - 1; k >= 0; k-- {
		t := p.target[priority[k]]
		if t <= 0 || t > p.maxC {
			continue
		}
		r, _ := slices.BinarySearch(p.vals, t)
		h := p.bHead[r]
		p.lNext[k], p.lPrev[k] = h, -1
		if h >= 0 {
			p.lPrev[h] = k
		}
		p.bHead[r] = k
	}
	// below returns the largest rank whose target is <= f (-1 if none).
	below := func(f int) int {
		r, found := slices.BinarySearch(p.vals, f)
		if found {
			return r
		}
		return r - 1
	}
	for _, i := range p.byCap {
		F := p.freeC[i]
		// Targets u <= F in descending order, as the loop
		// u = min(F, maxC), ..., 1 over every core count would.
		for r := below(F); r >= 0; r = min(r-1, below(F)) {
			u := p.vals[r]
			for e := p.bHead[r]; e >= 0 && F >= u; {
				nx := p.lNext[e]
				j := priority[e]
				if p.memOK(j, i, ignoreMemory) {
					p.put(j, i, u, ignoreMemory)
					F -= u
					// unlink e from bucket r
					if p.lPrev[e] >= 0 {
						p.lNext[p.lPrev[e]] = nx
					} else {
						p.bHead[r] = nx
					}
					if nx >= 0 {
						p.lPrev[nx] = p.lPrev[e]
					}
				}
				e = nx
			}
		}
	}
	p.Fill(priority, want, ignoreMemory)
}

// Fill gives free cores to the jobs in priority order, each job up to
// want[j] cores in total, splitting it over servers (largest first) that
// have free cores and enough free memory (unless ignoreMemory) and do not
// already hold it.
func (p *Packer) Fill(priority, want []int, ignoreMemory bool) {
	p.open = p.open[:0]
	for _, i := range p.byCap {
		if p.freeC[i] > 0 {
			p.open = append(p.open, i)
		}
	}
	for _, j := range priority {
		if len(p.open) == 0 {
			return
		}
		need := p.wants(j, want) - p.got[j]
		if need <= 0 {
			continue
		}
		p.tok++
		for e := p.headP[j]; e >= 0; e = p.nextP[e] {
			p.stamp[p.place[e].Machine] = p.tok
		}
		w := 0
		for _, i := range p.open {
			if need > 0 && p.stamp[i] != p.tok && p.memOK(j, i, ignoreMemory) {
				c := min(need, p.freeC[i])
				p.put(j, i, c, ignoreMemory)
				need -= c
			}
			if p.freeC[i] > 0 {
				p.open[w] = i
				w++
			}
		}
		p.open = p.open[:w]
	}
}

// Knapsack is the z step of Algorithm 1 (eq. (12), (15)): on every machine
// whose placed jobs exceed its memory, it keeps the subset of placements
// maximising sum gain[j] * u_j^i / d_j subject to sum m_j <= M_i, solved
// exactly by ks, and removes the others (their cores become free again:
// with z = 0 they would do no work). gain has one entry per job (-c_j of
// the Lagrangian (9), >= 0 for jobs worth running). It returns the number
// of placements removed.
func (p *Packer) Knapsack(ks *KnapsackDP, gain []float64) int {
	if len(gain) != len(p.jobs) {
		panic("ocorp: len(gain) != number of jobs")
	}
	for i := range p.headM {
		p.headM[i] = -1
	}
	p.nextM = grow(p.nextM, len(p.place))
	over := false
	for e := range p.place {
		i := p.place[e].Machine
		p.nextM[e] = p.headM[i]
		p.headM[i] = e
		if p.freeM[i] < 0 {
			over = true
		}
	}
	if !over {
		return 0
	}
	removed := 0
	for i, m := range p.ms {
		if p.freeM[i] >= 0 {
			continue
		}
		p.kv, p.kw, p.kz, p.kidx = p.kv[:0], p.kw[:0], p.kz[:0], p.kidx[:0]
		for e := p.headM[i]; e >= 0; e = p.nextM[e] {
			pl := p.place[e]
			jb := &p.jobs[pl.Job]
			p.kv = append(p.kv, gain[pl.Job]*float64(pl.Cores)/float64(jb.Cores))
			p.kw = append(p.kw, jb.Memory)
			p.kz = append(p.kz, false)
			p.kidx = append(p.kidx, e)
		}
		ks.Solve(p.kz, p.kv, p.kw, m.Memory)
		for k, keep := range p.kz {
			if !keep {
				p.place[p.kidx[k]].Cores = 0
				removed++
			}
		}
	}
	// Compact and rebuild the per-job and per-machine state.
	w := 0
	for _, pl := range p.place {
		if pl.Cores > 0 {
			p.place[w] = pl
			w++
		}
	}
	p.place = p.place[:w]
	for i, m := range p.ms {
		p.freeC[i], p.freeM[i] = m.Cores, m.Memory
	}
	clear(p.got)
	for j := range p.headP {
		p.headP[j] = -1
	}
	for e, pl := range p.place {
		p.nextP[e] = p.headP[pl.Job]
		p.headP[pl.Job] = e
		p.freeC[pl.Machine] -= pl.Cores
		p.freeM[pl.Machine] = subSat(p.freeM[pl.Machine], p.jobs[pl.Job].Memory)
		p.got[pl.Job] += pl.Cores
	}
	return removed
}

// Add records an externally decided placement (used by OCORP+ after
// rounding its QP solution, and by Tetris). It returns an error if the
// placement would break (4b) or (4d) or repeats a (job, machine) pair.
// Memory (4c) is not checked: check Free first, or run Knapsack after.
func (p *Packer) Add(j, i, c int) error {
	if j < 0 || j >= len(p.jobs) || i < 0 || i >= len(p.ms) || c < 1 || c > p.freeC[i] || c > p.jobs[j].Cores-p.got[j] {
		return fmt.Errorf("%w: add job %d machine %d cores %d", ErrInfeasible, j, i, c)
	}
	for e := p.headP[j]; e >= 0; e = p.nextP[e] {
		if p.place[e].Machine == i {
			return fmt.Errorf("%w: job %d already on machine %d", ErrInfeasible, j, i)
		}
	}
	p.put(j, i, c, true)
	return nil
}

// mustReset is Reset for jobs whose IDs the caller has checked (the dual
// policies reject duplicates in begin, before changing any state).
func mustReset(p *Packer, jobs []ActiveJob) {
	if err := p.Reset(jobs); err != nil {
		panic("ocorp: " + err.Error())
	}
}

// FirstFit places the jobs in priority order (indices into the jobs given
// to Reset), each whole: job j takes want[j] cores (less what it already
// got) on the first machine, largest cores first (ties by index), that has
// that many free cores and the job's memory free; a job that fits on no
// machine in this slot is skipped and the next one tried. A job that could
// not fit whole even on an empty machine (want[j] above the cores of every
// machine whose memory holds it) is split over the machines, in the same
// order, that have free cores and its memory free (Remark 1). Memory (4c)
// is always respected, so Knapsack has nothing to drop afterwards. It
// panics if len(want) differs from the number of jobs or priority holds an
// index out of range (programmer errors).
func (p *Packer) FirstFit(priority, want []int) {
	if len(want) != len(p.jobs) {
		panic("ocorp: len(want) != number of jobs")
	}
	free := 0
	for _, c := range p.freeC {
		free += c
	}
	// maxC and maxM bound the free cores and memory of every machine: free
	// resources only shrink here, so a job above either bound cannot fit
	// now and is skipped without a scan. A scan that fits nothing tightens
	// them to the exact maxima.
	maxC, maxM := math.MaxInt, math.MaxInt
	for _, j := range priority {
		if free == 0 {
			return
		}
		u, m := p.wants(j, want)-p.got[j], p.jobs[j].Memory
		if u <= 0 {
			continue
		}
		if u <= maxC && m <= maxM {
			placed := false
			mc, mm := 0, math.MinInt
			for _, i := range p.byCap {
				if p.freeC[i] >= u && p.freeM[i] >= m && p.notOn(j, i) {
					p.put(j, i, u, false)
					free -= u
					placed = true
					break
				}
				mc, mm = max(mc, p.freeC[i]), max(mm, p.freeM[i])
			}
			if placed {
				continue
			}
			maxC, maxM = mc, mm
		}
		if p.fitsWhole(u, m) {
			continue
		}
		for _, i := range p.byCap {
			if u > 0 && p.freeC[i] > 0 && p.freeM[i] >= m && p.notOn(j, i) {
				c := min(u, p.freeC[i])
				p.put(j, i, c, false)
				free -= c
				u -= c
			}
		}
	}
}

// wants returns the cores job j may hold in all: want[j], at most its
// demand d_j (the rule of (4b) that Add enforces too: Pack, Fill and
// FirstFit trusted want and could give a job more than d_j cores, issue 30).
func (p *Packer) wants(j int, want []int) int {
	return min(want[j], p.jobs[j].Cores)
}

// notOn reports whether job j has no placement on machine i yet.
func (p *Packer) notOn(j, i int) bool {
	for e := p.headP[j]; e >= 0; e = p.nextP[e] {
		if p.place[e].Machine == i {
			return false
		}
	}
	return true
}

// fitsWhole reports whether some empty machine holds u cores and memory
// m: the machines with at least u cores are a prefix of byCap.
func (p *Packer) fitsWhole(u, m int) bool {
	k, _ := slices.BinarySearchFunc(p.byCap, u, func(i, u int) int {
		if p.ms[i].Cores >= u {
			return -1
		}
		return 1
	})
	return k > 0 && p.capMem[k-1] >= m
}

// Packing is how OCORP+M turns the rates of its x step (11) into
// placements (Settings.Packing).
type Packing int

const (
	// PackPooled (the zero value) is the paper's: Lemma 1's rates on the
	// pooled cluster, packed largest first onto servers largest first with
	// memory ignored (Packer.Pack, z = 1), then the z step's exact knapsack
	// per server (Packer.Knapsack), then the freed cores in omega order
	// (Packer.Fill).
	PackPooled Packing = iota
	// PackFirstFit is server-aware: the jobs in omega order, each placed
	// whole on the first server (largest cores first) that has its cores
	// and its memory free (Packer.FirstFit), then Packer.Fill. Memory is
	// never exceeded, so the z step has nothing to drop.
	PackFirstFit
)

// String returns "pooled" or "first-fit".
func (k Packing) String() string {
	switch k {
	case PackPooled:
		return "pooled"
	case PackFirstFit:
		return "first-fit"
	}
	return fmt.Sprintf("Packing(%d)", int(k))
}
