package trace

import (
	"errors"
	"strings"
	"testing"
)

func TestOCORPMappingFixture(t *testing.T) {
	tr := readFixture(t)
	inst, err := OCORP(tr, OCORPSettings{SlotSeconds: 100, Machines: -1})
	if err != nil {
		t.Fatal(err)
	}
	// p5 was never scheduled; the other seven are jobs.
	if len(inst.Jobs) != 7 || inst.Skipped != 1 || inst.Unfit != 0 || len(inst.Machines) != 5 {
		t.Fatalf("%d jobs, %d skipped, %d unfit, %d machines", len(inst.Jobs), inst.Skipped, inst.Unfit, len(inst.Machines))
	}
	// p1: created 100, scheduled 150, deleted 900, 6 cores, 12 GiB:
	// a_j = 1, d_j = 6, m_j = 3, p_j = ceil(750/100) = 8.
	if j := inst.Jobs[1]; j.Arrival != 1 || j.Cores != 6 || j.Memory != 3 || j.Processing != 8 {
		t.Errorf("job 1 = %+v", j)
	}
	// p6 is job 5 (p5 skipped): pod index 6.
	if inst.Pods[5] != 6 {
		t.Errorf("job 5 from pod %d", inst.Pods[5])
	}
	if m := inst.Machines[1]; m.Cores != 96 || m.Memory != 96 {
		t.Errorf("machine 1 = %+v", m)
	}
	capped, err := OCORP(tr, OCORPSettings{SlotSeconds: 100, Machines: -1, MaxProcessing: 3, Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(capped.Jobs) != 2 || capped.Jobs[0].Processing != 3 {
		t.Errorf("capped jobs %+v", capped.Jobs)
	}
}

func TestOCORPMappingRealTrace(t *testing.T) {
	tr := realTrace(t)
	inst, err := OCORP(tr, OCORPSettings{Machines: 8, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(inst.Jobs)+inst.Skipped+inst.Unfit != len(tr.Pods) {
		t.Errorf("%d jobs + %d skipped + %d unfit != %d pods", len(inst.Jobs), inst.Skipped, inst.Unfit, len(tr.Pods))
	}
	t.Logf("OCORP mapping: %d jobs, %d never scheduled, %d unfit, %d machines", len(inst.Jobs), inst.Skipped, inst.Unfit, len(inst.Machines))
}

// When no job is left, the error says why: no node with a whole core, or
// every scheduled pod too large for the machines' memory (it used to say
// "no scheduled pods" in both cases, sending the user to the wrong file).
func TestOCORPEmptyErrorsSayWhy(t *testing.T) {
	tr := readFixture(t)
	small := *tr
	small.Nodes = []Node{{Name: "tiny", CPUMilli: 500, MemoryMiB: 1 << 20}}
	_, err := OCORP(&small, OCORPSettings{Machines: -1})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "whole core") {
		t.Fatalf("no machine: %v", err)
	}
	small.Nodes = []Node{{Name: "nomem", CPUMilli: 64000, MemoryMiB: 1}}
	_, err = OCORP(&small, OCORPSettings{Machines: -1})
	if !errors.Is(err, ErrEmpty) || !strings.Contains(err.Error(), "fits the memory") {
		t.Fatalf("all unfit: %v", err)
	}
}
