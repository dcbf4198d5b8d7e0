package dlrm

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "k8s.io/api/core/v1"
	schedv1beta1 "k8s.io/api/scheduling/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	fwk "k8s.io/kube-scheduler/framework"
)

// Upstream is kube-scheduler's default profile with the GenericWorkload
// gate on, so that its in-tree GangScheduling plugin (KEP-4671) and the
// pod group scheduling cycle place the groups, with the default scorers:
// every group is a scheduling.k8s.io/v1beta1 PodGroup with gang minCount =
// its size, created with the group, and its members join it through
// spec.schedulingGroup.podGroupName (the same pods, resources and nodes as
// the other profiles). v1.37 treats a group that does not fit as an
// error ("minCount (8) cannot be satisfied"), puts it back on backoff and
// retries it for ever, each time its backoff expires (with the replay's
// backoff of 0 it spins, so this profile runs with
// UpstreamBackoffSeconds). The plain idle rule of the
// replay harness never holds while a group is infeasible (a first
// attempt did not get past slot 1 in 11 minutes), so this profile sets
// Options.SettleOnFailedRetries: a slot ends when every pending member
// has failed since the last change of the cluster, and the backoff wait
// before that retry is skipped (replay.Config.SettleOnFailedRetries).
// Upstream logs one error per member per failed attempt (klog, stderr).
const Upstream Profile = "Upstream"

// UpstreamBackoffSeconds is the pod backoff (initial and max) of the
// Upstream profile; see Upstream.
const UpstreamBackoffSeconds = 1

// upstreamOptions fills o for the Upstream profile (fields the caller set
// are kept).
func upstreamOptions(o Options) Options {
	if o.SchedulerConfig == "" {
		o.SchedulerConfig = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 100
profiles:
- schedulerName: default-scheduler
`
	}
	if o.FeatureGates == nil {
		o.FeatureGates = map[string]bool{"GenericWorkload": true}
	}
	if o.BackoffSeconds == 0 {
		o.BackoffSeconds = UpstreamBackoffSeconds
	}
	o.SettleOnFailedRetries = true
	if o.PodObject == nil {
		o.PodObject = func(g Group, j int, req [nres]int64) *v1.Pod {
			p := podObject(g, j, req)
			name := g.Name
			p.Spec.SchedulingGroup = &v1.PodSchedulingGroup{PodGroupName: &name}
			return p
		}
	}
	if o.GroupObjects == nil {
		o.GroupObjects = func(g Group) []runtime.Object {
			return []runtime.Object{&schedv1beta1.PodGroup{
				ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: "default", UID: types.UID("pg-" + g.Name)},
				Spec: schedv1beta1.PodGroupSpec{SchedulingPolicy: schedv1beta1.PodGroupSchedulingPolicy{
					Gang: &schedv1beta1.GangSchedulingPolicy{MinCount: int32(len(g.Members))}}},
			}}
		}
	}
	return o
}

// PermitClockName is the replay's Reserve plugin that times how long
// reserved members hold their GPUs before they bind (or are released):
// the GPU time held idle by members waiting at Permit.
const PermitClockName = "MschedPermitClock"

// permitClock records, per pod, when it was reserved, and sums the GPU
// time from Reserve to the binding (AfterBind) or to Unreserve. For the
// Default profile this is the binding latency only (nothing waits).
type permitClock struct {
	mu       sync.Mutex
	reserved map[string]time.Time
	gpu      map[string]int64
	idle     time.Duration // GPU x time
}

func newPermitClock() *permitClock {
	return &permitClock{reserved: map[string]time.Time{}, gpu: map[string]int64{}}
}

func (c *permitClock) Name() string { return PermitClockName }

func (c *permitClock) Reserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) *fwk.Status {
	q := pod.Spec.Containers[0].Resources.Requests[GPUResource]
	if n := q.Value(); n > 0 {
		c.mu.Lock()
		c.reserved[pod.Name] = time.Now()
		c.gpu[pod.Name] = n
		c.mu.Unlock()
	}
	return nil
}

func (c *permitClock) Unreserve(_ context.Context, _ fwk.CycleState, pod *v1.Pod, _ string) {
	c.stop(pod.Name)
}

func (c *permitClock) stop(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.reserved[name]; ok {
		c.idle += time.Duration(c.gpu[name]) * time.Since(t)
		delete(c.reserved, name)
		delete(c.gpu, name)
	}
}

// GPUSeconds returns the GPU-seconds held so far.
func (c *permitClock) GPUSeconds() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.idle.Seconds()
}

var _ fwk.ReservePlugin = (*permitClock)(nil)

// withPermitClock adds the clock's Reserve plugin to the one profile of a
// KubeSchedulerConfiguration written as this package writes them: into its
// reserve list when it has one, else as a new plugins entry.
func withPermitClock(yaml string) (string, error) {
	const head = "- schedulerName: default-scheduler\n"
	const entry = "{name: " + PermitClockName + "}"
	i := strings.Index(yaml, head)
	if i < 0 || strings.Count(yaml, "- schedulerName:") != 1 {
		return "", fmt.Errorf("dlrm: scheduler configuration without exactly one profile %q", head)
	}
	if strings.Contains(yaml, "    reserve: {enabled: [") {
		return strings.Replace(yaml, "    reserve: {enabled: [", "    reserve: {enabled: ["+entry+", ", 1), nil
	}
	if j := strings.Index(yaml, "  plugins:\n"); j > i {
		k := j + len("  plugins:\n")
		return yaml[:k] + "    reserve: {enabled: [" + entry + "]}\n" + yaml[k:], nil
	}
	k := i + len(head)
	return yaml[:k] + "  plugins:\n    reserve: {enabled: [" + entry + "]}\n" + yaml[k:], nil
}
