package gpushare

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	fwk "k8s.io/kube-scheduler/framework"
	frameworkruntime "k8s.io/kubernetes/pkg/scheduler/framework/runtime"
)

// Name is the plugin's name in a KubeSchedulerConfiguration profile.
const Name = "GPUShare"

// The GPU-share convention (Alibaba open-gpu-share, FGD's simulator).
const (
	// ResourceMilli is the extended resource of GPU milli: a node's
	// allocatable is 1000 × its GPUs; a pod's request its total (count ×
	// per-GPU milli) unless the annotations below say more.
	ResourceMilli = "alibabacloud.com/gpu-milli"
	// AnnotationCount is the pod's GPU count (annotation) or the node's
	// GPU count (allocatable, when present).
	AnnotationCount = "alibabacloud.com/gpu-count"
	// AnnotationMilli is the pod's per-GPU milli (annotation).
	AnnotationMilli = "alibabacloud.com/gpu-milli"
	// AnnotationIndex records the GPU ids a pod was given ("0-1").
	AnnotationIndex = "alibabacloud.com/gpu-index"
	// AnnotationModel is the pod's accepted GPU models ("A10|T4") or the
	// node's model (label).
	AnnotationModel = "alibabacloud.com/gpu-card-model"
	// LegacyModelLabel is the node label kube/openb's replay uses.
	LegacyModelLabel = "msched.io/gpu-model"
)

// Args configures the plugin. Policy names the scorer of its Score
// extension point ("" scores nothing: the profile uses the device model
// for Filter and Reserve only); GPU choice at Reserve follows the policy
// (the GPU set the policy's scorer picks; best fit for Random, which has
// no per-cycle random source, and without a policy). For "FGD" and
// "Lookahead" (msched's one-step lookahead, γ = LookaheadGamma, one
// memo shared by the cycles), Workload is the target workload (the
// prior); "FGD-learned" and "Lookahead-learned" learn it from the pods
// reaching PreFilter instead (a Learner rebuilt every 100 arrivals).
//
// TieBreak "name" makes the best node of each cycle unique, the smallest
// node name among the nodes of the highest score (FGD's simulator); ""
// leaves ties to kube-scheduler's selectHost (uniform among the best).
// It is done in NormalizeScore, after the policy's own normalisation, by
// moving the other best nodes one point down (or the chosen one point up
// when the best score is 0), so it is exact only when GPUShare is the
// profile's only score plugin (FGD's protocol: every other scorer
// disabled); with other scorers it is a one-point bonus.
//
// Prior, set in process (kube/openb builds the plugin through its own
// registry entry), is FGD's target workload used as is, the same object
// as the replay loop's: Workload's probabilities would be renormalised,
// which may change their last bits.
type Args struct {
	metav1.TypeMeta `json:",inline"`
	Policy          string      `json:"policy,omitempty"`
	Workload        []ShapeProb `json:"workload,omitempty"`
	TieBreak        string      `json:"tieBreak,omitempty"`
	Prior           *Workload   `json:"-"`
}

// ShapeProb is one shape of a target workload given in Args.
type ShapeProb struct {
	Shape
	P float64 `json:"p"`
}

// DeepCopyObject implements runtime.Object.
func (a *Args) DeepCopyObject() runtime.Object {
	c := *a
	c.Workload = append([]ShapeProb(nil), a.Workload...)
	return &c
}

// MaxWorkloadShapes bounds Args.Workload.
const MaxWorkloadShapes = 4096

// Plugin is the shared GPU device model (PreFilter, Filter, Reserve,
// Unreserve, PreBind, PostBind) with an optional Score (Args.Policy).
type Plugin struct {
	handle fwk.Handle
	policy string
	prior  *Workload
	ties   string
	memo   *FragMemo  // FGD's fragmentation by node state, shared by the cycles
	la     *Lookahead // the Lookahead policies' scorer (its memo), shared by the cycles

	mu       sync.Mutex
	learner  *Learner
	reserved map[types.UID]reservation
	nodes    map[string]nodeCache
}

type reservation struct {
	node string
	ids  []int
}

type nodeCache struct {
	gen int64
	n   *Node
}

var (
	_ fwk.PreFilterPlugin = (*Plugin)(nil)
	_ fwk.FilterPlugin    = (*Plugin)(nil)
	_ fwk.ScorePlugin     = (*Plugin)(nil)
	_ fwk.ReservePlugin   = (*Plugin)(nil)
	_ fwk.PreBindPlugin   = (*Plugin)(nil)
	_ fwk.PostBindPlugin  = (*Plugin)(nil)
)

// New builds the plugin (a frameworkruntime.PluginFactory).
func New(_ context.Context, obj runtime.Object, h fwk.Handle) (fwk.Plugin, error) {
	args := &Args{}
	if a, ok := obj.(*Args); ok && a != nil {
		args = a
	} else if obj != nil {
		if err := frameworkruntime.DecodeInto(obj, args); err != nil {
			return nil, err
		}
	}
	p := &Plugin{handle: h, policy: args.Policy, ties: args.TieBreak, reserved: map[types.UID]reservation{}, nodes: map[string]nodeCache{}, memo: NewFragMemo()}
	if args.TieBreak != "" && args.TieBreak != "name" {
		return nil, fmt.Errorf("%w: args.tieBreak %q: want \"\" or \"name\"", ErrRequest, args.TieBreak)
	}
	switch {
	case (args.Policy == "FGD" || args.Policy == "Lookahead") && args.Prior != nil:
		if len(args.Prior.Shapes) == 0 || len(args.Prior.Shapes) > MaxWorkloadShapes {
			return nil, fmt.Errorf("%w: args.prior: %d shapes, want 1..%d", ErrRequest, len(args.Prior.Shapes), MaxWorkloadShapes)
		}
		p.prior = args.Prior
		if args.Policy == "Lookahead" {
			p.la = &Lookahead{Gamma: LookaheadGamma, Memo: p.memo}
		}
		return p, nil
	case args.Policy == "Random" && args.TieBreak == "name":
		return nil, fmt.Errorf("%w: args.tieBreak \"name\" with policy Random would make it pick the smallest name", ErrRequest)
	}
	switch args.Policy {
	case "", "BestFit", "DotProd", "GpuPacking", "GpuClustering", "Random", "LeastAllocated", "MostAllocated":
	case "FGD", "Lookahead":
		if len(args.Workload) == 0 || len(args.Workload) > MaxWorkloadShapes {
			return nil, fmt.Errorf("%w: args.workload: %d shapes, want 1..%d for policy %s", ErrRequest, len(args.Workload), MaxWorkloadShapes, args.Policy)
		}
		counts := map[Shape]float64{}
		for _, s := range args.Workload {
			if err := s.request().Check(); err != nil {
				return nil, fmt.Errorf("args.workload: %w", err)
			}
			counts[s.Shape] += s.P
		}
		p.prior = NewWorkload(counts, 1)
	case "FGD-learned", "Lookahead-learned":
		p.learner = NewLearner(100)
	default:
		return nil, fmt.Errorf("%w: args.policy %q: want one of %s, FGD-learned, Lookahead, Lookahead-learned or empty", ErrRequest, args.Policy, strings.Join(Policies, ", "))
	}
	if args.Policy == "Lookahead" || args.Policy == "Lookahead-learned" {
		p.la = &Lookahead{Gamma: LookaheadGamma, Memo: p.memo}
	}
	return p, nil
}

// Name implements fwk.Plugin.
func (p *Plugin) Name() string { return Name }

const stateKey fwk.StateKey = "msched.io/gpushare"

type cycle struct {
	req Request
	w   *Workload
}

func (c *cycle) Clone() fwk.StateData { return c }

// RequestOf reads a pod's device-model request: CPU and memory from its
// container requests, GPUs from the gpu-count and gpu-milli annotations,
// or else from the gpu-milli extended resource (under 1000: one shared
// GPU; otherwise whole GPUs, a multiple of 1000), models from the
// gpu-card-model annotation.
func RequestOf(pod *v1.Pod) (Request, error) {
	var r Request
	var total int64
	for _, c := range pod.Spec.Containers {
		r.CPUMilli += c.Resources.Requests.Cpu().MilliValue()
		r.MemoryMiB += c.Resources.Requests.Memory().Value() >> 20
		if q, ok := c.Resources.Requests[ResourceMilli]; ok {
			total += q.Value()
		}
	}
	a := pod.Annotations
	if cs, ok := a[AnnotationCount]; ok {
		c, err := strconv.Atoi(cs)
		if err != nil {
			return r, fmt.Errorf("%w: pod %s/%s annotation %s=%q: %v", ErrRequest, pod.Namespace, pod.Name, AnnotationCount, cs, err)
		}
		m, err := strconv.ParseInt(a[AnnotationMilli], 10, 64)
		if err != nil {
			return r, fmt.Errorf("%w: pod %s/%s annotation %s=%q: %v", ErrRequest, pod.Namespace, pod.Name, AnnotationMilli, a[AnnotationMilli], err)
		}
		r.GPUCount, r.GPUMilli = c, m
	} else if total > 0 {
		switch {
		case total < Milli:
			r.GPUCount, r.GPUMilli = 1, total
		case total%Milli == 0 && total/Milli <= MaxGPUs:
			r.GPUCount, r.GPUMilli = int(total/Milli), Milli
		default:
			return r, fmt.Errorf("%w: pod %s/%s requests %d %s: not under 1000 nor whole GPUs (at most %d)", ErrRequest, pod.Namespace, pod.Name, total, ResourceMilli, MaxGPUs)
		}
	}
	if m := a[AnnotationModel]; m != "" && r.GPUCount > 0 {
		if len(m) > 1024 {
			return r, fmt.Errorf("%w: pod %s/%s annotation %s: %d bytes, limit 1024", ErrRequest, pod.Namespace, pod.Name, AnnotationModel, len(m))
		}
		r.Models = strings.Split(m, "|")
	}
	if err := r.Check(); err != nil {
		return r, fmt.Errorf("pod %s/%s: %w", pod.Namespace, pod.Name, err)
	}
	return r, nil
}

// PreFilter reads the pod's request (and shows it to the learner).
func (p *Plugin) PreFilter(_ context.Context, state fwk.CycleState, pod *v1.Pod, _ []fwk.NodeInfo) (*fwk.PreFilterResult, *fwk.Status) {
	r, err := RequestOf(pod)
	if err != nil {
		return nil, fwk.NewStatus(fwk.UnschedulableAndUnresolvable, err.Error())
	}
	c := &cycle{req: r, w: p.prior}
	if p.learner != nil {
		p.mu.Lock()
		p.learner.Observe(r)
		c.w = p.learner.Workload()
		p.mu.Unlock()
	}
	state.Write(stateKey, c)
	return nil, nil
}

// PreFilterExtensions implements fwk.PreFilterPlugin (none: Filter
// rebuilds each node's devices from its NodeInfo).
func (p *Plugin) PreFilterExtensions() fwk.PreFilterExtensions { return nil }

func (p *Plugin) cycle(state fwk.CycleState) (*cycle, error) {
	d, err := state.Read(stateKey)
	if err != nil {
		return nil, err
	}
	c, ok := d.(*cycle)
	if !ok {
		return nil, fmt.Errorf("gpushare: cycle state holds %T", d)
	}
	return c, nil
}

// nodeModel returns a node's GPU count and model.
func nodeGPUs(n *v1.Node) (int, string) {
	count := 0
	if q, ok := n.Status.Allocatable[AnnotationCount]; ok {
		count = int(min(q.Value(), MaxGPUs+1))
	} else if q, ok := n.Status.Allocatable[ResourceMilli]; ok {
		count = int(min(q.Value()/Milli, MaxGPUs+1))
	}
	model := n.Labels[AnnotationModel]
	if model == "" {
		model = n.Labels[LegacyModelLabel]
	}
	return count, model
}

// NodeState rebuilds a node's devices from the pods on it: each pod's
// GPU ids from its gpu-index annotation, or from this plugin's
// reservation (a pod reserved but not yet annotated). Pods whose GPUs
// cannot be placed are logged and skipped.
func (p *Plugin) NodeState(ni fwk.NodeInfo) (*Node, error) {
	node := ni.Node()
	if node == nil {
		return nil, fmt.Errorf("%w: node info without node", ErrNode)
	}
	p.mu.Lock()
	c, ok := p.nodes[node.Name]
	p.mu.Unlock()
	if ok && c.gen == ni.GetGeneration() {
		return c.n, nil
	}
	count, model := nodeGPUs(node)
	n, err := NewNode(node.Name, model, node.Status.Allocatable.Cpu().MilliValue(), node.Status.Allocatable.Memory().Value()>>20, count)
	if err != nil {
		return nil, err
	}
	for _, pi := range ni.GetPods() {
		pod := pi.GetPod()
		r, err := RequestOf(pod)
		if err != nil {
			klog.V(4).InfoS("gpushare: pod on node skipped", "node", node.Name, "pod", klog.KObj(pod), "err", err)
			continue
		}
		var ids []int
		if s, ok := pod.Annotations[AnnotationIndex]; ok {
			ids, err = ParseIDs(s)
		} else if r.GPUCount > 0 {
			p.mu.Lock()
			res, ok := p.reserved[pod.UID]
			p.mu.Unlock()
			if ok && res.node == node.Name {
				ids = res.ids
			} else {
				err = fmt.Errorf("%w: no %s annotation and no reservation", ErrAnnotation, AnnotationIndex)
			}
		}
		if err == nil {
			// CPU and memory are NodeResourcesFit's; the device model
			// keeps its own copy so that FGD sees the free CPU.
			err = n.Assign(r, ids)
		}
		if err != nil {
			klog.V(2).InfoS("gpushare: pod's GPUs not counted", "node", node.Name, "pod", klog.KObj(pod), "err", err)
		}
	}
	p.mu.Lock()
	if len(p.nodes) > 1<<20 {
		clear(p.nodes)
	}
	p.nodes[node.Name] = nodeCache{ni.GetGeneration(), n}
	p.mu.Unlock()
	return n, nil
}

// Filter rejects a node where no GPU set fits the pod (or its model is
// refused, or the device model's CPU or memory is short).
func (p *Plugin) Filter(_ context.Context, state fwk.CycleState, pod *v1.Pod, ni fwk.NodeInfo) *fwk.Status {
	c, err := p.cycle(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if c.req.GPUCount == 0 {
		return nil
	}
	n, err := p.NodeState(ni)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if !n.Fits(c.req) {
		return fwk.NewStatus(fwk.Unschedulable, "gpushare: no GPU set fits")
	}
	return nil
}

func (p *Plugin) scorer(c *cycle) Scorer {
	var w *Workload
	if c != nil {
		w = c.w
	}
	switch p.policy {
	case "":
		return nil
	case "FGD", "FGD-learned":
		return &FGD{W: func() *Workload { return w }, Memo: p.memo}
	case "Lookahead", "Lookahead-learned":
		return laCycle{p.la, w}
	case "Random":
		return NewScorer("Random", nil, nil)
	}
	return NewScorer(p.policy, w, nil)
}

// laCycle is the plugin's Lookahead over one cycle's workload (the
// shared scorer and its memos; the workload is the cycle's, as FGD's).
type laCycle struct {
	la *Lookahead
	w  *Workload
}

func (c laCycle) Name() string                            { return c.la.Name() }
func (c laCycle) Normalize() bool                         { return false }
func (c laCycle) Score(n *Node, r Request) (int64, []int) { return c.la.score(c.w, n, r) }

// Score scores the node with Args.Policy (0 without one).
func (p *Plugin) Score(_ context.Context, state fwk.CycleState, _ *v1.Pod, ni fwk.NodeInfo) (int64, *fwk.Status) {
	c, err := p.cycle(state)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	sc := p.scorer(c)
	if sc == nil || p.policy == "Random" {
		return 0, nil
	}
	n, err := p.NodeState(ni)
	if err != nil {
		return 0, fwk.AsStatus(err)
	}
	if !n.Fits(c.req) {
		return 0, nil
	}
	s, _ := sc.Score(n, c.req)
	return max(0, min(s, MaxNodeScore)), nil
}

// ScoreExtensions implements fwk.ScorePlugin: NormalizeScore when the
// policy normalises (BestFit) or ties are broken by name.
func (p *Plugin) ScoreExtensions() fwk.ScoreExtensions {
	if p.ties == "name" || p.normalizes() {
		return p
	}
	return nil
}

func (p *Plugin) normalizes() bool {
	sc := p.scorer(nil)
	return sc != nil && p.policy != "Random" && sc.Normalize()
}

// NormalizeScore min-max normalises the cycle's scores for a policy that
// asks it (FGD's NormalizeScore: (s − min) × 100 / (max − min), all 0 when
// equal), then makes the best node unique by name (Args.TieBreak).
func (p *Plugin) NormalizeScore(_ context.Context, _ fwk.CycleState, _ *v1.Pod, scores fwk.NodeScoreList) *fwk.Status {
	if len(scores) == 0 {
		return nil
	}
	if p.normalizes() {
		lo, hi := scores[0].Score, scores[0].Score
		for _, s := range scores {
			lo, hi = min(lo, s.Score), max(hi, s.Score)
		}
		for i := range scores {
			if hi == lo {
				scores[i].Score = 0
			} else {
				scores[i].Score = (scores[i].Score - lo) * MaxNodeScore / (hi - lo)
			}
		}
	}
	if p.ties == "name" {
		hi := scores[0].Score
		for _, s := range scores {
			hi = max(hi, s.Score)
		}
		best := -1
		for i, s := range scores {
			if s.Score == hi && (best < 0 || s.Name < scores[best].Name) {
				best = i
			}
		}
		if hi == 0 {
			scores[best].Score = 1
		} else {
			for i := range scores {
				if i != best && scores[i].Score == hi {
					scores[i].Score--
				}
			}
		}
	}
	return nil
}

// Reserve chooses the pod's GPUs on the node (the policy's choice) and
// records them: in the plugin (until Unreserve, bounded), and on the
// assumed pod's annotations (the scheduler cache's copy).
func (p *Plugin) Reserve(_ context.Context, state fwk.CycleState, pod *v1.Pod, nodeName string) *fwk.Status {
	c, err := p.cycle(state)
	if err != nil {
		return fwk.AsStatus(err)
	}
	if c.req.GPUCount == 0 {
		return nil
	}
	ni, err := p.handle.SnapshotSharedLister().NodeInfos().Get(nodeName)
	if err != nil {
		return fwk.AsStatus(err)
	}
	n, err := p.NodeState(ni)
	if err != nil {
		return fwk.AsStatus(err)
	}
	var ids []int
	switch sc := p.scorer(c); {
	case p.policy == "Random":
		ids = BestFitIDs(n, c.req) // no per-cycle random source: best fit
	case sc != nil:
		_, ids = sc.Score(n, c.req)
	default:
		ids = BestFitIDs(n, c.req)
	}
	if err := n.Clone().Assign(c.req, ids); err != nil {
		return fwk.NewStatus(fwk.Unschedulable, fmt.Sprintf("gpushare: no GPU set on %s: %v", nodeName, err))
	}
	p.mu.Lock()
	if len(p.reserved) >= MaxReservations {
		for uid := range p.reserved { // bound memory: forget one
			klog.InfoS("gpushare: too many reservations not yet seen on their pods; forgetting one", "limit", MaxReservations, "uid", uid)
			delete(p.reserved, uid)
			break
		}
	}
	p.reserved[pod.UID] = reservation{nodeName, ids}
	delete(p.nodes, nodeName)
	p.mu.Unlock()
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[AnnotationIndex] = FormatIDs(ids)
	return nil
}

// Reserved returns the node and GPU ids reserved for the pod with uid,
// while the plugin remembers them (see PostBind).
func (p *Plugin) Reserved(uid types.UID) (node string, ids []int, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.reserved[uid]
	return r.node, r.ids, ok
}

// Unreserve releases the pod's GPUs.
func (p *Plugin) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, nodeName string) {
	p.mu.Lock()
	delete(p.reserved, pod.UID)
	delete(p.nodes, nodeName)
	p.mu.Unlock()
	delete(pod.Annotations, AnnotationIndex)
}

// PreBindPreFlight skips pods without GPUs.
func (p *Plugin) PreBindPreFlight(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) (*fwk.PreBindPreFlightResult, *fwk.Status) {
	p.mu.Lock()
	_, ok := p.reserved[pod.UID]
	p.mu.Unlock()
	if !ok {
		return nil, fwk.NewStatus(fwk.Skip)
	}
	return nil, nil
}

// PreBind records the GPU ids on the pod through the API (a merge patch
// of the gpu-index annotation), so that a restarted scheduler rebuilds
// the devices from the bound pods.
func (p *Plugin) PreBind(ctx context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	p.mu.Lock()
	res, ok := p.reserved[pod.UID]
	p.mu.Unlock()
	if !ok {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{AnnotationIndex: FormatIDs(res.ids)}}})
	if err != nil {
		return fwk.AsStatus(err)
	}
	if cs := p.handle.ClientSet(); cs != nil {
		if _, err := cs.CoreV1().Pods(pod.Namespace).Patch(ctx, pod.Name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			return fwk.AsStatus(fmt.Errorf("gpushare: recording GPUs %s on %s/%s: %w", FormatIDs(res.ids), pod.Namespace, pod.Name, err))
		}
	}
	return nil
}

// PostBind keeps the reservation: it is forgotten at Unreserve or, the
// an arbitrary one, past MaxReservations. Forgetting it at
// PostBind (or when the assumed pod showed its annotation) lost the ids
// whenever the cache then received a copy of the bound pod without its
// patch (found by the OpenB replay, whose fake API server binds a copy:
// a 0.7-GPU pod then landed on two GPUs with 0.4 free each). A bound pod
// with the annotation is read from it; the reservation is the fallback.
func (p *Plugin) PostBind(context.Context, fwk.CycleState, *v1.Pod, string) {}

// MaxReservations bounds the GPU sets remembered for pods not yet seen
// with their annotation.
const MaxReservations = 1 << 18
