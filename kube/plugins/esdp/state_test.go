package esdp

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientsetfake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

func cpuArgs() *Args { return &Args{Resources: []ResourceSpec{{Name: "cpu"}}, SlotSeconds: 10} }

// train runs slots from..to with a job of 3 CPUs arriving per slot and
// one outcome on each node (0.9 on n1, 0.1 on n2), resourceVersions
// counting up from rv.
func train(t *testing.T, pl *Plugin, from, to int, rv *int) {
	t.Helper()
	for slot := from; slot <= to; slot++ {
		pl.Arrive(mkPod(fmt.Sprint("a", slot), 3))
		for _, o := range []struct{ node, reward string }{{"n1", "0.9"}, {"n2", "0.1"}} {
			q := finished(fmt.Sprint(o.node, "-", slot), 3, o.node, v1.PodSucceeded, o.reward)
			*rv++
			q.ResourceVersion = strconv.Itoa(*rv)
			pl.Finish(q)
		}
		require.NoError(t, pl.Step(context.Background(), at(slot)))
	}
}

// TestStateRoundTrip: a plugin restored from the ConfigMap another saved
// has the same statistics, slot and model, and from then on decides and
// scores exactly as the one that saved (run side by side); finished pods
// taken before the save are not fed again.
func TestStateRoundTrip(t *testing.T) {
	ctx := context.Background()
	cs := clientsetfake.NewClientset()
	a, err := setupWith(t, cs, "msched-esdp", cpuArgs(), 2)
	require.NoError(t, err)
	rv := 100
	train(t, a, 0, 12, &rv)
	a.save(ctx, klog.Background())
	cm, err := cs.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, "msched-esdp-msched-esdp", metav1.GetOptions{})
	require.NoError(t, err)
	require.Contains(t, cm.Data, statestore.DataKey)

	// A new process: another epoch, empty memory; the same profile.
	require.NoError(t, a.Close())
	b, err := setupWith(t, cs, "msched-esdp", cpuArgs(), 2)
	require.NoError(t, err)
	b.epoch = epoch.Add(time.Hour)
	require.NoError(t, b.load(ctx, klog.Background()))
	require.Equal(t, a.epoch, b.epoch)
	require.Equal(t, a.lastSlot, b.lastSlot)
	require.Equal(t, a.portKeys, b.portKeys)
	require.Equal(t, a.servers, b.servers)
	require.Equal(t, a.pol.Stats(), b.pol.Stats(), "learned statistics equal, not reset")
	ao, ad := a.Stats()
	bo, bd := b.Stats()
	require.Equal(t, [2]int{ao, ad}, [2]int{bo, bd})
	require.Equal(t, 26, bo)

	// The informer of the new process lists the finished pods again:
	// those taken before the save are skipped, a newer one is taken.
	old := finished("n1-3", 3, "n1", v1.PodSucceeded, "0.9")
	old.ResourceVersion = "107"
	b.Finish(old)
	require.Empty(t, b.outcomes, "an outcome taken before the restart is not fed twice")
	a.Finish(old) // a remembers it by UID: also not taken
	require.Empty(t, a.outcomes)

	// Side by side from here: same decisions, same scores.
	train(t, a, 13, 20, &rv)
	rv -= 16
	train(t, b, 13, 20, &rv)
	require.Equal(t, a.pol.Stats(), b.pol.Stats())
	pod := mkPod("p", 3)
	require.Equal(t, scores(t, a, pod), scores(t, b, pod))
	require.Equal(t, a.snap.Load().scores, b.snap.Load().scores)
}

// TestStateSharedObjectRefused: two profiles of one scheduler naming one
// state object are refused; other names, or another scheduler, are not.
func TestStateSharedObjectRefused(t *testing.T) {
	cs := clientsetfake.NewClientset()
	shared := cpuArgs()
	shared.StateName = "shared"
	_, err := setupWith(t, cs, "p1", shared, 0)
	require.NoError(t, err)
	_, err = setupWith(t, cs, "p2", shared, 0)
	require.ErrorContains(t, err, "args.stateName: Duplicate value")
	require.ErrorContains(t, err, "cannot share it")
	_, err = setupWith(t, cs, "p3", cpuArgs(), 0) // its own default name
	require.NoError(t, err)
	_, err = setupWith(t, clientsetfake.NewClientset(), "p2", shared, 0) // another scheduler
	require.NoError(t, err)
	none := cpuArgs()
	none.StateStore, none.StateName = StateStoreNone, "shared"
	_, err = setupWith(t, cs, "p4", none, 0)
	require.NoError(t, err, "no store, no claim")
}

// TestStateCorruptNotOverwritten: a state that does not restore is
// reported as ErrState, the plugin scores nothing, and the object is
// never written, even after slots pass.
func TestStateCorruptNotOverwritten(t *testing.T) {
	ctx := context.Background()
	for name, data := range map[string]string{
		"not json":      "{",
		"other format":  `{"format":"msched/kube.OGASched","version":1}`,
		"other oracle":  `{"format":"msched/kube.ESDP","version":1,"resources":[{"name":"cpu","unit":"1"}],"oracleMiB":1,"lastSlot":-1}`,
		"bad policy":    `{"format":"msched/kube.ESDP","version":1,"resources":[{"name":"cpu","unit":"1"}],"oracleMiB":64,"lastSlot":3,"ports":[{"key":"3","demand":[3]}],"nodes":[{"name":"n1","alloc":[4]}],"capacity":[4],"policy":{"format":"x"}}`,
		"negative size": `{"format":"msched/kube.ESDP","version":1,"resources":[{"name":"cpu","unit":"1"}],"oracleMiB":64,"lastSlot":3,"ports":[{"key":"3","demand":[-3]}],"nodes":[],"capacity":[4]}`,
	} {
		cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultStateNamespace, Name: "msched-esdp-msched-esdp"}, Data: map[string]string{statestore.DataKey: data}}
		cs := clientsetfake.NewClientset(cm)
		pl, err := setupWith(t, cs, "msched-esdp", &Args{Resources: []ResourceSpec{{Name: "cpu"}}, SlotSeconds: 0.05}, 0)
		require.NoError(t, err, name)
		pctx, cancel := context.WithCancel(ctx)
		pl.ctx = pctx
		pl.Arrive(mkPod("p", 1))
		// The first scoring cycle starts the goroutine, which fails to load.
		require.Equal(t, fwk.Skip, pl.PreScore(ctx, framework.NewCycleState(), mkPod("p", 1), nil).Code(), name)
		<-pl.ld.Attempted()
		require.ErrorIs(t, pl.lastLoadErr(), ErrState, name)
		time.Sleep(200 * time.Millisecond) // four slots: nothing steps, nothing is saved
		cancel()
		require.Nil(t, pl.snap.Load(), name)
		got, err := cs.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, cm.Name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, cm.Data, got.Data, "%s: the corrupt state was overwritten", name)
		require.Equal(t, cm.ResourceVersion, got.ResourceVersion, name)
	}
}

// TestStateFreshStartSaves: without a saved state the goroutine starts
// fresh, steps and saves after its first slot.
func TestStateFreshStartSaves(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cs := clientsetfake.NewClientset()
	pl, err := setupWith(t, cs, "msched-esdp", &Args{Resources: []ResourceSpec{{Name: "cpu"}}, SlotSeconds: 0.05}, 0)
	require.NoError(t, err)
	pl.ctx = ctx
	pl.epoch = time.Now()
	pl.Arrive(mkPod("p", 1))
	require.Equal(t, fwk.Skip, pl.PreScore(ctx, framework.NewCycleState(), mkPod("p", 1), nil).Code())
	require.NoError(t, pl.lastLoadErr())
	require.Eventually(t, func() bool {
		_, err := cs.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, "msched-esdp-msched-esdp", metav1.GetOptions{})
		return err == nil
	}, 5*time.Second, 20*time.Millisecond)
}
