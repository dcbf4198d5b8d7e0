package plugins

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	fwk "k8s.io/kube-scheduler/framework"
)

// TestStateSurvivesRestart saves through the plugin (as after a slot step)
// and builds a new plugin from the same args, as a restarted scheduler does.
func TestStateSurvivesRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	now := time.Unix(0, 0)
	clock := func() time.Time { return now }
	ctx := context.Background()
	pl, err := FactoryWithClock(OGASchedName, clock)(ctx, &Args{StatePath: path, SlotSeconds: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	drive(p.e, testCluster(), 0, 10)
	now = time.Unix(101, 0)
	p.PreFilter(ctx, nil, testPod("late", 4, 8, 0), nil) // steps slot 9 and saves
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no state saved: %v", err)
	}
	again, err := FactoryWithClock(OGASchedName, clock)(ctx, &Args{StatePath: path, SlotSeconds: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	q := again.(*Plugin)
	if q.e.steps != p.e.steps || len(q.e.ports) != len(p.e.ports) || q.e.steps != 10 {
		t.Errorf("restored steps %d ports %d, saved steps %d ports %d", q.e.steps, len(q.e.ports), p.e.steps, len(p.e.ports))
	}
	// A corrupt file stops the scheduler with an error naming the path.
	if err := os.WriteFile(path, []byte(`{"format":"msched/kube.OGASched","version":9}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := FactoryWithClock(OGASchedName, clock)(ctx, &Args{StatePath: path}, nil); !errors.Is(err, ErrState) {
		t.Errorf("corrupt state: error = %v, want ErrState", err)
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
