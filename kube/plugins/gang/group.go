package gang

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	v1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
)

// group is a pod's group: key (see groupKey), namespace, name, min-member,
// and whether it is an upstream PodGroup (scheduling.k8s.io/v1beta1).
type group struct {
	key, ns, name string
	min           int
	upstream      bool
}

// groupKey is the index key of a group: "pg/<ns>/<name>" for a PodGroup of
// the upstream API, "label/<ns>/<name>" for the coscheduling label. The two
// ways in never share a group, even under the same name.
func groupKey(upstream bool, ns, name string) string {
	if upstream {
		return "pg/" + ns + "/" + name
	}
	return "label/" + ns + "/" + name
}

// podGroupName returns the upstream PodGroup a pod joins through
// spec.schedulingGroup.podGroupName, "" for none.
func podGroupName(pod *v1.Pod) string {
	if sg := pod.Spec.SchedulingGroup; sg != nil && sg.PodGroupName != nil {
		return *sg.PodGroupName
	}
	return ""
}

// indexKeyOf returns the group index key of pod, upstream API first, "" for
// a pod outside any group.
func (p *Plugin) indexKeyOf(pod *v1.Pod) string {
	if name := podGroupName(pod); name != "" {
		return groupKey(true, pod.Namespace, name)
	}
	if name := pod.Labels[p.args.GroupLabel]; name != "" {
		return groupKey(false, pod.Namespace, name)
	}
	return ""
}

// indexName is the name of the pod informer index the plugin adds: one per
// group label, so that profiles configured alike share it.
func indexName(label string) string { return "msched.io/gang-group:" + label }

// addIndex adds the group index to the pod informer (once per label: a
// second profile with the same label reuses it). Every group lookup is then
// one index read, O(members), never a scan of the cluster's pods.
func (p *Plugin) addIndex(inf cache.SharedIndexInformer) error {
	name := indexName(p.args.GroupLabel)
	if _, ok := inf.GetIndexer().GetIndexers()[name]; ok {
		return nil
	}
	err := inf.AddIndexers(cache.Indexers{name: func(obj any) ([]string, error) {
		pod, ok := obj.(*v1.Pod)
		if !ok {
			return nil, nil
		}
		if k := p.indexKeyOf(pod); k != "" {
			return []string{k}, nil
		}
		return nil, nil
	}})
	if err != nil && strings.Contains(err.Error(), "conflict") {
		return nil // added by another profile meanwhile
	}
	return err
}

// groupOf returns the pod's group; ok is false for a pod outside any group.
// The upstream API comes first: a pod with spec.schedulingGroup.podGroupName
// belongs to that PodGroup, whose spec.schedulingPolicy.gang.minCount is
// min-member (a PodGroup with the basic policy is no gang: ok is false). A
// missing PodGroup, or a bad min-member, is an error naming the group, the
// field and the value.
func (p *Plugin) groupOf(pod *v1.Pod) (g group, ok bool, err error) {
	if name := podGroupName(pod); name != "" {
		g = group{key: groupKey(true, pod.Namespace, name), ns: pod.Namespace, name: name, upstream: true}
		mgr := p.h.PodGroupManager()
		if mgr == nil {
			return g, true, fmt.Errorf("gang %s: pod %s/%s names PodGroup %q, but the scheduler has no pod group manager (GenericWorkload gate off?)", g.key, pod.Namespace, pod.Name, name)
		}
		pg, gerr := mgr.PodGroups().Get(pod.Namespace, name)
		if gerr != nil {
			if apierrors.IsNotFound(gerr) {
				return g, true, fmt.Errorf("gang %s: PodGroup %s/%s not found", g.key, pod.Namespace, name)
			}
			return g, true, fmt.Errorf("gang %s: PodGroup %s/%s: %w", g.key, pod.Namespace, name, gerr)
		}
		gp := pg.Spec.SchedulingPolicy.Gang
		if gp == nil {
			return g, false, nil
		}
		if gp.MinCount < 1 || int(gp.MinCount) > p.args.MaxGroupSize {
			return g, true, fmt.Errorf("gang %s: spec.schedulingPolicy.gang.minCount = %d: must be in [1, %d]", g.key, gp.MinCount, p.args.MaxGroupSize)
		}
		g.min = int(gp.MinCount)
		return g, true, nil
	}
	name := pod.Labels[p.args.GroupLabel]
	if name == "" {
		return g, false, nil
	}
	g = group{key: groupKey(false, pod.Namespace, name), ns: pod.Namespace, name: name}
	raw, found := pod.Annotations[p.args.MinMemberKey]
	if !found {
		raw, found = pod.Labels[p.args.MinMemberKey]
	}
	if !found {
		return g, true, fmt.Errorf("gang %s: pod %s/%s has no %s annotation or label", g.key, pod.Namespace, pod.Name, p.args.MinMemberKey)
	}
	n, perr := strconv.Atoi(strings.TrimSpace(raw))
	if perr != nil || n < 1 || n > p.args.MaxGroupSize {
		return g, true, fmt.Errorf("gang %s: %s = %q: must be an integer in [1, %d]", g.key, p.args.MinMemberKey, raw, p.args.MaxGroupSize)
	}
	g.min = n
	return g, true, nil
}

// inGroup reports whether pod belongs to g.
func (p *Plugin) inGroup(pod *v1.Pod, g group) bool {
	return pod.Namespace == g.ns && p.indexKeyOf(pod) == g.key
}

// members lists the group's live pods (not terminated, not being deleted)
// from the group index. At most 4·MaxGroupSize pods are returned: a group
// with more live pods than that is bounded (members past the bound are
// ignored until others leave), so that one cycle never costs more.
func (p *Plugin) members(g group) ([]*v1.Pod, error) {
	objs, err := p.podIndex.ByIndex(indexName(p.args.GroupLabel), g.key)
	if err != nil {
		return nil, err
	}
	limit := 4 * p.args.MaxGroupSize
	if len(objs) > limit { // keep the same members every cycle
		slices.SortFunc(objs, func(a, b any) int {
			return strings.Compare(a.(*v1.Pod).Name, b.(*v1.Pod).Name)
		})
	}
	out := make([]*v1.Pod, 0, min(len(objs), limit))
	for _, o := range objs {
		m, ok := o.(*v1.Pod)
		if !ok || m.DeletionTimestamp != nil || m.Status.Phase == v1.PodSucceeded || m.Status.Phase == v1.PodFailed {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, m)
	}
	return out, nil
}
