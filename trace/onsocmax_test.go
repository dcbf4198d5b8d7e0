package trace

import (
	"math"
	"testing"
)

func TestOnSocMaxMappingFixture(t *testing.T) {
	tr := readFixture(t)
	inst, err := OnSocMax(tr, OnSocMaxSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := inst.Instance
	if in.Mesh.Nodes != 5 || in.Mesh.Slots != 24 || len(in.Jobs) != 8 || inst.Day != 1 {
		t.Fatalf("mesh %dx%d, %d jobs, day %d", in.Mesh.Nodes, in.Mesh.Slots, len(in.Jobs), inst.Day)
	}
	// Node capacity in core-hours per hourly slot.
	for i, ni := range inst.Nodes {
		if c := in.Mesh.Capacity[in.Mesh.Unit(i, 3)]; c != float64(tr.Nodes[ni].CPUMilli)/1000 {
			t.Errorf("capacity of node %d = %v", i, c)
		}
	}
	// p1: 6 cores from scheduled 150 to deletion 900: 6*750/3600 core-hours,
	// arrival = deadline = slot 0, on the four GPU nodes.
	j := in.Jobs[1]
	if math.Abs(j.Rho-1.25) > 1e-12 || j.Arrival != 0 || j.Deadline != 0 || len(j.Units) != 4 || j.XBar[0] != 6 {
		t.Errorf("job 1 = %+v", j)
	}
	for _, r := range j.Units {
		node, slot := in.Mesh.NodeSlot(r)
		if slot != 0 || !tr.Pods[1].Shape().Fits(tr.Nodes[inst.Nodes[node]]) {
			t.Errorf("job 1 on unit %d = (node %d, slot %d)", r, node, slot)
		}
	}
	half, err := OnSocMax(tr, OnSocMaxSettings{Seed: 1, CapacityScale: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if c := half.Instance.Mesh.Capacity[0]; c != in.Mesh.Capacity[0]/2 {
		t.Errorf("scaled capacity %v", c)
	}
	if _, err := OnSocMax(tr, OnSocMaxSettings{Day: 5}); err == nil {
		t.Error("window beyond the trace accepted")
	}
}

func TestOnSocMaxMappingRealTrace(t *testing.T) {
	tr := realTrace(t)
	inst, err := OnSocMax(tr, OnSocMaxSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("OnSocMax mapping: busiest window %d, %d jobs", inst.Day, len(inst.Instance.Jobs))
}
