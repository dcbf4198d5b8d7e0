package baselines

import (
	"fmt"
	"log/slog"
	"math"
	"sort"

	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ogasched"
)

var (
	_ ogasched.OnlinePolicy = (*DRF)(nil)
	_ ogasched.OnlinePolicy = (*Fairness)(nil)
	_ ogasched.OnlinePolicy = (*BinPacking)(nil)
)

// OGASchedBaselineNames are the names NewOGASchedBaseline accepts, in the
// order of the paper's Table III followed by the whole-pod variants.
//
// The OGASched-family baselines (paper 000, Section IV) observe the arrivals
// x(t) of the slot and return an allocation y in the flat layout of
// ogasched.Problem (y[e*K+k]) satisfying (5)-(6). A port with x_l(t) = 0
// gets nothing. They follow the conventions of package bipartite: the
// constructors return an error for a nil or invalid problem (wrapping
// ogasched.ErrDimension or ogasched.ErrValue); Decide(t, x) needs t >= 0
// and greater than the previous Decide's t (else an error wrapping
// ogasched.ErrSlot; a gap is harmless, as they keep no state across slots);
// the returned slice is owned by the policy and valid until its next call.
// None is safe for concurrent use. Decide rejects a wrong length and NaN,
// infinite, negative or larger than ogasched.MaxValue arrivals with an
// error wrapping ogasched.ErrDimension or ogasched.ErrValue that names the
// index and value, and leaves the policy unchanged.
//
// Their decision is a function of the problem and x(t) alone: they learn
// nothing. Their only state across slots, the slot of the latest Decide,
// is saved by MarshalBinary and restored by UnmarshalBinary (and the JSON
// pair, same bytes) into a baseline of the same name on the same problem,
// so that the slot order holds across a restart. When the cluster
// changes, ChangeCluster moves them onto the new problem in place (the
// contract of package bipartite).
var OGASchedBaselineNames = []string{"DRF", "FAIRNESS", "BINPACKING", "SPREADING", "BINPACKING-pod", "SPREADING-pod"}

// NewOGASchedBaseline returns the OGASched-family baseline called name (one
// of OGASchedBaselineNames) for p, with settings s (at most one; the zero
// value is the paper's). BINPACKING and SPREADING are the fractional
// readings (the default); BINPACKING-pod and SPREADING-pod the whole-pod
// Kubernetes-style placement. A nil or invalid problem
// (ogasched.ErrDimension, ogasched.ErrValue) and an unknown name
// (ogasched.ErrSettings) are errors. The result is a concrete type that
// carries the snapshot methods, so no type assertion is needed.
func NewOGASchedBaseline(name string, p *ogasched.Problem, s ...OGASchedBaselineSettings) (*OGASchedBaseline, error) {
	set, err := oneSettings(ogasched.ErrSettings, name, s)
	if err != nil {
		return nil, err
	}
	var pol ogaPolicy
	switch name {
	case "DRF":
		pol, err = nilSafe(NewDRF(p, DRFSettings(set)))
	case "FAIRNESS":
		pol, err = nilSafe(NewFairness(p, FairnessSettings(set)))
	case "BINPACKING":
		pol, err = nilSafe(NewBinPacking(p, BinPackingSettings(set)))
	case "SPREADING":
		pol, err = nilSafe(NewSpreading(p, BinPackingSettings(set)))
	case "BINPACKING-pod":
		pol, err = nilSafe(NewBinPackingPod(p, BinPackingSettings(set)))
	case "SPREADING-pod":
		pol, err = nilSafe(NewSpreadingPod(p, BinPackingSettings(set)))
	default:
		return nil, fmt.Errorf("%w: baselines: unknown OGASched baseline %q (want one of %v)", ogasched.ErrSettings, name, OGASchedBaselineNames)
	}
	if err != nil {
		return nil, err
	}
	return &OGASchedBaseline{pol: pol}, nil
}

// OGASchedBaseline is the baseline NewOGASchedBaseline selected by name: a
// DRF, a Fairness or a BinPacking behind one concrete type, with the
// methods of all three (Name, Decide and the snapshot pair). Not safe for
// concurrent use.
type OGASchedBaseline struct{ pol ogaPolicy }

var _ ogasched.OnlinePolicy = (*OGASchedBaseline)(nil)

// ogaPolicy is what the OGASched-family baselines implement.
type ogaPolicy interface {
	ogasched.OnlinePolicy
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
	ChangeCluster(*ogasched.Problem, ogasched.Mapping) error
}

// nilSafe converts a constructor's result, never giving a non-nil
// interface around a nil pointer.
func nilSafe[T ogaPolicy](pol T, err error) (ogaPolicy, error) {
	if err != nil {
		return nil, err
	}
	return pol, nil
}

// Name returns the baseline's name, one of OGASchedBaselineNames.
func (b *OGASchedBaseline) Name() string { return b.pol.Name() }

// Decide returns the allocation y of slot t for the arrivals x, with the
// rules of the selected baseline.
func (b *OGASchedBaseline) Decide(t int, x []float64) ([]float64, error) { return b.pol.Decide(t, x) }

// MarshalBinary saves the baseline's state (the slot of its latest
// Decide).
func (b *OGASchedBaseline) MarshalBinary() ([]byte, error) { return b.pol.MarshalBinary() }

// UnmarshalBinary restores a state saved by a baseline of the same name on
// the same problem.
func (b *OGASchedBaseline) UnmarshalBinary(data []byte) error { return b.pol.UnmarshalBinary(data) }

// MarshalJSON is MarshalBinary (the snapshot is JSON).
func (b *OGASchedBaseline) MarshalJSON() ([]byte, error) { return b.pol.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (b *OGASchedBaseline) UnmarshalJSON(data []byte) error { return b.pol.UnmarshalBinary(data) }

// ogaBase holds the buffers shared by the OGASched-family baselines.
type ogaBase struct {
	p     *ogasched.Problem
	y     []float64
	rem   []float64 // remaining capacity rem[r*K+k]
	last  int       // t of the previous Decide, -1 before the first
	name  string    // the policy's Name, part of its snapshot's model
	model string    // snapshot fingerprint: name and problem
	log   *slog.Logger
}

// logged writes the "decide" record of slot t if a Logger is set.
func (b *ogaBase) logged(t int) {
	if b.log != nil {
		logDecide(b.log, "ogasched", b.name, t)
	}
}

// newOgaBase validates p (a nil problem wraps ogasched.ErrDimension; an
// invalid one is reported by ogasched.NewProblem's rules) and allocates the
// buffers.
func newOgaBase(name string, p *ogasched.Problem) (ogaBase, error) {
	if p == nil {
		return ogaBase{}, fmt.Errorf("%w: baselines: %s: nil problem", ogasched.ErrDimension, name)
	}
	if _, err := ogasched.NewProblem(p.Graph, p.Demand, p.Capacity, p.Utility, p.Beta); err != nil {
		return ogaBase{}, fmt.Errorf("baselines: %s: %w", name, err)
	}
	model := snapshot.NewHasher(ogaFormat).String(name).String(p.Fingerprint()).Sum()
	return ogaBase{p: p, y: make([]float64, p.Dim()), rem: make([]float64, p.NumNodes()*p.K), last: -1, name: name, model: model}, nil
}

// Snapshot of an OGASched-family baseline.
const (
	ogaFormat  = "msched/baselines.OGASchedBaseline"
	ogaVersion = 1
)

type ogaState struct {
	Last  int    `json:"last"`  // t of the latest Decide, -1 before the first
	Check string `json:"check"` // fingerprint of Last
}

func ogaCheck(last int) string { return snapshot.NewHasher(ogaFormat + ".state").Int(last).Sum() }

// MarshalBinary implements encoding.BinaryMarshaler. The baselines learn
// nothing; their only state across slots is the slot of the latest
// Decide, saved so that the slot order is still enforced after a restart:
// {"format":"msched/baselines.OGASchedBaseline","version":1,"model":
// FINGERPRINT,"check":"sha256:…","state":{"last":t,"check":SUM}},
// FINGERPRINT covering the
// baseline's name and ogasched.Problem.Fingerprint.
func (b *ogaBase) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(ogaFormat, ogaVersion, b.model, ogaState{Last: b.last, Check: ogaCheck(b.last)})
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: restore into a
// baseline of the same name built on the same problem. Any mismatch,
// truncation or alteration is an error wrapping ogasched.ErrSnapshot and
// the internal/snapshot cause; the policy is then unchanged.
func (b *ogaBase) UnmarshalBinary(data []byte) error {
	var st ogaState
	if err := snapshot.Decode(data, ogaFormat, ogaVersion, b.model, &st); err != nil {
		return fmt.Errorf("%w: baselines: %s: %w", ogasched.ErrSnapshot, b.name, err)
	}
	if st.Last < -1 || st.Check != ogaCheck(st.Last) {
		return fmt.Errorf("%w: baselines: %s: %w: last = %d, check %q", ogasched.ErrSnapshot, b.name, snapshot.ErrCorrupt, st.Last, st.Check)
	}
	b.last = st.Last
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (b *ogaBase) MarshalJSON() ([]byte, error) { return b.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (b *ogaBase) UnmarshalJSON(data []byte) error { return b.UnmarshalBinary(data) }

// reset validates the slot (ogasched.ErrSlot) and the arrivals (errors wrap
// ogasched.ErrValue or ogasched.ErrDimension and name the index and value),
// then records the slot and clears y. On error nothing changes.
func (b *ogaBase) reset(t int, x []float64) error {
	if t < 0 || t <= b.last {
		return fmt.Errorf("%w: baselines: slot t = %d, want >= 0 and > %d (the previous Decide)", ogasched.ErrSlot, t, b.last)
	}
	if len(x) != b.p.NumPorts() {
		return fmt.Errorf("%w: baselines: len(x) = %d, want %d ports", ogasched.ErrDimension, len(x), b.p.NumPorts())
	}
	for l, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > ogasched.MaxValue {
			return fmt.Errorf("%w: baselines: x[%d] = %v, want finite in [0, %g]", ogasched.ErrValue, l, v, ogasched.MaxValue)
		}
	}
	b.last = t
	clear(b.y)
	K := b.p.K
	for r, c := range b.p.Capacity {
		copy(b.rem[r*K:(r+1)*K], c)
	}
	return nil
}

// fill gives edge e of port l min(a_l^k, remaining c_r^k) of every type k
// (the builtin min: math.Min's result, inline).
func (b *ogaBase) fill(l, e int) {
	K := b.p.K
	r := b.p.Graph.Edge(e).Right
	a, rem, y := b.p.Demand[l][:K], b.rem[r*K:r*K+K], b.y[e*K:e*K+K]
	for k, ak := range a {
		v := min(ak, rem[k])
		y[k] = v
		rem[k] -= v
	}
}

// DRF is dominant resource fairness [20]: ports with a job are served in
// ascending order of their dominant share s_l = max_k a_l^k / sum_{r in R_l}
// c_r^k (ties by port index); each greedily takes min(a_l^k, remaining
// c_r^k) of every type on every node of R_l (ascending node index).
type DRF struct {
	ogaBase
	order []int
}

// NewDRF returns DRF for p with settings s (at most one; the zero value
// is the paper's DRF). A nil or invalid p is an error wrapping
// ogasched.ErrDimension or ogasched.ErrValue. The call without settings,
// NewDRF(p), is deprecated (see the package doc).
func NewDRF(p *ogasched.Problem, s ...DRFSettings) (*DRF, error) {
	set, err := oneSettings(ogasched.ErrSettings, "DRF", s)
	if err != nil {
		return nil, err
	}
	base, err := newOgaBase("DRF", p)
	if err != nil {
		return nil, err
	}
	base.log = set.Logger
	d := &DRF{ogaBase: base, order: make([]int, p.NumPorts())}
	share := make([]float64, p.NumPorts())
	for l := range share {
		d.order[l] = l
		for k := 0; k < p.K; k++ {
			c := 0.0
			for _, r := range p.Graph.LeftNeighbors(l) {
				c += p.Capacity[r][k]
			}
			s := 0.0
			if a := p.Demand[l][k]; a > 0 {
				s = math.Inf(1)
				if c > 0 {
					s = a / c
				}
			}
			share[l] = math.Max(share[l], s)
		}
	}
	sort.SliceStable(d.order, func(i, j int) bool { return share[d.order[i]] < share[d.order[j]] })
	return d, nil
}

// Name implements bipartite.OnlinePolicy.
func (d *DRF) Name() string { return "DRF" }

// Decide implements bipartite.OnlinePolicy.
func (d *DRF) Decide(t int, x []float64) ([]float64, error) {
	if err := d.reset(t, x); err != nil {
		return nil, err
	}
	for _, l := range d.order {
		if x[l] == 0 {
			continue
		}
		for _, e := range d.p.Graph.LeftEdges(l) {
			d.fill(l, e)
		}
	}
	d.logged(t)
	return d.checked(d.y), nil
}

// Fairness splits each node's capacity of each type among the ports with a
// job in proportion to their demands: y_(l,r)^k = min(a_l^k, c_r^k a_l^k /
// sum_{l' in L_r, x_l' > 0} a_l'^k). The paper's share sums over all of L_r;
// summing over the ports that have a job never gives less and leaves no
// capacity idle that a requesting port could use, the fairer comparison.
type Fairness struct {
	ogaBase
	act []int32   // per node: (edge, port) pairs of the ports with a job
	sum []float64 // per type: their demands
}

// NewFairness returns FAIRNESS for p with settings s (at most one; the
// zero value is the paper's). A nil or invalid p is an error wrapping
// ogasched.ErrDimension or ogasched.ErrValue. NewFairness(p) without
// settings is deprecated.
func NewFairness(p *ogasched.Problem, s ...FairnessSettings) (*Fairness, error) {
	set, err := oneSettings(ogasched.ErrSettings, "FAIRNESS", s)
	if err != nil {
		return nil, err
	}
	base, err := newOgaBase("FAIRNESS", p)
	if err != nil {
		return nil, err
	}
	base.log = set.Logger
	return &Fairness{ogaBase: base, act: make([]int32, 0, 2*p.Graph.NumLeft()), sum: make([]float64, p.K)}, nil
}

// Name implements bipartite.OnlinePolicy.
func (f *Fairness) Name() string { return "FAIRNESS" }

// Decide implements bipartite.OnlinePolicy. Per node it lists the edges of
// the ports with a job once, sums their demands type by type in ascending
// edge order, then shares: O(|E| K) per slot, no allocation.
func (f *Fairness) Decide(t int, x []float64) ([]float64, error) {
	if err := f.reset(t, x); err != nil {
		return nil, err
	}
	g, K := f.p.Graph, f.p.K
	if len(f.sum) != K {
		f.sum = make([]float64, K)
	}
	sum := f.sum
	for r := 0; r < g.NumRight(); r++ {
		act := f.act[:0]
		ls := g.RightNeighbors(r)
		for i, e := range g.RightEdges(r) {
			if x[ls[i]] > 0 {
				act = append(act, int32(e), int32(ls[i]))
			}
		}
		f.act = act
		if len(act) == 0 {
			continue
		}
		clear(sum)
		for i := 0; i < len(act); i += 2 {
			for k, a := range f.p.Demand[act[i+1]][:K] {
				sum[k] += a
			}
		}
		cs := f.p.Capacity[r][:K]
		for i := 0; i < len(act); i += 2 {
			e, a := int(act[i]), f.p.Demand[act[i+1]][:K]
			y := f.y[e*K : e*K+K]
			for k, s := range sum {
				if s == 0 {
					continue
				}
				y[k] = min(cs[k]*a[k]/s, a[k]) // builtin min: math.Min's result, inline and branch-free
			}
		}
	}
	f.logged(t)
	return f.checked(f.y), nil
}

// BinPacking is BINPACKING (Kubernetes MostAllocated, Spread false) or
// SPREADING (LeastAllocated, Spread true), in one of two readings.
//
// Fractional (the default, Pod false; NewBinPacking, NewSpreading): like
// OGASched, DRF and FAIRNESS, it allocates fractional resources within
// (5)-(6). Ports with a job are served in index order; port l visits the
// nodes of R_l from the most allocated (BINPACKING) or the least allocated
// (SPREADING) first, score = mean over types with c_r^k > 0 of used/c_r^k
// before port l (ties by node index), and takes min(a_l^k, remaining c_r^k)
// of every type on each. Because (5) caps each edge separately, the order in
// which port l visits its own nodes cannot change what it gets: the two
// fractional readings coincide with each other on every instance (and
// differ from DRF only by the port order). The paper's Table III reports
// them within about 0.5 % of each other; results say when they are equal.
//
// Whole pod (Pod true; NewBinPackingPod, NewSpreadingPod, names
// "BINPACKING-pod", "SPREADING-pod"): the Kubernetes-style placement, not
// the paper's baseline. Port l places max(1, round(x_l)) pods, each on one
// node of R_l that fits the whole demand a_l (every type k: remaining
// c_r^k >= a_l^k) and that the port does not use yet ((5) allows at most
// a_l^k per edge). Among fitting nodes it picks the highest score
// (MostAllocated) or the lowest (LeastAllocated), score = mean over types
// with c_r^k > 0 of (used + request)/c_r^k, ties by node index. A pod that
// fits nowhere stays pending (gets nothing). On the Table II instances this
// all-or-nothing placement scores about 1/500 of the fractional baselines.
type BinPacking struct {
	ogaBase
	Spread bool
	// Pod selects the whole-pod Kubernetes-style placement.
	Pod bool
}

func newBinPacking(p *ogasched.Problem, spread, pod bool, s []BinPackingSettings) (*BinPacking, error) {
	b := &BinPacking{Spread: spread, Pod: pod}
	set, err := oneSettings(ogasched.ErrSettings, b.Name(), s)
	if err != nil {
		return nil, err
	}
	base, err := newOgaBase(b.Name(), p)
	if err != nil {
		return nil, err
	}
	base.log = set.Logger
	b.ogaBase = base
	return b, nil
}

// NewBinPacking returns fractional BINPACKING (MostAllocated) for p with
// settings s (at most one; the zero value is the paper's). A nil or
// invalid p is an error wrapping ogasched.ErrDimension or ogasched.ErrValue
// (likewise for the three constructors below). The calls without settings
// are deprecated.
func NewBinPacking(p *ogasched.Problem, s ...BinPackingSettings) (*BinPacking, error) {
	return newBinPacking(p, false, false, s)
}

// NewSpreading returns fractional SPREADING (LeastAllocated) for p.
func NewSpreading(p *ogasched.Problem, s ...BinPackingSettings) (*BinPacking, error) {
	return newBinPacking(p, true, false, s)
}

// NewBinPackingPod returns BINPACKING-pod, the whole-pod Kubernetes
// MostAllocated placement, for p.
func NewBinPackingPod(p *ogasched.Problem, s ...BinPackingSettings) (*BinPacking, error) {
	return newBinPacking(p, false, true, s)
}

// NewSpreadingPod returns SPREADING-pod, the whole-pod Kubernetes
// LeastAllocated placement, for p.
func NewSpreadingPod(p *ogasched.Problem, s ...BinPackingSettings) (*BinPacking, error) {
	return newBinPacking(p, true, true, s)
}

// Name implements bipartite.OnlinePolicy.
func (b *BinPacking) Name() string {
	n := "BINPACKING"
	if b.Spread {
		n = "SPREADING"
	}
	if b.Pod {
		n += "-pod"
	}
	return n
}

// Decide implements bipartite.OnlinePolicy.
func (b *BinPacking) Decide(t int, x []float64) ([]float64, error) {
	if err := b.reset(t, x); err != nil {
		return nil, err
	}
	if b.Pod {
		b.decidePods(x)
	} else {
		b.decideFractional(x)
	}
	b.logged(t)
	return b.checked(b.y), nil
}

// decideFractional is the fractional reading: each port with a job fills
// its nodes in score order, within (5)-(6). The nodes of one port are
// distinct (a Graph has no repeated edge) and fill(l, e) reads and writes
// only node r(e)'s remaining capacity, so the order in which a port visits
// its own nodes cannot change any value it or a later port gets: the
// MostAllocated / LeastAllocated order is implied, not computed, and the
// edges are filled in index order. The result is bit for bit that of the
// sorted visit (decideFractionalSorted in the tests checks it), at the cost
// of DRF.
func (b *BinPacking) decideFractional(x []float64) {
	g := b.p.Graph
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		lo, hi := g.LeftRange(l)
		for e := lo; e < hi; e++ {
			b.fill(l, e)
		}
	}
}

// decidePods is the whole-pod Kubernetes-style reading.
func (b *BinPacking) decidePods(x []float64) {
	g, K := b.p.Graph, b.p.K
	for l, xl := range x {
		if xl == 0 {
			continue
		}
		pods := max(1, int(math.Min(math.Round(xl), float64(len(g.LeftEdges(l))))))
		a := b.p.Demand[l]
		for ; pods > 0; pods-- {
			best, bestScore := -1, 0.0
			for _, e := range g.LeftEdges(l) {
				if b.used(e) {
					continue
				}
				r := g.Edge(e).Right
				score, n, fits := 0.0, 0, true
				for k := 0; k < K; k++ {
					rem := b.rem[r*K+k]
					if rem < a[k] {
						fits = false
						break
					}
					if c := b.p.Capacity[r][k]; c > 0 {
						score += (c - rem + a[k]) / c
						n++
					}
				}
				if !fits {
					continue
				}
				if n > 0 {
					score /= float64(n)
				}
				if best < 0 || (!b.Spread && score > bestScore) || (b.Spread && score < bestScore) {
					best, bestScore = e, score
				}
			}
			if best < 0 {
				break
			}
			b.fill(l, best)
		}
	}
}

// used reports whether edge e already holds an allocation this slot.
func (b *BinPacking) used(e int) bool {
	K := b.p.K
	for k := 0; k < K; k++ {
		if b.y[e*K+k] != 0 {
			return true
		}
	}
	return false
}

// ChangeCluster moves d, in place, onto q, a problem built from its
// current one (ogasched.Problem.RemoveNode and the other edit methods,
// with their Mapping m), under the cluster-change contract of package
// bipartite. DRF learns nothing, so m is only checked
// (ogasched.Mapping.Validate); the slot of the latest Decide carries over.
// A snapshot taken afterwards restores into a DRF built on q. On error (a
// nil or invalid q, a bad m) d is unchanged.
func (d *DRF) ChangeCluster(q *ogasched.Problem, m ogasched.Mapping) error {
	if err := m.Validate(d.p, q); err != nil {
		return err
	}
	nd, err := NewDRF(q, DRFSettings{Logger: d.log})
	if err != nil {
		return err
	}
	nd.last = d.last
	*d = *nd
	return nil
}

// ChangeCluster moves f onto q in place; see DRF.ChangeCluster.
func (f *Fairness) ChangeCluster(q *ogasched.Problem, m ogasched.Mapping) error {
	if err := m.Validate(f.p, q); err != nil {
		return err
	}
	nf, err := NewFairness(q, FairnessSettings{Logger: f.log})
	if err != nil {
		return err
	}
	nf.last = f.last
	*f = *nf
	return nil
}

// ChangeCluster moves b onto q in place, keeping its reading (fractional
// or whole-pod, packing or spreading); see DRF.ChangeCluster.
func (b *BinPacking) ChangeCluster(q *ogasched.Problem, m ogasched.Mapping) error {
	if err := m.Validate(b.p, q); err != nil {
		return err
	}
	nb, err := newBinPacking(q, b.Spread, b.Pod, []BinPackingSettings{{Logger: b.log}})
	if err != nil {
		return err
	}
	nb.last = b.last
	*b = *nb
	return nil
}

// ChangeCluster moves b onto q in place; see DRF.ChangeCluster.
func (b *OGASchedBaseline) ChangeCluster(q *ogasched.Problem, m ogasched.Mapping) error {
	return b.pol.ChangeCluster(q, m)
}
