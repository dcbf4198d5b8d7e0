package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// esdpState is the part of ESDP's state ConfigMap (plugins/esdp saved
// form) the restart test compares.
type esdpState struct {
	LastSlot  int    `json:"lastSlot"`
	Observed  int    `json:"observed"`
	Dropped   int    `json:"dropped"`
	OutcomeRV string `json:"outcomeResourceVersion"`
	Nodes     []struct {
		Name string `json:"name"`
	} `json:"nodes"`
	Policy struct {
		State struct {
			Stats struct {
				Count []int     `json:"count"`
				Sum   []float64 `json:"sum"`
			} `json:"stats"`
		} `json:"state"`
	} `json:"policy"`
}

func getESDPState(t *testing.T, cp *ControlPlane, name string) (*esdpState, string, bool) {
	t.Helper()
	cm, err := cp.Client.CoreV1().ConfigMaps("kube-system").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, "", false
	}
	var s esdpState
	if err := json.Unmarshal([]byte(cm.Data["state.json"]), &s); err != nil {
		t.Fatalf("ESDP state %s: %v", name, err)
	}
	return &s, cm.ResourceVersion, true
}

func waitESDPState(t *testing.T, cp *ControlPlane, name string, timeout time.Duration, cond func(*esdpState) bool) *esdpState {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last *esdpState
	for time.Now().Before(deadline) {
		if s, _, ok := getESDPState(t, cp, name); ok {
			last = s
			if cond(s) {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("ESDP state %s: condition not met after %v; last %+v", name, timeout, last)
	return nil
}

// TestE2EESDPRestart: ESDP learns from finished pods, its scheduler is
// killed (SIGKILL: no final save), and a new scheduler process restores
// the learned statistics from the ConfigMap: after its own first saves,
// the per-channel plays and reward sums and the outcome count equal the
// ones the dead process saved (not reset, and the finished pods its
// outcome informer lists again are not counted twice); its probes go to
// the node the restored statistics favour.
func TestE2EESDPRestart(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	profiles := `- schedulerName: msched-esdp
  plugins:
    preScore: {enabled: [{name: ESDP}]}
    score: {enabled: [{name: ESDP, weight: 50}]}
  pluginConfig:
  - name: ESDP
    args:
      resources: [{name: cpu, unit: "1"}]
      slotSeconds: 0.5
`
	const stateName = "msched-esdp-msched-esdp"
	a := StartScheduler(t, cp, SchedulerConfig{Name: "esdp-a", Args: []string{"--v=2"}, Profiles: profiles})
	CreateNodes(t, cp, Node("n1", 8, 32, 0), Node("n2", 8, 32, 0))
	ctx := context.Background()
	pods := cp.Client.CoreV1().Pods("default")
	reward := map[string]string{"n1": "0.9", "n2": "0.1"}
	finish := func(name string) {
		p, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p.Annotations = map[string]string{"msched.io/reward": reward[p.Spec.NodeName]}
		if p, err = pods.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		p.Status.Phase = v1.PodSucceeded
		if _, err := pods.UpdateStatus(ctx, p, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// The first pod (two feasible nodes) gives scheduler a its first
	// scoring cycle: it loads (nothing) and starts learning.
	CreatePods(t, cp, Pod("default", "start", "msched-esdp", 1000, 64, 0, nil))
	WaitBound(t, cp, "default", []string{"start"}, 60*time.Second)
	a.WaitLog(t, "no saved state, starting fresh", 20*time.Second)
	finish("start")
	// Training: jobs pinned to each node (so both channels are played),
	// reward 0.9 on n1 and 0.1 on n2.
	var names []string
	for i := range 8 {
		node := []string{"n1", "n2"}[i%2]
		p := Pod("default", fmt.Sprint("train-", i), "msched-esdp", 1000, 64, 0, nil)
		p.Spec.NodeSelector = map[string]string{"kubernetes.io/hostname": node}
		names = append(names, p.Name)
		CreatePods(t, cp, p)
	}
	WaitBound(t, cp, "default", names, 60*time.Second)
	for _, n := range names {
		finish(n)
	}
	saved := waitESDPState(t, cp, stateName, 20*time.Second, func(s *esdpState) bool { return s.Observed == 9 })
	t.Logf("scheduler a saved: observed=%d lastSlot=%d plays=%v reward sums=%v (nodes %v)", saved.Observed, saved.LastSlot,
		saved.Policy.State.Stats.Count, saved.Policy.State.Stats.Sum, saved.Nodes)

	a.Kill()
	_, rvAtKill, _ := getESDPState(t, cp, stateName)
	final, _, _ := getESDPState(t, cp, stateName)
	if !reflect.DeepEqual(final.Policy.State.Stats, saved.Policy.State.Stats) || final.Observed != saved.Observed {
		t.Fatalf("the state changed after training ended: %+v vs %+v", final, saved)
	}
	t.Logf("killed scheduler a (SIGKILL) at saved slot %d", final.LastSlot)

	b := StartScheduler(t, cp, SchedulerConfig{Name: "esdp-b", Args: []string{"--v=2"}, Profiles: profiles})
	CreatePods(t, cp, Pod("default", "wake", "msched-esdp", 1000, 64, 0, nil))
	WaitBound(t, cp, "default", []string{"wake"}, 60*time.Second)
	b.WaitLog(t, "restored learned state", 20*time.Second)
	t.Logf("scheduler b: %s", lastLines(b.Log(), "restored learned state", 1))
	// b's own saves: a later slot, the same statistics.
	after := waitESDPState(t, cp, stateName, 20*time.Second, func(s *esdpState) bool { return s.LastSlot > final.LastSlot })
	if _, rv, _ := getESDPState(t, cp, stateName); rv == rvAtKill {
		t.Fatalf("scheduler b did not write the state")
	}
	if !reflect.DeepEqual(after.Policy.State.Stats, final.Policy.State.Stats) || after.Observed != final.Observed || after.OutcomeRV != final.OutcomeRV {
		t.Fatalf("restored statistics differ (reset or counted twice):\n a: observed=%d %+v\n b: observed=%d %+v\n%s",
			final.Observed, final.Policy.State.Stats, after.Observed, after.Policy.State.Stats, lastLines(b.Log(), "ESDP", 5))
	}
	t.Logf("scheduler b saved slot %d with the same statistics: observed=%d plays=%v reward sums=%v", after.LastSlot, after.Observed,
		after.Policy.State.Stats.Count, after.Policy.State.Stats.Sum)
	if strings.Contains(b.Log(), "no saved state") {
		t.Fatalf("scheduler b started fresh")
	}
	// Probes: ESDP's restored statistics favour n1.
	b.WaitLog(t, `"ESDP slot"`, 10*time.Second)
	var probes []string
	for i := range 2 {
		probes = append(probes, fmt.Sprint("probe-", i))
		CreatePods(t, cp, Pod("default", probes[i], "msched-esdp", 1000, 64, 0, nil))
	}
	got := WaitBound(t, cp, "default", probes, 60*time.Second)
	for _, p := range probes {
		if got[p] != "n1" {
			t.Fatalf("after the restart ESDP placed %s on %s, want n1 (%v)\n%s", p, got[p], got, lastLines(b.Log(), "ESDP slot", 3))
		}
	}
	t.Logf("scheduler b placed the probes on the node its restored statistics favour: %v", got)
}
