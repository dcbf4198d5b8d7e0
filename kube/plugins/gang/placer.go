package gang

import (
	v1 "k8s.io/api/core/v1"
	resourcehelper "k8s.io/component-helpers/resource"
	fwk "k8s.io/kube-scheduler/framework"
)

// GangPlacer chooses nodes for the members of a group that still need one.
// The plugin calls it at PreFilter with pods[0] the pod being scheduled and
// the other pods the group's unplaced members it needs to reach min-member;
// nodes are the candidate nodes of the scheduler's snapshot (pods waiting
// at Permit are already accounted on their nodes) and fits[i][j] says
// whether pods[i] passes every Filter plugin of the profile on nodes[j]
// (nil: every pod passes on every node). Place writes a node name per pod
// into dst (len(dst) == len(pods)), only on nodes the pod fits, and
// reports whether every pod got one: a group that does not fit whole is
// not started.
//
// Implementations must not modify nodes or fits. Knapsack (the core
// library's gang oracle) is the default; FirstFit the simple alternative.
type GangPlacer interface {
	Place(dst []string, pods []*v1.Pod, nodes []fwk.NodeInfo, fits [][]bool) bool
}

// FirstFit places each pod, in order, on the first node (in the order
// given) that passes the pod's filters (fits) and whose free allocatable (allocatable minus requested, minus what
// earlier pods of this call took) covers the pod's effective requests of
// CPU, memory, ephemeral storage and every scalar resource, and whose pod
// count is below its limit. Nodes marked unschedulable are skipped.
type FirstFit struct{}

type free struct {
	cpu, mem, eph int64
	pods          int
	scalar        map[v1.ResourceName]int64
}

// Place implements GangPlacer.
func (FirstFit) Place(dst []string, pods []*v1.Pod, nodes []fwk.NodeInfo, fits [][]bool) bool {
	frees := make([]*free, len(nodes)) // built lazily: most calls touch few nodes
	for i, p := range pods {
		req := resourcehelper.PodRequests(p, resourcehelper.PodResourcesOptions{})
		dst[i] = ""
		for j, ni := range nodes {
			n := ni.Node()
			if n == nil || n.Spec.Unschedulable || (fits != nil && !fits[i][j]) {
				continue
			}
			if frees[j] == nil {
				frees[j] = freeOf(ni)
			}
			if take(frees[j], req) {
				dst[i] = n.Name
				break
			}
		}
		if dst[i] == "" {
			return false
		}
	}
	return true
}

func freeOf(ni fwk.NodeInfo) *free {
	a, r := ni.GetAllocatable(), ni.GetRequested()
	f := &free{
		cpu:    a.GetMilliCPU() - r.GetMilliCPU(),
		mem:    a.GetMemory() - r.GetMemory(),
		eph:    a.GetEphemeralStorage() - r.GetEphemeralStorage(),
		pods:   a.GetAllowedPodNumber() - len(ni.GetPods()),
		scalar: map[v1.ResourceName]int64{},
	}
	for k, v := range a.GetScalarResources() {
		f.scalar[k] = v - r.GetScalarResources()[k]
	}
	return f
}

// take subtracts req from f when it fits.
func take(f *free, req v1.ResourceList) bool {
	if f.pods < 1 {
		return false
	}
	cpu, mem, eph := int64(0), int64(0), int64(0)
	for k, q := range req {
		switch k {
		case v1.ResourceCPU:
			cpu = q.MilliValue()
		case v1.ResourceMemory:
			mem = q.Value()
		case v1.ResourceEphemeralStorage:
			eph = q.Value()
		default:
			if q.Value() > f.scalar[k] && q.Value() > 0 {
				return false
			}
		}
	}
	if cpu > f.cpu || mem > f.mem || eph > f.eph {
		return false
	}
	f.cpu -= cpu
	f.mem -= mem
	f.eph -= eph
	f.pods--
	for k, q := range req {
		switch k {
		case v1.ResourceCPU, v1.ResourceMemory, v1.ResourceEphemeralStorage:
		default:
			f.scalar[k] -= q.Value()
		}
	}
	return true
}
