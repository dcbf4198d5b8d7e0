package ogasched

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"

	"github.com/msched/msched/kube/plugins/internal/statestore"
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

// loadTimeout bounds how long the first scheduling cycle of a replica
// waits for the learned state to be loaded (once per process).
const loadTimeout = 10 * time.Second

// Plugin is a score plugin driven by one msched policy on the mapping of
// the package documentation. It implements PreFilter (to count arrivals),
// PreScore, Score with NormalizeScore, PostBind and SignPod. The
// scheduling path only reads the published snapshot and records
// arrivals; a learner goroutine, started at the first scheduling cycle,
// loads the saved state, steps the policy, rebuilds and saves.
type Plugin struct {
	name    string
	profile string
	handle  fwk.Handle
	mp      *mapping
	now     func() time.Time
	rec     *recorder
	snap    atomic.Pointer[snapshot]
	store   stateStore
	release func()
	nodes   func() []*v1.Node

	// The learner goroutine: its engine, started once.
	e          *engine
	start      sync.Once
	ld         *statestore.Loader // the first load attempt, the last refusal
	loadOK     atomic.Bool        // a state was loaded (or none is kept): saving is allowed
	savedSteps int                // e.steps at the last load or save (learner goroutine)
	cancel     context.CancelFunc
	done       chan struct{}
	ctx        context.Context

	// PreScore outcomes (ScoreCounts).
	own, bucketed, skipped atomic.Int64
}

// ScoreCounts returns how many PreScore calls (scheduling cycles) scored
// the pod with its own port's row, with the nearest port's row (its shape
// is past MaxPorts, or its new port was not added yet), or skipped it (no
// scores published yet, or non-finite requests).
func (p *Plugin) ScoreCounts() (own, bucketed, skipped int64) {
	return p.own.Load(), p.bucketed.Load(), p.skipped.Load()
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.PreScorePlugin  = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.ScoreExtensions = (*Plugin)(nil)
	_ fwk.PostBindPlugin  = (*Plugin)(nil)
	_ fwk.SignPlugin      = (*Plugin)(nil)
)

// NewOGASched is the plugin factory of OGASched (register it with
// app.WithPlugin(ogasched.OGASchedName, ogasched.NewOGASched)).
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
	p := &Plugin{name: name, handle: h, mp: e.mapping, now: now, rec: newRecorder(a.SlotSeconds), e: e,
		done: make(chan struct{}), release: func() {}}
	var client any
	if h != nil {
		p.profile = h.ProfileName()
		if cs := h.ClientSet(); cs != nil {
			client = cs
			if policy == PolicyOGASched && a.StateStore == StateStoreConfigMap {
				n := a.StateName
				if n == "" {
					n = DefaultStateName(name, p.profile)
				}
				p.store = &statestore.ConfigMap{Client: cs, Namespace: a.StateNamespace, Name: n, Profile: p.profile, Plugin: name}
			}
		}
		if f := h.SharedInformerFactory(); f != nil {
			// Registered now, before the scheduler starts its informers.
			lister := f.Core().V1().Nodes().Lister()
			p.nodes = func() []*v1.Node { return listNodes(lister) }
		} else if sl := h.SnapshotSharedLister(); sl != nil {
			p.nodes = func() []*v1.Node { return snapshotNodes(sl) }
		}
	}
	if policy == PolicyOGASched && a.StateStore == StateStoreFile {
		p.store = &statestore.File{Path: a.StatePath}
	}
	if p.store != nil {
		rel, err := claim(client, p.store.String(), p.profile, name)
		if err != nil {
			fp := field.NewPath("args", "stateName")
			if a.StateStore == StateStoreFile {
				fp = field.NewPath("args", "statePath")
			}
			return nil, fmt.Errorf("%s: %w", name, field.ErrorList{field.Duplicate(fp, err.Error())}.ToAggregate())
		}
		p.release = rel
	}
	p.ld = statestore.NewLoader(p.store, statestore.DefaultRetry)
	if p.nodes == nil {
		p.nodes = func() []*v1.Node { return nil }
	}
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	context.AfterFunc(ctx, p.cancel)
	return p, nil
}

func listNodes(l listersv1.NodeLister) []*v1.Node {
	nodes, err := l.List(labels.Everything())
	if err != nil {
		return nil
	}
	return nodes
}

func snapshotNodes(sl fwk.SharedLister) []*v1.Node {
	infos, err := sl.NodeInfos().List()
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

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return p.name }

func (p *Plugin) seconds() float64 {
	return float64(p.now().UnixNano()) / 1e9
}

// ensureStarted starts the learner goroutine at the first scheduling
// cycle, and waits (once, at most loadTimeout) for the saved state to be
// loaded. A scheduler replica runs scheduling cycles only while it is the
// leader, so the state is read after this replica became leader: a standby
// that takes over reads what the old leader saved last.
func (p *Plugin) ensureStarted(ctx context.Context) {
	p.start.Do(func() {
		go p.run()
		select {
		case <-p.ld.Attempted():
		case <-time.After(loadTimeout):
			klog.FromContext(ctx).Info("learned state not loaded yet; scoring without it", "plugin", p.name, "profile", p.profile, "store", p.store)
		case <-ctx.Done():
		}
	})
}

// PreFilter counts the pod as an arrival of the current slot (once per pod
// until it is bound). It never rejects a pod.
func (p *Plugin) PreFilter(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	p.ensureStarted(ctx)
	d := p.mp.demandOf(pod)
	if !nonNegative(d) {
		return nil, nil
	}
	key := p.mp.portKey(pod, d)
	p.rec.arrive(pod.UID, key, d, p.seconds())
	if s := p.snap.Load(); s == nil || !s.full {
		if _, ok := s.lookup(key); !ok {
			p.rec.requestPort(key, d)
		}
	}
	return nil, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

// SignPod implements fwk.SignPlugin: the scores depend on the pod only
// through its port key (label value or request shape), so pods with the
// same key may share a scheduling result (opportunistic batching).
func (p *Plugin) SignPod(_ context.Context, pod *v1.Pod) ([]fwk.SignFragment, *fwk.Status) {
	d := p.mp.demandOf(pod)
	return []fwk.SignFragment{{Key: "msched.io/" + p.name + ".portKey()", Value: p.mp.portKey(pod, d)}}, nil
}

type scoreState struct {
	s   *snapshot
	row []int64
}

func (s *scoreState) Clone() fwk.StateData { return s }

// PreScore looks up the pod's score row in the published snapshot: its
// port's, or the nearest known shape's (bucketed). It skips Score, logging
// why at verbosity 4, only when there is no snapshot yet (state not
// loaded, no nodes) or the pod's requests are not finite.
func (p *Plugin) PreScore(ctx context.Context, state fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) *fwk.Status {
	p.ensureStarted(ctx)
	p.rec.tick(p.seconds())
	s := p.snap.Load()
	if s == nil {
		klog.FromContext(ctx).V(4).Info("not scored: no learned scores published yet", "plugin", p.name, "pod", klog.KObj(pod))
		p.skipped.Add(1)
		return fwk.NewStatus(fwk.Skip)
	}
	d := p.mp.demandOf(pod)
	if !nonNegative(d) {
		klog.FromContext(ctx).V(4).Info("not scored: requests are not finite", "plugin", p.name, "pod", klog.KObj(pod))
		p.skipped.Add(1)
		return fwk.NewStatus(fwk.Skip)
	}
	key := p.mp.portKey(pod, d)
	l, bucketed := s.portFor(key, d)
	if l < 0 {
		klog.FromContext(ctx).V(4).Info("not scored: no port learned yet", "plugin", p.name, "pod", klog.KObj(pod))
		p.skipped.Add(1)
		return fwk.NewStatus(fwk.Skip)
	}
	if bucketed {
		klog.FromContext(ctx).V(5).Info("scored with the nearest port", "plugin", p.name, "pod", klog.KObj(pod), "key", key, "port", s.portKeys[l])
		p.bucketed.Add(1)
	} else {
		p.own.Add(1)
	}
	state.Write(stateKey, &scoreState{s: s, row: s.rows[l]})
	return nil
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
	r, ok := s.s.nodeIdx[n.Name]
	if !ok {
		return 0, nil // a node that joined since the last publish: no opinion yet
	}
	return s.row[r], nil
}

// ScoreExtensions implements fwk.ScorePlugin.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions { return p }

// NormalizeScore scales the scores so that the best node gets
// fwk.MaxScore (all zero stays all zero).
func (p *Plugin) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	var hi int64
	for _, s := range scores {
		hi = max(hi, s.Score)
	}
	if hi <= 0 {
		return nil
	}
	for i := range scores {
		scores[i].Score = scores[i].Score * fwk.MaxScore / hi
	}
	return nil
}

// PostBind forgets the bound pod in the arrival bookkeeping.
func (p *Plugin) PostBind(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	p.rec.forget(pod.UID)
}

// closeSaveTimeout bounds the last save of Close.
const closeSaveTimeout = 5 * time.Second

// Close stops the learner goroutine, makes a last save of what it learned
// since its last save (bounded by 5 s; never when the state could not be
// loaded: an unreadable or invalid object is not overwritten) and
// releases the state object; the framework calls it when the scheduler
// stops.
func (p *Plugin) Close() error {
	p.cancel()
	started := true
	p.start.Do(func() { started = false })
	var err error
	if started {
		<-p.done // the learner has stopped: its engine is ours
		if p.store != nil && p.loadOK.Load() && p.e.steps != p.savedSteps {
			ctx, cancel := context.WithTimeout(context.Background(), closeSaveTimeout)
			var b []byte
			if b, err = p.e.marshalState(); err == nil {
				err = statestore.Save(ctx, p.store, b)
			}
			cancel()
			if err == nil {
				p.savedSteps = p.e.steps
			} else {
				err = fmt.Errorf("%s: last save: %w", p.name, err)
			}
		}
	}
	p.release()
	return err
}
