package statestore

import (
	"context"
	"time"

	"k8s.io/klog/v2"
)

// RunSlots is a learner's background loop: every period it calls step with
// the tick's time, logs a failed step as "<what> slot step" and, when step
// says the learned state changed, calls save. It returns when ctx is done.
func RunSlots(ctx context.Context, period time.Duration, logger klog.Logger, what string,
	step func(context.Context, time.Time) (bool, error), save func(context.Context, klog.Logger)) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			stepped, err := step(ctx, now)
			if err != nil {
				logger.Error(err, what+" slot step")
			}
			if stepped {
				save(ctx, logger)
			}
		}
	}
}
