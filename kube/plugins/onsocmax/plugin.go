package onsocmax

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	resourcehelper "k8s.io/component-helpers/resource"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"

	core "github.com/msched/msched/onsocmax"
)

// Name is the plugin's name in a KubeSchedulerConfiguration.
const Name = "OnSocMax"

// ConditionAdmitted is the pod condition the plugin writes: True when the
// job was admitted, False with reason Pending (price above the value,
// waiting for capacity to free) or Refused (final).
const ConditionAdmitted v1.PodConditionType = "msched.io/Admitted"

// Reasons of ConditionAdmitted and of the plugin's events.
const (
	ReasonAdmitted = "Admitted"
	ReasonPending  = "PriceAboveValue"
	ReasonRefused  = "Refused"
)

// Verdict is the plugin's decision on one pod.
type Verdict struct {
	Reason  string  // ReasonAdmitted, ReasonPending or ReasonRefused
	Message string  // for the condition and the event
	Value   float64 // declared value (0 when unparsable)
	Cost    float64 // marginal cost of the job at the decision (0 when not priced)
}

// Plugin admits jobs by OnSocMax's marginal-cost pricing (paper 001,
// Theorem 2, non-partitionable jobs): a pod is admitted when its declared
// value covers the integral of each resource's price over the cluster
// share it takes, at the committed usage. It gates at PreEnqueue, keeps
// the ledger of committed usage at Reserve/Unreserve, and releases it
// when a pod terminates or is deleted.
type Plugin struct {
	args  *Args
	h     fwk.Handle
	price core.Pricing
	units []float64
	nodes corelisters.NodeLister
	now   func() time.Time

	mu       sync.Mutex
	admitted map[types.UID][]float64 // admitted, not reserved: demand in units
	reserved map[types.UID][]float64 // reserved or bound
	refused  map[types.UID]Verdict   // final
	shown    map[types.UID]string    // last verdict queued for the pod
	pending  map[types.UID]statusWrite
	timers   map[types.UID]*time.Timer // deadline requeues of held pods

	wake    chan struct{} // the status writer has pending verdicts (cap 1)
	leading atomic.Bool   // this replica holds the writer Lease
}

type statusWrite struct {
	pod *v1.Pod
	v   Verdict
}

var (
	_ fwk.PreEnqueuePlugin  = (*Plugin)(nil)
	_ fwk.ReservePlugin     = (*Plugin)(nil)
	_ fwk.EnqueueExtensions = (*Plugin)(nil)
)

// New is the plugin factory (app.WithPlugin(onsocmax.Name, onsocmax.New)).
func New(ctx context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	return newPlugin(ctx, obj, h, time.Now)
}

func newPlugin(ctx context.Context, obj runtime.Object, h fwk.Handle, now func() time.Time) (*Plugin, error) {
	a, err := decodeArgs(obj)
	if err != nil {
		return nil, err
	}
	price, err := core.NewPricing(a.Iota, a.V)
	if err != nil {
		return nil, fmt.Errorf("%s: args.iota, args.v: %w", Name, err)
	}
	if h == nil || h.SharedInformerFactory() == nil {
		return nil, fmt.Errorf("%s: needs the framework handle's informer factory", Name)
	}
	p := &Plugin{
		args: a, h: h, price: price, now: now,
		nodes:    h.SharedInformerFactory().Core().V1().Nodes().Lister(),
		admitted: map[types.UID][]float64{}, reserved: map[types.UID][]float64{},
		refused: map[types.UID]Verdict{}, shown: map[types.UID]string{},
		pending: map[types.UID]statusWrite{}, timers: map[types.UID]*time.Timer{},
		wake: make(chan struct{}, 1),
	}
	for _, r := range a.Resources {
		q := resource.MustParse(r.Unit) // validated
		p.units = append(p.units, q.AsApproximateFloat64())
	}
	_, err = h.SharedInformerFactory().Core().V1().Pods().Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) {
			// Bound pods of this profile (after a restart) are committed.
			if pod, ok := o.(*v1.Pod); ok && pod.Spec.NodeName != "" && pod.Spec.SchedulerName == h.ProfileName() &&
				pod.Status.Phase != v1.PodSucceeded && pod.Status.Phase != v1.PodFailed {
				p.mu.Lock()
				p.reserved[pod.UID] = p.demand(pod)
				p.mu.Unlock()
			}
		},
		UpdateFunc: func(_, n any) {
			if pod, ok := n.(*v1.Pod); ok && (pod.Status.Phase == v1.PodSucceeded || pod.Status.Phase == v1.PodFailed) {
				p.release(pod.UID)
			}
		},
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			if pod, ok := o.(*v1.Pod); ok {
				p.release(pod.UID)
			}
		},
	})
	if err != nil {
		return nil, fmt.Errorf("%s: pod informer: %w", Name, err)
	}
	if cs := h.ClientSet(); cs != nil {
		go p.elect(ctx, cs)
	} else {
		p.leading.Store(true) // no API server: nothing to elect on
	}
	go p.writeStatuses(ctx)
	return p, nil
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

// demand returns the pod's effective requests of the priced resources, in
// units.
func (p *Plugin) demand(pod *v1.Pod) []float64 {
	req := resourcehelper.PodRequests(pod, resourcehelper.PodResourcesOptions{})
	d := make([]float64, len(p.args.Resources))
	for k, r := range p.args.Resources {
		if q, ok := req[v1.ResourceName(r.Name)]; ok {
			d[k] = q.AsApproximateFloat64() / p.units[k]
		}
	}
	return d
}

// capacity sums the allocatable of the schedulable nodes, in units.
func (p *Plugin) capacity() []float64 {
	c := make([]float64, len(p.args.Resources))
	nodes, err := p.nodes.List(labels.Everything())
	if err != nil {
		return c
	}
	for _, n := range nodes {
		if n.Spec.Unschedulable {
			continue
		}
		for k, r := range p.args.Resources {
			if q, ok := n.Status.Allocatable[v1.ResourceName(r.Name)]; ok {
				c[k] += q.AsApproximateFloat64() / p.units[k]
			}
		}
	}
	return c
}

// used sums the committed usage (admitted and reserved), in units; p.mu held.
func (p *Plugin) used() []float64 {
	u := make([]float64, len(p.args.Resources))
	for _, m := range []map[types.UID][]float64{p.admitted, p.reserved} {
		for _, d := range m {
			for k := range u {
				u[k] += d[k]
			}
		}
	}
	return u
}

// Decide computes the verdict on pod and records it (admitting it into the
// ledger when admitted). It is what PreEnqueue runs; exported for tests and
// for callers that drive the plugin directly.
func (p *Plugin) Decide(pod *v1.Pod) Verdict {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.admitted[pod.UID]; ok {
		return Verdict{Reason: ReasonAdmitted, Message: "admitted"}
	}
	if _, ok := p.reserved[pod.UID]; ok {
		return Verdict{Reason: ReasonAdmitted, Message: "admitted"}
	}
	if v, ok := p.refused[pod.UID]; ok {
		return v
	}
	v := p.price1(pod)
	switch v.Reason {
	case ReasonAdmitted:
		p.admitted[pod.UID] = p.demand(pod)
	case ReasonRefused:
		p.refused[pod.UID] = v
	}
	return v
}

// price1 prices pod against the ledger; p.mu held.
func (p *Plugin) price1(pod *v1.Pod) Verdict {
	refuse := func(format string, a ...any) Verdict {
		return Verdict{Reason: ReasonRefused, Message: fmt.Sprintf("OnSocMax refused the job: "+format, a...)}
	}
	raw, ok := pod.Annotations[p.args.ValueAnnotation]
	if !ok {
		return refuse("annotation %s (the job's value) is required", p.args.ValueAnnotation)
	}
	value, err := parseDecimal(raw)
	if err != nil || !(value > 0 && value <= MaxValue) {
		return refuse("annotation %s = %q: must be a number in (0, %g]", p.args.ValueAnnotation, raw, float64(MaxValue))
	}
	var deadline time.Time
	if raw, ok := pod.Annotations[p.args.DeadlineAnnotation]; ok {
		deadline, err = time.Parse(time.RFC3339, strings.TrimSpace(raw))
		if err != nil {
			return refuse("annotation %s = %q: must be an RFC 3339 time", p.args.DeadlineAnnotation, raw)
		}
	}
	now := p.now()
	if !deadline.IsZero() && !now.Before(deadline) {
		v := refuse("deadline %s passed before the job was admitted", deadline.Format(time.RFC3339))
		v.Value = value
		return v
	}
	d, c, u := p.demand(pod), p.capacity(), p.used()
	cost := 0.0
	for k := range d {
		if d[k] == 0 {
			continue
		}
		if d[k] > c[k] {
			// Not final: nodes may join (or the node informer is still
			// syncing); re-priced on a node event.
			return Verdict{Reason: ReasonPending, Value: value, Cost: math.Inf(1), Message: fmt.Sprintf(
				"OnSocMax holds the job: it asks %g units of %s, more than the cluster's %g; waiting for nodes", d[k], p.args.Resources[k].Name, c[k])}
		}
		cost += p.price.Cost(u[k]/c[k], d[k]/c[k], 1)
	}
	v := Verdict{Value: value, Cost: cost}
	switch {
	case value >= cost:
		v.Reason = ReasonAdmitted
		v.Message = fmt.Sprintf("OnSocMax admitted the job: value %g >= marginal cost %.4g", value, cost)
	default:
		v.Reason = ReasonPending
		until := "no deadline"
		if !deadline.IsZero() {
			until = "deadline " + deadline.Format(time.RFC3339)
		}
		if math.IsInf(cost, 1) {
			v.Message = fmt.Sprintf("OnSocMax holds the job: the cluster cannot take it now (committed usage at capacity); waiting for capacity to free (%s)", until)
		} else {
			v.Message = fmt.Sprintf("OnSocMax holds the job: value %g < marginal cost %.4g at the committed usage; waiting for capacity to free (%s)", value, cost, until)
		}
	}
	return v
}

// PreEnqueue lets admitted pods into the queue and keeps the others gated
// (UnschedulableAndUnresolvable: the scheduler parks them until one of
// EventsToRegister's events); the verdict is written to the pod as
// condition ConditionAdmitted and an event, off the scheduling path.
func (p *Plugin) PreEnqueue(ctx context.Context, pod *v1.Pod) *fwk.Status {
	v := p.Decide(pod)
	p.show(ctx, pod, v)
	if v.Reason == ReasonAdmitted {
		return nil
	}
	if v.Reason == ReasonPending {
		p.requeueAtDeadline(ctx, pod)
	}
	return fwk.NewStatus(fwk.UnschedulableAndUnresolvable, v.Message)
}

// requeueAtDeadline arms a timer that activates the held pod when its
// deadline passes, so that PreEnqueue refuses it then (and the condition
// says so) instead of at the next pod-delete or node event, or the
// queue's 5-minute flush.
func (p *Plugin) requeueAtDeadline(ctx context.Context, pod *v1.Pod) {
	raw, ok := pod.Annotations[p.args.DeadlineAnnotation]
	if !ok {
		return
	}
	deadline, err := time.Parse(time.RFC3339, strings.TrimSpace(raw))
	if err != nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, armed := p.timers[pod.UID]; armed {
		return
	}
	logger := klog.FromContext(ctx)
	key := pod.Namespace + "/" + pod.Name
	p.timers[pod.UID] = time.AfterFunc(deadline.Sub(p.now())+time.Millisecond, func() {
		p.mu.Lock()
		delete(p.timers, pod.UID)
		p.mu.Unlock()
		logger.V(2).Info("OnSocMax: deadline passed, re-evaluating the held job", "pod", klog.KObj(pod))
		defer func() { // a framework built without a pod activator (tests)
			if r := recover(); r != nil {
				logger.Error(nil, "OnSocMax: cannot requeue the held job at its deadline: the framework has no pod activator", "pod", klog.KObj(pod))
			}
		}()
		p.h.Activate(logger, map[string]*v1.Pod{key: pod})
	})
}

// Reserve moves the pod's demand from admitted to reserved (a pod not in
// the ledger, e.g. admitted before a restart, is added).
func (p *Plugin) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	d, ok := p.admitted[pod.UID]
	if !ok {
		if _, held := p.reserved[pod.UID]; held {
			return nil
		}
		d = p.demand(pod)
	}
	delete(p.admitted, pod.UID)
	p.reserved[pod.UID] = d
	return nil
}

// Unreserve moves the pod back to admitted: it keeps its admission and
// will be retried.
func (p *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if d, ok := p.reserved[pod.UID]; ok {
		delete(p.reserved, pod.UID)
		p.admitted[pod.UID] = d
	}
}

// release forgets a terminated or deleted pod.
func (p *Plugin) release(uid types.UID) {
	p.mu.Lock()
	delete(p.admitted, uid)
	delete(p.reserved, uid)
	delete(p.refused, uid)
	delete(p.shown, uid)
	delete(p.pending, uid)
	if t, ok := p.timers[uid]; ok {
		t.Stop()
		delete(p.timers, uid)
	}
	p.mu.Unlock()
}

// Committed returns the committed usage per resource type (admitted plus
// reserved), in units.
func (p *Plugin) Committed() []float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.used()
}

// EventsToRegister: a pod leaving (deleted or terminated) lowers the
// prices, nodes joining raise the capacity; both re-evaluate gated pods.
func (p *Plugin) EventsToRegister(context.Context) ([]fwk.ClusterEventWithHint, error) {
	return []fwk.ClusterEventWithHint{
		{Event: fwk.ClusterEvent{Resource: fwk.Pod, ActionType: fwk.Delete | fwk.UpdatePodScaleDown}},
		{Event: fwk.ClusterEvent{Resource: fwk.Node, ActionType: fwk.Add | fwk.UpdateNodeAllocatable}},
	}, nil
}

// show queues the verdict for the status writer when it changed. The
// queue keeps the latest verdict of each pod (never dropped, bounded by
// the pods the informer knows), written only by the replica that holds
// the writer Lease.
func (p *Plugin) show(_ context.Context, pod *v1.Pod, v Verdict) {
	p.mu.Lock()
	same := p.shown[pod.UID] == v.Reason+"\x00"+v.Message
	if !same {
		p.shown[pod.UID] = v.Reason + "\x00" + v.Message
		p.pending[pod.UID] = statusWrite{pod: pod, v: v}
	}
	p.mu.Unlock()
	if !same {
		p.signal()
	}
}

func (p *Plugin) signal() {
	select {
	case p.wake <- struct{}{}:
	default: // already signalled
	}
}

// Lease timings of the writer election (kube-scheduler's defaults);
// tests shorten them.
var (
	leaseDuration = 15 * time.Second
	renewDeadline = 10 * time.Second
	retryPeriod   = 2 * time.Second
)

// elect runs the election of the status writer on the Lease
// LeaseNamespace/msched-onsocmax-<profile> until ctx ends. PreEnqueue runs
// on every replica, leader or standby (the scheduling queue is filled
// before leadership), and so does the ledger; only the holder of this
// Lease writes conditions and events. The scheduler's own leader lease is
// not visible to plugins, so the writer is elected separately: with
// leader election the writer may be a standby whose ledger follows the
// same informer events; without it the single replica takes the Lease
// at once (or after leaseDuration when a crashed process still held it).
func (p *Plugin) elect(ctx context.Context, cs kubernetes.Interface) {
	logger := klog.FromContext(ctx)
	host, _ := os.Hostname()
	id := fmt.Sprintf("%s_%d_%s", host, os.Getpid(), uuid.NewUUID())
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: p.args.LeaseNamespace, Name: "msched-onsocmax-" + p.h.ProfileName()},
		Client:     cs.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: id},
	}
	for ctx.Err() == nil {
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
			ReleaseOnCancel: true, Name: "msched-onsocmax-" + p.h.ProfileName(),
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(context.Context) {
					logger.Info("OnSocMax: this replica writes the admission conditions", "lease", lock.Describe(), "identity", id)
					p.leading.Store(true)
					p.signal()
				},
				OnStoppedLeading: func() {
					p.leading.Store(false)
					logger.Info("OnSocMax: stopped writing the admission conditions", "lease", lock.Describe())
				},
			},
		})
		if err != nil {
			logger.Error(err, "OnSocMax: writer election")
			return
		}
		le.Run(ctx)
	}
}

// Writing reports whether this replica writes conditions and events (it
// holds the writer Lease).
func (p *Plugin) Writing() bool { return p.leading.Load() }

// writeStatuses patches ConditionAdmitted and records an event per
// verdict, while this replica holds the writer Lease. A failed patch is
// retried (the verdict stays queued unless a newer one replaced it).
func (p *Plugin) writeStatuses(ctx context.Context) {
	logger := klog.FromContext(ctx)
	retry := time.NewTicker(time.Second)
	defer retry.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		case <-retry.C:
		}
		if !p.leading.Load() {
			continue
		}
		p.mu.Lock()
		if len(p.pending) == 0 {
			p.mu.Unlock()
			continue
		}
		batch := p.pending
		p.pending = map[types.UID]statusWrite{}
		p.mu.Unlock()
		for uid, w := range batch {
			if ctx.Err() != nil || !p.leading.Load() {
				p.requeue(uid, w)
				continue
			}
			if err := p.write(ctx, logger, w); err != nil {
				logger.Error(err, "OnSocMax: writing the admission condition; retrying", "pod", klog.KObj(w.pod))
				p.requeue(uid, w)
			}
		}
	}
}

// requeue puts back a verdict not written, unless a newer one replaced it
// or the pod is gone.
func (p *Plugin) requeue(uid types.UID, w statusWrite) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, newer := p.pending[uid]; !newer && p.shown[uid] == w.v.Reason+"\x00"+w.v.Message {
		p.pending[uid] = w
	}
}

// write records the verdict's event and patches the condition.
func (p *Plugin) write(ctx context.Context, logger klog.Logger, w statusWrite) error {
	status := v1.ConditionFalse
	etype := v1.EventTypeWarning
	if w.v.Reason == ReasonAdmitted {
		status, etype = v1.ConditionTrue, v1.EventTypeNormal
	}
	cs := p.h.ClientSet()
	if cs != nil {
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []v1.PodCondition{{
			Type: ConditionAdmitted, Status: status, Reason: w.v.Reason, Message: w.v.Message,
			LastTransitionTime: metav1.NewTime(p.now()),
		}}}})
		_, err := cs.CoreV1().Pods(w.pod.Namespace).Patch(ctx, w.pod.Name, types.StrategicMergePatchType, patch, metav1.PatchOptions{}, "status")
		if apierrors.IsNotFound(err) {
			return nil // the pod is gone
		}
		if err != nil {
			return err
		}
	}
	logger.V(2).Info("OnSocMax verdict", "pod", klog.KObj(w.pod), "reason", w.v.Reason, "value", w.v.Value, "cost", w.v.Cost)
	if rec := p.h.EventRecorder(); rec != nil {
		rec.Eventf(w.pod, nil, etype, w.v.Reason, "Admission", "%s", w.v.Message)
	}
	return nil
}

// parseDecimal parses a declared value: an optional sign, decimal digits
// with an optional fraction and exponent. strconv.ParseFloat alone also
// takes hexadecimal (0x1p2), underscores, Inf and NaN.
func parseDecimal(raw string) (float64, error) {
	s := strings.TrimSpace(raw)
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits > 0 && i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 {
			digits = 0
		}
	}
	if digits == 0 || i != len(s) {
		return 0, fmt.Errorf("%q is not a decimal number", raw)
	}
	return strconv.ParseFloat(s, 64)
}
