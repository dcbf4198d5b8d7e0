package trace

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// Shape is a pod's resource request, the key that groups pods into job
// types (ports): CPU and memory, the total GPU share, and the GPU model
// constraint.
type Shape struct {
	CPUMilli  int64
	MemoryMiB int64
	GPUMilli  int64    // NumGPU*GPUMilli: thousandths of a GPU in all
	NumGPU    int      // GPUs the share is spread over
	Spec      []string // allowed GPU models; empty means any
}

// Shape returns the pod's resource shape.
func (p Pod) Shape() Shape {
	return Shape{CPUMilli: p.CPUMilli, MemoryMiB: p.MemoryMiB, GPUMilli: int64(p.NumGPU) * int64(p.GPUMilli), NumGPU: p.NumGPU, Spec: p.GPUSpec}
}

func compareShape(a, b Shape) int {
	return cmp.Or(cmp.Compare(a.CPUMilli, b.CPUMilli), cmp.Compare(a.MemoryMiB, b.MemoryMiB),
		cmp.Compare(a.GPUMilli, b.GPUMilli), cmp.Compare(a.NumGPU, b.NumGPU), slices.Compare(a.Spec, b.Spec))
}

// Fits reports whether one pod of shape s fits on an empty node n: enough
// CPU and memory, enough GPUs (a fractional share needs one GPU, NumGPU
// GPUs need NumGPU), and an allowed GPU model.
func (s Shape) Fits(n Node) bool {
	if s.CPUMilli > n.CPUMilli || s.MemoryMiB > n.MemoryMiB {
		return false
	}
	if s.GPUMilli == 0 {
		return true
	}
	if n.GPU < s.NumGPU {
		return false
	}
	if len(s.Spec) == 0 {
		return true
	}
	return slices.Contains(s.Spec, n.Model)
}

// JobType is a group of pods with the same shape.
type JobType struct {
	Shape
	Pods []int // indices into the pod list, in file order
}

// JobTypes groups pods by shape, most frequent first (ties broken by the
// shape's order: CPU, memory, GPU, model list), and keeps the first n
// (all if n <= 0). The result depends only on the pods.
func JobTypes(pods []Pod, n int) []JobType {
	idx := make([]int, len(pods))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return compareShape(pods[a].Shape(), pods[b].Shape()) })
	var types []JobType
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && compareShape(pods[idx[i]].Shape(), pods[idx[j]].Shape()) == 0 {
			j++
		}
		members := slices.Clone(idx[i:j])
		slices.Sort(members)
		types = append(types, JobType{Shape: pods[idx[i]].Shape(), Pods: members})
		i = j
	}
	slices.SortStableFunc(types, func(a, b JobType) int { return cmp.Compare(len(b.Pods), len(a.Pods)) })
	if n > 0 && n < len(types) {
		types = types[:n]
	}
	return types
}

// SampleNodes returns n distinct node indices drawn uniformly with rng,
// in increasing order (all nodes if n <= 0 or n >= len(nodes)). rng is
// used only when a sample is drawn; a nil rng then means a fixed seed
// (rand.NewPCG(0, 0)) rather than a panic.
func SampleNodes(nodes []Node, n int, rng *rand.Rand) []int {
	if n <= 0 || n >= len(nodes) {
		out := make([]int, len(nodes))
		for i := range out {
			out[i] = i
		}
		return out
	}
	if rng == nil {
		rng = rand.New(rand.NewPCG(0, 0))
	}
	perm := rng.Perm(len(nodes))[:n]
	slices.Sort(perm)
	return perm
}

// CreationSpan returns the first and last creation time of pods with
// times; ok is false when no pod has times.
func CreationSpan(pods []Pod) (first, last int64, ok bool) {
	for _, p := range pods {
		if !p.HasTimes {
			continue
		}
		if !ok || p.Creation < first {
			first = p.Creation
		}
		if !ok || p.Creation > last {
			last = p.Creation
		}
		ok = true
	}
	return first, last, ok
}
