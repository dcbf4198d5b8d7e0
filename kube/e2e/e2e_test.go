package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The workload of the OGASched tests: three ports. A (2 cores, 16 GiB)
// fits both nodes; B (3 cores, 4 GiB, 1 GPU) and C (2 cores, 2 GiB, 1 GPU)
// only the GPU node, whose 3 cores all three want: OGASched's projection
// onto the node's capacity (6) splits them (about 1 core each), while A
// keeps its whole 2 cores on the CPU node, so the learned scores send A to
// the CPU node (about 55 against 30). LeastAllocated, and the default
// profile, send A to the GPU node: it has 4 times the memory, so A leaves
// it the larger free share.
const (
	cpuNode = "cpu-node"
	gpuNode = "gpu-node"
	keyA    = "shape:cpu=2,memory=16,nvidia.com/gpu=0"
	nsE2E   = "e2e"
)

func twoNodes(t *testing.T, cp *ControlPlane) {
	CreateNodes(t, cp, Node(cpuNode, 4, 16, 0), Node(gpuNode, 3, 64, 1))
	CreateNamespace(t, cp, nsE2E)
}

// podA is a pod of port A.
func podA(name, scheduler string) *v1.Pod {
	return Pod(nsE2E, name, scheduler, 2000, 16<<10, 0, nil)
}

// learningPods returns one pod of each port, batch i, for the scheduler;
// they never fit (node selector matching no node): they reach PreFilter
// (arrivals) and stay pending, so the nodes stay empty for the probes.
func learningPods(scheduler string, i int) []*v1.Pod {
	never := map[string]string{"msched.io/e2e": "never"}
	ps := []*v1.Pod{
		podA(fmt.Sprintf("learn-a-%d", i), scheduler),
		Pod(nsE2E, fmt.Sprintf("learn-b-%d", i), scheduler, 3000, 4<<10, 1, nil),
		Pod(nsE2E, fmt.Sprintf("learn-c-%d", i), scheduler, 2000, 2<<10, 1, nil),
	}
	for _, p := range ps {
		p.Spec.NodeSelector = never
	}
	return ps
}

// oga returns a profile with OGASched on top of the default plugins, its
// score weighted 5, 1-second slots and the state ConfigMap in kube-system.
func oga(name string) string {
	return fmt.Sprintf(`- schedulerName: %s
  plugins:
    preFilter: {enabled: [{name: OGASched}]}
    preScore: {enabled: [{name: OGASched}]}
    score: {enabled: [{name: OGASched, weight: 5}]}
    postBind: {enabled: [{name: OGASched}]}
  pluginConfig:
  - name: OGASched
    args:
      slotSeconds: 1
      maxPorts: 8
`, name)
}

const stateName = "msched-ogasched-msched-ogasched"

// TestE2EOGASched: OGASched learns from arrivals over 1-second slots in
// the real scheduler, saves its state to a ConfigMap, and its learned
// scores decide a placement the default profile makes differently.
func TestE2EOGASched(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	sp := StartScheduler(t, cp, SchedulerConfig{
		Name:     "oga",
		Profiles: "- schedulerName: default-scheduler\n" + oga("msched-ogasched"),
		Args:     []string{"--v=2"},
	})
	twoNodes(t, cp)

	// Learn: a batch of A, B and C arrivals every 0.5 s until A's learned
	// scores separate the nodes after the first oscillating steps (or 40 s).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; ; i++ {
			CreatePods(t, cp, learningPods("msched-ogasched", i)...)
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	})
	st := WaitLearnedState(t, cp, "kube-system", stateName, 40*time.Second, func(s *LearnedState) bool {
		sc, ok := s.Scores(keyA, []string{cpuNode, gpuNode})
		return ok && s.Steps >= 8 && sc[cpuNode] > sc[gpuNode]
	})
	close(stop)
	wg.Wait()
	scores, _ := st.Scores(keyA, []string{cpuNode, gpuNode})
	t.Logf("OGASched learned after %d slot steps: port A scores %s=%d %s=%d (state ConfigMap kube-system/%s)",
		st.Steps, cpuNode, scores[cpuNode], gpuNode, scores[gpuNode], stateName)
	for _, p := range st.Ports {
		t.Logf("  port %s demand %v y %v", p.Key, p.Demand, p.Y)
	}

	// The default profile places an A pod on the empty cluster.
	CreatePods(t, cp, podA("probe-default", "default-scheduler"))
	dflt := WaitBound(t, cp, nsE2E, []string{"probe-default"}, 30*time.Second)["probe-default"]
	deletePod(t, cp, nsE2E, "probe-default")
	// LeastAllocated on the empty cluster, computed here: the mean free
	// share of cpu and memory after placing the pod.
	la := map[string]float64{cpuNode: ((4.0-2)/4 + (16.0-16)/16) / 2, gpuNode: ((3.0-2)/3 + (64.0-16)/64) / 2}
	laPick := cpuNode
	if la[gpuNode] > la[cpuNode] {
		laPick = gpuNode
	}
	t.Logf("LeastAllocated scores %s=%.3f %s=%.3f: picks %s; the default profile bound its probe to %s", cpuNode, la[cpuNode], gpuNode, la[gpuNode], laPick, dflt)

	CreatePods(t, cp, podA("probe-oga", "msched-ogasched"))
	got := WaitBound(t, cp, nsE2E, []string{"probe-oga"}, 30*time.Second)["probe-oga"]
	t.Logf("OGASched profile bound its probe to %s (learned scores favour %s)", got, cpuNode)
	if dflt != laPick {
		t.Errorf("default profile bound the probe to %s, want LeastAllocated's pick %s", dflt, laPick)
	}
	if got != cpuNode || got == laPick {
		t.Errorf("OGASched profile bound the probe to %s; want %s, where its learned scores (%v) send port A, unlike LeastAllocated (%s)", got, cpuNode, scores, laPick)
	}
	// The learning ran off the scheduling path and published each step.
	pubs := sp.Publishes()
	if len(pubs) == 0 || pubs[len(pubs)-1].Steps < st.Steps {
		t.Errorf("publishes %v, want one for step %d", pubs, st.Steps)
	}
}

func deletePod(t *testing.T, cp *ControlPlane, ns, name string) {
	t.Helper()
	zero := int64(0)
	if err := cp.Client.CoreV1().Pods(ns).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil {
		t.Fatalf("deleting %s: %v", name, err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := cp.Client.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{}); err != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("pod %s not gone", name)
}

// TestE2EFailover: two replicas with leader election; the leader learns
// and saves, is killed (SIGKILL) mid-run while pods keep arriving, and the
// standby, once leader, loads the latest saved state (same step, same
// scores digest as the dead leader published for that step) and continues
// learning from there, not from zero.
func TestE2EFailover(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	twoNodes(t, cp)
	cfg := SchedulerConfig{Profiles: oga("msched-ogasched"), LeaderElect: true, Args: []string{"--v=2"}}
	cfg.Name = "a"
	a := StartScheduler(t, cp, cfg)
	a.WaitLog(t, "Successfully acquired lease", 30*time.Second)
	cfg.Name = "b"
	b := StartScheduler(t, cp, cfg)
	b.WaitLog(t, "Attempting to acquire leader lease", 30*time.Second)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var created []string
	wg.Go(func() {
		for i := 0; ; i++ {
			ps := learningPods("msched-ogasched", i)
			probe := Pod(nsE2E, fmt.Sprintf("run-%d", i), "msched-ogasched", 100, 64, 0, nil)
			CreatePods(t, cp, append(ps, probe)...)
			mu.Lock()
			created = append(created, probe.Name)
			mu.Unlock()
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()

	WaitLearnedState(t, cp, "kube-system", stateName, 40*time.Second, func(s *LearnedState) bool { return s.Steps >= 3 })
	a.Kill()
	saved, _ := GetLearnedState(t, cp, "kube-system", stateName)
	var leaderPub *Publish
	for _, p := range a.Publishes() {
		if p.Steps == saved.Steps {
			leaderPub = &p
		}
	}
	if leaderPub == nil {
		t.Fatalf("leader a never published step %d; publishes %v", saved.Steps, a.Publishes())
	}
	t.Logf("killed leader a at saved step %d; a had published %v", saved.Steps, *leaderPub)

	b.WaitLog(t, "Successfully acquired lease", 30*time.Second)
	b.WaitLog(t, "restored learned state", 30*time.Second)
	var first *Publish
	deadline := time.Now().Add(20 * time.Second)
	for first == nil && time.Now().Before(deadline) {
		if ps := b.Publishes(); len(ps) > 0 {
			first = &ps[0]
		}
		time.Sleep(50 * time.Millisecond)
	}
	if first == nil {
		t.Fatal("standby b published nothing after taking over")
	}
	t.Logf("standby b took over: first publish %v", *first)
	if first.Reason != "load" || first.Steps != saved.Steps || first.Digest != leaderPub.Digest {
		t.Errorf("standby's first scores %v, want load at step %d with the leader's digest %s", *first, saved.Steps, leaderPub.Digest)
	}
	after := WaitLearnedState(t, cp, "kube-system", stateName, 30*time.Second, func(s *LearnedState) bool { return s.Steps > saved.Steps+1 })
	t.Logf("standby b continued: saved step %d after the leader's %d", after.Steps, saved.Steps)
	mu.Lock()
	names := append([]string(nil), created...)
	mu.Unlock()
	bound := WaitBound(t, cp, nsE2E, names, 30*time.Second)
	t.Logf("all %d running pods created across the failover are bound", len(bound))
}

// TestE2EShippedConfig runs the README's command on the shipped
// config/scheduler-config.yaml with its kubeconfig placeholder set, as the
// README tells, checks --version, and that two profiles sharing one state
// object are refused.
func TestE2EShippedConfig(t *testing.T) {
	bin := SchedulerBinary(t)
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil {
		t.Fatalf("--version: %v\n%s", err, out)
	}
	want := "v1.37.2+msched." + E2EVersion
	t.Logf("kube-scheduler --version: %s", strings.TrimSpace(string(out)))
	if !strings.Contains(string(out), want) {
		t.Errorf("--version printed %q, want it to contain %q", out, want)
	}

	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	shipped, err := os.ReadFile(filepath.Join("..", "config", "scheduler-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const placeholder = "kubeconfig: /path/to/scheduler.kubeconfig"
	if !strings.Contains(string(shipped), placeholder) {
		t.Fatalf("the shipped config has no %q line to set", placeholder)
	}
	cfg := strings.Replace(string(shipped), placeholder, "kubeconfig: ${KUBECONFIG}", 1)
	sp := StartScheduler(t, cp, SchedulerConfig{Name: "shipped", Config: cfg})
	CreateNodes(t, cp, Node("n1", 8, 32, 1))
	CreateNamespace(t, cp, nsE2E)
	CreatePods(t, cp,
		Pod(nsE2E, "p-default", "default-scheduler", 500, 256, 0, nil),
		Pod(nsE2E, "p-oga", "msched-ogasched", 500, 256, 0, nil),
		Pod(nsE2E, "p-drf", "msched-drf", 500, 256, 0, nil))
	got := WaitBound(t, cp, nsE2E, []string{"p-default", "p-oga", "p-drf"}, 60*time.Second)
	t.Logf("README command (--config only, kubeconfig inside): bound %v", got)
	_ = sp

	// Two profiles naming one state ConfigMap: the binary refuses to start.
	dup := oga("p1") + oga("p2")
	dup = strings.ReplaceAll(dup, "      maxPorts: 8\n", "      maxPorts: 8\n      stateName: shared\n")
	bad := StartScheduler(t, cp, SchedulerConfig{Name: "dup", Profiles: dup})
	select {
	case <-bad.Exited():
	case <-time.After(60 * time.Second):
		t.Fatal("a scheduler with two profiles sharing one state object did not exit")
	}
	if !strings.Contains(bad.Log(), "cannot share it") {
		t.Errorf("duplicate state object: output lacks the reason:\n%s", bad.Log())
	} else {
		for _, l := range strings.Split(bad.Log(), "\n") {
			if strings.Contains(l, "cannot share") {
				t.Logf("refused: %s", strings.TrimSpace(l))
				break
			}
		}
	}
}
