package statestore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// Loader keeps what every stateful plugin tracks about loading its state:
// whether the first attempt was made (the first scheduling cycle waits
// for it, not for the retries) and why the last read state was refused.
// Safe for concurrent use. The zero value is not usable: call NewLoader.
type Loader struct {
	store    Store
	retry    Retry
	attempts chan struct{}
	once     sync.Once
	err      atomic.Pointer[error]
}

// NewLoader returns a loader of s (nil: the plugin keeps its state in
// memory only, and Load returns at once) retrying by r (the plugins pass
// DefaultRetry).
func NewLoader(s Store, r Retry) *Loader {
	return &Loader{store: s, retry: r, attempts: make(chan struct{})}
}

// Attempted is closed after the first load attempt, whatever its outcome.
func (l *Loader) Attempted() <-chan struct{} { return l.attempts }

func (l *Loader) attempted() { l.once.Do(func() { close(l.attempts) }) }

// Err returns why the last state read was refused (nil before the first
// refusal and once a state is loaded).
func (l *Loader) Err() error {
	if e := l.err.Load(); e != nil {
		return *e
	}
	return nil
}

// Load reads the store (LoadInto, with the loader's Retry) until a state
// restores or ctx ends: a missing state starts fresh (logged); a found
// one is handed to restore, which must leave the plugin unchanged when it
// refuses the state and return an error (kept, prefixed with the store,
// for Err, and logged by LoadInto). restored is logged by restore itself.
// Load returns nil once loaded (at once when the store is nil), or ctx's
// error.
func (l *Loader) Load(ctx context.Context, logger klog.Logger, restore func(b []byte) error) error {
	if l.store == nil {
		l.attempted()
		return nil
	}
	apply := func(b []byte, found bool) error {
		if !found {
			logger.Info("no saved state, starting fresh", "store", l.store)
			return nil
		}
		if err := restore(b); err != nil {
			err = fmt.Errorf("%s: %w", l.store, err)
			l.err.Store(&err)
			return err
		}
		return nil
	}
	if err := LoadInto(ctx, l.store, apply, logger, l.retry, l.attempted); err != nil {
		return err
	}
	l.err.Store(nil)
	return nil
}

// Persist writes marshal's bytes to s (Save, bounded by SaveTimeout) and
// returns their length. A failure is logged and returned; when another
// writer changed the object since this process read or wrote it, nothing
// is written, and the returned error wraps ErrConflict: the caller loads
// the object's state instead of overwriting it.
func Persist(ctx context.Context, logger klog.Logger, s Store, marshal func() ([]byte, error)) (int, error) {
	b, err := marshal()
	if err == nil {
		err = Save(ctx, s, b)
	}
	switch {
	case errors.Is(err, ErrConflict):
		logger.Error(err, "the state object was written by someone else; loading it instead of overwriting it", "store", s)
		return 0, err
	case err != nil:
		logger.Error(err, "saving the learned state", "store", s)
		return 0, err
	}
	return len(b), nil
}

// OpenConfigMap returns the ConfigMap store of plugin in profile, named
// name (DefaultName(plugin, profile) when empty) in namespace, and claims
// it (Claim). A store another profile's plugin already claimed is refused
// with an error on args.stateName, prefixed with the plugin's name.
func OpenConfigMap(cs kubernetes.Interface, namespace, name, plugin, profile string) (*ConfigMap, func(), error) {
	if name == "" {
		name = DefaultName(plugin, profile)
	}
	st := &ConfigMap{Client: cs, Namespace: namespace, Name: name, Profile: profile, Plugin: plugin}
	rel, err := Claim(cs, st.String(), profile, plugin)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", plugin, field.ErrorList{field.Duplicate(field.NewPath("args", "stateName"), err.Error())}.ToAggregate())
	}
	return st, rel, nil
}
