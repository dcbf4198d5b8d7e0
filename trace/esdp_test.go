package trace

import "testing"

func TestESDPMappingFixture(t *testing.T) {
	tr := readFixture(t)
	inst, err := ESDP(tr, ESDPSettings{Ports: 3, Servers: 5, Degree: 2, T: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := inst.Instance
	if in.NumPorts() != 3 || in.Graph.NumRight() != 5 || in.K != 3 {
		t.Fatalf("ports %d servers %d K %d", in.NumPorts(), in.Graph.NumRight(), in.K)
	}
	for l := 0; l < 3; l++ {
		if d := in.Graph.LeftDegree(l); d > 2 {
			t.Errorf("type %d keeps %d servers, want at most Degree = 2", l, d)
		}
		for _, r := range in.Graph.LeftNeighbors(l) {
			if !inst.Types[l].Fits(tr.Nodes[inst.Nodes[r]]) {
				t.Errorf("type %d connected to server %d it does not fit", l, r)
			}
		}
	}
	// Type 0 (6 cores, 12 GiB, 0.46 GPU) was created in slots 0, 1, 3 of 4.
	if in.Arrival[0] != 0.75 || in.Arrival[2] != 0.25 {
		t.Errorf("arrival %v", in.Arrival)
	}
	// Demand levels: type 2 (12 cores of max 12, 16 GiB of max 16, 1 GPU of max 1) is 2 everywhere.
	for e := range in.NumEdges() {
		if in.Graph.Edge(e).Left == 2 {
			for k := range 3 {
				if in.Demand[e*3+k] != 2 {
					t.Errorf("demand of edge %d type %d = %d, want 2", e, k, in.Demand[e*3+k])
				}
			}
		}
	}
}

func TestESDPMappingRealTrace(t *testing.T) {
	tr := realTrace(t)
	inst, err := ESDP(tr, ESDPSettings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	in := inst.Instance
	if in.NumPorts() != 8 || in.Graph.NumRight() != 40 || in.NumEdges() > 32 {
		t.Fatalf("ports %d servers %d edges %d", in.NumPorts(), in.Graph.NumRight(), in.NumEdges())
	}
	t.Logf("ESDP mapping: %d edges, capacity %v, arrival %v", in.NumEdges(), in.Capacity, in.Arrival)
}
