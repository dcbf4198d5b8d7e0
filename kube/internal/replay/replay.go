package replay

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/events"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/cmd/kube-scheduler/app/options"
	"k8s.io/kubernetes/pkg/scheduler"
	config "k8s.io/kubernetes/pkg/scheduler/apis/config"
	"k8s.io/kubernetes/pkg/scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
	"k8s.io/kubernetes/pkg/scheduler/profile"
)

// ErrReplay is wrapped by every error of the package.
var ErrReplay = errors.New("replay")

// Config configures Start. Nodes and SchedulerConfig are required.
type Config struct {
	// SchedulerConfig is a whole KubeSchedulerConfiguration in YAML
	// (profiles, plugins and their args, percentageOfNodesToScore,
	// parallelism), decoded, converted and defaulted by the kube-scheduler
	// binary's own loader. Its pod backoff fields are replaced by
	// InitialBackoffSeconds and MaxBackoffSeconds.
	SchedulerConfig string
	// Nodes are the cluster's nodes, Objects any other object the fake API
	// server holds from the start (e.g. scheduling.k8s.io Workload and
	// PodGroup objects, ConfigMaps). The harness owns them after Start.
	Nodes   []*v1.Node
	Objects []runtime.Object
	// Registry holds the out-of-tree plugins the configuration names.
	Registry frameworkruntime.Registry
	// FeatureGates are set on the process-wide gate
	// (k8s.io/apiserver/pkg/util/feature.DefaultMutableFeatureGate) before
	// the scheduler is built and restored by Close: two harnesses with
	// different gates must not run at the same time. Example:
	// {"GenericWorkload": true}.
	FeatureGates map[string]bool
	// InitialBackoffSeconds and MaxBackoffSeconds are the scheduler's pod
	// backoff (default 0 and 0: a retried pod is not held back by
	// wall-clock time, so a replay does not sleep).
	InitialBackoffSeconds, MaxBackoffSeconds int64
	// Admit is the API server's binding admission: it is called for every
	// binding the scheduler posts, before the harness binds the pod, and
	// an error refuses the binding (the scheduler then retries the pod).
	// Use it for an independent capacity check and the replay's own
	// bookkeeping. nil admits every binding. AfterBind is called once the
	// pod is bound (device bookkeeping, metrics). Both run one at a time,
	// with the harness's lock held, on the scheduler's binding goroutines:
	// they must not call the Harness; what they write may be read without
	// another lock after Settle returns.
	Admit     func(pod *v1.Pod, node string) error
	AfterBind func(pod *v1.Pod, node string)
	// SettleTimeout bounds Settle's wait without progress (no pod bound,
	// refused or tried). Default 2 minutes.
	SettleTimeout time.Duration
	// WallPermitTimeouts makes pods waiting at Permit time out in wall
	// time, as the scheduler's timers do. By default (false) Settle fires
	// the timeout of the pod waiting longest as soon as nothing else can
	// happen (the scheduling loop waits for a pod, nothing is queued,
	// binding or waiting for the informer, and every pod in flight waits
	// at Permit): a jump of the clock to the next timer, as a
	// discrete-event simulation does, instead of seconds of idle wall time
	// per step. The pod is rejected with the plugin name of its pending
	// Permit, as the timer would (a gang plugin then releases its group).
	WallPermitTimeouts bool
	// MaxPermitTimeouts bounds the Permit timeouts one Settle fires
	// (default 100). A plugin can loop: a rejected member is requeued,
	// waits at Permit again, times out again (issue 33: a gang whose plan
	// its members' filters refuse). In wall time such a loop lasts until
	// the trace's next event; here, once the budget is spent, Settle
	// returns with those pods still waiting at Permit (their wall-clock
	// timers still run) and counts the step in Counts.PermitLoops.
	MaxPermitTimeouts int
	// SettleOnFailedRetries adds a second idle state, for a scheduler
	// that retries a pod that cannot be placed for ever instead of
	// parking it until an event may help (v1.37's pod group cycle: an
	// infeasible PodGroup is an error, goes back on backoff, and is tried
	// again each time its backoff expires). The scheduler then also
	// counts as idle when the active queue is empty, every binding reached
	// its cache, and every pending pod in the backoff queue or in flight
	// has failed an attempt that started after the last change: a pod
	// created, deleted, bound or refused, each seen by the informer, with
	// the scheduler's cache holding exactly the bound pods when the
	// attempt started (nothing assumed, waiting at Permit or being
	// deleted). Such a pod is not work: given the same cluster, a
	// deterministic scheduler fails it again. After a change it must fail
	// again before the step ends, and the backoff wait before that
	// attempt is skipped (such pods are moved to the active queue once
	// nothing else is in flight). Pods in the unschedulable pool count as
	// idle, as always. Off by default: a plugin with state of its own
	// (plugins/gang replans after a Permit rejection) can succeed on a
	// retry with no change, so the rule is for stateless filters only.
	// Counts.RetrySettles counts the Settles that returned this way.
	SettleOnFailedRetries bool
	// Logger is the scheduler's logger (the zero value: silent).
	Logger klog.Logger
}

// Harness is one scheduler over a fake API server. Its methods are for one
// goroutine (the replay loop), apart from Now.
type Harness struct {
	cfg    Config
	client *fake.Clientset
	sched  *scheduler.Scheduler
	cancel context.CancelFunc
	done   chan struct{}
	gates  map[string]bool // previous values, restored by Close

	mu         sync.Mutex
	pods       map[string]*v1.Pod // live pods created by Create, by namespace/name
	seq        map[string]int64   // creation order of the live pods
	nextSeq    int64
	timeouts   int // Permit timeouts fired by Settle
	loops      int // Settles that spent MaxPermitTimeouts
	lostSteps  int
	shortSince time.Time // replay goroutine only
	// unconfirmed holds the pods bound and not yet seen confirmed in the
	// scheduler's cache: until its informer delivers a binding, the cache
	// holds the pod as assumed, and its event handler has not yet
	// requeued the pods the binding may help.
	unconfirmed []*v1.Pod
	pending     int             // live pods not bound
	bound       int             // live pods bound
	boundTotal  int             // bindings ever
	refused     int             // bindings refused by Admit
	cycles      []time.Duration // SchedulePod durations, in call order
	nCycles     int             // cycles, including those dropped by TakeCycles

	created, deleted int64        // Create and Delete calls (replay goroutine)
	seenAdd, seenDel atomic.Int64 // pod add and delete events delivered by the informer
	waiting          atomic.Int32 // scheduling loops blocked in NextEntity
	// gen counts the cluster changes (Create, Delete and their informer
	// events, bindings, refusals); popGen holds, per pod, gen when its
	// last attempt started (-1: the scheduler's cache then held more
	// than the bound pods), failGen the popGen of its last failed
	// attempt (Config.SettleOnFailedRetries; guarded by mu).
	gen             atomic.Int64
	popGen, failGen map[string]int64
	retrySettles    int
	wake            chan struct{} // poked on progress; buffered 1
	timer           *time.Timer
}

var podsGVR = v1.SchemeGroupVersion.WithResource("pods")

// watchChanSize is the fake watch channels' capacity (see Start).
const watchChanSize = 1 << 16

// maxLag bounds the pod add and delete events the scheduler's informer may
// lag behind Create and Delete: the fake API server's watch channels hold
// 100 events and panic when full.
const maxLag = 48

// Start builds the scheduler (scheduler.New, as kube-scheduler's own tests
// do) over a fake clientset holding cfg.Nodes and cfg.Objects, starts its
// informers and scheduling loop, and returns once its cache holds every
// node. Close stops it.
func Start(ctx context.Context, cfg Config) (_ *Harness, err error) {
	if len(cfg.Nodes) == 0 {
		return nil, fmt.Errorf("%w: no nodes", ErrReplay)
	}
	if cfg.SettleTimeout <= 0 {
		cfg.SettleTimeout = 2 * time.Minute
	}
	if cfg.MaxPermitTimeouts <= 0 {
		cfg.MaxPermitTimeouts = 100
	}
	if cfg.InitialBackoffSeconds < 0 || cfg.MaxBackoffSeconds < cfg.InitialBackoffSeconds {
		return nil, fmt.Errorf("%w: backoff %d s initial, %d s max: want 0 <= initial <= max", ErrReplay, cfg.InitialBackoffSeconds, cfg.MaxBackoffSeconds)
	}
	h := &Harness{cfg: cfg, pods: map[string]*v1.Pod{}, seq: map[string]int64{}, popGen: map[string]int64{}, failGen: map[string]int64{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if len(cfg.FeatureGates) > 0 {
		known := feature.DefaultMutableFeatureGate.GetAll()
		old := map[string]bool{}
		for k := range cfg.FeatureGates {
			if _, ok := known[featuregate.Feature(k)]; !ok {
				return nil, fmt.Errorf("%w: feature gate %q is not known", ErrReplay, k)
			}
			old[k] = feature.DefaultFeatureGate.Enabled(featuregate.Feature(k))
		}
		h.gates = old
		if err := feature.DefaultMutableFeatureGate.SetFromMap(cfg.FeatureGates); err != nil {
			return nil, fmt.Errorf("%w: feature gates: %w", ErrReplay, err)
		}
		defer func() {
			if err != nil {
				h.restoreGates()
			}
		}()
	}
	logger := cfg.Logger
	if logger.GetSink() == nil {
		logger = klog.NewKlogr().V(10) // effectively silent
	}
	kcfg, err := LoadConfig(logger, cfg.SchedulerConfig)
	if err != nil {
		return nil, err
	}

	objs := make([]runtime.Object, 0, len(cfg.Nodes)+len(cfg.Objects))
	for _, n := range cfg.Nodes {
		objs = append(objs, n)
	}
	objs = append(objs, cfg.Objects...)
	// NewSimpleClientset, not NewClientset: the field-managed tracker of
	// the latter runs server-side-apply bookkeeping on every create and
	// update (and stores managedFields in every pod), which the scheduler
	// never reads.
	// The fake API server's watch channels panic when full (100 events
	// by default); a gang allowed at once, with the status patches of
	// the pods it displaced, outruns the informer on a loaded machine.
	// The size is read when a watch starts, so raising it here covers
	// this harness's informers (process-wide, never lowered).
	if watch.DefaultChanSize < watchChanSize {
		watch.DefaultChanSize = watchChanSize
	}
	h.client = fake.NewSimpleClientset(objs...)
	h.client.PrependReactor("create", "pods", h.bindReactor)
	h.client.PrependReactor("patch", "pods", dropConditionPatch)

	ctx, cancel := context.WithCancel(ctx)
	h.cancel = cancel
	defer func() {
		if err != nil {
			cancel()
		}
	}()
	informerFactory := scheduler.NewInformerFactory(h.client, 0, nil)
	recorders := func(string) events.EventRecorderLogger {
		return &events.FakeRecorder{} // nil channel: events dropped
	}
	ctx = klog.NewContext(ctx, logger)
	opts := []scheduler.Option{
		scheduler.WithProfiles(kcfg.Profiles...),
		scheduler.WithFrameworkOutOfTreeRegistry(cfg.Registry),
		scheduler.WithPercentageOfNodesToScore(kcfg.PercentageOfNodesToScore),
		scheduler.WithParallelism(kcfg.Parallelism),
		scheduler.WithPodInitialBackoffSeconds(cfg.InitialBackoffSeconds),
		scheduler.WithPodMaxBackoffSeconds(cfg.MaxBackoffSeconds),
	}
	sched, err := scheduler.New(ctx, h.client, informerFactory, nil, profile.RecorderFactory(recorders), opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: scheduler.New: %w", ErrReplay, err)
	}
	h.sched = sched
	algo := sched.SchedulePod
	sched.SchedulePod = func(ctx context.Context, f framework.Framework, st fwk.CycleState, pi *framework.QueuedPodInfo) (scheduler.ScheduleResult, error) {
		t0 := time.Now()
		r, err := algo(ctx, f, st, pi)
		d := time.Since(t0)
		h.mu.Lock()
		h.cycles = append(h.cycles, d)
		h.nCycles++
		h.mu.Unlock()
		return r, err
	}
	next := sched.NextEntity
	sched.NextEntity = func(logger klog.Logger) (framework.QueuedEntityInfo, error) {
		h.waiting.Add(1)
		h.poke()
		e, err := next(logger)
		h.waiting.Add(-1)
		if cfg.SettleOnFailedRetries && e != nil {
			h.startAttempt(e)
		}
		return e, err
	}
	failure := sched.FailureHandler
	sched.FailureHandler = func(ctx context.Context, f framework.Framework, pi *framework.QueuedPodInfo, st *fwk.Status, ni *fwk.NominatingInfo, start time.Time) {
		if cfg.SettleOnFailedRetries && pi != nil && pi.PodInfo != nil && pi.Pod != nil {
			k := key(pi.Pod.Namespace, pi.Pod.Name)
			h.mu.Lock()
			if g, ok := h.popGen[k]; ok {
				h.failGen[k] = g
			}
			h.mu.Unlock()
		}
		failure(ctx, f, pi, st, ni, start)
	}
	if _, err := informerFactory.Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { h.gen.Add(1); h.seenAdd.Add(1); h.poke() },
		DeleteFunc: func(any) { h.gen.Add(1); h.seenDel.Add(1); h.poke() },
	}); err != nil {
		return nil, fmt.Errorf("%w: pod event handler: %w", ErrReplay, err)
	}
	informerFactory.Start(ctx.Done())
	informerFactory.WaitForCacheSync(ctx.Done())
	go func() {
		sched.Run(ctx)
		close(h.done)
	}()
	for sched.Cache.NodeCount() != len(cfg.Nodes) {
		if err := h.sleep(ctx, time.Millisecond); err != nil {
			return nil, err
		}
	}
	return h, nil
}

// Close stops the scheduler, waits for its loop to return and restores the
// feature gates.
func (h *Harness) Close() {
	h.cancel()
	<-h.done
	h.restoreGates()
}

func (h *Harness) restoreGates() {
	if h.gates != nil {
		// The previous values were accepted once, so setting them back
		// cannot fail.
		_ = feature.DefaultMutableFeatureGate.SetFromMap(h.gates)
		h.gates = nil
	}
}

// Scheduler returns the scheduler (to read its cache or queue between
// steps; never replace its functions after Start).
func (h *Harness) Scheduler() *scheduler.Scheduler { return h.sched }

// Client returns the fake clientset (e.g. to create Workload or PodGroup
// objects during the replay).
func (h *Harness) Client() *fake.Clientset { return h.client }

func key(ns, name string) string { return ns + "/" + name }

func (h *Harness) poke() {
	select {
	case h.wake <- struct{}{}:
	default:
	}
}

// Create submits a pod to the fake API server. The harness keeps pod (do
// not modify it afterwards); it must have no node. Create waits while the
// scheduler's informer lags more than a few dozen events behind.
func (h *Harness) Create(ctx context.Context, pod *v1.Pod) error {
	if pod.Spec.NodeName != "" {
		return fmt.Errorf("%w: creating %s/%s: spec.nodeName %q is set", ErrReplay, pod.Namespace, pod.Name, pod.Spec.NodeName)
	}
	k := key(pod.Namespace, pod.Name)
	h.mu.Lock()
	if _, ok := h.pods[k]; ok {
		h.mu.Unlock()
		return fmt.Errorf("%w: creating %s: exists", ErrReplay, k)
	}
	h.pods[k] = pod
	h.seq[k] = h.nextSeq
	h.nextSeq++
	h.gen.Add(1)
	h.pending++
	h.mu.Unlock()
	// Straight to the tracker: the clientset would record the action
	// (two deep copies, kept for ever) and run the reaction chain.
	if err := h.client.Tracker().Create(podsGVR, pod, pod.Namespace); err != nil {
		h.mu.Lock()
		delete(h.pods, k)
		delete(h.seq, k)
		h.pending--
		h.mu.Unlock()
		return fmt.Errorf("%w: creating %s: %w", ErrReplay, k, err)
	}
	h.created++
	return h.pace(ctx)
}

// Delete removes a pod created by Create, bound or pending (a completion
// or a give-up), and reports whether it was bound.
func (h *Harness) Delete(ctx context.Context, namespace, name string) (bool, error) {
	k := key(namespace, name)
	h.mu.Lock()
	pod, ok := h.pods[k]
	if !ok {
		h.mu.Unlock()
		return false, fmt.Errorf("%w: deleting %s: not a live pod", ErrReplay, k)
	}
	delete(h.pods, k)
	delete(h.seq, k)
	delete(h.popGen, k)
	delete(h.failGen, k)
	h.gen.Add(1)
	wasBound := pod.Spec.NodeName != ""
	if wasBound {
		h.bound--
	} else {
		h.pending--
	}
	h.mu.Unlock()
	if err := h.client.Tracker().Delete(podsGVR, namespace, name); err != nil {
		return wasBound, fmt.Errorf("%w: deleting %s: %w", ErrReplay, k, err)
	}
	h.deleted++
	return wasBound, h.pace(ctx)
}

// Pod returns the live pod's current object (with spec.nodeName once
// bound), nil if it is not live. Do not modify it.
func (h *Harness) Pod(namespace, name string) *v1.Pod {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.pods[key(namespace, name)]
}

// dropConditionPatch answers the scheduler's pod status patches that only
// set conditions (PodScheduled=False after a failed attempt) without
// storing them: nothing in a replay reads them, and each stored one is a
// watch event; a burst of them after a deletion overflowed the fake
// watch channel ("channel full", DLRM Gang replay, slot 739 and slot 46).
// Patches naming a nominated node (preemption) are stored as before.
func dropConditionPatch(a clienttesting.Action) (bool, runtime.Object, error) {
	pa, ok := a.(clienttesting.PatchAction)
	if !ok || a.GetSubresource() != "status" || strings.Contains(string(pa.GetPatch()), "nominatedNodeName") {
		return false, nil, nil
	}
	return true, nil, nil
}

// bindReactor is the API server's pods/binding subresource.
func (h *Harness) bindReactor(a clienttesting.Action) (bool, runtime.Object, error) {
	ca, ok := a.(clienttesting.CreateAction)
	if !ok || a.GetSubresource() != "binding" {
		return false, nil, nil
	}
	b, ok := ca.GetObject().(*v1.Binding)
	if !ok {
		return true, nil, fmt.Errorf("%w: binding object %T", ErrReplay, ca.GetObject())
	}
	ns := b.Namespace
	if ns == "" {
		ns = a.GetNamespace()
	}
	return true, b, h.bind(ns, b.Name, b.Target.Name)
}

func (h *Harness) bind(ns, name, node string) error {
	k := key(ns, name)
	h.mu.Lock()
	defer h.mu.Unlock()
	pod, ok := h.pods[k]
	if !ok {
		return apierrors.NewNotFound(v1.Resource("pods"), name)
	}
	if pod.Spec.NodeName != "" {
		return apierrors.NewConflict(v1.Resource("pods"), name, fmt.Errorf("pod %s is already bound to %s", k, pod.Spec.NodeName))
	}
	if h.cfg.Admit != nil {
		if err := h.cfg.Admit(pod, node); err != nil {
			h.refused++
			h.gen.Add(1)
			h.poke()
			return err
		}
	}
	// A shallow copy: the tracker deep-copies what it stores and sends.
	cp := *pod
	cp.Spec.NodeName = node
	if err := h.client.Tracker().Update(podsGVR, &cp, ns); err != nil {
		return err
	}
	h.pods[k] = &cp
	h.unconfirmed = append(h.unconfirmed, &cp)
	h.pending--
	h.bound++
	h.boundTotal++
	h.gen.Add(1)
	if h.cfg.AfterBind != nil {
		h.cfg.AfterBind(&cp, node)
	}
	h.poke()
	return nil
}

// Counts is the harness's view of the pods it created.
type Counts struct {
	Pending, Bound int // live pods not bound, bound
	BoundTotal     int // bindings ever made
	Refused        int // bindings refused by Config.Admit
	Cycles         int // scheduling algorithm runs (SchedulePod) so far
	// PermitTimeouts counts the Permit timeouts Settle fired (see
	// Config.WallPermitTimeouts); PermitLoops the Settles that spent
	// Config.MaxPermitTimeouts and returned with pods waiting at Permit.
	PermitTimeouts, PermitLoops int
	// LostSteps counts the Settles that returned while some pending pods
	// were neither in the scheduler's queue nor in flight for a second
	// with nothing else happening (seen with plugins/gang: a member
	// rejected at Permit that the scheduler did not requeue).
	LostSteps int
	// RetrySettles counts the Settles that returned while pods that had
	// failed since the last change were still being retried
	// (Config.SettleOnFailedRetries).
	RetrySettles int
}

// Counts returns the current counts.
func (h *Harness) Counts() Counts {
	h.mu.Lock()
	defer h.mu.Unlock()
	return Counts{Pending: h.pending, Bound: h.bound, BoundTotal: h.boundTotal, Refused: h.refused, Cycles: h.nCycles, PermitTimeouts: h.timeouts, PermitLoops: h.loops, LostSteps: h.lostSteps, RetrySettles: h.retrySettles}
}

// TakeCycles returns the durations of the scheduling algorithm runs
// (Scheduler.SchedulePod: PreFilter, Filter, PreScore, Score and the node
// choice of one pod, retries included) since the last call, in call order.
func (h *Harness) TakeCycles() []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := h.cycles
	h.cycles = nil
	return c
}

// pace waits until the pod informer has delivered all but maxLag of the
// adds and deletes made by Create and Delete.
func (h *Harness) pace(ctx context.Context) error {
	deadline := time.Now().Add(h.cfg.SettleTimeout)
	for {
		lag := h.created - h.seenAdd.Load() + h.deleted - h.seenDel.Load()
		if lag <= maxLag {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%w: the pod informer lags %d events after %v", ErrReplay, lag, h.cfg.SettleTimeout)
		}
		if err := h.wait(ctx, 200*time.Microsecond); err != nil {
			return err
		}
	}
}

// wait returns on a poke, after d, or with the context's error.
func (h *Harness) wait(ctx context.Context, d time.Duration) error {
	if h.timer == nil {
		h.timer = time.NewTimer(d)
	} else {
		h.timer.Reset(d)
	}
	select {
	case <-ctx.Done():
		h.timer.Stop()
		return ctx.Err()
	case <-h.wake:
		h.timer.Stop()
		return nil
	case <-h.timer.C:
		return nil
	}
}

func (h *Harness) sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Settle blocks until the scheduler is idle: its informer has delivered
// every pod created or deleted, no pod is active, backing off or in flight
// (scheduling, waiting at Permit or binding), every pending pod is in its
// queue (unschedulable) and its cache holds exactly the bound pods; twice
// in a row. It is woken by the scheduler's events (entering NextEntity, a
// binding, an informer event) instead of sleeping a fixed time, with a poll
// of at most a millisecond for what sends no event. It fails after
// Config.SettleTimeout without progress.
func (h *Harness) Settle(ctx context.Context) error {
	deadline := time.Now().Add(h.cfg.SettleTimeout)
	var lastProgress [4]int
	stable := 0
	poll := 20 * time.Microsecond
	permitOnly, fired := 0, 0
	for {
		idle, waiting, why, progress := h.idle()
		retrying := false
		if !idle && waiting == nil && h.cfg.SettleOnFailedRetries {
			var stale []*v1.Pod
			idle, stale = h.retrying()
			retrying = idle
			if len(stale) > 0 {
				h.activate(stale)
			}
		}
		if idle {
			stable++
			if stable >= 2 {
				if retrying {
					h.mu.Lock()
					h.retrySettles++
					h.mu.Unlock()
				}
				// The fake clientset records every action it serves (the
				// scheduler's bindings and status patches) with two deep
				// copies, for ever: drop them.
				h.client.ClearActions()
				return nil
			}
			// Look again a little later: an informer handler may be
			// between two statements (a cache update and the requeue
			// that follows it).
			poll = 100 * time.Microsecond
		} else {
			stable = 0
		}
		if waiting != nil {
			permitOnly++
			if permitOnly >= 2 && fired >= h.cfg.MaxPermitTimeouts {
				h.mu.Lock()
				h.loops++
				h.mu.Unlock()
				h.client.ClearActions()
				return nil
			}
			if permitOnly >= 2 {
				fired++
				h.fireTimeout(waiting)
				permitOnly = 0
				poll = 20 * time.Microsecond
			} else {
				poll = 200 * time.Microsecond
			}
		} else {
			permitOnly = 0
		}
		now := time.Now()
		if progress != lastProgress {
			lastProgress, deadline = progress, now.Add(h.cfg.SettleTimeout)
		} else if now.After(deadline) {
			return fmt.Errorf("%w: the scheduler made no progress for %v: %s%s", ErrReplay, h.cfg.SettleTimeout, why(), h.lost())
		}
		if err := h.wait(ctx, poll); err != nil {
			return err
		}
		if !idle && waiting == nil {
			poll = min(2*poll, time.Millisecond)
		}
	}
}

// idle checks the cheap conditions first and lists the queue only when
// they hold. why describes the state, for errors. waiting is non-nil when
// the scheduler is idle but for pods waiting at Permit (and
// Config.WallPermitTimeouts is off): those pods.
func (h *Harness) idle() (ok bool, waiting []fwk.WaitingPod, why func() string, progress [4]int) {
	h.mu.Lock()
	pending, bound := h.pending, h.bound
	progress = [4]int{h.boundTotal, h.refused, h.nCycles, h.timeouts}
	unconfirmed := h.unconfirmed
	h.mu.Unlock()
	lagAdd, lagDel := h.created-h.seenAdd.Load(), h.deleted-h.seenDel.Load()
	looping := h.waiting.Load() == 0
	why = func() string {
		return fmt.Sprintf("informer lag %d adds, %d deletes; scheduling loop busy %v; %d pending, %d bound", lagAdd, lagDel, looping, pending, bound)
	}
	if lagAdd != 0 || lagDel != 0 || looping {
		return false, nil, why, progress
	}
	n := 0 // leading pods of unconfirmed that the cache confirmed (or that were deleted since)
	for _, pod := range unconfirmed {
		if assumed, err := h.sched.Cache.IsAssumedPod(pod); err == nil && assumed {
			break
		}
		n++
	}
	if n > 0 {
		h.mu.Lock()
		h.unconfirmed = h.unconfirmed[n:] // Bind only appends
		h.mu.Unlock()
	}
	if n < len(unconfirmed) {
		pod := unconfirmed[n]
		why = func() string {
			return fmt.Sprintf("the binding of %s/%s has not reached the scheduler's cache; %d pending, %d bound", pod.Namespace, pod.Name, pending, bound)
		}
		return false, nil, why, progress
	}
	sq := h.sched.SchedulingQueue
	inflight := len(sq.InFlightPods())
	cached, _ := h.sched.Cache.PodCount()
	why = func() string {
		return fmt.Sprintf("%d in flight, %d pods cached, %d bound, %d pending", inflight, cached, bound, pending)
	}
	if inflight != 0 {
		if h.cfg.WallPermitTimeouts || cached != bound+inflight {
			return false, nil, why, progress
		}
		for _, f := range h.sched.Profiles {
			f.IterateOverWaitingPods(func(wp fwk.WaitingPod) { waiting = append(waiting, wp) })
		}
		if len(waiting) != inflight {
			return false, nil, why, progress
		}
		why = func() string {
			return fmt.Sprintf("%d in flight, all waiting at Permit, %d pods cached, %d bound, %d pending", inflight, cached, bound, pending)
		}
	} else if cached != bound {
		return false, nil, why, progress
	}
	queued, summary := sq.PendingPods()
	var active, backoff int
	if _, err := fmt.Sscanf(summary, "activeQ:%d; backoffQ:%d;", &active, &backoff); err != nil {
		active = -1 // an unknown summary never counts as idle
	}
	why = func() string {
		return fmt.Sprintf("queue %q (%d pods), %d in flight, %d pending, %d bound, %d cached", summary, len(queued), inflight, pending, bound, cached)
	}
	if active == 0 && backoff == 0 && inflight == 0 && len(queued) < pending {
		h.shortSince = cmpOr(h.shortSince, time.Now())
		if time.Since(h.shortSince) >= lostGrace {
			// The scheduler holds fewer pods than are pending, and
			// nothing moves: count the step, let the replay go on.
			h.shortSince = time.Time{}
			h.mu.Lock()
			h.lostSteps++
			h.mu.Unlock()
			return true, nil, why, progress
		}
		return false, nil, why, progress
	}
	h.shortSince = time.Time{}
	if active != 0 || backoff != 0 || len(queued)+inflight != pending {
		return false, nil, why, progress
	}
	if inflight != 0 {
		return false, waiting, why, progress
	}
	return true, nil, why, progress
}

// startAttempt records, for every pod of an entity the scheduling loop
// just popped, the change count at the start of its attempt, or -1 when
// the scheduler's cache then held other pods than the bound ones (assumed,
// waiting at Permit, binding, or deleted and not yet removed): such an
// attempt saw capacity that may come back, and its failure proves
// nothing (Config.SettleOnFailedRetries).
func (h *Harness) startAttempt(e framework.QueuedEntityInfo) {
	cached, err := h.sched.Cache.PodCount()
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.gen.Load()
	if err != nil || cached != h.bound {
		g = -1
	}
	e.ForEachPodInfo(func(pi *framework.QueuedPodInfo) bool {
		if pi != nil && pi.Pod != nil {
			h.popGen[key(pi.Pod.Namespace, pi.Pod.Name)] = g
		}
		return true
	})
}

// retrying reports the second idle state of Config.SettleOnFailedRetries:
// every add and delete delivered, every binding in the scheduler's cache,
// nothing in the active queue, the cache holding the bound pods (and at
// most the in-flight ones, assumed by an attempt that will be reverted),
// and every pending pod in the backoff queue or in flight failed since
// the last change. When all but the last hold, the scheduling loop waits
// for a pod and nothing is in flight, stale returns the backoff queue's
// pods that have not failed since the last change: they wait only for
// their backoff to expire.
func (h *Harness) retrying() (idle bool, stale []*v1.Pod) {
	if h.created != h.seenAdd.Load() || h.deleted != h.seenDel.Load() {
		return false, nil
	}
	sq := h.sched.SchedulingQueue
	bq, ok := sq.(interface{ PodsInBackoffQ() []*v1.Pod })
	if !ok {
		return false, nil
	}
	queued, summary := sq.PendingPods()
	var active int
	if _, err := fmt.Sscanf(summary, "activeQ:%d;", &active); err != nil || active != 0 {
		return false, nil
	}
	inflight := sq.InFlightPods()
	backoff := bq.PodsInBackoffQ()
	cached, err := h.sched.Cache.PodCount()
	if err != nil {
		return false, nil
	}
	h.mu.Lock()
	unconfirmed := h.unconfirmed
	pending, bound := h.pending, h.bound
	h.mu.Unlock()
	for _, pod := range unconfirmed {
		if assumed, err := h.sched.Cache.IsAssumedPod(pod); err == nil && assumed {
			return false, nil
		}
	}
	if cached < bound || cached > bound+len(inflight) || len(queued)+len(inflight) != pending {
		return false, nil
	}
	h.mu.Lock()
	g := h.gen.Load()
	for _, p := range inflight {
		if f, ok := h.failGen[key(p.Namespace, p.Name)]; !ok || f != g {
			h.mu.Unlock()
			return false, nil
		}
	}
	for _, p := range backoff {
		if f, ok := h.failGen[key(p.Namespace, p.Name)]; !ok || f != g {
			stale = append(stale, p)
		}
	}
	h.mu.Unlock()
	if len(stale) == 0 {
		// The queue was read in three calls: a pod that moved between
		// them must not go unseen.
		if _, again := sq.PendingPods(); again != summary {
			return false, nil
		}
		return true, nil
	}
	if len(inflight) != 0 || h.waiting.Load() == 0 {
		return false, nil
	}
	return false, stale
}

// activate moves pods from the backoff queue to the active queue, as
// their backoff timers would once expired (the queue's own Activate, which
// moves a pod group member's whole group): the clock jump of a
// discrete-event simulation, as for Permit timeouts. Without it an
// Upstream DLRM replay waited out the 1 s backoff, and the queue's flush
// period, at every slot (3.7 s a slot on 400 groups).
func (h *Harness) activate(pods []*v1.Pod) {
	m := make(map[string]*v1.Pod, len(pods))
	for _, p := range pods {
		m[key(p.Namespace, p.Name)] = p
	}
	h.sched.SchedulingQueue.Activate(klog.Background(), m)
}

// lost names the pending pods that are neither in the scheduler's queue
// nor in flight, for the error of a Settle that made no progress.
func (h *Harness) lost() string {
	known := map[string]bool{}
	queued, _ := h.sched.SchedulingQueue.PendingPods()
	for _, p := range append(queued, h.sched.SchedulingQueue.InFlightPods()...) {
		known[key(p.Namespace, p.Name)] = true
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for k, p := range h.pods {
		if p.Spec.NodeName == "" && !known[k] {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.Sort(names)
	return fmt.Sprintf("; pending pods the scheduler does not hold: %v", names[:min(len(names), 10)])
}

// lostGrace is how long Settle waits, with the scheduler otherwise idle,
// for pending pods it holds neither in its queue nor in flight, before it
// counts the step in Counts.LostSteps and returns.
const lostGrace = time.Second

func cmpOr(t, d time.Time) time.Time {
	if t.IsZero() {
		return d
	}
	return t
}

// fireTimeout rejects the waiting pod created first, with the message
// its Permit timer would give.
func (h *Harness) fireTimeout(waiting []fwk.WaitingPod) {
	h.mu.Lock()
	first, firstSeq := waiting[0], int64(math.MaxInt64)
	for _, wp := range waiting {
		p := wp.GetPod()
		if s, ok := h.seq[key(p.Namespace, p.Name)]; ok && s < firstSeq {
			first, firstSeq = wp, s
		}
	}
	h.timeouts++
	h.mu.Unlock()
	plugins := first.GetPendingPlugins()
	slices.Sort(plugins)
	plugin := ""
	if len(plugins) > 0 {
		plugin = plugins[0]
	}
	first.Reject(plugin, fmt.Sprintf("rejected due to timeout at plugin %v (fired by the replay once nothing else could happen)", plugin))
}

// LoadConfig decodes, converts and defaults a KubeSchedulerConfiguration
// the way the kube-scheduler binary does (options.LoadConfigFromFile).
func LoadConfig(logger klog.Logger, yaml string) (*config.KubeSchedulerConfiguration, error) {
	dir, err := os.MkdirTemp("", "replay-config")
	if err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrReplay, err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrReplay, err)
	}
	c, err := options.LoadConfigFromFile(logger, path)
	if err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrReplay, err)
	}
	return c, nil
}
