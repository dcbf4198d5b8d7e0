package e2e

// The fault tests of issue 30: corrupted state objects of every stateful
// plugin (bit flips and structural damage), replaced or deleted while the
// scheduler runs, and OnSocMax with two replicas. The API-server outage
// tests are in outage_test.go.

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statefulProfiles: OGASched, ESDP and OCORP, each in its own profile
// (OCORP's QueueSort in all: a scheduler has one queue), 0.5 s slots.
const statefulProfiles = `- schedulerName: msched-ogasched
  plugins:
    queueSort: {enabled: [{name: OCORP}], disabled: [{name: "*"}]}
    preFilter: {enabled: [{name: OGASched}]}
    preScore: {enabled: [{name: OGASched}]}
    score: {enabled: [{name: OGASched, weight: 2}]}
    postBind: {enabled: [{name: OGASched}]}
  pluginConfig:
  - name: OGASched
    args: {slotSeconds: 0.5}
  - name: OCORP
    args: {profiles: [msched-ocorp], slotSeconds: 0.5}
- schedulerName: msched-esdp
  plugins:
    queueSort: {enabled: [{name: OCORP}], disabled: [{name: "*"}]}
    preFilter: {enabled: [{name: ESDP}]}
    preScore: {enabled: [{name: ESDP}]}
    score: {enabled: [{name: ESDP, weight: 2}]}
  pluginConfig:
  - name: ESDP
    args: {resources: [{name: cpu, unit: "1"}], slotSeconds: 0.5}
  - name: OCORP
    args: {profiles: [msched-ocorp], slotSeconds: 0.5}
- schedulerName: msched-ocorp
  plugins:
    queueSort: {enabled: [{name: OCORP}], disabled: [{name: "*"}]}
    preFilter: {enabled: [{name: OCORP}]}
    postFilter: {enabled: [{name: OCORP}], disabled: [{name: DefaultPreemption}]}
  pluginConfig:
  - name: OCORP
    args: {profiles: [msched-ocorp], slotSeconds: 0.5}
`

// stateObjects are the ConfigMaps of statefulProfiles, by plugin.
var stateObjects = map[string]string{
	"OGASched": "msched-ogasched-msched-ogasched",
	"ESDP":     "msched-esdp-msched-esdp",
	"OCORP":    "msched-ocorp-msched-ocorp",
}

var pluginOrder = []string{"OGASched", "ESDP", "OCORP"}

// schedulerOf is the profile of each plugin.
var schedulerOf = map[string]string{"OGASched": "msched-ogasched", "ESDP": "msched-esdp", "OCORP": "msched-ocorp"}

func getCM(t *testing.T, cp *ControlPlane, name string) (*v1.ConfigMap, bool) {
	t.Helper()
	cm, err := cp.Client.CoreV1().ConfigMaps("kube-system").Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, false
	}
	return cm, true
}

func waitCM(t *testing.T, cp *ControlPlane, name string, timeout time.Duration, cond func(*v1.ConfigMap) bool) *v1.ConfigMap {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if cm, ok := getCM(t, cp, name); ok && cond(cm) {
			return cm
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("state object %s: condition not met after %v", name, timeout)
	return nil
}

// putCM replaces the object's data (or creates it), as an operator would.
func putCM(t *testing.T, cp *ControlPlane, name, data string) {
	t.Helper()
	cms := cp.Client.CoreV1().ConfigMaps("kube-system")
	ctx := context.Background()
	cm, err := cms.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		cm = &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name}}
		cm.Data = map[string]string{"state.json": data}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		return
	}
	cm.Data = map[string]string{"state.json": data}
	cm.Annotations = map[string]string{"msched.io/writer": "e2e-operator"}
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// flipDigit flips the lowest bit of the first digit after the core
// snapshot's "state" key (a digit stays a digit: an in-range change, 4 <-> 5).
func flipDigit(t *testing.T, s string) string {
	t.Helper()
	i := strings.LastIndex(s, `"state":`)
	if i < 0 {
		t.Fatalf("no core state in %.200s", s)
	}
	for j := i; j < len(s); j++ {
		if s[j] >= '0' && s[j] <= '9' {
			return s[:j] + string(s[j]^1) + s[j+1:]
		}
	}
	t.Fatalf("no digit in the state of %.200s", s)
	return ""
}

// lastLineWith returns the last log line holding every one of subs, cut
// to 600 bytes.
func lastLineWith(log string, subs ...string) string {
	lines := strings.Split(log, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(lines[i], s)
		}
		if ok {
			if len(lines[i]) > 600 {
				return lines[i][:600] + "..."
			}
			return lines[i]
		}
	}
	return "(none)"
}

// countLines counts the log lines holding every one of subs.
func countLines(log string, subs ...string) int {
	n := 0
	for _, l := range strings.Split(log, "\n") {
		ok := true
		for _, s := range subs {
			ok = ok && strings.Contains(l, s)
		}
		if ok {
			n++
		}
	}
	return n
}

func waitLines(t *testing.T, sp *SchedulerProcess, n int, timeout time.Duration, subs ...string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if countLines(sp.Log(), subs...) >= n {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("scheduler %s: fewer than %d log lines with %q after %v\n%s", sp.Name, n, subs, timeout, lastLines(sp.Log(), "state", 10))
}

// trainStateful binds one pod per profile (starting every learner) and
// waits until the three state objects are saved.
func trainStateful(t *testing.T, cp *ControlPlane, prefix string) map[string]*v1.ConfigMap {
	t.Helper()
	var names []string
	for _, pl := range pluginOrder {
		name := fmt.Sprintf("%s-%s", prefix, strings.ToLower(pl))
		names = append(names, name)
		CreatePods(t, cp, Pod("default", name, schedulerOf[pl], 500, 64, 0, nil))
	}
	WaitBound(t, cp, "default", names, 60*time.Second)
	saved := map[string]*v1.ConfigMap{}
	for _, pl := range pluginOrder {
		saved[pl] = waitCM(t, cp, stateObjects[pl], 30*time.Second, func(cm *v1.ConfigMap) bool { return cm.Data["state.json"] != "" })
	}
	return saved
}

// TestE2EFaultCorruptState: the state objects of OGASched, ESDP and OCORP
// are saved, the scheduler is killed, and each object gets an in-range
// bit flip (a digit of the core state, covered by its sha256 check). A new
// scheduler refuses all three, logs it and never writes them; while it
// runs, each is replaced by structural damage (truncated JSON: logged
// again, still not written), then OGASched's by its valid original
// (restored), ESDP's deleted (fresh start) and OCORP's deleted; each plugin
// then saves again. Finally a valid OGASched object deleted while running
// is created again by the next save, and one replaced by another writer
// is restored, not overwritten.
func TestE2EFaultCorruptState(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	CreateNodes(t, cp, Node("n1", 8, 32, 0), Node("n2", 8, 32, 0))
	a := StartScheduler(t, cp, SchedulerConfig{Name: "fault-a", Args: []string{"--v=2"}, Profiles: statefulProfiles})
	saved := trainStateful(t, cp, "a")
	a.Kill()
	t.Logf("scheduler a saved %s, %s, %s and was killed", stateObjects["OGASched"], stateObjects["ESDP"], stateObjects["OCORP"])

	for _, pl := range pluginOrder {
		putCM(t, cp, stateObjects[pl], flipDigit(t, saved[pl].Data["state.json"]))
	}
	b := StartScheduler(t, cp, SchedulerConfig{Name: "fault-b", Args: []string{"--v=2"}, Profiles: statefulProfiles})
	var names []string
	for _, pl := range pluginOrder {
		name := "b-" + strings.ToLower(pl)
		names = append(names, name)
		CreatePods(t, cp, Pod("default", name, schedulerOf[pl], 500, 64, 0, nil))
	}
	WaitBound(t, cp, "default", names, 60*time.Second)
	rv := map[string]string{}
	for _, pl := range pluginOrder {
		waitLines(t, b, 1, 20*time.Second, "invalid learned state", stateObjects[pl])
		cm, _ := getCM(t, cp, stateObjects[pl])
		rv[pl] = cm.ResourceVersion
		t.Logf("bit flip, %s: %s", pl, lastLineWith(b.Log(), "invalid learned state", stateObjects[pl]))
	}
	// Structural damage while running.
	for _, pl := range pluginOrder {
		s := saved[pl].Data["state.json"]
		putCM(t, cp, stateObjects[pl], s[:len(s)/2])
		cm, _ := getCM(t, cp, stateObjects[pl])
		rv[pl] = cm.ResourceVersion
	}
	for _, pl := range pluginOrder {
		waitLines(t, b, 2, 20*time.Second, "invalid learned state", stateObjects[pl])
		t.Logf("structural damage, %s: %s", pl, lastLineWith(b.Log(), "invalid learned state", stateObjects[pl]))
	}
	time.Sleep(2 * time.Second) // four slots: nothing is written
	for _, pl := range pluginOrder {
		if cm, _ := getCM(t, cp, stateObjects[pl]); cm.ResourceVersion != rv[pl] {
			t.Fatalf("%s: the invalid state object was overwritten", pl)
		}
	}
	// Recovery: OGASched's replaced by its valid original, the others
	// deleted.
	putCM(t, cp, stateObjects["OGASched"], saved["OGASched"].Data["state.json"])
	for _, pl := range []string{"ESDP", "OCORP"} {
		if err := cp.Client.CoreV1().ConfigMaps("kube-system").Delete(context.Background(), stateObjects[pl], metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitLines(t, b, 1, 20*time.Second, "restored learned state", `plugin="OGASched"`)
	for _, pl := range []string{"ESDP", "OCORP"} {
		waitLines(t, b, 1, 20*time.Second, "no saved state, starting fresh", `plugin="`+pl+`"`)
	}
	for _, pl := range pluginOrder {
		t.Logf("recovered, %s: %s", pl, lastLineWith(b.Log(), "learned state loaded after failed attempts", stateObjects[pl]))
	}
	// Each learns and saves again (a pod per profile).
	trainStateful(t, cp, "c")
	for _, pl := range pluginOrder {
		waitCM(t, cp, stateObjects[pl], 20*time.Second, func(cm *v1.ConfigMap) bool {
			return cm.Annotations["msched.io/writer"] != "" && cm.Annotations["msched.io/writer"] != "e2e-operator"
		})
	}
	t.Logf("all three plugins save again")

	// A valid object deleted while running: the next save creates it again.
	og := stateObjects["OGASched"]
	if err := cp.Client.CoreV1().ConfigMaps("kube-system").Delete(context.Background(), og, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	CreatePods(t, cp, Pod("default", "d-ogasched", "msched-ogasched", 500, 64, 0, nil))
	WaitBound(t, cp, "default", []string{"d-ogasched"}, 60*time.Second)
	waitCM(t, cp, og, 20*time.Second, func(*v1.ConfigMap) bool { return true })
	t.Logf("OGASched's object deleted while running: saved again")
	// Replaced by another writer while running: not overwritten; the
	// plugin restores what the other writer saved.
	putCM(t, cp, og, saved["OGASched"].Data["state.json"])
	CreatePods(t, cp, Pod("default", "e-ogasched", "msched-ogasched", 500, 64, 0, nil))
	WaitBound(t, cp, "default", []string{"e-ogasched"}, 60*time.Second)
	waitLines(t, b, 1, 20*time.Second, "written by someone else", og)
	waitLines(t, b, 2, 20*time.Second, "restored learned state", `plugin="OGASched"`)
	t.Logf("foreign writer: %s", lastLineWith(b.Log(), "written by someone else"))
	t.Logf("then: %s", lastLineWith(b.Log(), "restored learned state", `plugin="OGASched"`))
}

// TestE2EFaultOnSocMaxTwoReplicas: two scheduler replicas with leader
// election gate the same six jobs (PreEnqueue runs on the standby too);
// exactly one replica writes: one event and one condition per pod.
func TestE2EFaultOnSocMaxTwoReplicas(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	profiles := `- schedulerName: msched-onsocmax
  plugins:
    preEnqueue: {enabled: [{name: OnSocMax}]}
    reserve: {enabled: [{name: OnSocMax}]}
  pluginConfig:
  - name: OnSocMax
    args: {resources: [{name: cpu, unit: "1"}]}
`
	CreateNodes(t, cp, Node("n1", 8, 32, 0))
	a := StartScheduler(t, cp, SchedulerConfig{Name: "osm-a", Args: []string{"--v=2"}, Profiles: profiles, LeaderElect: true})
	b := StartScheduler(t, cp, SchedulerConfig{Name: "osm-b", Args: []string{"--v=2"}, Profiles: profiles, LeaderElect: true})
	a.WaitLog(t, "Starting Kubernetes Scheduler", 60*time.Second)
	b.WaitLog(t, "Starting Kubernetes Scheduler", 60*time.Second)
	var names []string
	for i := range 6 {
		p := Pod("default", fmt.Sprint("job-", i), "msched-onsocmax", 500, 64, 0, nil)
		p.Annotations = map[string]string{"msched.io/value": "50"}
		if i%2 == 1 {
			p.Annotations["msched.io/value"] = "0.001" // held: price above value
		}
		names = append(names, p.Name)
		CreatePods(t, cp, p)
	}
	ctx := context.Background()
	deadline := time.Now().Add(30 * time.Second)
	conds := 0
	for time.Now().Before(deadline) {
		conds = 0
		for _, n := range names {
			p, err := cp.Client.CoreV1().Pods("default").Get(ctx, n, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range p.Status.Conditions {
				if c.Type == "msched.io/Admitted" {
					conds++
				}
			}
		}
		if conds == len(names) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if conds != len(names) {
		t.Fatalf("%d of %d pods have the admission condition", conds, len(names))
	}
	time.Sleep(3 * time.Second) // the standby's writes, if any, would land now
	count := func() (map[string]int, int) {
		per, total := map[string]int{}, 0
		evs, err := cp.Client.EventsV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs.Items {
			if e.Reason == "Admitted" || e.Reason == "PriceAboveValue" || e.Reason == "Refused" {
				n := 1
				if e.DeprecatedCount > 1 {
					n = int(e.DeprecatedCount)
				}
				if e.Series != nil {
					n = int(e.Series.Count)
				}
				per[e.Regarding.Name] += n
				total += n
			}
		}
		return per, total
	}
	per, total := count()
	writers := 0
	for _, sp := range []*SchedulerProcess{a, b} {
		if strings.Contains(sp.Log(), "this replica writes the admission conditions") {
			writers++
			t.Logf("writer: %s: %s", sp.Name, lastLines(sp.Log(), "this replica writes the admission conditions", 1))
		}
	}
	t.Logf("OnSocMax events: %d for %d pods %v; replicas writing: %d", total, len(names), per, writers)
	if writers != 1 {
		t.Fatalf("%d replicas write", writers)
	}
	if total != len(names) {
		t.Fatalf("%d OnSocMax events for %d pods, want one each: %v", total, len(names), per)
	}
}
