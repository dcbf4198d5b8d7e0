package openb

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/msched/msched/trace"
)

// maxFragShapes bounds the GPU request shapes the fragmentation measure
// averages over (the most frequent ones).
const maxFragShapes = 20

// fragModel measures GPU fragmentation as the FGD paper (Weng et al.,
// ATC'23) does on this trace, in the aggregate form kube-scheduler sees
// (one gpu-milli count per node, no per-GPU packing): the idle GPU capacity
// of a node is fragmented for a GPU request shape when that shape cannot
// run on the node now (too little idle CPU, memory or GPU, or a disallowed
// GPU model). The fragmented amount is the idle GPU capacity times the
// share of the workload's GPU pods whose shape cannot run there (the
// expectation over the "typical" request), summed over nodes.
type fragModel struct {
	shapes []fragShape
}

type fragShape struct {
	req  [3]int64
	spec []string
	p    float64
}

func newFragModel(pods []*simPod) *fragModel {
	count := map[string]*fragShape{}
	for _, sp := range pods {
		if sp.req[2] == 0 {
			continue
		}
		key := fmt.Sprint(sp.req, sp.p.GPUSpec)
		fs := count[key]
		if fs == nil {
			fs = &fragShape{req: sp.req, spec: sp.p.GPUSpec}
			count[key] = fs
		}
		fs.p++
	}
	f := &fragModel{}
	for _, fs := range count {
		f.shapes = append(f.shapes, *fs)
	}
	slices.SortFunc(f.shapes, func(a, b fragShape) int {
		return cmp.Or(cmp.Compare(b.p, a.p), cmp.Compare(a.req[2], b.req[2]), cmp.Compare(a.req[0], b.req[0]), cmp.Compare(a.req[1], b.req[1]), slices.Compare(a.spec, b.spec))
	})
	if len(f.shapes) > maxFragShapes {
		f.shapes = f.shapes[:maxFragShapes]
	}
	sum := 0.0
	for _, fs := range f.shapes {
		sum += fs.p
	}
	for i := range f.shapes {
		f.shapes[i].p /= sum
	}
	return f
}

// fragmented returns the idle GPU milli of the cluster and the fragmented
// part of it; s.mu must be held.
func (f *fragModel) fragmented(s *sim) (idle, frag float64) {
	for i, n := range s.nodes {
		free := [3]int64{s.cap[i][0] - s.used[i][0], s.cap[i][1] - s.used[i][1], s.cap[i][2] - s.used[i][2]}
		if free[2] <= 0 {
			continue
		}
		idle += float64(free[2])
		miss := 0.0
		for _, fs := range f.shapes {
			if !fits(fs, free, n) {
				miss += fs.p
			}
		}
		frag += miss * float64(free[2])
	}
	return idle, frag
}

func fits(fs fragShape, free [3]int64, n trace.Node) bool {
	if fs.req[0] > free[0] || fs.req[1] > free[1] || fs.req[2] > free[2] {
		return false
	}
	return len(fs.spec) == 0 || slices.Contains(fs.spec, n.Model)
}
