package e2e

import (
	"context"
	"fmt"
	"testing"
	"time"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GPU is the extended resource the e2e nodes and pods use for GPUs.
const GPU v1.ResourceName = "nvidia.com/gpu"

// Node returns a schedulable node with the given allocatable (and
// capacity) of CPU cores, memory GiB and GPUs (0: none), 110 pods.
func Node(name string, cpu, memGi, gpu int64) *v1.Node {
	rl := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memGi<<30, resource.BinarySI),
		v1.ResourcePods:   *resource.NewQuantity(110, resource.DecimalSI),
	}
	if gpu > 0 {
		rl[GPU] = *resource.NewQuantity(gpu, resource.DecimalSI)
	}
	return &v1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kubernetes.io/hostname": name}},
		Status: v1.NodeStatus{
			Capacity:    rl,
			Allocatable: rl.DeepCopy(),
			Conditions:  []v1.NodeCondition{{Type: v1.NodeReady, Status: v1.ConditionTrue, LastHeartbeatTime: metav1.Now()}},
			Phase:       v1.NodeRunning,
		},
	}
}

// Pod returns a pod for schedulerName requesting milliCPU, memory MiB and
// GPUs (0: none), with the given labels.
func Pod(namespace, name, schedulerName string, milliCPU, memMi, gpu int64, labels map[string]string) *v1.Pod {
	req := v1.ResourceList{
		v1.ResourceCPU:    *resource.NewMilliQuantity(milliCPU, resource.DecimalSI),
		v1.ResourceMemory: *resource.NewQuantity(memMi<<20, resource.BinarySI),
	}
	if gpu > 0 {
		req[GPU] = *resource.NewQuantity(gpu, resource.DecimalSI)
	}
	return &v1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: labels},
		Spec: v1.PodSpec{
			SchedulerName: schedulerName,
			Containers: []v1.Container{{
				Name:      "c",
				Image:     "registry.invalid/pause",
				Resources: v1.ResourceRequirements{Requests: req, Limits: req.DeepCopy()},
			}},
		},
	}
}

// CreateNodes creates the nodes with their status (create, then
// UpdateStatus: the API server drops status on create).
func CreateNodes(t testing.TB, cp *ControlPlane, nodes ...*v1.Node) {
	t.Helper()
	ctx := context.Background()
	for _, n := range nodes {
		st := n.Status
		got, err := cp.Client.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("e2e: creating node %s: %v", n.Name, err)
		}
		got.Status = st
		if _, err := cp.Client.CoreV1().Nodes().UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("e2e: node %s status: %v", n.Name, err)
		}
	}
}

// CreateNamespace creates a namespace (no error when it exists).
func CreateNamespace(t testing.TB, cp *ControlPlane, name string) {
	t.Helper()
	_, err := cp.Client.CoreV1().Namespaces().Create(context.Background(), &v1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("e2e: creating namespace %s: %v", name, err)
	}
}

// CreatePods creates the pods.
func CreatePods(t testing.TB, cp *ControlPlane, pods ...*v1.Pod) {
	t.Helper()
	for _, p := range pods {
		if _, err := cp.Client.CoreV1().Pods(p.Namespace).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("e2e: creating pod %s/%s: %v", p.Namespace, p.Name, err)
		}
	}
}

// WaitBound waits until every named pod of the namespace is bound and
// returns pod name -> node name. It fails the test after timeout, naming
// the pods still unbound.
func WaitBound(t testing.TB, cp *ControlPlane, namespace string, names []string, timeout time.Duration) map[string]string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	out := map[string]string{}
	for {
		var missing []string
		for _, n := range names {
			if _, ok := out[n]; ok {
				continue
			}
			p, err := cp.Client.CoreV1().Pods(namespace).Get(context.Background(), n, metav1.GetOptions{})
			if err == nil && p.Spec.NodeName != "" {
				out[n] = p.Spec.NodeName
				continue
			}
			missing = append(missing, n)
		}
		if len(missing) == 0 {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("e2e: %d pods not bound after %v: %v", len(missing), timeout, head(missing, 10))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func head(s []string, n int) string {
	if len(s) <= n {
		return fmt.Sprint(s)
	}
	return fmt.Sprintf("%v and %d more", s[:n], len(s)-n)
}
