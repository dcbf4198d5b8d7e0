package gpushare

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func mustNode(t *testing.T, gpus ...int64) *Node {
	t.Helper()
	n, err := NewNode("n", "T4", 32000, 65536, len(gpus))
	if err != nil {
		t.Fatal(err)
	}
	copy(n.GPUs, gpus)
	return n
}

// Device bookkeeping: a share pod on one GPU, whole GPUs for multi-GPU
// pods, the Filter refusing a node whose total free milli would suffice
// but no GPU does (the aggregate model's mistake), and Release restoring.
func TestDeviceModel(t *testing.T) {
	n := mustNode(t, 400, 400, 400, 400, 400, 400, 400, 400)
	one := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: Milli}
	if n.Fits(one) {
		t.Fatal("a 1-GPU pod fits on eight GPUs with 400 milli free each (3200 in aggregate)")
	}
	half := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: 300}
	if !n.Fits(half) {
		t.Fatal("a 300-milli pod does not fit a GPU with 400 free")
	}
	n = mustNode(t, 1000, 500, 1000, 1000)
	if id := n.BestFitID(half); id != 1 {
		t.Fatalf("best-fit GPU %d, want 1", id)
	}
	two := Request{CPUMilli: 1000, GPUCount: 2, GPUMilli: Milli}
	ids := n.WholeIDs(two)
	if !slices.Equal(ids, []int{0, 2}) {
		t.Fatalf("whole GPUs %v, want [0 2]", ids)
	}
	if err := n.Assign(two, ids); err != nil {
		t.Fatal(err)
	}
	if err := n.Assign(half, []int{1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.GPUs, []int64{0, 200, 0, 1000}) || n.CPUMilli != 30000 {
		t.Fatalf("after assign %v cpu %d", n.GPUs, n.CPUMilli)
	}
	if n.Tags["2-gpu"] != 1 || n.Tags["share-gpu"] != 1 {
		t.Fatalf("tags %v", n.Tags)
	}
	if err := n.Assign(half, []int{1}); err == nil {
		t.Fatal("assigned 300 milli on a GPU with 200 free")
	}
	if err := n.Release(two, ids); err != nil {
		t.Fatal(err)
	}
	if err := n.Release(half, []int{1}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.GPUs, []int64{1000, 500, 1000, 1000}) || len(n.Tags) != 0 {
		t.Fatalf("after release %v %v", n.GPUs, n.Tags)
	}
	if err := n.Release(half, []int{0}); !errors.Is(err, ErrAnnotation) {
		t.Fatalf("release past 1000 milli: %v", err)
	}
	for _, bad := range [][]int{{-1}, {4}, {0, 0}, {}} {
		r := half
		if len(bad) == 2 {
			r = two
		}
		if err := n.Assign(r, bad); !errors.Is(err, ErrAnnotation) {
			t.Errorf("Assign(%v): %v", bad, err)
		}
	}
}

func TestRequestCheck(t *testing.T) {
	for _, r := range []Request{
		{CPUMilli: -1},
		{CPUMilli: MaxResource + 1},
		{GPUCount: MaxGPUs + 1, GPUMilli: Milli},
		{GPUCount: 2, GPUMilli: 500},
		{GPUCount: 1},
		{GPUMilli: 10},
		{GPUCount: 1, GPUMilli: 1001},
	} {
		if err := r.Check(); !errors.Is(err, ErrRequest) {
			t.Errorf("%+v: %v", r, err)
		}
	}
	if err := (Request{CPUMilli: 1, GPUCount: 8, GPUMilli: Milli}).Check(); err != nil {
		t.Error(err)
	}
	if _, err := NewNode("x", "", 0, 0, MaxGPUs+1); !errors.Is(err, ErrNode) {
		t.Error(err)
	}
}

func TestParseIDs(t *testing.T) {
	for _, s := range []string{"0", "0-1", "7-3-5"} {
		ids, err := ParseIDs(s)
		if err != nil || FormatIDs(ids) != s {
			t.Errorf("%q: %v %v", s, ids, err)
		}
	}
	for _, s := range []string{"a", "-1", "0--1", "64", "1-"} {
		if _, err := ParseIDs(s); !errors.Is(err, ErrAnnotation) {
			t.Errorf("%q: %v", s, err)
		}
	}
	long := make([]byte, 10000)
	for i := range long {
		long[i] = '1'
	}
	if _, err := ParseIDs(string(long)); !errors.Is(err, ErrAnnotation) {
		t.Error(err)
	}
}

// FragAmount against hand-computed cases of FGD's definition.
func TestFragAmountHand(t *testing.T) {
	cpu := Request{CPUMilli: 4000}
	share := Request{CPUMilli: 4000, GPUCount: 1, GPUMilli: 500}
	whole2 := Request{CPUMilli: 8000, GPUCount: 2, GPUMilli: Milli}
	v100 := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: Milli, Models: []string{"V100M16"}}
	w := WorkloadOf([]Request{cpu, share, share, whole2, whole2, whole2, v100, v100, v100, v100}, 1)
	if len(w.Shapes) != 4 {
		t.Fatalf("%d shapes", len(w.Shapes))
	}
	// GPUs free: 1000, 300, 600, 0; CPU free 32000 (T4 node).
	n := mustNode(t, 1000, 300, 600, 0)
	idle := 1900.0
	// cpu (p .1): all idle; share (p .2): fits, GPUs < 500 free: 300 (+0);
	// whole2 (p .3): one whole GPU only, all idle; v100 (p .4): model
	// refused, all idle.
	want := 0.1*idle + 0.2*300 + 0.3*idle + 0.4*idle
	if got := FragAmount(n, w); math.Abs(got-want) > 1e-9 {
		t.Fatalf("frag %v, want %v", got, want)
	}
	// Too little CPU for share: all idle for it too.
	n.CPUMilli = 3000
	want = idle
	if got := FragAmount(n, w); math.Abs(got-want) > 1e-9 {
		t.Fatalf("frag with short CPU %v, want %v", got, want)
	}
	// A full node has no fragment.
	if got := FragAmount(mustNode(t, 0, 0), w); got != 0 {
		t.Fatal(got)
	}
}

// NewWorkload stops once 95 % of the pods are covered and renormalises.
func TestWorkloadCoverage(t *testing.T) {
	counts := map[Shape]float64{}
	for i := range 20 {
		counts[Shape{CPUMilli: int64(i + 1)}] = float64(100 - i)
	}
	total := 0.0
	for _, c := range counts {
		total += c
	}
	w := NewWorkload(counts, 0.95)
	cum, sum := 0.0, 0.0
	for i, s := range w.Shapes {
		if s.Shape.CPUMilli != int64(i+1) {
			t.Fatalf("order %d: %+v", i, s.Shape)
		}
		cum += counts[s.Shape]
		sum += s.P
	}
	if cum < 0.95*total || cum-counts[w.Shapes[len(w.Shapes)-1].Shape] >= 0.95*total {
		t.Fatalf("covered %v of %v with %d shapes", cum, total, len(w.Shapes))
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Fatal(sum)
	}
}

// FGD's score: a sharing pod picks the GPU that increases fragmentation
// least, checked against brute force over the GPUs.
func TestFGDShareChoice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var reqs []Request
	for range 50 {
		switch rng.IntN(3) {
		case 0:
			reqs = append(reqs, Request{CPUMilli: 2000, GPUCount: 1, GPUMilli: int64(100 * (1 + rng.IntN(9)))})
		case 1:
			reqs = append(reqs, Request{CPUMilli: 4000, GPUCount: 1, GPUMilli: Milli})
		default:
			reqs = append(reqs, Request{CPUMilli: 8000})
		}
	}
	w := WorkloadOf(reqs, Coverage)
	f := NewScorer("FGD", w, nil)
	for trial := range 200 {
		n := mustNode(t, 0, 0, 0, 0)
		for i := range n.GPUs {
			n.GPUs[i] = int64(100 * rng.IntN(11))
		}
		r := Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: int64(100 * (1 + rng.IntN(9)))}
		if !n.Fits(r) {
			continue
		}
		s, ids := f.Score(n, r)
		before := FragAmount(n, w)
		best, bestID := int64(-1), -1
		for i, g := range n.GPUs {
			if g < r.GPUMilli {
				continue
			}
			c := n.Clone()
			if err := c.Assign(r, []int{i}); err != nil {
				t.Fatal(err)
			}
			v := int64(1 / (1 + math.Exp(-(before-FragAmount(c, w))/1000)) * 100)
			if v > best {
				best, bestID = v, i
			}
		}
		if s != best || len(ids) != 1 || ids[0] != bestID {
			t.Fatalf("trial %d: node %v pod %d: got %d on %v, brute force %d on %d", trial, n.GPUs, r.GPUMilli, s, ids, best, bestID)
		}
	}
}

func TestLearnerStartsEmpty(t *testing.T) {
	l := NewLearner(10)
	if l.Workload() != nil {
		t.Fatal("workload before any arrival")
	}
	a := Request{CPUMilli: 1, GPUCount: 1, GPUMilli: 500}
	l.Observe(a)
	w := l.Workload()
	if len(w.Shapes) != 1 || w.Shapes[0].Shape != ShapeOf(a) || w.Shapes[0].P != 1 {
		t.Fatalf("%+v", w.Shapes)
	}
}

func TestScorersOnFeasible(t *testing.T) {
	w := WorkloadOf([]Request{{CPUMilli: 1, GPUCount: 1, GPUMilli: 500}}, 1)
	rng := rand.New(rand.NewPCG(3, 4))
	n := mustNode(t, 1000, 500, 200, 1000)
	for _, name := range Policies {
		s := NewScorer(name, w, rng)
		for _, r := range []Request{{CPUMilli: 1000}, {CPUMilli: 1000, GPUCount: 1, GPUMilli: 500}, {CPUMilli: 1000, GPUCount: 2, GPUMilli: Milli}} {
			v, ids := s.Score(n, r)
			if v < 0 || v > MaxNodeScore || len(ids) != r.GPUCount {
				t.Errorf("%s %+v: score %d ids %v", name, r, v, ids)
			}
			c := n.Clone()
			if err := c.Assign(r, ids); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
	}
	if NewScorer("nope", nil, nil) != nil {
		t.Error("unknown scorer")
	}
}
