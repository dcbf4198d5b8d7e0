package gpushare

import (
	"math"
	"math/rand/v2"
)

// MaxNodeScore is kube-scheduler's maximum node score.
const MaxNodeScore = 100

// FGD's normalisation constants (open-gpu-share MaxSpecCpu, MaxSpecGpu).
const (
	MaxSpecCPU = 128000
	MaxSpecGPU = 8000
)

// Scorer scores one feasible node for one pod and names the GPU set the
// pod would take there. Score is called only on nodes where n.Fits(r).
// The GPU set returned may be shared with other calls: read it, copy it,
// never write to it.
// Normalize reports whether kube-scheduler min-max normalises the scores
// of one cycle (FGD's NormalizeScore) before the node is chosen.
type Scorer interface {
	Name() string
	Score(n *Node, r Request) (score int64, ids []int)
	Normalize() bool
}

// Policies are the scorer names NewScorer knows, in table order.
var Policies = []string{"FGD", "BestFit", "DotProd", "GpuPacking", "GpuClustering", "Random", "LeastAllocated", "MostAllocated"}

// NewScorer returns the scorer name (one of Policies); w is FGD's target
// workload (FGD only), rng the random source (Random only, its GPU choice).
// It returns nil for an unknown name.
func NewScorer(name string, w *Workload, rng *rand.Rand) Scorer {
	switch name {
	case "FGD":
		return &FGD{W: func() *Workload { return w }, Cache: true, Memo: NewFragMemo()}
	case "BestFit":
		return simple{name, bestFit, true}
	case "DotProd":
		return simple{name, dotProd, false}
	case "GpuPacking":
		return simple{name, gpuPacking, false}
	case "GpuClustering":
		return simple{name, gpuClustering, false}
	case "Random":
		return &random{rng: rng}
	case "LeastAllocated":
		return simple{name, leastAllocated, false}
	case "MostAllocated":
		return simple{name, mostAllocated, false}
	}
	return nil
}

type simple struct {
	name string
	f    func(n *Node, r Request) int64
	norm bool
}

func (s simple) Name() string    { return s.name }
func (s simple) Normalize() bool { return s.norm }
func (s simple) Score(n *Node, r Request) (int64, []int) {
	return s.f(n, r), BestFitIDs(n, r)
}

// BestFitIDs is the GPU choice of every scorer but FGD and Random (FGD's
// gpuSelMethod "best"): a sharing pod takes the fitting GPU with the least
// free milli, a whole-GPU pod the first wholly free GPUs.
func BestFitIDs(n *Node, r Request) []int {
	if r.GPUCount == 0 {
		return nil
	}
	if r.Shares() {
		if id := n.BestFitID(r); id >= 0 {
			return oneID(id)
		}
		return nil
	}
	return n.WholeIDs(r)
}

// idTable backs the one-GPU sets the scorers return without allocating.
var idTable = func() (t [MaxGPUs]int) {
	for i := range t {
		t[i] = i
	}
	return t
}()

// oneID returns []int{id}, shared: full capacity 1, so an append copies,
// but a caller must not write to it (the Scorer contract).
func oneID(id int) []int { return idTable[id : id+1 : id+1] }

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// FGD is the fragmentation-gradient-descent scorer (Weng et al., ATC'23):
// int(sigmoid((F_before − F_after)/1000) × 100) with F = FragAmount over
// the target workload W() (fixed, or learned online); a sharing pod takes
// the GPU with the best score (lowest id on ties), other pods the first
// wholly free GPUs.
type FGD struct {
	W     func() *Workload
	Label string // Name(); "FGD" when empty
	// Cache keeps each node's F_before (by Node pointer and Version):
	// then a Node must change only through Assign and Release, and the
	// FGD is not safe for concurrent use. Without it Score only reads.
	Cache bool
	// Memo, when not nil, memoises the fragmentation of F_before and of
	// every F_after by the node's canonical state (FragMemo; the same
	// bits as the direct computation). It may be shared by FGD scorers
	// used concurrently.
	Memo *FragMemo

	// cache of F_before by node: valid while the node's Version and the
	// workload are unchanged.
	cache map[*Node]fragCache
}

type fragCache struct {
	version uint64
	w       *Workload
	f       float64
}

// maxFragCache bounds the cache (it is dropped when full).
const maxFragCache = 1 << 16

func (f *FGD) before(n *Node, w *Workload) float64 {
	if !f.Cache {
		return f.Memo.FragAmount(n, w)
	}
	if c, ok := f.cache[n]; ok && c.version == n.Version && c.w == w {
		return c.f
	}
	if f.cache == nil || len(f.cache) >= maxFragCache {
		f.cache = map[*Node]fragCache{}
	}
	v := f.Memo.FragAmount(n, w)
	f.cache[n] = fragCache{n.Version, w, v}
	return v
}

// Name implements Scorer.
func (f *FGD) Name() string {
	if f.Label != "" {
		return f.Label
	}
	return "FGD"
}

// Normalize implements Scorer (FGD has no NormalizeScore).
func (f *FGD) Normalize() bool { return false }

// Score implements Scorer.
func (f *FGD) Score(n *Node, r Request) (int64, []int) {
	w := f.W()
	before := f.before(n, w)
	var gpus [MaxGPUs]int64
	c := gpus[:len(n.GPUs)]
	after := func(ids []int) float64 {
		copy(c, n.GPUs)
		for _, id := range ids {
			c[id] -= r.GPUMilli
		}
		// FragAmount reads only the model, the free CPU and the GPUs.
		return f.Memo.frag(n.Model, n.CPUMilli-r.CPUMilli, c, w)
	}
	score := func(a float64) int64 { return int64(sigmoid((before-a)/1000) * MaxNodeScore) }
	if r.Shares() {
		best, bestID := int64(0), -1
		var triedG [MaxGPUs]int64
		var triedS [MaxGPUs]int64
		nt := 0
		var one [1]int
		for i, g := range n.GPUs {
			if g < r.GPUMilli {
				continue
			}
			s, ok := int64(0), false
			for k := range nt {
				if triedG[k] == g {
					s, ok = triedS[k], true
					break
				}
			}
			if !ok {
				one[0] = i
				s = score(after(one[:]))
				triedG[nt], triedS[nt] = g, s
				nt++
			}
			if bestID < 0 || s > best {
				best, bestID = s, i
			}
		}
		if bestID < 0 {
			return 0, nil
		}
		return best, oneID(bestID)
	}
	ids := n.WholeIDs(r)
	if r.GPUCount > 0 && ids == nil {
		return 0, nil
	}
	return score(after(ids)), ids
}

// bestFit is FGD's BestFit: 100 × (1 − Σ_k ½ (free_k − req_k)/maxSpec_k)
// over CPU and GPU milli, truncated; NormalizeScore follows.
func bestFit(n *Node, r Request) int64 {
	s := 0.5*float64(n.CPUMilli-r.CPUMilli)/MaxSpecCPU + 0.5*float64(n.FreeGPUMilli()-r.TotalGPUMilli())/MaxSpecGPU
	return int64((1 - s) * MaxNodeScore)
}

// dotProd is Tetris' alignment in FGD's DotProd with dimExt "merge" and
// norm "max", as msched reads it: the node's free (CPU, GPU milli) and the
// pod's request, each over (MaxSpecCPU, MaxSpecGPU); score 100 × (1 − the
// dot product / 2), higher for a smaller product (the pod goes where the
// free vector is least aligned with it, i.e. tight nodes).
func dotProd(n *Node, r Request) int64 {
	d := float64(n.CPUMilli)/MaxSpecCPU*float64(r.CPUMilli)/MaxSpecCPU +
		float64(n.FreeGPUMilli())/MaxSpecGPU*float64(r.TotalGPUMilli())/MaxSpecGPU
	return int64((1 - d/2) * MaxNodeScore)
}

// gpuPacking is FGD's GpuPacking: CPU pods 0; a node with all GPUs free
// max(33 − free, free); a pod that must use wholly free GPUs of a used
// node max(50 − their number, 33); a pod fitting on used GPUs (best fit
// order) max(100 − Σ their free % / 10, 50).
func gpuPacking(n *Node, r Request) int64 {
	if r.GPUCount == 0 {
		return 0
	}
	whole := n.WholeFree()
	if whole == len(n.GPUs) {
		return max(MaxNodeScore/3-int64(whole), int64(whole))
	}
	order := sortedByFree(n)
	need := r.GPUCount
	wholeUsed := 0
	var pct int64
	for _, i := range order {
		if need == 0 {
			break
		}
		if g := n.GPUs[i]; g >= r.GPUMilli {
			need--
			pct += g * 100 / Milli
			if g == Milli {
				wholeUsed++
			}
		}
	}
	if wholeUsed > 0 {
		return max(MaxNodeScore/2-int64(wholeUsed), MaxNodeScore/3)
	}
	return max(MaxNodeScore-pct/10, MaxNodeScore/2)
}

// sortedByFree returns the GPU ids by free milli, increasing (stable).
func sortedByFree(n *Node) []int {
	ids := make([]int, len(n.GPUs))
	for i := range ids {
		ids[i] = i
	}
	// insertion sort: at most MaxGPUs entries
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && n.GPUs[ids[j]] < n.GPUs[ids[j-1]]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

// Tag is a pod's GPU affinity in FGD's GpuClustering: "no-gpu",
// "share-gpu" or "<n>-gpu".
func Tag(r Request) string {
	switch {
	case r.GPUCount == 0:
		return "no-gpu"
	case r.Shares():
		return "share-gpu"
	}
	return itoa(r.GPUCount) + "-gpu"
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// gpuClustering is FGD's GpuClustering: CPU pods 0; else 25 × (8000 −
// free GPU milli)/8000 plus 75 on a node holding only pods of the pod's
// tag, 50 on one holding that tag among others, 25 on a node without GPU
// pods, 0 otherwise.
func gpuClustering(n *Node, r Request) int64 {
	if r.GPUCount == 0 {
		return 0
	}
	base := int64(MaxNodeScore/4) * (MaxSpecGPU - n.FreeGPUMilli()) / MaxSpecGPU
	t := Tag(r)
	switch {
	case n.Tags[t] > 0 && len(n.Tags) == 1:
		return base + MaxNodeScore*3/4
	case n.Tags[t] > 0:
		return base + MaxNodeScore*2/4
	case len(n.Tags) == 0:
		return base + MaxNodeScore/4
	}
	return base
}

// leastAllocated and mostAllocated are NodeResourcesFit's strategies over
// CPU, memory and GPU milli (weight 1 each) on the node's capacity after
// the pod, as kube-scheduler computes them (integer per resource, then
// the weighted mean).
func leastAllocated(n *Node, r Request) int64 { return fitScore(n, r, false) }
func mostAllocated(n *Node, r Request) int64  { return fitScore(n, r, true) }

func fitScore(n *Node, r Request, most bool) int64 {
	var sum, w int64
	add := func(cap, used int64) {
		if cap <= 0 {
			return
		}
		w++
		if most {
			sum += used * MaxNodeScore / cap
		} else {
			sum += (cap - used) * MaxNodeScore / cap
		}
	}
	add(n.CapCPU, n.CapCPU-n.CPUMilli+r.CPUMilli)
	add(n.CapMemory, n.CapMemory-n.MemoryMiB+r.MemoryMiB)
	add(int64(len(n.GPUs))*Milli, int64(len(n.GPUs))*Milli-n.FreeGPUMilli()+r.TotalGPUMilli())
	if w == 0 {
		return 0
	}
	return sum / w
}

type random struct{ rng *rand.Rand }

func (random) Name() string    { return "Random" }
func (random) Normalize() bool { return false }

// Score gives every node the same score: the replay's Random picks a
// feasible node uniformly (FGD's Random scores one random node 100 and
// the rest 0). The GPU of a sharing pod is uniform among the fitting ones.
func (s *random) Score(n *Node, r Request) (int64, []int) {
	if !r.Shares() {
		return 0, n.WholeIDs(r)
	}
	id, c := -1, 0
	for i, g := range n.GPUs {
		if g >= r.GPUMilli {
			c++
			if s.rng.IntN(c) == 0 {
				id = i
			}
		}
	}
	if id < 0 {
		return 0, nil
	}
	return 0, oneID(id)
}
