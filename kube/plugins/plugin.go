package plugins

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Plugin names, as used in a KubeSchedulerConfiguration profile.
const (
	// OGASchedName is the OGASched score plugin.
	OGASchedName = "OGASched"
	// DRFName is the dominant-resource-fairness score plugin (msched's DRF
	// baseline on the same mapping).
	DRFName = "DRF"
)

const stateKey fwk.StateKey = "msched.io/score"

// Plugin is a score plugin driven by one msched policy on the mapping of
// the package documentation. It implements PreFilter (to count arrivals),
// PreScore, Score with NormalizeScore, and PostBind.
type Plugin struct {
	name   string
	handle fwk.Handle
	e      *engine
	now    func() time.Time
	path   string
	saveMu sync.Mutex
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.PreScorePlugin  = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.ScoreExtensions = (*Plugin)(nil)
	_ fwk.PostBindPlugin  = (*Plugin)(nil)
)

// NewOGASched is the plugin factory of OGASched (register it with
// app.WithPlugin(plugins.OGASchedName, plugins.NewOGASched)).
func NewOGASched(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return newPlugin(ctx, OGASchedName, PolicyOGASched, obj, h, time.Now)
}

// NewDRF is the plugin factory of DRF.
func NewDRF(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return newPlugin(ctx, DRFName, PolicyDRF, obj, h, time.Now)
}

// FactoryWithClock returns the factory of the plugin called name
// (OGASchedName or DRFName) whose slots follow now instead of the wall
// clock: for simulations and tests.
func FactoryWithClock(name string, now func() time.Time) frameworkruntime.PluginFactory {
	policy := PolicyOGASched
	if name == DRFName {
		policy = PolicyDRF
	}
	return func(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
		return newPlugin(ctx, name, policy, obj, h, now)
	}
}

func newPlugin(ctx context.Context, name, policy string, obj runtime.Object, h fwk.Handle, now func() time.Time) (*Plugin, error) {
	a, err := decodeArgs(obj, name)
	if err != nil {
		return nil, err
	}
	e, err := newEngine(a, policy)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	p := &Plugin{name: name, handle: h, e: e, now: now, path: a.StatePath}
	if p.path != "" {
		b, err := os.ReadFile(p.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			klog.FromContext(ctx).Info("no saved state, starting fresh", "plugin", name, "path", p.path)
		case err != nil:
			return nil, fmt.Errorf("%s: args.statePath: %w", name, err)
		default:
			if err := e.unmarshalState(b); err != nil {
				return nil, fmt.Errorf("%s: args.statePath %s: %w", name, p.path, err)
			}
			klog.FromContext(ctx).Info("restored learned state", "plugin", name, "path", p.path, "ports", len(e.ports), "steps", e.steps)
		}
	}
	return p, nil
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return p.name }

func (p *Plugin) seconds() float64 {
	return float64(p.now().UnixNano()) / 1e9
}

// PreFilter counts the pod as an arrival of the current slot (once per pod
// until it is bound). It never rejects a pod.
func (p *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	p.e.arrive(pod, p.seconds())
	p.persist(ctx)
	return nil, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

type scoreState struct {
	m   *model
	row []int64
}

func (s *scoreState) Clone() fwk.StateData { return s }

// PreScore looks up (or computes, once per slot and port) the scores of the
// pod's port on every node. A pod without a port (past maxPorts) skips
// Score.
func (p *Plugin) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	m, row := p.e.rowsFor(pod, p.seconds(), p.listNodes)
	p.persist(ctx)
	if row == nil {
		return fwk.NewStatus(fwk.Skip)
	}
	state.Write(stateKey, &scoreState{m: m, row: row})
	return nil
}

func (p *Plugin) listNodes() []*v1.Node {
	if p.handle == nil {
		return nil
	}
	infos, err := p.handle.SnapshotSharedLister().NodeInfos().List()
	if err != nil {
		return nil
	}
	nodes := make([]*v1.Node, 0, len(infos))
	for _, ni := range infos {
		if n := ni.Node(); n != nil {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// Score returns the node's score for the pod's port in [0, 100]: a map
// lookup and a slice read.
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	d, err := state.Read(stateKey)
	if err != nil {
		return 0, fwk.AsStatus(fmt.Errorf("%s: reading PreScore state: %w", p.name, err))
	}
	s, ok := d.(*scoreState)
	if !ok {
		return 0, fwk.AsStatus(fmt.Errorf("%s: PreScore state has type %T", p.name, d))
	}
	n := ni.Node()
	if n == nil {
		return 0, nil
	}
	r, ok := s.m.nodeIdx[n.Name]
	if !ok {
		return 0, nil // a node that joined during the slot: no opinion yet
	}
	return s.row[r], nil
}

// ScoreExtensions implements fwk.ScorePlugin.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return p }

// NormalizeScore scales the scores so that the best node gets
// fwk.MaxNodeScore (all zero stays all zero).
func (p *Plugin) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	var hi int64
	for _, s := range scores {
		hi = max(hi, s.Score)
	}
	if hi <= 0 {
		return nil
	}
	for i := range scores {
		scores[i].Score = scores[i].Score * fwk.MaxNodeScore / hi
	}
	return nil
}

// PostBind forgets the bound pod in the arrival bookkeeping.
func (p *Plugin) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	p.e.bound(pod.UID)
}

// persist saves the learned state when it changed since the last save.
// A failed save is logged, never a scheduling error.
func (p *Plugin) persist(ctx context.Context) {
	if p.path == "" {
		return
	}
	p.e.mu.Lock()
	if !p.e.dirty {
		p.e.mu.Unlock()
		return
	}
	b, err := p.e.marshalState()
	p.e.dirty = false
	p.e.mu.Unlock()
	if err == nil {
		p.saveMu.Lock()
		err = writeFileAtomic(p.path, b)
		p.saveMu.Unlock()
	}
	if err != nil {
		klog.FromContext(ctx).Error(err, "saving learned state", "plugin", p.name, "path", p.path)
	}
}
