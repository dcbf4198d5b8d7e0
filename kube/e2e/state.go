package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LearnedState is the part of an msched state ConfigMap (data
// "state.json") the tests read: the step count and, per port, its demand
// and learned y by node (kube/plugins' saved-state format).
type LearnedState struct {
	Policy    string   `json:"policy"`
	Resources []string `json:"resources"`
	Steps     int      `json:"steps"`
	Ports     []struct {
		Key    string               `json:"key"`
		Demand []float64            `json:"demand"`
		Y      map[string][]float64 `json:"y"`
	} `json:"ports"`
}

// Scores returns the score of each node for the port key as the plugin
// computes it (100 x the mean over the types the port asks for of
// y/demand, rounded, in [0, 100]; before NormalizeScore), and whether the
// port exists. Nodes without a saved y score 0.
func (s *LearnedState) Scores(key string, nodes []string) (map[string]int64, bool) {
	for _, p := range s.Ports {
		if p.Key != key {
			continue
		}
		out := map[string]int64{}
		for _, n := range nodes {
			y := p.Y[n]
			sum, cnt := 0.0, 0
			for k, d := range p.Demand {
				if d > 0 {
					if k < len(y) {
						sum += y[k] / d
					}
					cnt++
				}
			}
			if cnt > 0 {
				out[n] = int64(math.Round(100 * min(max(sum/float64(cnt), 0), 1)))
			} else {
				out[n] = 0
			}
		}
		return out, true
	}
	return nil, false
}

// GetLearnedState reads the state ConfigMap namespace/name; ok is false
// when it does not exist yet.
func GetLearnedState(t testing.TB, cp *ControlPlane, namespace, name string) (*LearnedState, bool) {
	t.Helper()
	cm, err := cp.Client.CoreV1().ConfigMaps(namespace).Get(context.Background(), name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	if err != nil {
		t.Fatalf("e2e: reading state %s/%s: %v", namespace, name, err)
	}
	raw, ok := cm.Data["state.json"]
	if !ok {
		t.Fatalf("e2e: state %s/%s has no data[state.json] (keys %v, binary %d)", namespace, name, len(cm.Data), len(cm.BinaryData))
	}
	// OGASched's state since version 2: the core's snapshot envelope
	// {"format","version","model","check","state":LearnedState}.
	var env struct {
		State json.RawMessage `json:"state"`
	}
	if err := json.Unmarshal([]byte(raw), &env); err != nil {
		t.Fatalf("e2e: state %s/%s: %v", namespace, name, err)
	}
	var s LearnedState
	if err := json.Unmarshal(env.State, &s); err != nil {
		t.Fatalf("e2e: state %s/%s: %v", namespace, name, err)
	}
	return &s, true
}

// WaitLearnedState polls the state ConfigMap until cond holds for it.
func WaitLearnedState(t testing.TB, cp *ControlPlane, namespace, name string, timeout time.Duration, cond func(*LearnedState) bool) *LearnedState {
	t.Helper()
	deadline := time.Now().Add(timeout)
	var last *LearnedState
	for time.Now().Before(deadline) {
		if s, ok := GetLearnedState(t, cp, namespace, name); ok {
			last = s
			if cond(s) {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	steps := -1
	if last != nil {
		steps = last.Steps
	}
	t.Fatalf("e2e: state %s/%s: condition not met after %v (last steps %d)", namespace, name, timeout, steps)
	return nil
}

// Publish is one "published learned scores" log line of an msched plugin.
type Publish struct {
	Reason string
	Steps  int
	Digest string
}

var publishRE = regexp.MustCompile(`"published learned scores".*?reason="(\w+)" steps=(\d+) .*?digest="([0-9a-f]+)"`)

// Publishes returns the "published learned scores" lines (verbosity 2) of
// the process's log, in order.
func (sp *SchedulerProcess) Publishes() []Publish {
	var out []Publish
	for _, m := range publishRE.FindAllStringSubmatch(sp.Log(), -1) {
		n, _ := strconv.Atoi(m[2])
		out = append(out, Publish{Reason: m[1], Steps: n, Digest: m[3]})
	}
	return out
}

// String formats a Publish for logs.
func (p Publish) String() string {
	return fmt.Sprintf("%s steps=%d digest=%s", p.Reason, p.Steps, p.Digest)
}
