package ogasched

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// testClock is a settable clock read by the learner goroutine too.
type testClock struct{ ns atomic.Int64 }

func (c *testClock) now() time.Time  { return time.Unix(0, c.ns.Load()) }
func (c *testClock) set(sec float64) { c.ns.Store(int64(sec * 1e9)) }

// startTestPlugin builds an OGASched plugin without a framework handle
// (file store or none) on the test cluster and starts its learner.
func startTestPlugin(t *testing.T, c *testClock, a *Args) *Plugin {
	t.Helper()
	pl, err := FactoryWithClock(OGASchedName, c.now)(context.Background(), a, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	p.nodes = testCluster
	t.Cleanup(func() { p.Close() })
	p.ensureStarted(context.Background())
	return p
}

// waitSteps waits until the plugin published a snapshot of at least steps.
func waitSteps(t *testing.T, p *Plugin, steps int) *snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if s := p.snap.Load(); s != nil && s.steps >= steps {
			return s
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("no snapshot of %d steps after 10 s (have %+v)", steps, p.snap.Load())
	return nil
}

// TestStateSurvivesRestart: a plugin learns through PreFilter arrivals in
// the learner goroutine and saves after each step; a new plugin on the same
// (deprecated) file store publishes the same scores at the same step.
func TestStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ctx := context.Background()
	c := &testClock{}
	p := startTestPlugin(t, c, &Args{StatePath: path, SlotSeconds: 10})
	for s := range 10 {
		c.set(float64(10*s) + 1)
		for _, pod := range []*v1.Pod{testPod(fmt.Sprintf("g-%d", s), 16, 64, 2), testPod(fmt.Sprintf("c-%d", s), 4, 8, 0)} {
			p.PreFilter(ctx, nil, pod, nil)
		}
	}
	c.set(101)
	p.rec.tick(p.seconds()) // slot 9 ends
	saved := waitSteps(t, p, 10)
	p.Close() // waits for the learner: the save of step 10 is done
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no state saved: %v", err)
	}
	q := startTestPlugin(t, c, &Args{StatePath: path, SlotSeconds: 10})
	got := waitSteps(t, q, 10)
	if got.steps != saved.steps || got.digest != saved.digest {
		t.Errorf("restored steps %d digest %s, saved steps %d digest %s", got.steps, got.digest, saved.steps, saved.digest)
	}
	q.Close()
	// A corrupt state is reported, never overwritten, and nothing is scored.
	bad := []byte(`{"format":"msched/kube.OGASched","version":9}`)
	if err := os.WriteFile(path, bad, 0o600); err != nil {
		t.Fatal(err)
	}
	r := startTestPlugin(t, c, &Args{StatePath: path, SlotSeconds: 10})
	if !errors.Is(r.lastLoadErr(), ErrState) {
		t.Errorf("corrupt state: load error = %v, want ErrState", r.lastLoadErr())
	}
	if st := r.PreScore(ctx, nil, testPod("x", 1, 1, 0), nil); st.Code() != fwk.Skip {
		t.Errorf("PreScore with a corrupt state: %v, want Skip", st)
	}
	r.Close()
	if b, _ := os.ReadFile(path); string(b) != string(bad) {
		t.Errorf("corrupt state overwritten: %s", b)
	}
}

// TestClaimRefusesSharedState: two profiles of one scheduler may not name
// the same state object; the same profile again (a rebuilt framework) and
// another scheduler may.
func TestClaimRefusesSharedState(t *testing.T) {
	client, other := new(int), new(int)
	rel, err := claim(client, "configmap kube-system/s", "a", OGASchedName)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := claim(client, "configmap kube-system/s", "b", OGASchedName); err == nil {
		t.Error("profile b claimed profile a's state object")
	}
	if _, err := claim(other, "configmap kube-system/s", "b", OGASchedName); err != nil {
		t.Errorf("another scheduler: %v", err)
	}
	rel()
	if _, err := claim(client, "configmap kube-system/s", "b", OGASchedName); err != nil {
		t.Errorf("after release: %v", err)
	}
}

// TestDefaultStateName: per-profile names are valid ConfigMap names.
func TestDefaultStateName(t *testing.T) {
	for in, want := range map[string]string{
		"msched-ogasched": "msched-ogasched-msched-ogasched",
		"My_Profile!":     "msched-ogasched-my-profile",
	} {
		if got := DefaultStateName(OGASchedName, in); got != want {
			t.Errorf("DefaultStateName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeScore(t *testing.T) {
	p := &Plugin{}
	scores := fwk.NodeScoreList{{Name: "a", Score: 10}, {Name: "b", Score: 40}, {Name: "c", Score: 0}}
	if st := p.NormalizeScore(context.Background(), nil, &v1.Pod{}, scores); !st.IsSuccess() {
		t.Fatal(st)
	}
	if scores[0].Score != 25 || scores[1].Score != 100 || scores[2].Score != 0 {
		t.Errorf("normalized %v, want 25 100 0", scores)
	}
	zero := fwk.NodeScoreList{{Name: "a"}, {Name: "b"}}
	p.NormalizeScore(context.Background(), nil, &v1.Pod{}, zero)
	if zero[0].Score != 0 || zero[1].Score != 0 {
		t.Errorf("all-zero scores changed: %v", zero)
	}
}

// TestSignPodByPortKey: pods of one port (same shape, or same label value)
// sign alike, other ports differently.
func TestSignPodByPortKey(t *testing.T) {
	c := &testClock{}
	p := startTestPlugin(t, c, &Args{StateStore: StateStoreNone, PortLabel: "msched.io/port"})
	sign := func(pod *v1.Pod) any {
		fr, st := p.SignPod(context.Background(), pod)
		if !st.IsSuccess() || len(fr) != 1 {
			t.Fatalf("SignPod: %v %v", fr, st)
		}
		return fr[0].Value
	}
	a1, a2, b := testPod("a1", 4, 8, 0), testPod("a2", 4, 8, 0), testPod("b", 4, 8, 1)
	if sign(a1) != sign(a2) || sign(a1) == sign(b) {
		t.Errorf("signatures: a1 %v a2 %v b %v", sign(a1), sign(a2), sign(b))
	}
	l1, l2 := testPod("l1", 1, 1, 0), testPod("l2", 8, 64, 2)
	l1.Labels = map[string]string{"msched.io/port": "x"}
	l2.Labels = map[string]string{"msched.io/port": "x"}
	if sign(l1) != sign(l2) {
		t.Errorf("same port label, signatures %v and %v", sign(l1), sign(l2))
	}
}
