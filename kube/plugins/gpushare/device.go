package gpushare

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Milli is one whole GPU in thousandths.
const Milli = 1000

// Limits of the device model: a node has at most MaxGPUs GPUs, a pod asks
// for at most MaxGPUs of them; CPU and memory are bounded by MaxResource
// (milli-CPU, MiB). Larger declared sizes are refused with ErrRequest or
// ErrNode before anything is allocated.
const (
	MaxGPUs     = 64
	MaxResource = int64(1) << 40
)

var (
	// ErrRequest reports a pod request the device model refuses (negative
	// or too large values, a multi-GPU share, a GPU count past MaxGPUs).
	ErrRequest = errors.New("gpushare: invalid request")
	// ErrNode reports a node the device model refuses.
	ErrNode = errors.New("gpushare: invalid node")
	// ErrAnnotation reports a GPU-index annotation that does not name a
	// valid GPU set for the pod on its node.
	ErrAnnotation = errors.New("gpushare: invalid gpu-index annotation")
)

// Request is one pod's demand in the device model: CPU in milli-cores,
// memory in MiB, GPUCount GPUs of GPUMilli thousandths each (a sharing
// pod has GPUCount 1 and GPUMilli < 1000; a whole-GPU pod has GPUMilli
// 1000) and the GPU models it accepts (empty: any).
type Request struct {
	CPUMilli  int64
	MemoryMiB int64
	GPUCount  int
	GPUMilli  int64
	Models    []string
}

// Check validates the request against the limits of the model.
func (r Request) Check() error {
	switch {
	case r.CPUMilli < 0 || r.CPUMilli > MaxResource:
		return fmt.Errorf("%w: cpu milli %d outside [0, %d]", ErrRequest, r.CPUMilli, MaxResource)
	case r.MemoryMiB < 0 || r.MemoryMiB > MaxResource:
		return fmt.Errorf("%w: memory MiB %d outside [0, %d]", ErrRequest, r.MemoryMiB, MaxResource)
	case r.GPUCount < 0 || r.GPUCount > MaxGPUs:
		return fmt.Errorf("%w: gpu count %d outside [0, %d]", ErrRequest, r.GPUCount, MaxGPUs)
	case r.GPUMilli < 0 || r.GPUMilli > Milli:
		return fmt.Errorf("%w: gpu milli %d outside [0, %d]", ErrRequest, r.GPUMilli, Milli)
	case r.GPUCount > 1 && r.GPUMilli != Milli:
		return fmt.Errorf("%w: %d GPUs of %d milli: a multi-GPU pod takes whole GPUs (milli %d)", ErrRequest, r.GPUCount, r.GPUMilli, Milli)
	case (r.GPUCount == 0) != (r.GPUMilli == 0):
		return fmt.Errorf("%w: gpu count %d with gpu milli %d: both or neither must be zero", ErrRequest, r.GPUCount, r.GPUMilli)
	}
	return nil
}

// Shares reports whether the pod shares one GPU (one GPU, under 1000
// milli).
func (r Request) Shares() bool { return r.GPUCount == 1 && r.GPUMilli < Milli }

// TotalGPUMilli is GPUCount × GPUMilli.
func (r Request) TotalGPUMilli() int64 { return int64(r.GPUCount) * r.GPUMilli }

// Allows reports whether the pod accepts GPU model m. A pod without GPUs
// or without models accepts any node; a GPU pod never runs on a node
// without a model (a CPU node).
func (r Request) Allows(m string) bool {
	if r.GPUCount == 0 || len(r.Models) == 0 {
		return true
	}
	return m != "" && slices.Contains(r.Models, m)
}

// Node is one node's free resources in the device model: free CPU and
// memory, and each GPU's free milli (index = GPU id on the node).
type Node struct {
	Name      string
	Model     string
	CPUMilli  int64 // free
	MemoryMiB int64 // free
	GPUs      []int64

	CapCPU    int64          // allocatable CPU milli
	CapMemory int64          // allocatable memory MiB
	Tags      map[string]int // GPU pods on the node by Tag (GpuClustering)

	// Version counts the node's changes (Assign, Release), so that scorers
	// can cache what depends on its state.
	Version uint64
}

// NewNode returns an empty node with gpus whole GPUs of model.
func NewNode(name, model string, cpuMilli, memoryMiB int64, gpus int) (*Node, error) {
	switch {
	case cpuMilli < 0 || cpuMilli > MaxResource:
		return nil, fmt.Errorf("%w: node %q cpu milli %d outside [0, %d]", ErrNode, name, cpuMilli, MaxResource)
	case memoryMiB < 0 || memoryMiB > MaxResource:
		return nil, fmt.Errorf("%w: node %q memory MiB %d outside [0, %d]", ErrNode, name, memoryMiB, MaxResource)
	case gpus < 0 || gpus > MaxGPUs:
		return nil, fmt.Errorf("%w: node %q gpu count %d outside [0, %d]", ErrNode, name, gpus, MaxGPUs)
	}
	n := &Node{Name: name, Model: model, CPUMilli: cpuMilli, MemoryMiB: memoryMiB, GPUs: make([]int64, gpus),
		CapCPU: cpuMilli, CapMemory: memoryMiB, Tags: map[string]int{}}
	for i := range n.GPUs {
		n.GPUs[i] = Milli
	}
	return n, nil
}

// Clone returns a deep copy.
func (n *Node) Clone() *Node {
	c := *n
	c.GPUs = slices.Clone(n.GPUs)
	c.Tags = make(map[string]int, len(n.Tags))
	for k, v := range n.Tags {
		c.Tags[k] = v
	}
	return &c
}

// FreeGPUMilli is the sum of the GPUs' free milli.
func (n *Node) FreeGPUMilli() int64 {
	var s int64
	for _, g := range n.GPUs {
		s += g
	}
	return s
}

// WholeFree counts the GPUs with all 1000 milli free.
func (n *Node) WholeFree() int {
	c := 0
	for _, g := range n.GPUs {
		if g == Milli {
			c++
		}
	}
	return c
}

// GPUsFit reports whether some GPU set of the node can hold the pod's GPU
// part: GPUCount GPUs each with at least GPUMilli free (FGD's
// CanNodeHostPodOnGpuMemory). A pod without GPUs always fits.
func (n *Node) GPUsFit(r Request) bool {
	if r.GPUCount == 0 {
		return true
	}
	need := r.GPUCount
	for _, g := range n.GPUs {
		if g >= r.GPUMilli {
			need--
			if need == 0 {
				return true
			}
		}
	}
	return false
}

// Fits is the device model's Filter: free CPU and memory suffice, the GPU
// model is accepted and a GPU set fits.
func (n *Node) Fits(r Request) bool {
	return r.CPUMilli <= n.CPUMilli && r.MemoryMiB <= n.MemoryMiB && r.Allows(n.Model) && n.GPUsFit(r)
}

// Assign takes the pod's resources on the GPUs ids (from a GPU chooser);
// it checks that ids is a valid set for the request and changes nothing
// on error.
func (n *Node) Assign(r Request, ids []int) error {
	if err := n.checkIDs(r, ids); err != nil {
		return err
	}
	if r.CPUMilli > n.CPUMilli || r.MemoryMiB > n.MemoryMiB {
		return fmt.Errorf("%w: node %q has cpu %d, memory %d free; pod asks %d, %d", ErrRequest, n.Name, n.CPUMilli, n.MemoryMiB, r.CPUMilli, r.MemoryMiB)
	}
	for _, id := range ids {
		if n.GPUs[id] < r.GPUMilli {
			return fmt.Errorf("%w: node %q GPU %d has %d milli free, pod asks %d", ErrAnnotation, n.Name, id, n.GPUs[id], r.GPUMilli)
		}
	}
	n.CPUMilli -= r.CPUMilli
	n.MemoryMiB -= r.MemoryMiB
	for _, id := range ids {
		n.GPUs[id] -= r.GPUMilli
	}
	n.Version++
	if r.GPUCount > 0 {
		if n.Tags == nil {
			n.Tags = map[string]int{}
		}
		n.Tags[Tag(r)]++
	}
	return nil
}

// Release gives back what Assign took; it refuses (changing nothing) a
// release that would leave a GPU above 1000 milli free.
func (n *Node) Release(r Request, ids []int) error {
	if err := n.checkIDs(r, ids); err != nil {
		return err
	}
	for _, id := range ids {
		if n.GPUs[id]+r.GPUMilli > Milli {
			return fmt.Errorf("%w: node %q GPU %d would have %d milli free", ErrAnnotation, n.Name, id, n.GPUs[id]+r.GPUMilli)
		}
	}
	n.CPUMilli += r.CPUMilli
	n.MemoryMiB += r.MemoryMiB
	for _, id := range ids {
		n.GPUs[id] += r.GPUMilli
	}
	n.Version++
	if r.GPUCount > 0 {
		t := Tag(r)
		if n.Tags[t]--; n.Tags[t] <= 0 {
			delete(n.Tags, t)
		}
	}
	return nil
}

func (n *Node) checkIDs(r Request, ids []int) error {
	if len(ids) != r.GPUCount {
		return fmt.Errorf("%w: %d GPU ids for a pod of %d GPUs", ErrAnnotation, len(ids), r.GPUCount)
	}
	for i, id := range ids {
		if id < 0 || id >= len(n.GPUs) {
			return fmt.Errorf("%w: GPU id %d outside [0, %d) on node %q", ErrAnnotation, id, len(n.GPUs), n.Name)
		}
		if slices.Contains(ids[:i], id) {
			return fmt.Errorf("%w: GPU id %d given twice", ErrAnnotation, id)
		}
	}
	return nil
}

// WholeIDs returns the first GPUCount wholly free GPUs in id order (FGD's
// AllocateExclusiveGpuId), or nil when there are not enough.
func (n *Node) WholeIDs(r Request) []int {
	var ids []int
	for i, g := range n.GPUs {
		if len(ids) == r.GPUCount {
			break
		}
		if g == Milli {
			ids = append(ids, i)
		}
	}
	if len(ids) < r.GPUCount {
		return nil
	}
	return ids
}

// BestFitID returns the GPU with the least free milli that still holds a
// sharing pod, the lowest id on ties (FGD's allocateGpuIdBasedOnBestFit),
// or -1.
func (n *Node) BestFitID(r Request) int {
	best := -1
	for i, g := range n.GPUs {
		if g >= r.GPUMilli && (best < 0 || g < n.GPUs[best]) {
			best = i
		}
	}
	return best
}

// FormatIDs writes a GPU set as the annotation value: ids joined by "-"
// (the open-gpu-share convention, alibabacloud.com/gpu-index: "0-1").
func FormatIDs(ids []int) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(id)
	}
	return strings.Join(s, "-")
}

// ParseIDs reads an annotation value written by FormatIDs; it refuses more
// than MaxGPUs ids, ids outside [0, MaxGPUs) and malformed values.
func ParseIDs(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	if len(s) > 3*MaxGPUs {
		return nil, fmt.Errorf("%w: %d bytes, limit %d", ErrAnnotation, len(s), 3*MaxGPUs)
	}
	parts := strings.Split(s, "-")
	if len(parts) > MaxGPUs {
		return nil, fmt.Errorf("%w: %d ids, limit %d", ErrAnnotation, len(parts), MaxGPUs)
	}
	ids := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 || v >= MaxGPUs {
			return nil, fmt.Errorf("%w: id %q not in [0, %d)", ErrAnnotation, p, MaxGPUs)
		}
		ids[i] = v
	}
	return ids, nil
}
