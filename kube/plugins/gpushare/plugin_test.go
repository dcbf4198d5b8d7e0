package gpushare

import (
	"context"
	"slices"
	"strconv"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	fwk "k8s.io/kube-scheduler/framework"
	"k8s.io/kubernetes/pkg/scheduler/backend/cache"
	"k8s.io/kubernetes/pkg/scheduler/framework"
)

type fakeHandle struct {
	fwk.Handle
	snap fwk.SharedLister
	cs   kubernetes.Interface
}

func (h *fakeHandle) SnapshotSharedLister() fwk.SharedLister { return h.snap }
func (h *fakeHandle) ClientSet() kubernetes.Interface        { return h.cs }

func gpuNode(name string, gpus int) *v1.Node {
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{AnnotationModel: "T4"}},
		Status: v1.NodeStatus{Allocatable: v1.ResourceList{
			v1.ResourceCPU:    resource.MustParse("32"),
			v1.ResourceMemory: resource.MustParse("128Gi"),
			ResourceMilli:     *resource.NewQuantity(int64(gpus)*Milli, resource.DecimalSI),
		}}}
}

func gpuPod(name string, milli int64, node string) *v1.Pod {
	return &v1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", UID: types.UID(name)},
		Spec: v1.PodSpec{NodeName: node, Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: v1.ResourceList{
			v1.ResourceCPU: resource.MustParse("1"),
			ResourceMilli:  *resource.NewQuantity(milli, resource.DecimalSI),
		}}}}}}
}

type env struct {
	t     *testing.T
	p     *Plugin
	h     *fakeHandle
	nodes []*v1.Node
	pods  []*v1.Pod
}

func newEnv(t *testing.T, policy string, nodes ...*v1.Node) *env {
	h := &fakeHandle{cs: fake.NewClientset()}
	pl, err := New(context.Background(), &Args{Policy: policy}, h)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, p: pl.(*Plugin), h: h, nodes: nodes}
	e.resnap()
	return e
}

func (e *env) resnap() {
	e.h.snap = cache.NewSnapshot(e.pods, e.nodes)
}

func (e *env) info(node string) fwk.NodeInfo {
	ni, err := e.h.snap.NodeInfos().Get(node)
	if err != nil {
		e.t.Fatal(err)
	}
	return ni
}

// schedule runs PreFilter, Filter, Reserve and PreBind of pod on node; it
// returns the Filter status code.
func (e *env) schedule(pod *v1.Pod, node string) fwk.Code {
	e.t.Helper()
	ctx := context.Background()
	st := framework.NewCycleState()
	if _, s := e.p.PreFilter(ctx, st, pod, nil); !s.IsSuccess() {
		e.t.Fatal(s)
	}
	if s := e.p.Filter(ctx, st, pod, e.info(node)); !s.IsSuccess() {
		return s.Code()
	}
	if s := e.p.Reserve(ctx, st, pod, node); !s.IsSuccess() {
		e.t.Fatal(s)
	}
	if _, err := e.h.cs.CoreV1().Pods(pod.Namespace).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
	if s := e.p.PreBind(ctx, st, pod, node); !s.IsSuccess() {
		e.t.Fatal(s)
	}
	e.p.PostBind(ctx, st, pod, node)
	pod.Spec.NodeName = node
	e.pods = append(e.pods, pod)
	e.resnap()
	return fwk.Success
}

// A 0.7-GPU pod must not land on a node whose two GPUs have 0.4 free each:
// the aggregate count (what NodeResourcesFit checks on gpu-milli, and
// what kube/openb's replay did before issue 32) sees 800 free milli.
func TestFilterPerGPU(t *testing.T) {
	e := newEnv(t, "", gpuNode("n1", 2))
	if c := e.schedule(gpuPod("a", 600, ""), "n1"); c != fwk.Success {
		t.Fatal(c)
	}
	if c := e.schedule(gpuPod("b", 600, ""), "n1"); c != fwk.Success {
		t.Fatal(c)
	}
	n, err := e.p.NodeState(e.info("n1"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(n.GPUs, []int64{400, 400}) {
		t.Fatalf("GPUs free %v, want [400 400] (two 600-milli pods on two GPUs)", n.GPUs)
	}
	if aggregate := n.FreeGPUMilli(); aggregate < 700 {
		t.Fatalf("aggregate %d", aggregate)
	}
	if c := e.schedule(gpuPod("c", 700, ""), "n1"); c != fwk.Unschedulable {
		t.Fatalf("0.7-GPU pod on GPUs with 0.4 free each: %v, want Unschedulable", c)
	}
	if c := e.schedule(gpuPod("d", 400, ""), "n1"); c != fwk.Success {
		t.Fatal(c)
	}
}

// The ids are recorded on the pod through the API and a new plugin (a
// restarted scheduler) rebuilds the same devices from the bound pods.
func TestRecordAndRebuild(t *testing.T) {
	e := newEnv(t, "BestFit", gpuNode("n1", 4))
	for i, m := range []int64{300, 2000, 500, 1000} {
		if c := e.schedule(gpuPod("p"+strconv.Itoa(i), m, ""), "n1"); c != fwk.Success {
			t.Fatal(i, c)
		}
	}
	want, err := e.p.NodeState(e.info("n1"))
	if err != nil {
		t.Fatal(err)
	}
	// Best fit: 300 on GPU 0; 2 whole GPUs 1, 2; 500 on GPU 0 (700 free
	// is the tightest); 1 whole GPU 3.
	if !slices.Equal(want.GPUs, []int64{200, 0, 0, 0}) {
		t.Fatalf("GPUs free %v", want.GPUs)
	}
	// Rebuild from the API's pods only (their annotations).
	var bound []*v1.Pod
	list, err := e.h.cs.CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range list.Items {
		p := list.Items[i].DeepCopy()
		p.Spec.NodeName = "n1"
		if p.Annotations[AnnotationIndex] == "" {
			t.Fatalf("pod %s has no %s", p.Name, AnnotationIndex)
		}
		bound = append(bound, p)
	}
	e2 := newEnv(t, "BestFit", gpuNode("n1", 4))
	e2.pods = bound
	e2.resnap()
	got, err := e2.p.NodeState(e2.info("n1"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.GPUs, want.GPUs) {
		t.Fatalf("rebuilt %v, want %v", got.GPUs, want.GPUs)
	}
}

func TestUnreserveReleases(t *testing.T) {
	e := newEnv(t, "", gpuNode("n1", 1))
	ctx := context.Background()
	pod := gpuPod("a", 1000, "")
	st := framework.NewCycleState()
	if _, s := e.p.PreFilter(ctx, st, pod, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := e.p.Reserve(ctx, st, pod, "n1"); !s.IsSuccess() {
		t.Fatal(s)
	}
	if _, ok := e.p.reserved[pod.UID]; !ok || pod.Annotations[AnnotationIndex] != "0" {
		t.Fatalf("not reserved: %v %v", e.p.reserved, pod.Annotations)
	}
	e.p.Unreserve(ctx, st, pod, "n1")
	if _, ok := e.p.reserved[pod.UID]; ok || pod.Annotations[AnnotationIndex] != "" {
		t.Fatal("reservation kept")
	}
	if c := e.schedule(gpuPod("b", 1000, ""), "n1"); c != fwk.Success {
		t.Fatal(c)
	}
}

func TestRequestOfRefuses(t *testing.T) {
	bad := []*v1.Pod{gpuPod("x", 1500, ""), gpuPod("y", 1000*(MaxGPUs+1), "")}
	p := gpuPod("z", 0, "")
	p.Annotations = map[string]string{AnnotationCount: "2", AnnotationMilli: "500"}
	bad = append(bad, p)
	q := gpuPod("w", 0, "")
	q.Annotations = map[string]string{AnnotationCount: "x"}
	bad = append(bad, q)
	for _, pod := range bad {
		if _, err := RequestOf(pod); err == nil {
			t.Errorf("%s accepted", pod.Name)
		}
	}
	if _, err := New(context.Background(), &Args{Policy: "nope"}, nil); err == nil {
		t.Error("unknown policy accepted")
	}
	for _, p := range []string{"FGD", "Lookahead"} {
		if _, err := New(context.Background(), &Args{Policy: p}, nil); err == nil {
			t.Errorf("%s without workload accepted", p)
		}
	}
	for _, a := range []*Args{{Policy: "Lookahead", Workload: []ShapeProb{{Shape{CPUMilli: 1000, GPUMilli: 500, GPUCount: 1}, 1}}},
		{Policy: "Lookahead", Prior: WorkloadOf([]Request{{CPUMilli: 1000, GPUMilli: 500, GPUCount: 1}}, 1)}, {Policy: "Lookahead-learned"}} {
		pl, err := New(context.Background(), a, nil)
		if err != nil {
			t.Errorf("%s: %v", a.Policy, err)
		} else if pl.(*Plugin).la == nil {
			t.Errorf("%s: no lookahead scorer", a.Policy)
		}
	}
}

// FGD through the plugin scores like the replay's scorer and reserves
// its GPU.
func TestFGDPlugin(t *testing.T) {
	h := &fakeHandle{cs: fake.NewClientset()}
	args := &Args{Policy: "FGD", Workload: []ShapeProb{{Shape{CPUMilli: 1000, GPUMilli: 500, GPUCount: 1}, 1}}}
	pl, err := New(context.Background(), args, h)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, p: pl.(*Plugin), h: h, nodes: []*v1.Node{gpuNode("n1", 2)}}
	e.resnap()
	if c := e.schedule(gpuPod("a", 300, ""), "n1"); c != fwk.Success {
		t.Fatal(c)
	}
	// A 200-milli pod: on GPU 0 (700 free → 500) it keeps both GPUs
	// able to hold a 500 shape; FGD must take GPU 0.
	pod := gpuPod("b", 200, "")
	st := framework.NewCycleState()
	if _, s := e.p.PreFilter(context.Background(), st, pod, nil); !s.IsSuccess() {
		t.Fatal(s)
	}
	if s := e.p.Reserve(context.Background(), st, pod, "n1"); !s.IsSuccess() {
		t.Fatal(s)
	}
	if got := pod.Annotations[AnnotationIndex]; got != "0" {
		t.Fatalf("FGD put the pod on GPU %s, want 0", got)
	}
	sc, s := e.p.Score(context.Background(), st, pod, e.info("n1"))
	if !s.IsSuccess() || sc < 0 || sc > MaxNodeScore {
		t.Fatal(sc, s)
	}
}

// NormalizeScore: BestFit's min-max normalisation (FGD's), then the best
// node made unique by the smallest name (Args.TieBreak "name"), checked
// against a brute-force argmax; refused combinations.
func TestNormalizeScoreTies(t *testing.T) {
	mk := func(policy, ties string) *Plugin {
		pl, err := New(context.Background(), &Args{Policy: policy, TieBreak: ties}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return pl.(*Plugin)
	}
	for _, c := range []struct {
		policy, ties string
		in           []int64
		want         []int64
	}{
		{"BestFit", "", []int64{70, 90, 80, 90}, []int64{0, 100, 50, 100}},
		{"BestFit", "name", []int64{70, 90, 80, 90}, []int64{0, 100, 50, 99}},
		{"BestFit", "name", []int64{5, 5, 5}, []int64{1, 0, 0}},
		{"FGD-learned", "name", []int64{40, 60, 60, 12}, []int64{40, 60, 59, 12}},
		{"LeastAllocated", "name", []int64{0, 0}, []int64{1, 0}},
	} {
		pl := mk(c.policy, c.ties)
		scores := make(fwk.NodeScoreList, len(c.in))
		for i, s := range c.in {
			scores[i] = fwk.NodeScore{Name: "n" + strconv.Itoa(i), Score: s}
		}
		if pl.ScoreExtensions() == nil {
			t.Fatalf("%s/%q: no ScoreExtensions", c.policy, c.ties)
		}
		if st := pl.NormalizeScore(context.Background(), nil, nil, scores); st != nil {
			t.Fatal(st)
		}
		got := make([]int64, len(scores))
		for i := range scores {
			got[i] = scores[i].Score
		}
		if !slices.Equal(got, c.want) {
			t.Fatalf("%s/%q %v: got %v, want %v", c.policy, c.ties, c.in, got, c.want)
		}
	}
	if mk("LeastAllocated", "").ScoreExtensions() != nil {
		t.Fatal("LeastAllocated with upstream ties normalises")
	}
	for _, a := range []*Args{{Policy: "Random", TieBreak: "name"}, {Policy: "FGD", TieBreak: "first"}, {Policy: "FGD", Prior: &Workload{}}} {
		if _, err := New(context.Background(), a, nil); err == nil {
			t.Fatalf("%+v accepted", a)
		}
	}
}
