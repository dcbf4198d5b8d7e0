package gpushare

import (
	"cmp"
	"math"
	"slices"
	"strings"
)

// Shape is a request shape of the target workload, as FGD keys it: CPU,
// per-GPU milli, GPU count and accepted GPU models (memory is not part of
// FGD's shape).
type Shape struct {
	CPUMilli int64
	GPUMilli int64
	GPUCount int
	Models   string // accepted models joined by "|", "" for any
}

// ShapeOf returns the shape of a request.
func ShapeOf(r Request) Shape {
	return Shape{CPUMilli: r.CPUMilli, GPUMilli: r.GPUMilli, GPUCount: r.GPUCount, Models: strings.Join(r.Models, "|")}
}

func (s Shape) request() Request {
	r := Request{CPUMilli: s.CPUMilli, GPUMilli: s.GPUMilli, GPUCount: s.GPUCount}
	if s.Models != "" {
		r.Models = strings.Split(s.Models, "|")
	}
	return r
}

// Typical is one shape of a target workload with its probability.
type Typical struct {
	Shape Shape
	P     float64
	req   Request
}

// Workload is FGD's target workload: the most frequent shapes, covering
// at least Coverage of the pods, with probabilities renormalised to sum
// to 1.
type Workload struct {
	Shapes []Typical
}

// Coverage is the share of pods FGD's typical shapes cover (its
// DefaultTypicalPodPopularityThreshold, 95 %).
const Coverage = 0.95

// NewWorkload builds the target workload from shape counts: shapes sorted
// by count, decreasing (ties: fewer GPUs, less GPU milli, less CPU,
// models; FGD leaves ties to Go's map order), taken one at a time until
// their cumulative count reaches coverage × total; probabilities are the
// counts over the taken ones' sum. Counts that are not finite and
// positive are ignored.
func NewWorkload(counts map[Shape]float64, coverage float64) *Workload {
	type sc struct {
		s Shape
		c float64
	}
	var all []sc
	total := 0.0
	for s, c := range counts {
		if c > 0 && !math.IsInf(c, 0) && !math.IsNaN(c) {
			all = append(all, sc{s, c})
			total += c
		}
	}
	slices.SortFunc(all, func(a, b sc) int {
		return cmp.Or(cmp.Compare(b.c, a.c), cmp.Compare(a.s.GPUCount, b.s.GPUCount), cmp.Compare(a.s.GPUMilli, b.s.GPUMilli),
			cmp.Compare(a.s.CPUMilli, b.s.CPUMilli), cmp.Compare(a.s.Models, b.s.Models))
	})
	w := &Workload{}
	if coverage <= 0 || math.IsNaN(coverage) {
		coverage = Coverage
	}
	cum := 0.0
	for _, x := range all {
		if cum >= coverage*total {
			break
		}
		cum += x.c
		w.Shapes = append(w.Shapes, Typical{Shape: x.s, P: x.c})
	}
	for i := range w.Shapes {
		w.Shapes[i].P /= cum
		w.Shapes[i].req = w.Shapes[i].Shape.request()
	}
	return w
}

// WorkloadOf counts the shapes of requests and returns NewWorkload over
// them (FGD's GetTypicalPods with CPU pods included).
func WorkloadOf(reqs []Request, coverage float64) *Workload {
	counts := map[Shape]float64{}
	for _, r := range reqs {
		counts[ShapeOf(r)]++
	}
	return NewWorkload(counts, coverage)
}

// FragAmount is FGD's fragmentation of a node over the workload (its
// NodeGpuShareFragAmountScore, GPU milli): for each shape with
// probability p, if the shape can run on the node now (its GPU set fits,
// enough free CPU, model accepted), the free milli of the GPUs too small
// for its per-GPU share are fragmented; otherwise (a CPU shape, too
// little CPU or GPU, a model the shape refuses) all the node's free GPU
// milli is. The result is the p-weighted sum.
func FragAmount(n *Node, w *Workload) float64 {
	idle := n.FreeGPUMilli()
	if idle == 0 || w == nil {
		return 0
	}
	f := 0.0
	for i := range w.Shapes {
		t := &w.Shapes[i]
		f += t.P * float64(fragFor(n, &t.req, idle))
	}
	return f
}

func fragFor(n *Node, r *Request, idle int64) int64 {
	if r.GPUMilli == 0 || !r.Allows(n.Model) || n.CPUMilli < r.CPUMilli || !n.GPUsFit(*r) {
		return idle
	}
	var small int64
	for _, g := range n.GPUs {
		if g < r.GPUMilli {
			small += g
		}
	}
	return small
}

// ClusterFrag sums FragAmount over nodes and returns it with the nodes'
// free GPU milli: the fragmented amount and the idle GPUs of FGD's
// cluster analysis (fragmentation ratio = frag / idle).
func ClusterFrag(nodes []*Node, w *Workload) (frag, idle float64) {
	for _, n := range nodes {
		frag += FragAmount(n, w)
		idle += float64(n.FreeGPUMilli())
	}
	return frag, idle
}

// Learner learns the target workload online from the arrivals: it counts
// the shape of every pod it is shown (it starts knowing nothing) and
// rebuilds the workload (NewWorkload at Coverage) after every Every new
// arrivals, and at every arrival while fewer than Every were seen.
type Learner struct {
	Every  int
	counts map[Shape]float64
	seen   int
	last   int
	w      *Workload
}

// NewLearner returns a learner rebuilding every every arrivals (≥ 1).
func NewLearner(every int) *Learner {
	return &Learner{Every: max(every, 1), counts: map[Shape]float64{}}
}

// Observe counts one arrival.
func (l *Learner) Observe(r Request) {
	l.counts[ShapeOf(r)]++
	l.seen++
}

// Seen returns the number of arrivals observed.
func (l *Learner) Seen() int { return l.seen }

// Workload returns the learned workload (nil before the first arrival).
func (l *Learner) Workload() *Workload {
	if l.seen == 0 {
		return nil
	}
	// Nothing new since the last build: the same workload (a rebuild
	// would give the same shapes and probabilities under a new pointer,
	// resetting the FragMemo and FGD's per-node cache at every call).
	if l.w != nil && l.seen == l.last {
		return l.w
	}
	if l.w == nil || l.seen < l.Every || l.seen-l.last >= l.Every {
		l.w = NewWorkload(l.counts, Coverage)
		l.last = l.seen
	}
	return l.w
}
