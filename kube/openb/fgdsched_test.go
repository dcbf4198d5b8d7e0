package openb

import (
	"context"
	"slices"
	"testing"

	"github.com/msched/msched/kube/plugins/gpushare"
)

// Inside kube-scheduler, with FGD's configuration and ties by name, every
// pod of the tiny trace lands where the replay loop puts it (node and
// GPUs), for the scorers whose choice the plugin reproduces exactly.
func TestRunFGDSchedulerMatchesLoop(t *testing.T) {
	tr := tinyTrace()
	nodes, err := FGDCluster(tr, 2)
	if err != nil {
		t.Fatal(err)
	}
	w, err := FGDWorkload(tr)
	if err != nil {
		t.Fatal(err)
	}
	pods, err := FGDPods(tr, 42, 1.3, int64(24*gpushare.Milli))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"LeastAllocated", "BestFit", "FGD", FGDLearned, Lookahead, LookaheadLearned} {
		loop, err := RunFGD(nodes, pods, w, p, FGDOptions{Seed: 42, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		sched, err := RunFGDScheduler(context.Background(), nodes, pods, w, p, FGDSchedOptions{Record: true, Logger: testLogger(t)})
		if err != nil {
			t.Fatal(err)
		}
		for i := range pods {
			a, b := loop.Placements[i], sched.Placements[i]
			if a.Node != b.Node || !slices.Equal(a.GPUs, b.GPUs) {
				t.Fatalf("%s pod %d %+v: loop placed it on node %d GPUs %v, kube-scheduler on %d GPUs %v", p, i, pods[i], a.Node, a.GPUs, b.Node, b.GPUs)
			}
		}
		if loop.Alloc != sched.Alloc || loop.Failed != sched.Failed {
			t.Fatalf("%s: metrics differ", p)
		}
		t.Logf("%s: %d pods, %d failed, the same placements; %d scheduling cycles", p, len(pods), sched.Failed, len(sched.Cycles))
	}
}
