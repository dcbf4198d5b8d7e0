package bipartite

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// randomGang builds a random gang model (2-4 job types, 2-4 servers, K=2).
func randomGang(t *testing.T, rng *rand.Rand) *GangModel {
	t.Helper()
	nl, nr, k := 2+rng.IntN(3), 2+rng.IntN(3), 2
	var edges []Edge
	for l := range nl {
		for r := range nr {
			if rng.IntN(3) > 0 {
				edges = append(edges, Edge{Left: l, Right: r})
			}
		}
	}
	g, err := NewGraph(nl, nr, edges)
	if err != nil {
		t.Fatal(err)
	}
	caps := make([]float64, nr*k)
	for i := range caps {
		caps[i] = float64(1 + rng.IntN(5))
	}
	jobs := make([]GangJob, nl)
	for l := range jobs {
		q := 1 + rng.IntN(3)
		for range q * k {
			jobs[l].Demand = append(jobs[l].Demand, float64(rng.IntN(3)))
		}
		jobs[l].Min = rng.IntN(q + 1)
	}
	m, err := NewGangModel(g, k, caps, jobs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameThrough checks, independently of the edit code, that every element
// of to that mp maps to an element of from has the same data: capacities,
// demands, minima, and adjacency between mapped job types and servers.
func sameThrough(t *testing.T, from, to *GangModel, mp GangMapping) {
	t.Helper()
	if err := mp.Validate(from, to); err != nil {
		t.Fatal(err)
	}
	for r, or := range mp.Servers {
		if or < 0 {
			continue
		}
		for k := range to.K() {
			if to.Capacity(r)[k] != from.Capacity(or)[k] {
				t.Fatalf("server %d (old %d): capacity %v, want %v", r, or, to.Capacity(r), from.Capacity(or))
			}
		}
	}
	for l, ol := range mp.Jobs {
		if ol < 0 {
			continue
		}
		lo, hi := to.Components(l)
		olo, ohi := from.Components(ol)
		if hi-lo != ohi-olo || to.Min(l) != from.Min(ol) {
			t.Fatalf("job %d (old %d): %d components min %d, want %d min %d", l, ol, hi-lo, to.Min(l), ohi-olo, from.Min(ol))
		}
		for q := range hi - lo {
			for k := range to.K() {
				if to.Demand(lo + q)[k] != from.Demand(olo + q)[k] {
					t.Fatalf("job %d component %d: demand differs", l, q)
				}
			}
		}
		for r, or := range mp.Servers {
			if or < 0 {
				continue
			}
			_, a := to.Graph().EdgeID(l, r)
			_, b := from.Graph().EdgeID(ol, or)
			if a != b {
				t.Fatalf("edge (%d,%d) present %v, old (%d,%d) present %v", l, r, a, ol, or, b)
			}
		}
	}
}

func TestGangModelEdits(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		m := randomGang(t, rng)
		r := rng.IntN(m.NumServers())
		n, mp, err := m.RemoveServer(r)
		if err != nil {
			t.Fatal(err)
		}
		sameThrough(t, m, n, mp)
		if n.NumServers() != m.NumServers()-1 || n.NumJobs() != m.NumJobs() {
			t.Fatal("RemoveServer: sizes")
		}
		l := rng.IntN(m.NumJobs())
		n, mp, err = m.RemoveJob(l)
		if err != nil {
			t.Fatal(err)
		}
		sameThrough(t, m, n, mp)
		if n.NumComponents() != m.NumComponents()-(func() int { lo, hi := m.Components(l); return hi - lo })() {
			t.Fatal("RemoveJob: components")
		}
		n, mp, err = m.AddServer([]float64{3, 3}, []int{0})
		if err != nil {
			t.Fatal(err)
		}
		sameThrough(t, m, n, mp)
		if _, ok := n.Graph().EdgeID(0, m.NumServers()); !ok || mp.Servers[m.NumServers()] != -1 {
			t.Fatal("AddServer: new server")
		}
		n, mp, err = m.AddJob(GangJob{Demand: []float64{1, 1, 2, 0}, Min: 1}, []int{0, 1})
		if err != nil {
			t.Fatal(err)
		}
		sameThrough(t, m, n, mp)
		if n.Min(m.NumJobs()) != 1 || mp.Jobs[m.NumJobs()] != -1 {
			t.Fatal("AddJob: new job")
		}
	}
}

func TestGangModelEditErrors(t *testing.T) {
	m := randomGang(t, rand.New(rand.NewPCG(3, 4)))
	for name, err := range map[string]error{
		"RemoveServer(-1)": func() error { _, _, err := m.RemoveServer(-1); return err }(),
		"RemoveServer(n)":  func() error { _, _, err := m.RemoveServer(m.NumServers()); return err }(),
		"RemoveJob(n)":     func() error { _, _, err := m.RemoveJob(m.NumJobs()); return err }(),
		"AddServer K":      func() error { _, _, err := m.AddServer([]float64{1}, nil); return err }(),
		"AddServer job":    func() error { _, _, err := m.AddServer([]float64{1, 1}, []int{0, 0}); return err }(),
		"AddJob server":    func() error { _, _, err := m.AddJob(GangJob{Demand: []float64{1, 1}}, []int{9}); return err }(),
		"bad mapping":      GangMapping{Jobs: []int{0, 0}}.Validate(m, m),
	} {
		if !errors.Is(err, ErrDimension) {
			t.Errorf("%s: %v, want ErrDimension", name, err)
		}
	}
	var none *GangModel
	if _, _, err := none.RemoveServer(0); !errors.Is(err, ErrNil) {
		t.Errorf("nil model RemoveServer: %v", err)
	}
	if err := (GangMapping{}).Validate(nil, m); !errors.Is(err, ErrNil) {
		t.Errorf("Validate(nil, m): %v", err)
	}
	if _, _, err := m.AddServer([]float64{-1, 1}, nil); !errors.Is(err, ErrCapacity) {
		t.Errorf("AddServer negative capacity: %v", err)
	}
}
