package ogasched

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	v1 "k8s.io/api/core/v1"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// flakyStore is a file store whose saves fail while fail is set.
type flakyStore struct {
	statestore.File
	fail atomic.Bool
}

func (s *flakyStore) Save(ctx context.Context, b []byte) error {
	if s.fail.Load() {
		return errors.New("store unreachable")
	}
	return s.File.Save(ctx, b)
}

// TestCloseSavesLast: Close promised "a last save" but did not save: steps
// whose save failed (the store was unreachable) were lost at shutdown.
// Now Close saves them, once the learner has stopped.
func TestCloseSavesLast(t *testing.T) {
	ctx := context.Background()
	c := &testClock{}
	st := &flakyStore{File: statestore.File{Path: filepath.Join(t.TempDir(), "state.json")}}
	pl, err := FactoryWithClock(OGASchedName, c.now)(ctx, &Args{StateStore: StateStoreNone, SlotSeconds: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := pl.(*Plugin)
	p.nodes, p.store = testCluster, st
	p.ensureStarted(ctx)
	slot := func(s int) {
		c.set(float64(10*s) + 1)
		for _, pod := range []*v1.Pod{testPod(fmt.Sprintf("g-%d", s), 16, 64, 2), testPod(fmt.Sprintf("c-%d", s), 4, 8, 0)} {
			p.PreFilter(ctx, nil, pod, nil)
		}
	}
	for s := range 4 {
		slot(s)
	}
	c.set(41)
	p.rec.tick(p.seconds())
	waitSteps(t, p, 4) // saved
	st.fail.Store(true)
	for s := 4; s < 8; s++ {
		slot(s)
	}
	c.set(81)
	p.rec.tick(p.seconds())
	waitSteps(t, p, 8) // steps 5..8 not saved
	st.fail.Store(false)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	q := startTestPlugin(t, c, &Args{StatePath: st.Path, SlotSeconds: 10})
	if got := waitSteps(t, q, 1); got.steps != 8 {
		t.Errorf("after Close, the saved state has %d steps, want 8", got.steps)
	}
}
