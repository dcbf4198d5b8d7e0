package ogasched

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	coresnap "github.com/msched/msched/internal/snapshot"
)

func testNode(name string, cpu, memGi, gpu int64) *v1.Node {
	alloc := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memGi<<30, resource.BinarySI),
	}
	if gpu > 0 {
		alloc["nvidia.com/gpu"] = *resource.NewQuantity(gpu, resource.DecimalSI)
	}
	return &v1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: v1.NodeStatus{Allocatable: alloc}}
}

func testPod(name string, cpu, memGi, gpu int64) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memGi<<30, resource.BinarySI),
	}
	if gpu > 0 {
		req["nvidia.com/gpu"] = *resource.NewQuantity(gpu, resource.DecimalSI)
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(name)},
		Spec:       v1.PodSpec{Containers: []v1.Container{{Name: "c", Resources: v1.ResourceRequirements{Requests: req}}}},
	}
}

// testCluster: two CPU nodes and two GPU nodes.
func testCluster() []*v1.Node {
	return []*v1.Node{testNode("cpu-a", 32, 128, 0), testNode("cpu-b", 16, 64, 0), testNode("gpu-a", 64, 256, 8), testNode("gpu-b", 8, 32, 1)}
}

func testEngine(t *testing.T, policy string) *engine {
	t.Helper()
	a := &Args{SlotSeconds: 10}
	SetDefaults(a)
	e, err := newEngine(a, policy)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// drive feeds slots [from, to) of a fixed workload (a GPU pod and two CPU
// pods per slot) into e, as the learner goroutine does at each slot's end
// (ports added, model synced, one step), and returns the score rows after
// the last slot.
func drive(e *engine, nodes []*v1.Node, from, to int) (gpuRow, cpuRow []int64) {
	var gl, cl int
	for s := from; s < to; s++ {
		x := map[int]float64{}
		for i, p := range []*v1.Pod{testPod(fmt.Sprintf("g-%d", s), 16, 64, 2), testPod(fmt.Sprintf("c1-%d", s), 4, 8, 0), testPod(fmt.Sprintf("c2-%d", s), 4, 8, 0)} {
			d := e.demandOf(p)
			l := e.addPort(e.portKey(p, d), d)
			x[l]++
			if i == 0 {
				gl = l
			} else {
				cl = l
			}
		}
		if _, ready, err := e.sync(nodes); err != nil || !ready {
			panic(fmt.Sprintf("sync: ready %v, %v", ready, err))
		}
		xs := make([]float64, len(e.ports))
		for l, v := range x {
			xs[l] = v
		}
		if _, err := e.step(xs); err != nil {
			panic(err)
		}
	}
	snap := e.snapshot()
	return snap.rows[gl], snap.rows[cl]
}

func TestEngineScores(t *testing.T) {
	for _, policy := range []string{PolicyOGASched, PolicyDRF} {
		t.Run(policy, func(t *testing.T) {
			e := testEngine(t, policy)
			gpu, cpu := drive(e, testCluster(), 0, 50)
			if len(gpu) != 4 || len(cpu) != 4 {
				t.Fatalf("rows %v %v, want 4 nodes", gpu, cpu)
			}
			for _, row := range [][]int64{gpu, cpu} {
				for r, s := range row {
					if s < 0 || s > 100 {
						t.Errorf("score[%d] = %d outside [0, 100]", r, s)
					}
				}
			}
			// Nodes are sorted by name: cpu-a, cpu-b, gpu-a, gpu-b. The
			// GPU pod (2 GPUs, 16 cores) fits only gpu-a.
			if gpu[0] != 0 || gpu[1] != 0 || gpu[3] != 0 || gpu[2] == 0 {
				t.Errorf("GPU port scores %v, want > 0 only on gpu-a", gpu)
			}
			if cpu[0] == 0 {
				t.Errorf("CPU port scores %v, want > 0 on cpu-a", cpu)
			}
			if e.steps != 50 {
				t.Errorf("steps = %d, want 50 (one per slot with arrivals)", e.steps)
			}
		})
	}
}

func TestEngineLearns(t *testing.T) {
	e := testEngine(t, PolicyOGASched)
	drive(e, testCluster(), 0, 1)
	y0 := append([]float64(nil), e.y...)
	drive(e, testCluster(), 1, 30)
	moved := 0.0
	for i := range y0 {
		moved += math.Abs(e.y[i] - y0[i])
	}
	if moved == 0 {
		t.Error("y did not move in 30 slots of arrivals")
	}
}

func TestEngineNodeChurnKeepsLearning(t *testing.T) {
	e := testEngine(t, PolicyOGASched)
	nodes := testCluster()
	drive(e, nodes, 0, 20)
	before := e.carryOf(t, "cpu-a")
	// gpu-b leaves and a new node joins: the model is rebuilt with cpu-a's
	// learned y carried over.
	nodes = append(nodes[:3:3], testNode("cpu-c", 32, 128, 0))
	rebuilt, ready, err := e.sync(nodes)
	if err != nil || !rebuilt || !ready {
		t.Fatalf("sync after churn: rebuilt %v ready %v err %v", rebuilt, ready, err)
	}
	if snap := e.snapshot(); len(snap.nodes) != 4 || snap.nodes[2] != "cpu-c" {
		t.Fatalf("nodes after churn: %v", snap.nodes)
	}
	after := e.carryOf(t, "cpu-a")
	for k := range before {
		if math.Abs(before[k]-after[k]) > 1e-9 {
			t.Errorf("cpu-a y[%d] = %v after the rebuild, want %v carried over", k, after[k], before[k])
		}
	}
}

// TestEngineCapacityChangeRebuilds: a node whose allocatable changes (same
// name) rebuilds the model; an unchanged node set does not.
func TestEngineCapacityChangeRebuilds(t *testing.T) {
	e := testEngine(t, PolicyOGASched)
	nodes := testCluster()
	drive(e, nodes, 0, 5)
	if rebuilt, _, _ := e.sync(testCluster()); rebuilt {
		t.Fatal("same nodes rebuilt the model")
	}
	grown := testCluster()
	grown[3] = testNode("gpu-b", 64, 256, 8) // gpu-b now fits the GPU port
	rebuilt, _, err := e.sync(grown)
	if err != nil || !rebuilt {
		t.Fatalf("capacity change: rebuilt %v, err %v", rebuilt, err)
	}
	gpu, _ := drive(e, grown, 5, 30)
	if gpu[3] == 0 {
		t.Errorf("GPU port scores %v: gpu-b (grown to 8 GPUs) still has no score", gpu)
	}
}

// carryOf returns y of the CPU port (4 cores, 8Gi) on the node.
func (e *engine) carryOf(t *testing.T, node string) []float64 {
	t.Helper()
	l := e.portIdx[e.portKey(nil, []float64{4, 8, 0})]
	r := e.m.nodeIdx[node]
	start := e.edgeStart(l)
	for i, rr := range e.edgeOf[l] {
		if rr == r {
			K := e.K()
			return append([]float64(nil), e.y[(start+i)*K:(start+i+1)*K]...)
		}
	}
	t.Fatalf("no edge to %s", node)
	return nil
}

func TestStateRoundTripContinuesExactly(t *testing.T) {
	nodes := testCluster()
	whole := testEngine(t, PolicyOGASched)
	drive(whole, nodes, 0, 40)

	first := testEngine(t, PolicyOGASched)
	drive(first, nodes, 0, 20)
	b, err := first.marshalState()
	if err != nil {
		t.Fatal(err)
	}
	restored := testEngine(t, PolicyOGASched)
	if err := restored.unmarshalState(b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := restored.sync(nodes); err != nil {
		t.Fatal(err)
	}
	if got, want := restored.snapshot().digest, first.snapshot().digest; got != want {
		t.Errorf("restored scores digest %s, saved %s", got, want)
	}
	drive(restored, nodes, 20, 40)
	if whole.steps != restored.steps {
		t.Fatalf("steps %d vs %d", whole.steps, restored.steps)
	}
	for i := range whole.y {
		if d := math.Abs(whole.y[i] - restored.y[i]); d > 1e-9 {
			t.Fatalf("y[%d] = %v after restore, %v uninterrupted", i, restored.y[i], whole.y[i])
		}
	}
}

func TestUnmarshalStateRejects(t *testing.T) {
	e := testEngine(t, PolicyOGASched)
	drive(e, testCluster(), 0, 5)
	good, err := e.marshalState()
	if err != nil {
		t.Fatal(err)
	}
	// seal wraps a state body in a valid envelope, so that each case
	// tests its semantic check, not the integrity check.
	seal := func(body string) string {
		var raw json.RawMessage = []byte(body)
		b, err := coresnap.Encode(stateFormat, stateVersion, PolicyOGASched, raw)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	const res = `"resources":["cpu","memory","nvidia.com/gpu"]`
	cases := map[string]string{
		"truncated":     string(good[:len(good)/2]),
		"format":        strings.Replace(seal(`{"policy":"OGASched",`+res+`,"steps":0,"ports":[]}`), stateFormat, "x", 1),
		"version 1":     `{"format":"msched/kube.OGASched","version":1,"policy":"OGASched",` + res + `,"steps":0,"ports":[]}`,
		"policy":        seal(`{"policy":"DRF",` + res + `,"steps":0,"ports":[]}`),
		"resources":     seal(`{"policy":"OGASched","resources":["cpu"],"steps":0,"ports":[]}`),
		"steps":         seal(`{"policy":"OGASched",` + res + `,"steps":-1,"ports":[]}`),
		"demand length": seal(`{"policy":"OGASched",` + res + `,"steps":0,"ports":[{"key":"a","demand":[1],"y":{}}]}`),
		"negative y":    seal(`{"policy":"OGASched",` + res + `,"steps":0,"ports":[{"key":"a","demand":[1,1,0],"y":{"n":[-1,0,0]}}]}`),
		"duplicate":     seal(`{"policy":"OGASched",` + res + `,"steps":0,"ports":[{"key":"a","demand":[1,1,0],"y":{}},{"key":"a","demand":[1,1,0],"y":{}}]}`),
		"unknown field": seal(`{"policy":"OGASched",` + res + `,"steps":0,"ports":[],"extra":1}`),
		"trailing":      string(good) + "{}",
	}
	for name, s := range cases {
		f := testEngine(t, PolicyOGASched)
		if err := f.unmarshalState([]byte(s)); !errors.Is(err, ErrState) {
			t.Errorf("%s: error = %v, want ErrState", name, err)
		}
		if len(f.ports) != 0 || f.steps != 0 {
			t.Errorf("%s: engine changed by a failed restore", name)
		}
	}
}

// TestUnmarshalStateRefusesBitFlips: in-range bit flips of a saved state
// (steps 4 -> 5, one digit of a y) were restored as valid and then
// overwritten; the integrity check refuses them, and every single-bit
// flip of the file.
func TestUnmarshalStateRefusesBitFlips(t *testing.T) {
	e := testEngine(t, PolicyOGASched)
	drive(e, testCluster(), 0, 4)
	if e.steps != 4 {
		t.Fatalf("steps = %d, want 4", e.steps)
	}
	good, err := e.marshalState()
	if err != nil {
		t.Fatal(err)
	}
	if err := testEngine(t, PolicyOGASched).unmarshalState(good); err != nil {
		t.Fatalf("the good state: %v", err)
	}
	steps := strings.Replace(string(good), `"steps":4`, `"steps":5`, 1)
	if steps == string(good) {
		t.Fatalf("no \"steps\":4 in %s", good)
	}
	i := bytes.Index(good, []byte(`"y":{"`))
	j := i + bytes.Index(good[i:], []byte(`[`)) + 1
	for good[j] < '1' || good[j] > '8' {
		j++
	}
	digit := []byte(string(good))
	digit[j]++
	for name, b := range map[string][]byte{"steps 4 -> 5": []byte(steps), "a digit of y": digit} {
		f := testEngine(t, PolicyOGASched)
		if err := f.unmarshalState(b); !errors.Is(err, ErrState) {
			t.Errorf("%s: error = %v, want ErrState", name, err)
		}
	}
	if testing.Short() {
		return
	}
	for bit := range 8 * len(good) {
		b := []byte(string(good))
		b[bit/8] ^= 1 << (bit % 8)
		if err := testEngine(t, PolicyOGASched).unmarshalState(b); err == nil {
			t.Fatalf("bit %d flipped (byte %q -> %q) restored", bit, good[bit/8], b[bit/8])
		}
	}
}

func FuzzUnmarshalState(f *testing.F) {
	e, _ := newEngine(func() *Args { a := &Args{}; SetDefaults(a); return a }(), PolicyOGASched)
	seed, _ := coresnap.Encode(stateFormat, stateVersion, PolicyOGASched, json.RawMessage(`{"policy":"OGASched","resources":["cpu","memory","nvidia.com/gpu"],"steps":3,"ports":[{"key":"a","demand":[1,1,0],"y":{"n":[0.5,0.5,0]}}]}`))
	f.Add(seed)
	f.Fuzz(func(t *testing.T, b []byte) {
		a := &Args{}
		SetDefaults(a)
		g, err := newEngine(a, PolicyOGASched)
		if err != nil {
			t.Fatal(err)
		}
		if g.unmarshalState(b) != nil {
			return
		}
		// A restored state must build and score without panicking.
		if _, ready, err := g.sync(testCluster()); err == nil && ready {
			s := g.snapshot()
			s.portFor("none", []float64{1, 1, 0})
		}
	})
	_ = e
}

// computeDigest hashes the bytes the fmt-based digest hashed: the same
// digest as before issue 32's rewrite, on scores with negative, zero and
// large values and unusual names.
func TestDigestSameBytes(t *testing.T) {
	digestFmt := func(s *snapshot, ports []port) string {
		h := fnv.New64a()
		for l, p := range ports {
			fmt.Fprintf(h, "%s|", p.key)
			for r, v := range s.rows[l] {
				fmt.Fprintf(h, "%s=%d,", s.nodes[r], v)
			}
		}
		return fmt.Sprintf("%016x", h.Sum64())
	}
	s := &snapshot{nodes: []string{"a", "node-β", "", "n=,|"}, rows: [][]int64{{0, 100, -7, 1 << 40}, {5, 5, 5, 5}, {}}}
	ports := []port{{key: "cpu=1|gpu"}, {key: ""}, {key: "x"}}
	s.rows[2] = []int64{1, 2, 3, 4}
	if got, want := s.computeDigest(ports), digestFmt(s, ports); got != want {
		t.Fatalf("digest %s, fmt's %s", got, want)
	}
}
