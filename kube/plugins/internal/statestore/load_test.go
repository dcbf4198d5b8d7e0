package statestore_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"

	"github.com/msched/msched/kube/plugins/internal/statestore"
	"github.com/msched/msched/kube/plugins/internal/statestore/storetest"
)

var fast = statestore.Retry{Initial: time.Millisecond, Max: 4 * time.Millisecond, Forbidden: 5 * time.Millisecond, Invalid: 5 * time.Millisecond}

var cmGR = schema.GroupResource{Resource: "configmaps"}

// transient returns one error of each kind LoadInto must retry: a
// timeout, 429, 500, 503, connection refused, a deadline.
func transient() []error {
	return []error{
		apierrors.NewTimeoutError("slow", 1),
		apierrors.NewTooManyRequests("later", 1),
		apierrors.NewInternalError(errors.New("etcd")),
		apierrors.NewServiceUnavailable("restarting"),
		fmt.Errorf("dial tcp 127.0.0.1:6443: %w", syscall.ECONNREFUSED),
		context.DeadlineExceeded,
	}
}

func TestClassify(t *testing.T) {
	for _, err := range transient() {
		require.Equal(t, statestore.Unreachable, statestore.Classify(err), "%v", err)
	}
	require.Equal(t, statestore.Forbidden, statestore.Classify(apierrors.NewForbidden(cmGR, "x", errors.New("rbac"))))
	require.Equal(t, statestore.Forbidden, statestore.Classify(apierrors.NewUnauthorized("who")))
	require.Equal(t, statestore.Invalid, statestore.Classify(fmt.Errorf("x: %w", statestore.ErrState)))
}

func store(srv *storetest.Server) *statestore.ConfigMap {
	return &statestore.ConfigMap{Client: srv.Clientset, Namespace: "kube-system", Name: "st", Profile: "p", Plugin: "T"}
}

func cm(data string) *v1.ConfigMap {
	return &v1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "st"}, Data: map[string]string{statestore.DataKey: data}}
}

// TestLoadIntoRetriesPastTheOldLimit: twelve transient or Forbidden
// failures in a row (the old Load gave up after five and the plugins
// then stayed off until restart) are retried until the read succeeds;
// attempted fires after the first attempt.
func TestLoadIntoRetriesPastTheOldLimit(t *testing.T) {
	srv := storetest.New(cm("good"))
	errs := append(transient(), transient()...)
	errs = append(errs[:10], apierrors.NewForbidden(cmGR, "st", errors.New("rbac")), apierrors.NewUnauthorized("x"))
	srv.Fail(errs...)
	var got string
	var attempted atomic.Int32
	err := statestore.LoadInto(context.Background(), store(srv), func(b []byte, found bool) error {
		got = fmt.Sprintf("%s %v", b, found)
		return nil
	}, klog.Background(), fast, func() { attempted.Add(1) })
	require.NoError(t, err)
	require.Equal(t, "good true", got)
	require.Equal(t, int32(1), attempted.Load())
	require.Equal(t, 13, srv.Gets())
}

// TestLoadIntoWaitsForReplacementOrDeletion: an object apply refuses is
// read again, applied again only when its bytes change, never written;
// replacing it with a valid one, or deleting it, ends the wait.
func TestLoadIntoWaitsForReplacementOrDeletion(t *testing.T) {
	for _, fix := range []string{"replace", "delete"} {
		srv := storetest.New(cm("bad"))
		ctx := context.Background()
		var applied []string
		done := make(chan error)
		go func() {
			done <- statestore.LoadInto(ctx, store(srv), func(b []byte, found bool) error {
				applied = append(applied, fmt.Sprintf("%s %v", b, found))
				if found && string(b) != "good" {
					return errors.New("refused")
				}
				return nil
			}, klog.Background(), fast, nil)
		}()
		require.Eventually(t, func() bool { return srv.Gets() >= 5 }, 5*time.Second, time.Millisecond)
		cms := srv.Clientset.CoreV1().ConfigMaps("kube-system")
		cur, err := cms.Get(ctx, "st", metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, "101", cur.ResourceVersion, "the invalid object was written")
		if fix == "replace" {
			cur.Data[statestore.DataKey] = "good"
			_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		} else {
			err = cms.Delete(ctx, "st", metav1.DeleteOptions{})
		}
		require.NoError(t, err)
		select {
		case err := <-done:
			require.NoError(t, err, fix)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: LoadInto still waiting", fix)
		}
		want := map[string]string{"replace": "good true", "delete": " false"}[fix]
		require.Equal(t, []string{"bad true", want}, applied, "%s: the same bad bytes are applied once", fix)
	}
}

// TestLoadIntoStopsWithContext: an unreachable store does not block past
// ctx.
func TestLoadIntoStopsWithContext(t *testing.T) {
	srv := storetest.New()
	for range 1000 {
		srv.Fail(apierrors.NewServiceUnavailable("down"))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err := statestore.LoadInto(ctx, store(srv), func([]byte, bool) error { return nil }, klog.Background(), fast, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
}

// TestSaveDetectsForeignWriter: a save after someone else wrote the object
// fails with ErrConflict and leaves their write; after a read it
// succeeds; an object deleted in between is created again; a second
// store that never read the object cannot create over it.
func TestSaveDetectsForeignWriter(t *testing.T) {
	ctx := context.Background()
	srv := storetest.New()
	a, b := store(srv), store(srv)
	require.NoError(t, a.Save(ctx, []byte("a1")))
	_, _, err := b.Load(ctx)
	require.NoError(t, err)
	require.NoError(t, b.Save(ctx, []byte("b1"))) // another deployment with the same names
	err = a.Save(ctx, []byte("a2"))
	require.ErrorIs(t, err, statestore.ErrConflict)
	require.ErrorContains(t, err, statestore.WriterAnnotation)
	got, _, err := a.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, "b1", string(got), "the foreign write was overwritten")
	require.NoError(t, a.Save(ctx, []byte("a3")), "after reading it, a may write")

	require.NoError(t, srv.Clientset.CoreV1().ConfigMaps("kube-system").Delete(ctx, "st", metav1.DeleteOptions{}))
	require.NoError(t, a.Save(ctx, []byte("a4")), "deleted while running: created again")
	c := store(srv)
	require.ErrorIs(t, c.Save(ctx, []byte("c1")), statestore.ErrConflict, "a store that never read it may not create over it")
	got, _, err = a.Load(ctx)
	require.NoError(t, err)
	require.Equal(t, "a4", string(got))
}
