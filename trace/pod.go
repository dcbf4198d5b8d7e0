package trace

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// Pod is one task of a pod list. Times are seconds from the trace start.
// Files without the time columns (openb_pod_list_multigpu50.csv) give pods
// with HasTimes false.
type Pod struct {
	Name      string
	CPUMilli  int64
	MemoryMiB int64
	NumGPU    int      // whole GPUs requested
	GPUMilli  int      // per-GPU share in thousandths, 0..1000
	GPUSpec   []string // allowed GPU models; empty means any
	QoS       string   // LS, BE, Burstable, Guaranteed
	Phase     string   // Running, Succeeded, Failed, Pending

	HasTimes  bool
	Creation  int64
	Deletion  int64
	Scheduled int64 // -1 when the pod was never scheduled (Pending)
}

// GPU returns the pod's GPU request in GPUs: NumGPU*GPUMilli/1000.
func (p Pod) GPU() float64 { return float64(p.NumGPU) * float64(p.GPUMilli) / 1000 }

// Duration returns Deletion - Scheduled for scheduled pods, else
// Deletion - Creation (seconds).
func (p Pod) Duration() int64 {
	if p.Scheduled >= 0 {
		return p.Deletion - p.Scheduled
	}
	return p.Deletion - p.Creation
}

// Allows reports whether the pod may run on a GPU of the given model: a
// pod without GPUs or without a gpu_spec runs anywhere.
func (p Pod) Allows(model string) bool {
	if p.NumGPU == 0 || len(p.GPUSpec) == 0 {
		return true
	}
	for _, m := range p.GPUSpec {
		if m == model {
			return true
		}
	}
	return false
}

var (
	podRequired = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli"}
	podOptional = []string{"gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}
)

// PodReader streams the rows of an OpenB pod list, checking each row and
// that creation times do not decrease.
type PodReader struct {
	t            *table
	times        bool
	seen         map[string]int
	lastCreation int64
}

// NewPodReader reads the header of a pod list; file names the source in
// errors. The columns name, cpu_milli, memory_mib, num_gpu and gpu_milli are
// required; creation_time and deletion_time must come together. It uses
// the default Limits.
func NewPodReader(r io.Reader, file string) (*PodReader, error) {
	return Limits{}.NewPodReader(r, file)
}

// NewPodReader is the package-level NewPodReader with the limits lim.
func (lim Limits) NewPodReader(r io.Reader, file string) (*PodReader, error) {
	t, err := newTable(r, file, podRequired, podOptional, lim)
	if err != nil {
		return nil, err
	}
	c, d := t.has("creation_time"), t.has("deletion_time")
	if c != d {
		return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("%w: creation_time and deletion_time must both be present or both absent", ErrHeader)}
	}
	return &PodReader{t: t, times: c, seen: map[string]int{}, lastCreation: math.MinInt64}, nil
}

// Read returns the next pod, or io.EOF after the last one. Errors are
// *ParseError values naming file, line and column.
func (pr *PodReader) Read() (Pod, error) {
	t := pr.t
	if err := t.next(); err != nil {
		return Pod{}, err
	}
	var p Pod
	var err error
	p.Name = t.str("name")
	if p.Name == "" {
		return Pod{}, t.fail("name", "", "empty pod name")
	}
	if prev, dup := pr.seen[p.Name]; dup {
		return Pod{}, &ParseError{File: t.file, Line: t.line, Column: "name", Value: p.Name, Err: fmt.Errorf("%w: first on line %d", ErrDuplicate, prev)}
	}
	pr.seen[p.Name] = t.line
	if p.CPUMilli, err = t.int64Limit("cpu_milli", 0, t.lim.MaxResource, "MaxResource"); err != nil {
		return Pod{}, err
	}
	if p.MemoryMiB, err = t.int64Limit("memory_mib", 0, t.lim.MaxResource, "MaxResource"); err != nil {
		return Pod{}, err
	}
	g, err := t.int64In("num_gpu", 0, MaxGPUs)
	if err != nil {
		return Pod{}, err
	}
	p.NumGPU = int(g)
	m, err := t.int64In("gpu_milli", 0, 1000)
	if err != nil {
		return Pod{}, err
	}
	p.GPUMilli = int(m)
	if p.NumGPU == 0 && p.GPUMilli != 0 {
		return Pod{}, t.fail("gpu_milli", t.str("gpu_milli"), "pod asks no GPU (num_gpu = 0) but gpu_milli %d", p.GPUMilli)
	}
	if s := t.str("gpu_spec"); s != "" {
		if n := strings.Count(s, "|") + 1; n > MaxGPUSpec {
			return Pod{}, &ParseError{File: t.file, Line: t.line, Column: "gpu_spec", Value: s[:min(len(s), 64)] + "...",
				Err: fmt.Errorf("%w: %d GPU models above MaxGPUSpec = %d", ErrTooLarge, n, MaxGPUSpec)}
		}
		p.GPUSpec = strings.Split(s, "|")
		for _, m := range p.GPUSpec {
			if m == "" {
				return Pod{}, t.fail("gpu_spec", s, "empty model in the list")
			}
		}
	}
	p.QoS = t.str("qos")
	p.Phase = t.str("pod_phase")
	p.Scheduled = -1
	if !pr.times {
		return p, nil
	}
	p.HasTimes = true
	if p.Creation, err = t.int64Limit("creation_time", 0, t.lim.MaxTime, "MaxTime"); err != nil {
		return Pod{}, err
	}
	if p.Creation < pr.lastCreation {
		return Pod{}, &ParseError{File: t.file, Line: t.line, Column: "creation_time", Value: t.str("creation_time"),
			Err: fmt.Errorf("%w: %d after %d on an earlier line", ErrOrder, p.Creation, pr.lastCreation)}
	}
	pr.lastCreation = p.Creation
	if p.Deletion, err = t.int64Limit("deletion_time", p.Creation, t.lim.MaxTime, "MaxTime"); err != nil {
		return Pod{}, err
	}
	if s := t.str("scheduled_time"); s != "" {
		if p.Scheduled, err = t.int64In("scheduled_time", p.Creation, p.Deletion); err != nil {
			return Pod{}, err
		}
	}
	return p, nil
}

// ReadPods reads a whole pod list, with the default Limits.
func ReadPods(r io.Reader, file string) ([]Pod, error) { return Limits{}.ReadPods(r, file) }

// ReadPods is the package-level ReadPods with the limits lim.
func (lim Limits) ReadPods(r io.Reader, file string) ([]Pod, error) {
	pr, err := lim.NewPodReader(r, file)
	if err != nil {
		return nil, err
	}
	var out []Pod
	for {
		p, err := pr.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
}
