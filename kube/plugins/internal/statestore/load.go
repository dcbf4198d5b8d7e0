package statestore

import (
	"context"
	"crypto/sha256"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
)

// Class sorts the errors of loading a state.
type Class int

const (
	// Unreachable: the store cannot be read now (a timeout, 429 Too Many
	// Requests, a 5xx, connection refused, the API server restarting, or
	// any other error that says nothing about the object). Retried with
	// exponential backoff.
	Unreachable Class = iota
	// Forbidden: the API server refused the read (403 Forbidden or 401
	// Unauthorized): the RBAC role is missing or wrong. Retried slowly.
	Forbidden
	// Invalid: the object was read and cannot be used (an error wrapping
	// ErrState, or the plugin's restore refused it). Never overwritten;
	// re-read until it is replaced or deleted.
	Invalid
)

func (c Class) String() string {
	switch c {
	case Unreachable:
		return "Unreachable"
	case Forbidden:
		return "Forbidden"
	case Invalid:
		return "Invalid"
	}
	return "Class(?)"
}

// Classify returns the class of an error of Store.Load or of a restore.
func Classify(err error) Class {
	switch {
	case errors.Is(err, ErrState):
		return Invalid
	case apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err):
		return Forbidden
	}
	return Unreachable
}

// Retry sets the pauses of LoadInto.
type Retry struct {
	// Initial and Max bound the exponential backoff of Unreachable errors:
	// Initial, 2 Initial, ... up to Max.
	Initial, Max time.Duration
	// Forbidden is the pause after a Forbidden error.
	Forbidden time.Duration
	// Invalid is how often an invalid object is read again to see whether
	// it was replaced or deleted.
	Invalid time.Duration
}

// DefaultRetry is the Retry of the plugins: 0.2 s doubling to 5 s while
// the store is unreachable, 30 s after Forbidden, 5 s between reads of an
// invalid object.
var DefaultRetry = Retry{Initial: 200 * time.Millisecond, Max: 5 * time.Second, Forbidden: 30 * time.Second, Invalid: 5 * time.Second}

// LoadInto reads s and hands what it read to apply (found is false when
// nothing is saved: the plugin starts fresh) until apply accepts it; it
// returns nil then, or ctx's error when ctx ends first. attempted, when
// not nil, is called once after the first read and apply, whatever their
// outcome (the first scheduling cycle waits for it, not for the retries).
//
// A failing read is retried by its Class: Unreachable with exponential
// backoff (r.Initial doubling to r.Max), Forbidden every r.Forbidden,
// each logged. An object that cannot be used (Invalid: Load's ErrState or
// apply's error, which apply must return for any state it refuses) is
// logged once per distinct content and never written: LoadInto reads it
// again every r.Invalid and applies it again only when its bytes changed,
// so replacing it with a valid state, or deleting it (found = false),
// ends the wait. apply must leave the plugin unchanged when it fails.
func LoadInto(ctx context.Context, s Store, apply func(b []byte, found bool) error, logger klog.Logger, r Retry, attempted func()) error {
	once := func() {
		if attempted != nil {
			attempted()
			attempted = nil
		}
	}
	defer once()
	backoff := r.Initial
	var lastSum [sha256.Size]byte
	lastClass, lastMsg := Class(-1), ""
	for attempt := 1; ; attempt++ {
		b, found, err := s.Load(ctx)
		c := Classify(err)
		if err == nil {
			c = Invalid // unless apply accepts it
			sum := sha256.Sum256(b)
			if lastClass == Invalid && found && sum == lastSum {
				err = errors.New(lastMsg) // the same invalid bytes: not applied again
			} else {
				lastSum = sum
				if err = apply(b, found); err == nil {
					if lastClass >= 0 {
						logger.Info("learned state loaded after failed attempts", "store", s, "attempts", attempt, "lastClass", lastClass)
					}
					once()
					return nil
				}
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		once()
		var pause time.Duration
		switch c {
		case Unreachable:
			pause = backoff
			backoff = min(2*backoff, r.Max)
			logger.Error(err, "cannot reach the state store; learning stays off until it answers, retrying", "store", s, "attempt", attempt, "retryIn", pause)
		case Forbidden:
			pause = r.Forbidden
			backoff = r.Initial
			logger.Error(err, "forbidden to read the learned state: grant get/create/update on the state ConfigMap (config/state-rbac.yaml); learning stays off, retrying", "store", s, "attempt", attempt, "retryIn", pause)
		case Invalid:
			pause = r.Invalid
			backoff = r.Initial
			if lastClass != Invalid || err.Error() != lastMsg {
				logger.Error(err, "invalid learned state: not overwriting it; learning stays off until the object is replaced with a valid state or deleted", "store", s)
			}
			lastMsg = err.Error()
		}
		lastClass = c
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
	}
}
