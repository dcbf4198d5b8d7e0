package ocorp

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// statePods: jobs of the profile arriving over several slots, of several
// sizes and lengths, on a node of 4 cores (more work than fits: the duals
// move).
func statePods(prof string) []*v1.Pod {
	var pods []*v1.Pod
	for i := range 8 {
		pods = append(pods, mkPod(fmt.Sprint("j", i), prof, int64(1+i%3), fmt.Sprint(20+30*(i%4)), epoch.Add(time.Duration(i)*7*time.Second)))
	}
	return pods
}

// TestStateRoundTrip: a plugin restored from the ConfigMap another saved
// has the same job IDs and slot, and from then on publishes exactly the
// same duals as the one that saved (side by side), unlike a fresh one.
func TestStateRoundTrip(t *testing.T) {
	const prof = "ocorp-state"
	ctx := context.Background()
	nodes := []*v1.Node{mkNode("n1", 4)}
	pods := statePods(prof)
	a, _, csA, err := setupWith(t, prof, &Args{Profiles: []string{prof}}, nodes, pods)
	require.NoError(t, err)
	for slot := 1; slot <= 6; slot++ {
		require.NoError(t, a.Step(ctx, epoch.Add(time.Duration(slot)*10*time.Second+time.Second)))
	}
	a.save(ctx, klog.Background())
	cm, err := csA.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, "msched-ocorp-ocorp-state", metav1.GetOptions{})
	require.NoError(t, err)
	require.Contains(t, cm.Data, statestore.DataKey)
	require.NoError(t, a.Close())

	// A new process (other epoch) with the saved ConfigMap, and a fresh one.
	cm.ResourceVersion = ""
	b, _, _, err := setupWith(t, prof, &Args{Profiles: []string{prof}}, nodes, pods, cm)
	require.NoError(t, err)
	b.setEpoch(epoch.Add(time.Hour))
	require.NoError(t, b.load(ctx, klog.Background()))
	require.Equal(t, a.epoch(), b.epoch())
	require.Equal(t, a.lastSlot, b.lastSlot)
	require.Equal(t, a.ids, b.ids)
	require.Equal(t, a.nextID, b.nextID)
	for _, j := range a.ids {
		require.Equal(t, a.pol.Lambda(j), b.pol.Lambda(j), "lambda of job %d", j)
	}
	require.Equal(t, a.pol.Gamma(), b.pol.Gamma())
	fresh, _, _, err := setupWith(t, prof, &Args{Profiles: []string{prof}, StateStore: StateStoreNone}, nodes, pods)
	require.NoError(t, err)

	at := epoch.Add(75 * time.Second) // slot 7
	require.NoError(t, a.Step(ctx, at))
	sa := a.own.Load()
	require.NoError(t, b.Step(ctx, at))
	sb := b.own.Load()
	require.NoError(t, fresh.Step(ctx, at))
	sf := fresh.own.Load()
	require.Equal(t, 7, sb.slot)
	require.Equal(t, sa.omega, sb.omega, "the restored duals continue exactly")
	require.NotEqual(t, sa.omega, sf.omega, "a fresh policy would publish other duals (the test would not see a reset)")
}

// TestStateSharedObjectRefused: with two managed profiles, one stateName
// (the args are the same in every profile) is refused; default names are
// per profile.
func TestStateSharedObjectRefused(t *testing.T) {
	shared := &Args{Profiles: []string{"p1", "p2"}, StateName: "shared"}
	_, _, cs, err := setupWith(t, "p1", shared, nil, nil)
	require.NoError(t, err)
	// The second managed profile of the same scheduler (same clientset).
	_, _, _, err = setupOn(t, cs, "p2", shared, nil, nil)
	require.ErrorContains(t, err, "args.stateName: Duplicate value")
	require.ErrorContains(t, err, "cannot share it")
	_, _, _, err = setupOn(t, cs, "p2", &Args{Profiles: []string{"p1", "p2"}}, nil, nil)
	require.NoError(t, err, "default names differ per profile")
}

// TestStateCorruptNotOverwritten: a state that does not restore is
// reported as ErrState, the plugin publishes no duals, and the object is
// never written, even after slots pass.
func TestStateCorruptNotOverwritten(t *testing.T) {
	const prof = "ocorp-corrupt"
	ctx := context.Background()
	for name, data := range map[string]string{
		"not json":   "[",
		"other k":    `{"format":"msched/kube.OCORP","version":1,"k":3,"lastSlot":-1}`,
		"bad id":     `{"format":"msched/kube.OCORP","version":1,"k":2,"lastSlot":2,"cores":[4],"nextID":1,"jobs":[{"uid":"j0","id":5}]}`,
		"bad policy": `{"format":"msched/kube.OCORP","version":1,"k":2,"lastSlot":2,"cores":[4],"nextID":0,"jobs":[],"policy":{"format":"msched/ocorp.Policy","version":1,"model":"x","state":{}}}`,
	} {
		cm := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultStateNamespace, Name: "msched-ocorp-" + prof}, Data: map[string]string{statestore.DataKey: data}}
		pl, _, cs, err := setupWith(t, prof, &Args{Profiles: []string{prof}, SlotSeconds: 0.05}, []*v1.Node{mkNode("n1", 4)}, statePods(prof), cm)
		require.NoError(t, err, name)
		pctx, cancel := context.WithCancel(ctx)
		pl.ctx = pctx
		st, s := pl.PreFilter(ctx, framework.NewCycleState(), statePods(prof)[0], nil)
		require.Nil(t, st, name)
		require.True(t, s.IsSuccess(), name)
		<-pl.ld.Attempted()
		require.ErrorIs(t, pl.lastLoadErr(), ErrState, name)
		time.Sleep(200 * time.Millisecond) // four slots
		cancel()
		require.Nil(t, pl.pol, name)
		got, err := cs.CoreV1().ConfigMaps(DefaultStateNamespace).Get(ctx, cm.Name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, cm.Data, got.Data, "%s: the corrupt state was overwritten", name)
	}
}
