package e2e

import (
	"testing"
	"time"
)

// TestE2EHarness checks the harness itself: a control plane, the binary
// with the default profile, one node and one pod bound to it.
func TestE2EHarness(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	sp := StartScheduler(t, cp, SchedulerConfig{Name: "default", Profiles: "- schedulerName: default-scheduler\n"})
	CreateNodes(t, cp, Node("n1", 4, 16, 0))
	CreatePods(t, cp, Pod("default", "p1", "default-scheduler", 500, 256, 0, nil))
	got := WaitBound(t, cp, "default", []string{"p1"}, 60*time.Second)
	if got["p1"] != "n1" {
		t.Fatalf("p1 bound to %q, want n1", got["p1"])
	}
	_ = sp
}
