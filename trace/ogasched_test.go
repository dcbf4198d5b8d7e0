package trace

import (
	"testing"
)

func TestOGASchedMappingFixture(t *testing.T) {
	tr := readFixture(t)
	inst, err := OGASched(tr, OGASchedSettings{Ports: 3, Nodes: -1, T: 4, Counts: true})
	if err != nil {
		t.Fatal(err)
	}
	p := inst.Problem
	if p.NumPorts() != 3 || p.NumNodes() != 5 || p.K != 3 {
		t.Fatalf("ports %d nodes %d K %d", p.NumPorts(), p.NumNodes(), p.K)
	}
	// Port 0 is the 6-core, 12 GiB, 0.46-GPU shape: demands in cores, 4 GiB, GPUs.
	if d := p.Demand[0]; d[0] != 6 || d[1] != 3 || d[2] != 0.46 {
		t.Errorf("demand of port 0 = %v", d)
	}
	// It fits every GPU node (n1..n4) but not the CPU-only n0.
	if got := p.Graph.LeftNeighbors(0); len(got) != 4 || got[0] != 1 {
		t.Errorf("neighbours of port 0 = %v", got)
	}
	// Creation span 0..999 cut into 4 slots of 250 s. Port 0 = p1, p4, p7
	// (created 100, 400, 999), port 1 = p0, p6 (0, 800), port 2 = p2 (100),
	// the smallest of the single-pod shapes.
	want := [][]float64{{1, 1, 1}, {1, 0, 0}, {0, 0, 0}, {1, 1, 0}}
	for s := range want {
		for l := range want[s] {
			if got := inst.Arrivals.Arrivals[s][l]; got != want[s][l] {
				t.Errorf("x_%d(%d) = %v, want %v", l, s, got, want[s][l])
			}
		}
	}
	if inst.Covered != 6 || inst.Total != 8 || inst.SlotSeconds != 250 {
		t.Errorf("covered %d total %d slot %v", inst.Covered, inst.Total, inst.SlotSeconds)
	}
	if err := inst.Arrivals.Validate(); err != nil {
		t.Error(err)
	}
}

func TestOGASchedMappingRealTrace(t *testing.T) {
	tr := realTrace(t)
	inst, err := OGASched(tr, OGASchedSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if inst.Problem.NumPorts() != 10 || inst.Problem.NumNodes() != 128 || len(inst.Arrivals.Arrivals) != 2000 {
		t.Fatalf("sizes %d %d %d", inst.Problem.NumPorts(), inst.Problem.NumNodes(), len(inst.Arrivals.Arrivals))
	}
	t.Logf("OGASched mapping: %d edges, %d of %d pods covered by the 10 most frequent shapes, slot %.0f s",
		inst.Problem.Graph.NumEdges(), inst.Covered, inst.Total, inst.SlotSeconds)
}
