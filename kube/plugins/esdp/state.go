package esdp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"k8s.io/klog/v2"

	core "github.com/msched/msched/esdp"
	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// ErrState is wrapped by every error restoring a saved state.
var ErrState = errors.New("msched kube ESDP: invalid saved state")

// loadTimeout bounds how long the first scoring cycle of a replica waits
// for the saved state (once per process).
const loadTimeout = 10 * time.Second

// Bounds of a saved state (besides Args.MaxPorts).
const (
	maxSavedNodes = 1 << 16
	maxRVLen      = 64
)

const (
	stateFormat  = "msched/kube.ESDP"
	stateVersion = 1
)

type savedPort struct {
	Key    string `json:"key"`
	Demand []int  `json:"demand"`
}

type savedNode struct {
	Name  string `json:"name"`
	Alloc []int  `json:"alloc"`
}

// savedState is the saved form: the model the policy was built on (shape
// keys and demands, node names and allocatable, the knapsack capacity),
// the slot clock (epoch and last slot), the outcome watermark and the
// core policy's own snapshot (esdp.Policy.MarshalBinary).
type savedState struct {
	Format    string         `json:"format"`
	Version   int            `json:"version"`
	Resources []ResourceSpec `json:"resources"`
	OracleMiB int64          `json:"oracleMiB"`
	Epoch     time.Time      `json:"epoch"`
	LastSlot  int            `json:"lastSlot"`
	Ports     []savedPort    `json:"ports"`
	Nodes     []savedNode    `json:"nodes"`
	Capacity  []int          `json:"capacity"`
	Observed  int            `json:"observed"`
	Dropped   int            `json:"dropped"`
	// OutcomeRV is the largest resourceVersion of the finished pods taken
	// so far: after a restore, finished pods up to it are not fed again.
	OutcomeRV string          `json:"outcomeResourceVersion,omitempty"`
	Policy    json.RawMessage `json:"policy,omitempty"`
}

// openStore sets up the ConfigMap store of the profile and claims it.
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

// ensureStarted starts the background goroutine at the first scoring
// cycle and waits (once, at most loadTimeout) for the state to load. A
// plugin built without New (tests) has no goroutine.
func (p *Plugin) ensureStarted(ctx context.Context) {
	if p.ctx == nil {
		return
	}
	p.start.Do(func() {
		go p.run()
		select {
		case <-p.ld.Attempted():
		case <-time.After(loadTimeout):
			klog.FromContext(ctx).Info("learned state not loaded yet; scoring without it", "plugin", Name, "profile", p.h.ProfileName(), "store", p.store)
		case <-ctx.Done():
		}
	})
}

// run loads the state, then watches outcomes and steps once per slot.
// While the state cannot be loaded (store unreachable, read forbidden, or
// an invalid object, which is never overwritten) the plugin learns and
// scores nothing; load retries until it can (statestore.LoadInto).
func (p *Plugin) run() {
	ctx := p.ctx
	logger := klog.FromContext(ctx).WithValues("plugin", Name, "profile", p.h.ProfileName())
	if err := p.load(ctx, logger); err != nil {
		return // ctx ended
	}
	if err := p.watchOutcomes(ctx); err != nil {
		logger.Error(err, "watching outcomes")
		return
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
		observed, _ := p.Stats()
		logger.Info("restored learned state", "store", p.store, "shapes", len(p.portKeys), "nodes", len(p.servers), "lastSlot", p.lastSlotNow(), "observed", observed)
		return nil
	})
}

// lastLoadErr returns why the last state read was refused (nil once a
// state is loaded).
func (p *Plugin) lastLoadErr() error { return p.ld.Err() }

// save writes the state; a failure is logged and retried after the next
// slot. When another writer changed the object since this plugin read or
// wrote it (statestore.ErrConflict), nothing is written: the plugin loads
// the object's state instead (learning nothing while it is invalid).
func (p *Plugin) save(ctx context.Context, logger klog.Logger) {
	if p.store == nil {
		return
	}
	n, err := statestore.Persist(ctx, logger, p.store, p.marshalState)
	if errors.Is(err, statestore.ErrConflict) {
		_ = p.load(ctx, logger)
	}
	if err == nil {
		logger.V(2).Info("saved learned state", "store", p.store, "lastSlot", p.lastSlotNow(), "bytes", n)
	}
}

func (p *Plugin) lastSlotNow() int {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	return p.lastSlot
}

// marshalState returns the saved form of the plugin's learned state.
func (p *Plugin) marshalState() ([]byte, error) {
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	st := savedState{Format: stateFormat, Version: stateVersion, Resources: p.args.Resources, OracleMiB: p.args.OracleMiB,
		Epoch: p.epoch, LastSlot: p.lastSlot, Capacity: p.capacity, Observed: p.observed, Dropped: p.dropped, OutcomeRV: p.takenRV}
	for l, k := range p.portKeys {
		st.Ports = append(st.Ports, savedPort{Key: k, Demand: p.portDem[l]})
	}
	for r, n := range p.servers {
		st.Nodes = append(st.Nodes, savedNode{Name: n, Alloc: p.alloc[r]})
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
// the saved form (format, version, resource types and units, oracle bound,
// sizes and values), rebuilds the cluster the policy was on and restores
// the core policy's snapshot into it. The next slot moves the policy onto
// the current shapes and nodes (Policy.ChangeCluster keeps the statistics of the
// channels that remain). On error the plugin is unchanged. The slot clock
// continues from the saved epoch; if now falls at or before the saved last
// slot (another replica's clock), the epoch moves so that now is the next
// slot.
func (p *Plugin) restore(b []byte, now time.Time) error {
	var st savedState
	if err := statestore.Decode(b, &st); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	if err := statestore.CheckHeader(st.Format, st.Version, stateFormat, stateVersion); err != nil {
		return fmt.Errorf("%w: %w", ErrState, err)
	}
	switch {
	case !slices.Equal(st.Resources, p.args.Resources):
		return fmt.Errorf("%w: resources = %v, want %v (args.resources changed: delete the state object to start fresh)", ErrState, st.Resources, p.args.Resources)
	case st.OracleMiB != p.args.OracleMiB:
		return fmt.Errorf("%w: oracleMiB = %d, want %d (args.oracleMiB changed: restore it, or delete the state object to start fresh)", ErrState, st.OracleMiB, p.args.OracleMiB)
	case len(st.Ports) > p.args.MaxPorts:
		return fmt.Errorf("%w: %d shapes, above maxPorts %d", ErrState, len(st.Ports), p.args.MaxPorts)
	case len(st.Nodes) > maxSavedNodes:
		return fmt.Errorf("%w: %d nodes, above %d", ErrState, len(st.Nodes), maxSavedNodes)
	case st.LastSlot < -1:
		return fmt.Errorf("%w: lastSlot = %d, want >= -1", ErrState, st.LastSlot)
	case st.Observed < 0 || st.Dropped < 0:
		return fmt.Errorf("%w: observed = %d, dropped = %d, want >= 0", ErrState, st.Observed, st.Dropped)
	case len(st.OutcomeRV) > maxRVLen:
		return fmt.Errorf("%w: outcomeResourceVersion has %d characters, above %d", ErrState, len(st.OutcomeRV), maxRVLen)
	}
	K := len(p.args.Resources)
	if err := checkInts("capacity", st.Capacity, K); err != nil && (len(st.Ports) > 0 || st.Capacity != nil) {
		return err
	}
	keys, dem := make([]string, len(st.Ports)), make([][]int, len(st.Ports))
	for l, sp := range st.Ports {
		if slices.Contains(keys[:l], sp.Key) {
			return fmt.Errorf("%w: ports[%d].key = %q twice", ErrState, l, sp.Key)
		}
		if err := checkInts(fmt.Sprintf("ports[%d].demand", l), sp.Demand, K); err != nil {
			return err
		}
		keys[l], dem[l] = sp.Key, sp.Demand
	}
	servers, alloc := make([]string, len(st.Nodes)), make([][]int, len(st.Nodes))
	seen := make(map[string]bool, len(st.Nodes))
	for r, sn := range st.Nodes {
		if seen[sn.Name] || sn.Name == "" {
			return fmt.Errorf("%w: nodes[%d].name = %q empty or twice", ErrState, r, sn.Name)
		}
		seen[sn.Name] = true
		if err := checkInts(fmt.Sprintf("nodes[%d].alloc", r), sn.Alloc, K); err != nil {
			return err
		}
		servers[r], alloc[r] = sn.Name, sn.Alloc
	}
	var pol *core.Policy
	var edgeOf [][]int
	switch {
	case len(keys) > 0 && len(servers) > 0:
		eo, cl, err := p.model(keys, dem, alloc, st.Capacity)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrState, err)
		}
		if pol, err = core.New(cl, p.settings()); err != nil {
			return fmt.Errorf("%w: %w", ErrState, err)
		}
		if err := pol.UnmarshalBinary(st.Policy); err != nil {
			return fmt.Errorf("%w: policy: %w", ErrState, err)
		}
		edgeOf = eo
	case len(st.Policy) > 0:
		return fmt.Errorf("%w: a policy without shapes or nodes", ErrState)
	}
	p.stepMu.Lock()
	defer p.stepMu.Unlock()
	p.pol, p.portKeys, p.portDem, p.servers, p.alloc, p.edgeOf, p.capacity = pol, keys, dem, servers, alloc, edgeOf, st.Capacity
	p.lastSlot, p.observed, p.dropped, p.takenRV = st.LastSlot, st.Observed, st.Dropped, st.OutcomeRV
	p.epoch = st.Epoch
	if t := p.slotOf(now); t <= p.lastSlot {
		p.epoch = now.Add(-time.Duration((float64(p.lastSlot) + 1.5) * p.args.SlotSeconds * float64(time.Second)))
	}
	if st.OutcomeRV != "" {
		rv := st.OutcomeRV
		p.skipRV.Store(&rv)
	}
	return nil
}

func checkInts(name string, v []int, k int) error {
	if len(v) != k || slices.ContainsFunc(v, func(x int) bool { return x < 0 }) {
		return fmt.Errorf("%w: %s = %v, want %d values >= 0", ErrState, name, v, k)
	}
	return nil
}
