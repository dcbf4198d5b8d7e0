package ocorp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/msched/msched/kube/plugins/internal/statestore"
	core "github.com/msched/msched/ocorp"
)

// ErrState is wrapped by every error restoring a saved state.
var ErrState = errors.New("msched kube OCORP: invalid saved state")

// loadTimeout bounds how long the first scheduling cycle of a replica
// waits for the saved state (once per process).
const loadTimeout = 10 * time.Second

const (
	stateFormat   = "msched/kube.OCORP"
	stateVersion  = 1
	maxSavedNodes = 1 << 16
	maxUIDLen     = 128
)

type savedJob struct {
	UID string `json:"uid"`
	ID  int    `json:"id"`
}

// savedState is the saved form: the machines the policy was built on
// (cores per node), K, the slot clock (epoch and last slot), the job IDs
// of the live pods, the next ID, and the core policy's own snapshot
// (ocorp.Policy.MarshalBinary: the slot of the last decision, Gamma's
// running terms and lambda_j of every live job).
type savedState struct {
	Format   string          `json:"format"`
	Version  int             `json:"version"`
	K        float64         `json:"k"`
	Epoch    time.Time       `json:"epoch"`
	LastSlot int             `json:"lastSlot"`
	Cores    []int           `json:"cores"`
	NextID   int             `json:"nextID"`
	Jobs     []savedJob      `json:"jobs"`
	Policy   json.RawMessage `json:"policy,omitempty"`
}

// openStore sets up the ConfigMap store of the managed profile and claims
// it.
func (p *Plugin) openStore() error {
	cs := p.h.ClientSet()
	if p.args.StateStore != StateStoreConfigMap || cs == nil {
		return nil
	}
	st, rel, err := statestore.OpenConfigMap(cs, p.args.StateNamespace, p.args.StateName, Name, p.h.ProfileName())
	if err != nil {
		return err
	}
	p.store, p.release, p.ld = st, rel, statestore.NewLoader(st, statestore.DefaultRetry)
	return nil
}

// ensureStarted starts the slot goroutine of a managed profile at its
// first scheduling cycle and waits (once, at most loadTimeout) for the
// state to load. A plugin built without New (tests) has no goroutine.
func (p *Plugin) ensureStarted(ctx context.Context) {
	if p.ctx == nil || p.own == nil {
		return
	}
	p.start.Do(func() {
		go p.run()
		select {
		case <-p.ld.Attempted():
		case <-time.After(loadTimeout):
			klog.FromContext(ctx).Info("learned state not loaded yet; ordering without it", "plugin", Name, "profile", p.h.ProfileName(), "store", p.store)
		case <-ctx.Done():
		}
	})
}

// run loads the state, then steps once per slot. While the state cannot
// be loaded (store unreachable, read forbidden, or an invalid object,
// which is never overwritten) the plugin publishes no duals (omega with
// lambda_j = 0 for every pod); load retries until it can
// (statestore.LoadInto).
func (p *Plugin) run() {
	ctx := p.ctx
	logger := klog.FromContext(ctx).WithValues("plugin", Name, "profile", p.h.ProfileName())
	if err := p.load(ctx, logger); err != nil {
		return // ctx ended
	}
	p.loop(ctx)
}

// load reads the saved state into the plugin until one is usable or ctx
// ends (statestore.Loader.Load); a missing state starts fresh.
func (p *Plugin) load(ctx context.Context, logger klog.Logger) error {
	return p.ld.Load(ctx, logger, func(b []byte) error {
		if err := p.restore(b, time.Now()); err != nil {
			return err
		}
		p.stepMu.Lock()
		jobs, last := len(p.ids), p.lastSlot
		p.stepMu.Unlock()
		logger.Info("restored learned state", "store", p.store, "jobs", jobs, "lastSlot", last)
		return nil
	})
}

// lastLoadErr returns why the last state read was refused (nil once a
// state is loaded).
func (p *Plugin) lastLoadErr() error { return p.ld.Err() }

// save writes the state; a failure is logged and retried after the next
// slot. When another writer changed the object since this plugin read or
// wrote it (statestore.ErrConflict), nothing is written: the plugin loads
// the object's state instead (stepping nothing while it is invalid).
func (p *Plugin) save(ctx context.Context, logger klog.Logger) {
	if p.store == nil {
		return
	}
	n, err := statestore.Persist(ctx, logger, p.store, p.marshalState)
	if errors.Is(err, statestore.ErrConflict) {
		_ = p.load(ctx, logger)
	}
	if err == nil {
		logger.V(4).Info("saved learned state", "store", p.store, "bytes", n)
	}
}

func (p *Plugin) marshalState() ([]byte, error) {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	st := savedState{Format: stateFormat, Version: stateVersion, K: p.args.K, Epoch: p.epoch(), LastSlot: p.lastSlot,
		NextID: p.nextID, Cores: []int{}, Jobs: make([]savedJob, 0, len(p.ids))}
	for _, m := range p.machines {
		st.Cores = append(st.Cores, m.Cores)
	}
	for uid, id := range p.ids {
		st.Jobs = append(st.Jobs, savedJob{UID: string(uid), ID: id})
	}
	if p.pol != nil {
		b, err := p.pol.MarshalBinary()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", Name, err)
		}
		st.Policy = b
	}
	return json.Marshal(st)
}

// restore replaces the plugin's learned state with a saved one: it checks
// the saved form (format, version, K, sizes and values), builds the policy
// on the saved machines and restores the core policy's snapshot into it.
// The next slot keeps it if the nodes' cores are the same (else the
// policy is rebuilt and the duals restart, as without a restart). On error
// the plugin is unchanged. The slot clock continues from the saved epoch,
// moved so that now is after the saved last slot if this replica's clock
// is behind.
func (p *Plugin) restore(b []byte, now time.Time) error {
	var st savedState
	if err := statestore.Decode(b, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	if err := statestore.CheckHeader(st.Format, st.Version, stateFormat, stateVersion); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	switch {
	case st.K != p.args.K:
		return fmt.Errorf("%w: k = %g, want %g (args.k changed: restore it, or delete the state object to start fresh)", ErrState, st.K, p.args.K)
	case len(st.Cores) > maxSavedNodes:
		return fmt.Errorf("%w: %d nodes, above %d", ErrState, len(st.Cores), maxSavedNodes)
	case len(st.Jobs) > p.args.MaxJobs:
		return fmt.Errorf("%w: %d jobs, above maxJobs %d", ErrState, len(st.Jobs), p.args.MaxJobs)
	case st.LastSlot < -1:
		return fmt.Errorf("%w: lastSlot = %d, want >= -1", ErrState, st.LastSlot)
	case st.NextID < 0:
		return fmt.Errorf("%w: nextID = %d, want >= 0", ErrState, st.NextID)
	}
	ms := make([]core.Machine, len(st.Cores))
	for i, c := range st.Cores {
		if c < 1 {
			return fmt.Errorf("%w: cores[%d] = %d, want >= 1", ErrState, i, c)
		}
		ms[i] = core.Machine{Cores: c}
	}
	ids := make(map[types.UID]int, len(st.Jobs))
	used := make(map[int]bool, len(st.Jobs))
	for i, j := range st.Jobs {
		uid := types.UID(j.UID)
		if _, dup := ids[uid]; dup || j.UID == "" || len(j.UID) > maxUIDLen {
			return fmt.Errorf("%w: jobs[%d].uid = %q empty, too long or twice", ErrState, i, j.UID)
		}
		if j.ID < 0 || j.ID >= st.NextID || used[j.ID] {
			return fmt.Errorf("%w: jobs[%d].id = %d, want a distinct id in [0, nextID %d)", ErrState, i, j.ID, st.NextID)
		}
		ids[uid], used[j.ID] = j.ID, true
	}
	var pol *core.Policy
	switch {
	case len(ms) > 0:
		var err error
		if pol, err = core.New(ms, core.Settings{K: p.args.K, Fill: true}); err != nil {
			return fmt.Errorf("%w: %w", ErrState, err)
		}
		if err := pol.UnmarshalBinary(st.Policy); err != nil {
			return fmt.Errorf("%w: policy: %w", ErrState, err)
		}
	case len(st.Policy) > 0:
		return fmt.Errorf("%w: a policy without nodes", ErrState)
	}
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	p.pol, p.machines, p.ids, p.nextID, p.lastSlot = pol, ms, ids, st.NextID, st.LastSlot
	p.setEpoch(st.Epoch)
	if len(ms) == 0 {
		p.machines = nil
	}
	if t := p.slotOf(now); t <= p.lastSlot {
		p.setEpoch(now.Add(-time.Duration((float64(p.lastSlot) + 1.5) * p.args.SlotSeconds * float64(time.Second))))
	}
	// Publish the restored clock at once: the other profiles' instances
	// (the queue's Less) price pods on it before the first slot.
	p.own.Store(&snapshot{slot: max(p.lastSlot, 0), epoch: p.epochNs.Load()})
	return nil
}
