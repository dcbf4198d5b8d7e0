package openb

import (
	"context"
	"testing"

	"github.com/msched/msched/trace"
)

// TestReplayGPUsAsDevices: on one node with two GPUs, two 0.6-GPU pods
// take one GPU each (0.4 free on both); a third pod asking 0.7 GPU must
// wait, although 0.8 GPU is free in aggregate. Before issue 32 the replay
// counted GPUs per node (gpu-milli 2000) and bound it. Every profile runs
// the device model.
func TestReplayGPUsAsDevices(t *testing.T) {
	tr := &trace.Trace{PodFile: "devices",
		Nodes: []trace.Node{{Name: "n0", CPUMilli: 32000, MemoryMiB: 65536, GPU: 2, Model: "T4"}}}
	for i, m := range []int{600, 600, 700} {
		tr.Pods = append(tr.Pods, trace.Pod{Name: "p" + string(rune('0'+i)), CPUMilli: 1000, MemoryMiB: 1024, NumGPU: 1, GPUMilli: m,
			QoS: "LS", Phase: "Running", HasTimes: true, Creation: int64(i), Deletion: 1 << 30, Scheduled: int64(i)})
	}
	for _, p := range []Profile{LeastAllocated, MostAllocated} {
		r, err := Run(context.Background(), tr, p, Options{StepSeconds: 3600, Hold: true})
		if err != nil {
			t.Fatal(err)
		}
		if r.Scheduled != 2 || r.PendingEnd != 1 {
			t.Errorf("%s: %d scheduled, %d pending; want 2 and 1 (the 0.7-GPU pod fits no single GPU)", p, r.Scheduled, r.PendingEnd)
		}
	}
}
