package openb

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/msched/msched/trace"
)

var full = flag.Bool("openb.full", false, "replay the whole OpenB trace for every profile (minutes)")

func loadTrace(t *testing.T) *trace.Trace {
	t.Helper()
	dir, err := trace.DefaultDir()
	if errors.Is(err, trace.ErrNotFound) {
		t.Skipf("OpenB trace not found (%v); set %s", err, trace.DirEnv)
	}
	if err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Load(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestReplaySubset drives the real scheduler with every profile on the
// first 300 pods and 60 nodes, with arrivals compressed 50 times so that
// the nodes fill up and some pods wait.
func TestReplaySubset(t *testing.T) {
	tr := loadTrace(t)
	opt := Options{Pods: 300, Nodes: 60, ArrivalScale: 50, StepSeconds: 3600}
	if *full {
		opt = Options{}
	}
	var rs []*Result
	for _, p := range Profiles {
		r, err := Run(context.Background(), tr, p, opt)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		rs = append(rs, r)
		if r.Violations != 0 {
			t.Errorf("%s: %d bindings exceeded a node's allocatable", p, r.Violations)
		}
		if r.Scheduled == 0 {
			t.Errorf("%s: no pod scheduled", p)
		}
		if r.Scheduled+r.PendingEnd+r.GaveUp < r.Pods-r.Scheduled {
			t.Errorf("%s: pods unaccounted for: %+v", p, r)
		}
		if msched := p == OGASched || p == DRF; msched && r.ScoredOwn == 0 {
			t.Errorf("%s: no scheduling cycle scored with the pod's own port (%d bucketed, %d not scored)", p, r.ScoredBucketed, r.NotScored)
		} else if !msched && r.ScoredOwn+r.ScoredBucketed+r.NotScored != 0 {
			t.Errorf("%s: score counts without an msched plugin", p)
		}
		for _, s := range r.Samples {
			if s.CPU < 0 || s.CPU > 1 || s.GPU < 0 || s.GPU > 1 || s.GPUFrag < 0 || s.GPUFrag > 1 {
				t.Fatalf("%s: sample out of range: %+v", p, s)
			}
		}
	}
	var b bytes.Buffer
	WriteTable(&b, rs)
	t.Logf("\n%s", b.String())
	var fill bytes.Buffer
	WriteFillTable(&fill, rs)
	t.Logf("\n%s", fill.String())
	if strings.Count(fill.String(), "\n") != len(rs)+1 {
		t.Errorf("fill table has %d lines, want %d", strings.Count(fill.String(), "\n"), len(rs)+1)
	}
	for _, p := range Profiles {
		if !strings.Contains(b.String(), string(p)) {
			t.Errorf("table lacks %s", p)
		}
	}
}

func TestConfigYAMLLoads(t *testing.T) {
	for _, p := range Profiles {
		y, err := configYAML(p, 60, 3, "")
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := loadConfig(testLogger(t), y)
		if err != nil {
			t.Fatalf("%s: %v\n%s", p, err, y)
		}
		if len(cfg.Profiles) != 1 || cfg.Profiles[0].SchedulerName != "default-scheduler" {
			t.Errorf("%s: profiles %v", p, cfg.Profiles)
		}
	}
	if _, err := configYAML("Nope", 60, 3, ""); err == nil {
		t.Error("unknown profile accepted")
	}
}
