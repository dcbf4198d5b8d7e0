package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
)

// outageProfiles: OGASched and ESDP, 0.5 s slots.
const outageProfiles = `- schedulerName: msched-ogasched
  plugins:
    preFilter: {enabled: [{name: OGASched}]}
    preScore: {enabled: [{name: OGASched}]}
    score: {enabled: [{name: OGASched, weight: 2}]}
    postBind: {enabled: [{name: OGASched}]}
  pluginConfig:
  - name: OGASched
    args: {slotSeconds: 0.5}
- schedulerName: msched-esdp
  plugins:
    preFilter: {enabled: [{name: ESDP}]}
    preScore: {enabled: [{name: ESDP}]}
    score: {enabled: [{name: ESDP, weight: 2}]}
  pluginConfig:
  - name: ESDP
    args: {resources: [{name: cpu, unit: "1"}], slotSeconds: 0.5}
`

// learned reads OGASched's step count and ESDP's last slot from their
// state objects.
func learned(t *testing.T, cp *ControlPlane) (steps, lastSlot int, ok bool) {
	t.Helper()
	og, ok1 := getCM(t, cp, "msched-ogasched-msched-ogasched")
	es, ok2 := getCM(t, cp, "msched-esdp-msched-esdp")
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	var o struct {
		State struct {
			Steps int `json:"steps"`
		} `json:"state"`
	}
	var e struct {
		LastSlot int `json:"lastSlot"`
	}
	if json.Unmarshal([]byte(og.Data["state.json"]), &o) != nil || json.Unmarshal([]byte(es.Data["state.json"]), &e) != nil {
		return 0, 0, false
	}
	return o.State.Steps, e.LastSlot, true
}

func waitLearned(t *testing.T, cp *ControlPlane, timeout time.Duration, cond func(steps, lastSlot int) bool) (int, int) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if s, l, ok := learned(t, cp); ok && cond(s, l) {
			return s, l
		}
		time.Sleep(100 * time.Millisecond)
	}
	s, l, _ := learned(t, cp)
	t.Fatalf("learned state: condition not met after %v (OGASched steps %d, ESDP lastSlot %d)", timeout, s, l)
	return 0, 0
}

func outagePods(t *testing.T, cp *ControlPlane, prefix string, n int) []string {
	t.Helper()
	var names []string
	for i := range n {
		for _, prof := range []string{"msched-ogasched", "msched-esdp"} {
			p := Pod("default", fmt.Sprintf("%s-%s-%d", prefix, strings.TrimPrefix(prof, "msched-"), i), prof, 100, 16, 0, nil)
			names = append(names, p.Name)
			CreatePods(t, cp, p)
		}
	}
	return names
}

// TestE2EFaultAPIServerOutage: the scheduler's connection to the API
// server is cut for 10 s (a proxy refuses and drops every connection)
// while OGASched and ESDP learn. Without leader election the scheduler
// rides it out: saves fail and are logged, and once the API server is
// back the learners save again, continuing their step count and slot
// clock. With leader election the replica loses its lease and exits
// (upstream kube-scheduler's rule); the replica that takes over restores
// the saved state and continues from it.
func TestE2EFaultAPIServerOutage(t *testing.T) {
	for _, le := range []bool{false, true} {
		t.Run(fmt.Sprintf("leaderElect=%t", le), func(t *testing.T) {
			cp, cleanup := StartControlPlane(t)
			defer cleanup()
			px := StartProxy(t, cp)
			CreateNodes(t, cp, Node("n1", 64, 256, 0), Node("n2", 64, 256, 0))
			a := StartScheduler(t, px.Via(cp), SchedulerConfig{Name: fmt.Sprint("outage-a-", le), Args: []string{"--v=2"}, Profiles: outageProfiles, LeaderElect: le})
			WaitBound(t, cp, "default", outagePods(t, cp, "before", 2), 60*time.Second)
			steps0, slot0 := waitLearned(t, cp, 30*time.Second, func(s, l int) bool { return s >= 1 && l >= 0 })
			t.Logf("before the outage: OGASched steps %d, ESDP lastSlot %d", steps0, slot0)

			px.Down()
			t0 := time.Now()
			during := outagePods(t, cp, "during", 2) // the scheduler cannot see them yet
			time.Sleep(10 * time.Second)
			px.Up(t)
			t.Logf("API server unreachable for %.1fs", time.Since(t0).Seconds())

			sp := a
			select {
			case <-a.Exited():
				if !le {
					t.Fatalf("the scheduler exited without leader election:\n%s", lastLines(a.Log(), "", 20))
				}
				t.Logf("replica a exited after the outage: %s", lastLineWith(a.Log(), "Leaderelection lost"))
				sp = StartScheduler(t, px.Via(cp), SchedulerConfig{Name: "outage-b", Args: []string{"--v=2"}, Profiles: outageProfiles, LeaderElect: true})
			case <-time.After(2 * time.Second):
				t.Logf("replica a rode out the outage; a failed save: %s", lastLineWith(a.Log(), "saving the learned state"))
			}
			WaitBound(t, cp, "default", during, 60*time.Second)
			WaitBound(t, cp, "default", outagePods(t, cp, "after", 2), 60*time.Second)
			steps1, slot1 := waitLearned(t, cp, 30*time.Second, func(s, l int) bool { return s > steps0 && l > slot0 })
			t.Logf("after the outage: OGASched steps %d (was %d), ESDP lastSlot %d (was %d)", steps1, steps0, slot1, slot0)
			if sp != a {
				sp.WaitLog(t, "restored learned state", 10*time.Second)
				if strings.Contains(sp.Log(), "starting fresh") {
					t.Fatalf("the replica that took over started fresh:\n%s", lastLines(sp.Log(), "state", 10))
				}
				t.Logf("replica b: %s", lastLineWith(sp.Log(), "restored learned state", `plugin="OGASched"`))
			}
			_ = v1.PodPending
		})
	}
}
