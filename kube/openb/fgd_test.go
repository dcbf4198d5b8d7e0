package openb

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/msched/msched/kube/plugins/gpushare"
	"github.com/msched/msched/trace"
)

func tinyTrace() *trace.Trace {
	tr := &trace.Trace{PodFile: "tiny"}
	for i, m := range []string{"T4", "T4", "V100M16", ""} {
		g := 4
		if m == "" {
			g = 0
		}
		tr.Nodes = append(tr.Nodes, trace.Node{Name: "n" + string(rune('a'+i)), CPUMilli: 32000, MemoryMiB: 65536, GPU: g, Model: m})
	}
	shapes := []trace.Pod{
		{CPUMilli: 2000, MemoryMiB: 1024, NumGPU: 1, GPUMilli: 500},
		{CPUMilli: 4000, MemoryMiB: 1024, NumGPU: 1, GPUMilli: 1000},
		{CPUMilli: 8000, MemoryMiB: 1024, NumGPU: 2, GPUMilli: 1000},
		{CPUMilli: 1000, MemoryMiB: 1024},
		{CPUMilli: 2000, MemoryMiB: 1024, NumGPU: 1, GPUMilli: 300, GPUSpec: []string{"V100M16"}},
	}
	for i := range 12 {
		p := shapes[i%len(shapes)]
		p.Name = "p" + string(rune('a'+i))
		tr.Pods = append(tr.Pods, p)
	}
	return tr
}

// Inflation: deterministic per seed, different across seeds, and the
// arrived GPU demand stays within ratio × capacity with no room for the
// drawn pod that stopped it (FGD's tuneUpPods).
func TestFGDPodsInflation(t *testing.T) {
	tr := tinyTrace()
	nodes, err := FGDCluster(tr, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Fatalf("%d GPU nodes, want 3", len(nodes))
	}
	capMilli := int64(12 * gpushare.Milli)
	a, err := FGDPods(tr, 42, 1.3, capMilli)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := FGDPods(tr, 42, 1.3, capMilli)
	c, _ := FGDPods(tr, 43, 1.3, capMilli)
	same := func(x, y []gpushare.Request) bool {
		return slices.EqualFunc(x, y, func(p, q gpushare.Request) bool { return gpushare.ShapeOf(p) == gpushare.ShapeOf(q) })
	}
	if !same(a, b) {
		t.Fatal("seed 42 twice gave two pod lists")
	}
	if same(a, c) {
		t.Fatal("seeds 42 and 43 gave the same pod list")
	}
	var total int64
	for _, r := range a {
		total += r.TotalGPUMilli()
	}
	if float64(total) > 1.3*float64(capMilli) || len(a) <= len(tr.Pods) {
		t.Fatalf("%d pods, %d milli arrived for a target of %v", len(a), total, 1.3*float64(capMilli))
	}
	if _, err := FGDPods(tr, 1, -1, capMilli); !errors.Is(err, ErrFGD) {
		t.Fatal(err)
	}
}

// Every profile places pods only where they fit (the device model is the
// checker: Assign refuses anything else), allocation never exceeds the
// arrived demand, and FGD-protocol runs are deterministic.
func TestRunFGDProfiles(t *testing.T) {
	tr := tinyTrace()
	nodes, _ := FGDCluster(tr, 2)
	w, err := FGDWorkload(tr)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := FGDPods(tr, 42, 1.3, int64(24*gpushare.Milli))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range FGDProfiles {
		for _, rt := range []bool{false, true} {
			r, err := RunFGD(nodes, pods, w, p, FGDOptions{Seed: 42, RandomTies: rt})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			r2, _ := RunFGD(nodes, pods, w, p, FGDOptions{Seed: 42, RandomTies: rt})
			if r.Alloc != r2.Alloc || r.Failed != r2.Failed {
				t.Fatalf("%s: two runs differ", p)
			}
			for k := 1; k <= FGDBins; k++ {
				if r.Alloc[k] < r.Alloc[k-1]-1e-9 || r.Alloc[k] > float64(k)+100.0*2/24+1e-9 {
					t.Fatalf("%s: alloc[%d] = %v after %v", p, k, r.Alloc[k], r.Alloc[k-1])
				}
			}
			if r.Alloc[FGDBins] > 100 || r.Failed == 0 {
				t.Fatalf("%s: final alloc %v, failed %d at 130 %%", p, r.Alloc[FGDBins], r.Failed)
			}
		}
	}
	if _, err := RunFGD(nodes, pods, w, "nope", FGDOptions{}); !errors.Is(err, ErrFGD) {
		t.Fatal(err)
	}
	sums := SummarizeFGD([]*FGDResult{}, "x")
	if len(sums) != 0 {
		t.Fatal(sums)
	}
}

// "+BF" breaks the ties of every profile by BestFit: a 1-GPU pod ties
// under FGD and Lookahead on nodes a and b (no fragmentation either way);
// by name it goes to a, and then a 31.5-core pod fits nowhere; by BestFit
// it goes to b (less CPU free) and the second pod fits on a.
func TestRunFGDTieBestFit(t *testing.T) {
	a, _ := gpushare.NewNode("a", "T4", 32000, 1<<20, 4)
	b, _ := gpushare.NewNode("b", "T4", 16000, 1<<20, 4)
	p1 := gpushare.Request{CPUMilli: 1000, GPUCount: 1, GPUMilli: gpushare.Milli}
	p2 := gpushare.Request{CPUMilli: 31500, GPUCount: 1, GPUMilli: gpushare.Milli}
	w := gpushare.WorkloadOf([]gpushare.Request{p1}, 1)
	for _, p := range []string{"FGD", Lookahead} {
		for _, bf := range []bool{false, true} {
			name, want := p, 1
			if bf {
				name, want = p+TieBestFit, 0
			}
			r, err := RunFGD([]*gpushare.Node{a, b}, []gpushare.Request{p1, p2}, w, name, FGDOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed != want {
				t.Errorf("%s: %d failed, want %d", name, r.Failed, want)
			}
		}
	}
}

// A lookahead profile's "@γ" suffix sets γ: @0 is FGD's placement
// exactly, and out-of-range or malformed values are refused as unknown
// profiles.
func TestRunFGDLookaheadGamma(t *testing.T) {
	tr := tinyTrace()
	nodes, _ := FGDCluster(tr, 2)
	w, _ := FGDWorkload(tr)
	pods, _ := FGDPods(tr, 7, 1.3, int64(24*gpushare.Milli))
	f, err := RunFGD(nodes, pods, w, "FGD", FGDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := RunFGD(nodes, pods, w, Lookahead+"@0", FGDOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Alloc != l.Alloc || f.Failed != l.Failed {
		t.Fatalf("Lookahead@0 placed differently from FGD: failed %d vs %d", l.Failed, f.Failed)
	}
	for _, bad := range []string{"Lookahead@1.5", "Lookahead@-0.1", "Lookahead@NaN", "Lookahead@x", "FGD@0.3"} {
		if _, err := RunFGD(nodes, pods, w, bad, FGDOptions{}); !errors.Is(err, ErrFGD) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// The memoised fragmentation (gpushare.FragMemo, the default) places
// every pod exactly as the direct computation does: same node, same GPU
// ids, same metrics, for FGD (fixed workload) and FGD-learned (a workload
// rebuilt every 100 arrivals, so the memo is reset and refilled). On the
// OpenB trace, seed 42: the first 3 000 pods with -short, all of them
// otherwise; on the tiny trace when OpenB is absent.
func TestRunFGDMemoIdentical(t *testing.T) {
	nodes, w, pods := openbSeed42(t)
	if testing.Short() && len(pods) > 3000 {
		pods = pods[:3000]
	}
	for _, p := range []string{"FGD", FGDLearned, "FGD" + TieBestFit} {
		memo, err := RunFGD(nodes, pods, w, p, FGDOptions{Seed: 42, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		direct, err := RunFGD(nodes, pods, w, p, FGDOptions{Seed: 42, Record: true, Direct: true})
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods {
			a, b := memo.Placements[i], direct.Placements[i]
			if a.Node != b.Node || !slices.Equal(a.GPUs, b.GPUs) {
				t.Fatalf("%s pod %d: memo placed it on node %d GPUs %v, direct on %d GPUs %v", p, i, a.Node, a.GPUs, b.Node, b.GPUs)
			}
		}
		if memo.Alloc != direct.Alloc || memo.Failed != direct.Failed {
			t.Fatalf("%s: metrics differ", p)
		}
		for k, v := range direct.FragAmount {
			if math.Float64bits(memo.FragAmount[k]) != math.Float64bits(v) {
				t.Fatalf("%s: frag amount at %d%%: %v vs %v", p, k, memo.FragAmount[k], v)
			}
		}
		t.Logf("%s: %d pods on %d nodes, every placement identical; wall memo %v, direct %v", p, len(pods), len(nodes), memo.Wall, direct.Wall)
	}
}

// BenchmarkRunFGD replays the first 3 000 pods of OpenB seed 42 (the tiny
// trace without OpenB) with FGD and FGD-learned, memoised (the default)
// and with the direct computation, and LeastAllocated for scale: one op
// is one whole replay.
func BenchmarkRunFGD(b *testing.B) {
	nodes, w, pods := openbSeed42(b)
	pods = pods[:min(len(pods), 3000)]
	for _, c := range []struct {
		name, profile string
		direct        bool
	}{
		{"FGD/direct", "FGD", true}, {"FGD/memo", "FGD", false},
		{"FGD-learned/direct", FGDLearned, true}, {"FGD-learned/memo", FGDLearned, false},
		{"LeastAllocated", "LeastAllocated", false},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := RunFGD(nodes, pods, w, c.profile, FGDOptions{Seed: 42, Direct: c.direct}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// openbSeed42 is FGD's protocol on OpenB (the tiny trace when OpenB is
// absent), seed 42: the GPU nodes, the target workload and the pods.
func openbSeed42(tb testing.TB) ([]*gpushare.Node, *gpushare.Workload, []gpushare.Request) {
	tb.Helper()
	tr := tinyTrace()
	if dir, err := trace.DefaultDir(); err == nil {
		if big, err := trace.Load(dir, ""); err == nil {
			tr = big
		}
	}
	nodes, err := FGDCluster(tr, 1)
	if err != nil {
		tb.Fatal(err)
	}
	w, err := FGDWorkload(tr)
	if err != nil {
		tb.Fatal(err)
	}
	var capMilli int64
	for _, n := range nodes {
		capMilli += int64(len(n.GPUs)) * gpushare.Milli
	}
	pods, err := FGDPods(tr, 42, 1.3, capMilli)
	if err != nil {
		tb.Fatal(err)
	}
	return nodes, w, pods
}
