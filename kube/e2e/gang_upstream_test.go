package e2e

// Gang scheduling on the cases that break gang schedulers in the field
// (issue 33): filters the plan must respect, two groups that each need the
// whole cluster, interleaved members, a refused binding, and the upstream
// Workload/PodGroup API, with kube-scheduler's own GangScheduling plugin
// (profile upstream-gang) beside msched's Gang (profile msched-gang).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// gangProfiles is msched's Gang (with upstream's GangScheduling disabled,
// so that one plugin decides) and, for comparison, kube-scheduler's default
// profile, which with the GenericWorkload gate includes GangScheduling.
func gangProfiles(permitSeconds int) string {
	return fmt.Sprintf(`- schedulerName: msched-gang
  plugins:
    multiPoint: {disabled: [{name: GangScheduling}]}
    preFilter: {enabled: [{name: Gang}]}
    reserve: {enabled: [{name: Gang}]}
    permit: {enabled: [{name: Gang}]}
    postBind: {enabled: [{name: Gang}]}
  pluginConfig:
  - name: Gang
    args: {permitWaitingTimeSeconds: %d}
- schedulerName: upstream-gang
`, permitSeconds)
}

// startGangScheduler starts the scheduler binary with gangProfiles and the
// GenericWorkload gate on.
func startGangScheduler(t *testing.T, cp *ControlPlane, permitSeconds int) *SchedulerProcess {
	return StartScheduler(t, cp, SchedulerConfig{Name: "gang", Args: []string{"--v=2", "--feature-gates=GenericWorkload=true"}, Profiles: gangProfiles(permitSeconds)})
}

// labelMember is a member of a coscheduling-labelled group.
func labelMember(name, group string, minMember int, milliCPU int64) *v1.Pod {
	p := Pod("default", name, "msched-gang", milliCPU, 64, 0, map[string]string{"scheduling.x-k8s.io/pod-group": group})
	p.Annotations = map[string]string{"scheduling.x-k8s.io/min-member": fmt.Sprint(minMember)}
	return p
}

// groupNames returns prefix-0 .. prefix-(n-1).
func groupNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d", prefix, i)
	}
	return out
}

// TestE2EGangSelectors: members select pool=a by node selector; the first
// node is pool=b and the second pool=a but tainted NoSchedule, both large,
// so a plan on resources alone puts members there, where their filters
// reject them. Every member must be bound, on an untainted pool=a node,
// for 5 and for 8 nodes. On the old code (plans by resources only, the
// same plan repeated) the group never completed in most runs.
func TestE2EGangSelectors(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	startGangScheduler(t, cp, 5)
	for _, tc := range []struct {
		name  string
		nodes int
	}{{"five", 5}, {"eight", 8}} {
		var nodes []*v1.Node
		ok := map[string]bool{}
		for i := range tc.nodes {
			n := Node(fmt.Sprintf("%s-n%d", tc.name, i), 4, 16, 0)
			pool := "a"
			switch {
			case i == 0:
				pool = "b"
				n = Node(n.Name, 32, 64, 0)
			case i == 1:
				n = Node(n.Name, 32, 64, 0)
				n.Spec.Taints = []v1.Taint{{Key: "dedicated", Value: "other", Effect: v1.TaintEffectNoSchedule}}
			case tc.nodes == 8 && i%2 == 0:
				pool = "b"
			}
			n.Labels["pool"] = pool
			n.Labels["e2e/case"] = tc.name
			if pool == "a" && i != 1 {
				ok[n.Name] = true
			}
			nodes = append(nodes, n)
		}
		CreateNodes(t, cp, nodes...)
		names := groupNames(tc.name, 4)
		for _, name := range names {
			m := labelMember(name, "sel-"+tc.name, 4, 1000)
			m.Spec.NodeSelector = map[string]string{"pool": "a", "e2e/case": tc.name}
			CreatePods(t, cp, m)
		}
		got := WaitBound(t, cp, "default", names, 40*time.Second)
		for pod, n := range got {
			if !ok[n] {
				t.Fatalf("%s: member %s bound on %s, which its filters reject (node selector or taint): %v", tc.name, pod, n, got)
			}
		}
		t.Logf("gang %s (%d nodes, first pool=b, second tainted): all 4 members bound on untainted pool=a nodes: %v", tc.name, tc.nodes, got)
	}
}

// TestE2EGangTwoFullClusterGroups (Volcano #3373): two groups, each of two
// members asking a whole 4-CPU node, on two nodes, members created
// interleaved. Exactly one group completes; the other binds nothing (it
// waits whole), no group is ever seen half-bound on two polls in a row,
// and Permit releases stay bounded (no livelock). Once the winner is
// deleted the other group is placed whole.
func TestE2EGangTwoFullClusterGroups(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	sp := startGangScheduler(t, cp, 3)
	CreateNodes(t, cp, Node("n1", 4, 16, 0), Node("n2", 4, 16, 0))
	CreatePods(t, cp, labelMember("a-0", "a", 2, 4000), labelMember("b-0", "b", 2, 4000),
		labelMember("a-1", "a", 2, 4000), labelMember("b-1", "b", 2, 4000))
	groups := map[string][]string{"a": groupNames("a", 2), "b": groupNames("b", 2)}
	halfBefore := map[string]bool{}
	var winner string
	for end := time.Now().Add(15 * time.Second); time.Now().Before(end); time.Sleep(300 * time.Millisecond) {
		whole := 0
		for g, names := range groups {
			n := countBound(boundOf(t, cp, "default", names))
			half := n > 0 && n < len(names)
			if half && halfBefore[g] {
				t.Fatalf("group %s half-bound on two polls 300 ms apart (%d of %d)", g, n, len(names))
			}
			halfBefore[g] = half
			if n == len(names) {
				whole++
				winner = g
			}
		}
		if whole > 1 {
			t.Fatalf("both groups bound whole on a cluster that holds one")
		}
	}
	if winner == "" {
		t.Fatalf("no group completed in 15 s; scheduler log:\n%s", lastLines(sp.Log(), "gang", 20))
	}
	loser := map[string]string{"a": "b", "b": "a"}[winner]
	if n := countBound(boundOf(t, cp, "default", groups[loser])); n != 0 {
		t.Fatalf("the other group %s has %d members bound", loser, n)
	}
	released := strings.Count(sp.Log(), "gang released")
	if released > 5 {
		t.Fatalf("%d Permit releases in 15 s with a 3 s timeout: livelock", released)
	}
	t.Logf("two full-cluster groups: %s placed whole, %s waits whole (0 bound), %d Permit releases in 15 s", winner, loser, released)
	for _, name := range groups[winner] {
		if err := cp.Client.CoreV1().Pods("default").Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
			t.Fatal(err)
		}
	}
	got := WaitBound(t, cp, "default", groups[loser], 40*time.Second)
	t.Logf("after %s left, %s placed whole: %v", winner, loser, got)
}

// TestE2EGangInterleaved (coscheduling #114, #117): members of three groups
// of three 1-CPU pods created interleaved on three 3-CPU nodes (the
// cluster holds exactly the three groups): every group completes.
func TestE2EGangInterleaved(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	startGangScheduler(t, cp, 5)
	CreateNodes(t, cp, Node("n1", 3, 16, 0), Node("n2", 3, 16, 0), Node("n3", 3, 16, 0))
	var all []string
	for i := range 3 {
		for _, g := range []string{"x", "y", "z"} {
			name := fmt.Sprintf("%s-%d", g, i)
			CreatePods(t, cp, labelMember(name, g, 3, 1000))
			all = append(all, name)
		}
	}
	got := WaitBound(t, cp, "default", all, 60*time.Second)
	t.Logf("three interleaved groups (9 x 1 CPU on 9 CPUs): all complete: %v", got)
}

// createPodGroup creates a Workload with one gang template and its
// PodGroup (scheduling.k8s.io/v1beta1), minCount members.
func createPodGroup(t *testing.T, cp *ControlPlane, ns, name string, minCount int32) {
	t.Helper()
	ctx := context.Background()
	policy := schedv1beta1.PodGroupSchedulingPolicy{Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: minCount}}
	wl := &schedv1beta1.Workload{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: schedv1beta1.WorkloadSpec{PodGroupTemplates: []schedv1beta1.PodGroupTemplate{{Name: "workers", SchedulingPolicy: policy}}}}
	if _, err := cp.Client.SchedulingV1beta1().Workloads(ns).Create(ctx, wl, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating Workload %s: %v", name, err)
	}
	pg := &schedv1beta1.PodGroup{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: schedv1beta1.PodGroupSpec{WorkloadRef: &schedv1beta1.WorkloadReference{WorkloadName: name, TemplateName: "workers"}, SchedulingPolicy: policy}}
	if _, err := cp.Client.SchedulingV1beta1().PodGroups(ns).Create(ctx, pg, metav1.CreateOptions{}); err != nil {
		t.Fatalf("creating PodGroup %s: %v", name, err)
	}
}

// podGroupMember is a pod joining PodGroup group through
// spec.schedulingGroup.podGroupName.
func podGroupMember(name, group, scheduler string, milliCPU int64) *v1.Pod {
	p := Pod("default", name, scheduler, milliCPU, 64, 0, nil)
	p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &group}
	return p
}

// TestE2EGangUpstreamAPI: a group on the upstream Workload/PodGroup API
// (minCount 3) is placed whole by msched's Gang (which logs the PodGroup
// key pg/<ns>/<name>), and the same shape by upstream's GangScheduling in
// the same cluster; a PodGroup group that does not fit binds nothing
// under either.
func TestE2EGangUpstreamAPI(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	sp := startGangScheduler(t, cp, 3)
	CreateNodes(t, cp, Node("n1", 4, 16, 0), Node("n2", 4, 16, 0), Node("n3", 4, 16, 0))
	for _, c := range []struct{ group, scheduler string }{{"wl-msched", "msched-gang"}, {"wl-upstream", "upstream-gang"}} {
		createPodGroup(t, cp, "default", c.group, 3)
		names := groupNames(c.group, 3)
		for _, n := range names {
			CreatePods(t, cp, podGroupMember(n, c.group, c.scheduler, 2000))
		}
		got := WaitBound(t, cp, "default", names, 40*time.Second)
		t.Logf("PodGroup %s (minCount 3, profile %s) placed whole: %v", c.group, c.scheduler, got)
	}
	if !strings.Contains(sp.Log(), `group="pg/default/wl-msched"`) {
		t.Fatalf("msched's Gang did not handle PodGroup wl-msched; log:\n%s", lastLines(sp.Log(), "gang", 20))
	}
	t.Logf("msched Gang: %s", lastLines(sp.Log(), `pg/default/wl-msched`, 1))
	// 12 CPUs, 12 taken: two 4-CPU members fit nowhere, for either plugin.
	for _, c := range []struct{ group, scheduler string }{{"big-msched", "msched-gang"}, {"big-upstream", "upstream-gang"}} {
		createPodGroup(t, cp, "default", c.group, 2)
		CreatePods(t, cp, podGroupMember(c.group+"-0", c.group, c.scheduler, 4000), podGroupMember(c.group+"-1", c.group, c.scheduler, 4000))
	}
	for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		for _, g := range []string{"big-msched", "big-upstream"} {
			if n := countBound(boundOf(t, cp, "default", groupNames(g, 2))); n != 0 {
				t.Fatalf("PodGroup %s that does not fit has %d members bound", g, n)
			}
		}
	}
	t.Logf("PodGroups big-msched and big-upstream (2 x 4 CPU, 0 free): nothing bound under either profile")
}

// TestE2EGangBindRace (coscheduling #930): the API server refuses the
// binding of one member (a ValidatingAdmissionPolicy on pods/binding)
// after the group was allowed. The other members may bind; the plugin
// then retries the refused member and, one Permit timeout later, evicts
// the bound members, so the group is not left half-bound.
func TestE2EGangBindRace(t *testing.T) {
	cp, cleanup := StartControlPlane(t)
	defer cleanup()
	ctx := context.Background()
	fail := admissionv1.Fail
	pol := &admissionv1.ValidatingAdmissionPolicy{ObjectMeta: metav1.ObjectMeta{Name: "refuse-race-2"},
		Spec: admissionv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: &fail,
			MatchConstraints: &admissionv1.MatchResources{ResourceRules: []admissionv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionv1.RuleWithOperations{
					Operations: []admissionv1.OperationType{admissionv1.Create},
					Rule:       admissionv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods/binding"}},
				}}}},
			Validations: []admissionv1.Validation{{Expression: "!object.metadata.name.startsWith('race-2')", Message: "e2e: binding of race-2 refused"}},
		}}
	if _, err := cp.Client.AdmissionregistrationV1().ValidatingAdmissionPolicies().Create(ctx, pol, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pb := &admissionv1.ValidatingAdmissionPolicyBinding{ObjectMeta: metav1.ObjectMeta{Name: "refuse-race-2"},
		Spec: admissionv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: "refuse-race-2", ValidationActions: []admissionv1.ValidationAction{admissionv1.Deny}}}
	if _, err := cp.Client.AdmissionregistrationV1().ValidatingAdmissionPolicyBindings().Create(ctx, pb, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	CreateNodes(t, cp, Node("n1", 4, 16, 0), Node("n2", 4, 16, 0))
	// Wait until the policy is in force: a probe pod's binding is refused.
	for i, deadline := 0, time.Now().Add(30*time.Second); ; i++ {
		name := fmt.Sprintf("race-2-probe-%d", i)
		CreatePods(t, cp, Pod("default", name, "nobody", 100, 64, 0, nil))
		err := cp.Client.CoreV1().Pods("default").Bind(ctx, &v1.Binding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Target: v1.ObjectReference{Kind: "Node", Name: "n1"}}, metav1.CreateOptions{})
		_ = cp.Client.CoreV1().Pods("default").Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: new(int64)})
		if err != nil && strings.Contains(err.Error(), "race-2 refused") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the admission policy is not in force after 30 s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	sp := startGangScheduler(t, cp, 3)
	names := groupNames("race", 3)
	for _, n := range names {
		CreatePods(t, cp, labelMember(n, "race", 3, 1000))
	}
	sp.WaitLog(t, "gang member failed after its group was allowed", 30*time.Second)
	t.Logf("refused binding: %s", lastLines(sp.Log(), "gang member failed after its group was allowed", 1))
	sp.WaitLog(t, "evicting its bound members", 30*time.Second)
	// The group ends with no member bound and running: the bound ones are
	// evicted (deleted, or terminating: no kubelet confirms here).
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		live := 0
		var state []string
		for _, n := range names {
			p, err := cp.Client.CoreV1().Pods("default").Get(ctx, n, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				state = append(state, n+"=deleted")
			case err != nil:
				t.Fatal(err)
			case p.DeletionTimestamp != nil:
				state = append(state, n+"=evicted("+p.Spec.NodeName+")")
			case p.Spec.NodeName != "":
				live++
				state = append(state, n+"="+p.Spec.NodeName)
			default:
				state = append(state, n+"=unbound")
			}
		}
		if live == 0 {
			t.Logf("group race after the refused binding: %v (not half-bound); %s", state, lastLines(sp.Log(), "evicting its bound members", 1))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("group race still half-bound: %v", state)
		}
	}
}
