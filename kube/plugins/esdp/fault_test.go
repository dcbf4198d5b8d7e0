package esdp

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/kubernetes/pkg/scheduler/framework"

	"github.com/msched/msched/kube/plugins/internal/statestore"
	"github.com/msched/msched/kube/plugins/internal/statestore/storetest"
)

const faultCM = "msched-esdp-msched-esdp"

// startFault builds the plugin on srv with 50 ms slots and starts its
// goroutine through PreFilter (a pod with a single feasible node never
// reaches PreScore).
func startFault(t *testing.T, srv *storetest.Server) *Plugin {
	t.Helper()
	statestore.DefaultRetry = statestore.Retry{Initial: time.Millisecond, Max: 20 * time.Millisecond, Forbidden: 20 * time.Millisecond, Invalid: 20 * time.Millisecond}
	pl, err := setupWith(t, srv.Clientset, "msched-esdp", &Args{Resources: []ResourceSpec{{Name: "cpu"}}, SlotSeconds: 0.05}, 0)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pl.ctx = ctx
	pl.epoch = time.Now()
	pl.Arrive(mkPod("p", 1))
	pl.PreFilter(ctx, framework.NewCycleState(), mkPod("p", 1), nil)
	return pl
}

// savedState waits (up to 10 s) for the plugin to write its state and
// returns the object.
func waitSaved(t *testing.T, srv *storetest.Server, notRV string) *v1.ConfigMap {
	t.Helper()
	var cm *v1.ConfigMap
	require.Eventually(t, func() bool {
		c, err := srv.Clientset.CoreV1().ConfigMaps(DefaultStateNamespace).Get(context.Background(), faultCM, metav1.GetOptions{})
		if err == nil && c.ResourceVersion != notRV && c.Annotations[statestore.WriterAnnotation] != "" {
			cm = c
			return true
		}
		return false
	}, 10*time.Second, 10*time.Millisecond, "the plugin never saved: learning is off")
	return cm
}

// TestFaultTransientLoadErrors: seven unreachable-store errors in a row
// (timeouts, 429, 5xx; the old code gave up after five, reported the
// state invalid and never learned until restart), then Forbidden twice:
// the plugin keeps retrying, starts fresh and saves.
func TestFaultTransientLoadErrors(t *testing.T) {
	srv := storetest.New()
	gr := schema.GroupResource{Resource: "configmaps"}
	srv.Fail(apierrors.NewTimeoutError("slow", 1), apierrors.NewTooManyRequests("later", 1), apierrors.NewServiceUnavailable("down"),
		apierrors.NewInternalError(context.DeadlineExceeded), apierrors.NewServiceUnavailable("down"), apierrors.NewServiceUnavailable("down"),
		apierrors.NewServiceUnavailable("down"), apierrors.NewForbidden(gr, faultCM, nil), apierrors.NewForbidden(gr, faultCM, nil))
	pl := startFault(t, srv)
	waitSaved(t, srv, "")
	require.Zero(t, srv.Pending())
	require.NoError(t, pl.lastLoadErr())
}

// TestFaultCorruptThenDeleted: a corrupt object is never written; once
// it is deleted the plugin starts fresh and learns (the old code stayed
// off until restart).
func TestFaultCorruptThenDeleted(t *testing.T) {
	bad := &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: DefaultStateNamespace, Name: faultCM}, Data: map[string]string{statestore.DataKey: `{"format":"msched/kube.ESDP","version":1,"lastSlot":-7}`}}
	srv := storetest.New(bad)
	pl := startFault(t, srv)
	<-pl.ld.Attempted()
	require.ErrorIs(t, pl.lastLoadErr(), ErrState)
	time.Sleep(200 * time.Millisecond) // four slots
	cm, err := srv.Clientset.CoreV1().ConfigMaps(DefaultStateNamespace).Get(context.Background(), faultCM, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, bad.Data, cm.Data, "the corrupt state was overwritten")
	require.NoError(t, srv.Clientset.CoreV1().ConfigMaps(DefaultStateNamespace).Delete(context.Background(), faultCM, metav1.DeleteOptions{}))
	waitSaved(t, srv, "")
	require.NoError(t, pl.lastLoadErr())
}

// TestFaultCorruptThenReplaced: a corrupt object replaced with a valid
// state (another plugin's save) is restored and learning continues from
// it.
func TestFaultCorruptThenReplaced(t *testing.T) {
	// A valid state: what a plugin saves after some slots.
	src := storetest.New()
	a := startFault(t, src)
	good := waitSaved(t, src, "")

	bad := good.DeepCopy()
	bad.ResourceVersion = ""
	bad.Data[statestore.DataKey] = good.Data[statestore.DataKey][:len(good.Data[statestore.DataKey])/2]
	srv := storetest.New(bad)
	pl := startFault(t, srv)
	<-pl.ld.Attempted()
	require.ErrorIs(t, pl.lastLoadErr(), ErrState)
	cur, err := srv.Clientset.CoreV1().ConfigMaps(DefaultStateNamespace).Get(context.Background(), faultCM, metav1.GetOptions{})
	require.NoError(t, err)
	cur.Data = good.Data
	cur.Annotations = nil
	cur, err = srv.Clientset.CoreV1().ConfigMaps(DefaultStateNamespace).Update(context.Background(), cur, metav1.UpdateOptions{})
	require.NoError(t, err)
	waitSaved(t, srv, cur.ResourceVersion)
	require.NoError(t, pl.lastLoadErr())
	_ = a
}
