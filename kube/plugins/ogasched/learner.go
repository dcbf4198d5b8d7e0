package ogasched

import (
	"context"
	"errors"
	"time"

	"k8s.io/klog/v2"

	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// syncPeriod is how often the learner goroutine compares the nodes with
// its model (nodes joining or leaving, allocatable changes) and closes a
// slot that ended without a scheduling cycle.
const syncPeriod = time.Second

// wakeGap is the shortest wall time between two rebuilds asked by new
// ports (see run).
const wakeGap = 100 * time.Millisecond

// run is the learner goroutine: it loads the saved state, then, whenever
// the scheduling path hands it finished slots or new ports (or every
// syncPeriod), adds ports, rebuilds the model when ports or nodes changed,
// steps the policy once per finished slot with arrivals, publishes the new
// snapshot (an atomic pointer swap) and saves the state. Nothing here runs
// on the scheduling path.
func (p *Plugin) run() {
	defer close(p.done)
	ctx := p.ctx
	logger := klog.FromContext(ctx).WithValues("plugin", p.name, "profile", p.profile)
	if err := p.load(ctx, logger); err != nil {
		return // ctx ended before a usable state was read
	}
	// The first scores: the loaded (or empty) state on the current nodes.
	if _, _, err := p.e.sync(p.nodes()); err != nil {
		logger.Error(err, "building the model")
	}
	p.publish(logger, "load")
	t := time.NewTicker(syncPeriod)
	defer t.Stop()
	var last time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.rec.wake:
			// Coalesce: at most one rebuild per wakeGap, so that a burst
			// of new shapes (the first pods of a trace) rebuilds the model
			// a few times, not once per shape (issue 32's profile: the
			// rebuilds were most of the learner goroutine's CPU). Pods of
			// a shape not yet a port are scored by the nearest port
			// meanwhile.
			if d := wakeGap - time.Since(last); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
		case <-t.C:
			p.rec.tick(p.seconds())
		}
		p.work(ctx, logger)
		last = time.Now()
	}
}

// load reads the saved state into the engine (statestore.LoadInto): a
// missing state starts fresh; while the store cannot be reached, or
// refuses the read, or holds a state that does not restore, load logs
// it, retries, never writes, and the plugin scores nothing (every pod
// skips its Score). It returns when a state is loaded, or ctx's error.
// p.ld.Attempted() is closed after the first attempt, so that the first
// scheduling cycle does not wait for the retries.
func (p *Plugin) load(ctx context.Context, logger klog.Logger) error {
	err := p.ld.Load(ctx, logger, func(b []byte) error {
		if err := p.e.unmarshalState(b); err != nil {
			return err
		}
		logger.Info("restored learned state", "store", p.store, "ports", len(p.e.ports), "steps", p.e.steps)
		return nil
	})
	if err != nil {
		return err
	}
	p.loadOK.Store(true)
	p.savedSteps = p.e.steps
	return nil
}

// lastLoadErr returns why the last state read was refused (nil once a
// state is loaded).
func (p *Plugin) lastLoadErr() error { return p.ld.Err() }

// work does what the recorder queued, then publishes and saves as needed.
func (p *Plugin) work(ctx context.Context, logger klog.Logger) {
	slots, newKeys := p.rec.take()
	changed := false
	for k, d := range newKeys {
		before := len(p.e.ports)
		if p.e.addPort(k, d) >= before {
			changed = true
		}
	}
	rebuilt, _, err := p.e.sync(p.nodes())
	if err != nil {
		logger.Error(err, "rebuilding the model")
	}
	changed = changed || rebuilt
	stepped := false
	for _, sa := range slots {
		// New ports of this slot first, so that their arrivals count.
		for k, d := range sa.demand {
			p.e.addPort(k, d)
		}
		if _, ready, err := p.e.sync(p.nodes()); err != nil || !ready {
			if err != nil {
				logger.Error(err, "rebuilding the model")
			}
			continue // no nodes or ports: nothing to learn from this slot
		}
		x := make([]float64, len(p.e.ports))
		snap := p.e.snapshot()
		for k, c := range sa.counts {
			if l, ok := p.e.portIdx[k]; ok {
				x[l] += c
			} else if l, _ := snap.portFor(k, sa.demand[k]); l >= 0 {
				x[l] += c // bucketed: counted on the nearest port
			}
		}
		ok, err := p.e.step(x)
		if err != nil {
			logger.Error(err, "learner step", "slot", sa.slot)
			continue
		}
		stepped = stepped || ok
	}
	if changed || stepped {
		reason := "rebuild"
		if stepped {
			reason = "step"
		}
		p.publish(logger, reason)
	}
	if stepped {
		p.save(ctx, logger)
	}
}

// publish swaps in the engine's current scores.
func (p *Plugin) publish(logger klog.Logger, reason string) {
	s := p.e.snapshot()
	if s == nil {
		return
	}
	p.snap.Store(s)
	logger.V(2).Info("published learned scores", "reason", reason, "steps", s.steps, "ports", len(s.rows), "nodes", len(s.nodes), "digest", s.digest)
	if logger.V(3).Enabled() && len(s.nodes) <= 64 { // per-node scores of small clusters only
		for l, row := range s.rows {
			scores := make(map[string]int64, len(row))
			for r, v := range row {
				scores[s.nodes[r]] = v
			}
			logger.V(3).Info("learned scores", "steps", s.steps, "port", s.portKeys[l], "scores", scores)
		}
	}
}

// save writes the state to the store; a failure is logged and retried at
// the next step. When another writer changed the object since this plugin
// read or wrote it (statestore.ErrConflict), nothing is written: the
// plugin loads the object's state instead (or waits, learning nothing,
// while it is invalid), then publishes it.
func (p *Plugin) save(ctx context.Context, logger klog.Logger) {
	if p.store == nil {
		return
	}
	n, err := statestore.Persist(ctx, logger, p.store, p.e.marshalState)
	switch {
	case errors.Is(err, statestore.ErrConflict):
		p.loadOK.Store(false)
		if p.load(ctx, logger) == nil {
			if _, _, err := p.e.sync(p.nodes()); err != nil {
				logger.Error(err, "rebuilding the model")
			}
			p.publish(logger, "reload")
		}
	case err == nil:
		p.savedSteps = p.e.steps
		logger.V(2).Info("saved learned state", "store", p.store, "steps", p.e.steps, "bytes", n)
	}
}
