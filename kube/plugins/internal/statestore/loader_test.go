package statestore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	"github.com/msched/msched/kube/plugins/internal/statestore"
	"github.com/msched/msched/kube/plugins/internal/statestore/storetest"
)

// TestLoaderNilStore: a plugin keeping its state in memory loads at once.
func TestLoaderNilStore(t *testing.T) {
	l := statestore.NewLoader(nil, fast)
	called := false
	require.NoError(t, l.Load(context.Background(), klog.Background(), func([]byte) error { called = true; return nil }))
	require.False(t, called)
	select {
	case <-l.Attempted():
	default:
		t.Fatal("Attempted not closed")
	}
	require.NoError(t, l.Err())
}

// TestLoaderMissingStartsFresh: no saved object: loaded, nothing restored.
func TestLoaderMissingStartsFresh(t *testing.T) {
	srv := storetest.New()
	l := statestore.NewLoader(store(srv), fast)
	called := false
	require.NoError(t, l.Load(context.Background(), klog.Background(), func([]byte) error { called = true; return nil }))
	require.False(t, called)
	require.NoError(t, l.Err())
}

// TestLoaderRefusedThenReplaced: a refused state is kept in Err (wrapping
// the restore's error, naming the store) after the first attempt, which
// closes Attempted while Load keeps waiting; replacing the object ends
// the wait and clears Err.
func TestLoaderRefusedThenReplaced(t *testing.T) {
	srv := storetest.New(cm("bad"))
	l := statestore.NewLoader(store(srv), fast)
	var restored []string
	done := make(chan error, 1)
	go func() {
		done <- l.Load(context.Background(), klog.Background(), func(b []byte) error {
			restored = append(restored, string(b))
			if string(b) != "good" {
				return fmt.Errorf("%w: not good", statestore.ErrState)
			}
			return nil
		})
	}()
	select {
	case <-l.Attempted():
	case <-time.After(5 * time.Second):
		t.Fatal("Attempted not closed after the first attempt")
	}
	require.ErrorIs(t, l.Err(), statestore.ErrState)
	require.Contains(t, l.Err().Error(), "configmap kube-system/st")
	select {
	case err := <-done:
		t.Fatalf("Load returned %v on a refused state", err)
	default:
	}
	ctx := context.Background()
	cms := srv.Clientset.CoreV1().ConfigMaps("kube-system")
	cur, err := cms.Get(ctx, "st", metav1.GetOptions{})
	require.NoError(t, err)
	cur.Data[statestore.DataKey] = "good"
	_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	require.NoError(t, err)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Load still waiting after the object was replaced")
	}
	require.NoError(t, l.Err())
	require.Equal(t, []string{"bad", "good"}, restored)
}

// TestPersist: a save returns its length; a foreign write in between
// makes the next one fail with ErrConflict and leaves the foreign state.
func TestPersist(t *testing.T) {
	srv := storetest.New()
	s := store(srv)
	ctx := context.Background()
	n, err := statestore.Persist(ctx, klog.Background(), s, func() ([]byte, error) { return []byte("mine"), nil })
	require.NoError(t, err)
	require.Equal(t, 4, n)
	cms := srv.Clientset.CoreV1().ConfigMaps("kube-system")
	cur, err := cms.Get(ctx, "st", metav1.GetOptions{})
	require.NoError(t, err)
	cur.Data[statestore.DataKey] = "theirs"
	_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
	require.NoError(t, err)
	_, err = statestore.Persist(ctx, klog.Background(), s, func() ([]byte, error) { return []byte("mine again"), nil })
	require.ErrorIs(t, err, statestore.ErrConflict)
	cur, err = cms.Get(ctx, "st", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "theirs", cur.Data[statestore.DataKey])
	bad := errors.New("cannot marshal")
	_, err = statestore.Persist(ctx, klog.Background(), s, func() ([]byte, error) { return nil, bad })
	require.ErrorIs(t, err, bad)
}

// TestOpenConfigMap: the default name, and a second profile claiming the
// same object refused on args.stateName.
func TestOpenConfigMap(t *testing.T) {
	srv := storetest.New()
	st, rel, err := statestore.OpenConfigMap(srv.Clientset, "kube-system", "", "ESDP", "p1")
	require.NoError(t, err)
	defer rel()
	require.Equal(t, statestore.DefaultName("ESDP", "p1"), st.Name)
	_, _, err = statestore.OpenConfigMap(srv.Clientset, "kube-system", st.Name, "ESDP", "p2")
	require.Error(t, err)
	require.Contains(t, err.Error(), "is already the state of plugin ESDP")
	require.Contains(t, err.Error(), "args.stateName")
	require.Contains(t, err.Error(), "ESDP: ")
}
