package baselines

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"math"
	"slices"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/snapshot"
	"github.com/msched/msched/ogasched"
)

// The gang baselines of the OGASched family place each arrived job's
// components whole, all or nothing, on a bipartite.GangModel, so that they
// compare fairly with ogasched.GangPolicy (OGASched-gang): a job is placed
// only when at least m_l of its components fit (then every component that
// fits is kept), otherwise nothing of it is placed and no capacity is held.
// They see x(t) before deciding, return an ogasched.GangDecision (Y nil)
// owned by the policy until its next call, need increasing slots (else an
// error wrapping ogasched.ErrSlot) and reject a wrong length or a NaN,
// infinite, negative or too large arrival (ogasched.ErrDimension,
// ogasched.ErrValue). Each differs from the others only in the order in
// which it serves the arrived jobs and in the server it gives a component:
//
//	policy          job order                            component on
//	DRF-gang        ascending dominant share (DRF)       first fitting server of R_l (index order)
//	FAIRNESS-gang   ascending served/arrived so far      first fitting server
//	BINPACKING-gang index                                fitting server most allocated (mean used/c over k)
//	SPREADING-gang  index                                fitting server least allocated
//	FIRSTFIT-gang   index (queue order)                  first fitting server
//
// FIRSTFIT-gang is the coscheduling plugin's behaviour (scheduler-plugins,
// PodGroup with minMember = m_l): pods of a group are bound only when the
// group's minimum fits at once, in queue order, each pod on the first node
// that fits. The dominant share of DRF-gang is s_l = max_k sum_q a_l^{q,k} /
// sum_{r in R_l} c_r^k. FAIRNESS-gang is the gang reading of FAIRNESS: whole
// components cannot be split in proportion to demands, so fairness is over
// time: the job type that has been served in the smallest fraction of its
// arrivals goes first (ties: index); it is the only gang baseline with
// state (the counts, in its snapshot). Snapshots: {"format":
// "msched/baselines.GangBaseline","version":1,"model":FINGERPRINT,"state":
// {"last","served","arrived","check"}}; restore into a baseline of the
// same name on the same model (else ogasched.ErrSnapshot).
var GangBaselineNames = []string{"DRF-gang", "FAIRNESS-gang", "BINPACKING-gang", "SPREADING-gang", "FIRSTFIT-gang"}

var (
	_ ogasched.GangOnlinePolicy = (*GangDRF)(nil)
	_ ogasched.GangOnlinePolicy = (*GangFairness)(nil)
	_ ogasched.GangOnlinePolicy = (*GangBinPacking)(nil)
	_ ogasched.GangOnlinePolicy = (*GangSpreading)(nil)
	_ ogasched.GangOnlinePolicy = (*GangFirstFit)(nil)
)

// GangDRFSettings configures GangDRF; the zero value is the baseline as
// described, without logging.
type GangDRFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "ogasched", policy, slot, served) and an Info record
	// "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns nil: every GangDRFSettings is valid.
func (s GangDRFSettings) Validate() error { return nil }

// GangFairnessSettings configures GangFairness; the zero value is the baseline as
// described, without logging.
type GangFairnessSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "ogasched", policy, slot, served) and an Info record
	// "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns nil: every GangFairnessSettings is valid.
func (s GangFairnessSettings) Validate() error { return nil }

// GangBinPackingSettings configures GangBinPacking; the zero value is the baseline as
// described, without logging.
type GangBinPackingSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "ogasched", policy, slot, served) and an Info record
	// "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns nil: every GangBinPackingSettings is valid.
func (s GangBinPackingSettings) Validate() error { return nil }

// GangSpreadingSettings configures GangSpreading; the zero value is the baseline as
// described, without logging.
type GangSpreadingSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "ogasched", policy, slot, served) and an Info record
	// "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns nil: every GangSpreadingSettings is valid.
func (s GangSpreadingSettings) Validate() error { return nil }

// GangFirstFitSettings configures GangFirstFit; the zero value is the baseline as
// described, without logging.
type GangFirstFitSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family "ogasched", policy, slot, served) and an Info record
	// "rebuild" per ChangeCluster.
	Logger *slog.Logger
}

// Validate returns nil: every GangFirstFitSettings is valid.
func (s GangFirstFitSettings) Validate() error { return nil }

type ogaGangOrder int

const (
	orderIndex ogaGangOrder = iota
	orderDRF
	orderFair
)

type ogaGangPick int

const (
	pickFirst ogaGangPick = iota
	pickMost
	pickLeast
)

// ogaGangBase is the shared machinery of the gang baselines.
type ogaGangBase struct {
	m       *bipartite.GangModel
	name    string
	order   ogaGangOrder
	pick    ogaGangPick
	server  []int
	load    []float64 // loads r*K+k (bipartite's capacity arithmetic)
	save    []float64 // per component c: its server's loads before c was placed
	share   []float64 // DRF: dominant share per job
	served  []int64   // FAIRNESS: slots served per job
	arrived []int64   // FAIRNESS: slots arrived per job
	keys    []ogaGangJobKey
	last    int
	model   string
	log     *slog.Logger
}

type ogaGangJobKey struct {
	key float64
	l   int
}

func cmpOgaGangJobKey(a, b ogaGangJobKey) int {
	if c := cmp.Compare(a.key, b.key); c != 0 {
		return c
	}
	return cmp.Compare(a.l, b.l)
}

const (
	ogaGangFormat  = "msched/baselines.GangBaseline"
	ogaGangVersion = 1
)

func newOgaGangBase(name string, m *bipartite.GangModel, order ogaGangOrder, pick ogaGangPick) (*ogaGangBase, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: baselines: %s: nil gang model", ogasched.ErrDimension, name)
	}
	J, K := m.NumJobs(), m.K()
	b := &ogaGangBase{m: m, name: name, order: order, pick: pick,
		server: make([]int, m.NumComponents()), load: make([]float64, m.NumServers()*K), save: make([]float64, m.NumComponents()*K),
		keys: make([]ogaGangJobKey, 0, J), last: -1}
	for i := range b.server {
		b.server[i] = -1
	}
	h := snapshot.NewHasher(ogaGangFormat).String(name)
	g := m.Graph()
	h.Int(J).Int(m.NumServers()).Int(K).Int(g.NumEdges())
	for e := 0; e < g.NumEdges(); e++ {
		ed := g.Edge(e)
		h.Int(ed.Left).Int(ed.Right)
	}
	for r := 0; r < m.NumServers(); r++ {
		h.Floats(m.Capacity(r))
	}
	for l := 0; l < J; l++ {
		lo, hi := m.Components(l)
		h.Int(hi - lo).Int(m.Min(l))
		for c := lo; c < hi; c++ {
			h.Floats(m.Demand(c))
		}
	}
	b.model = h.Sum()
	switch order {
	case orderDRF:
		b.share = make([]float64, J)
		tot := make([]float64, K)
		for l := range b.share {
			clear(tot)
			for _, r := range g.LeftNeighbors(l) {
				for k, c := range m.Capacity(r) {
					tot[k] += c
				}
			}
			lo, hi := m.Components(l)
			s := 0.0
			for k := 0; k < K; k++ {
				d := 0.0
				for c := lo; c < hi; c++ {
					d += m.Demand(c)[k]
				}
				switch {
				case d == 0:
				case tot[k] == 0:
					s = math.Inf(1)
				default:
					s = max(s, d/tot[k])
				}
			}
			b.share[l] = s
		}
	case orderFair:
		b.served, b.arrived = make([]int64, J), make([]int64, J)
	}
	return b, nil
}

// Name implements bipartite.OnlinePolicy.
func (b *ogaGangBase) Name() string { return b.name }

// Model returns the gang model the baseline was built on.
func (b *ogaGangBase) Model() *bipartite.GangModel { return b.m }

// Decide places the arrived jobs of slot t (x_l > 0) all or nothing.
func (b *ogaGangBase) Decide(t int, x []float64) (ogasched.GangDecision, error) {
	if t < 0 || t <= b.last {
		return ogasched.GangDecision{}, fmt.Errorf("%w: baselines: %s: slot t = %d, want >= 0 and > %d (the previous Decide)", ogasched.ErrSlot, b.name, t, b.last)
	}
	m := b.m
	if len(x) != m.NumJobs() {
		return ogasched.GangDecision{}, fmt.Errorf("%w: baselines: %s: len(x) = %d, want %d gang job types", ogasched.ErrDimension, b.name, len(x), m.NumJobs())
	}
	for l, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > ogasched.MaxValue {
			return ogasched.GangDecision{}, fmt.Errorf("%w: baselines: %s: x[%d] = %v, want finite in [0, %g]", ogasched.ErrValue, b.name, l, v, ogasched.MaxValue)
		}
	}
	b.last = t
	for i := range b.server {
		b.server[i] = -1
	}
	clear(b.load)
	b.keys = b.keys[:0]
	for l, v := range x {
		if !(v > 0) {
			continue
		}
		key := 0.0
		switch b.order {
		case orderDRF:
			key = b.share[l]
		case orderFair:
			key = float64(b.served[l]) / (float64(b.arrived[l]) + 1)
		}
		b.keys = append(b.keys, ogaGangJobKey{key, l})
	}
	slices.SortFunc(b.keys, cmpOgaGangJobKey)
	for _, jk := range b.keys {
		ok := b.placeJob(jk.l)
		if b.order == orderFair && b.arrived[jk.l] < math.MaxInt64 {
			// Saturating: served <= arrived stays true, and no count
			// wraps (a run would need 2^63 slots to get there).
			b.arrived[jk.l]++
			if ok {
				b.served[jk.l]++
			}
		}
	}
	if b.log != nil {
		logDecide(b.log, "ogasched", b.name, t, slog.Int("jobs", len(b.keys)))
	}
	return ogasched.GangDecision{Server: b.server}, nil
}

// used returns the mean over k with c_r^k > 0 of load/c.
func (b *ogaGangBase) used(r int) float64 {
	K := b.m.K()
	capa, ld := b.m.Capacity(r), b.load[r*K:(r+1)*K]
	s, n := 0.0, 0
	for k, c := range capa {
		if c > 0 {
			s += ld[k] / c
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return s / float64(n)
}

// placeJob places l's components whole and keeps them when at least m_l
// fit; it reports whether the job was placed.
func (b *ogaGangBase) placeJob(l int) bool {
	m := b.m
	K := m.K()
	lo, hi := m.Components(l)
	rs := m.Graph().LeftNeighbors(l)
	placed := 0
	for c := lo; c < hi; c++ {
		a := m.Demand(c)
		best, bestU := -1, 0.0
		for _, r := range rs {
			if !bipartite.FitsAdd(b.load[r*K:(r+1)*K], a, m.Capacity(r)) {
				continue
			}
			if b.pick == pickFirst {
				best = r
				break
			}
			u := b.used(r)
			if best < 0 || (b.pick == pickMost && u > bestU) || (b.pick == pickLeast && u < bestU) {
				best, bestU = r, u
			}
		}
		if best < 0 {
			continue
		}
		b.server[c] = best
		ld := b.load[best*K : (best+1)*K]
		copy(b.save[c*K:(c+1)*K], ld)
		for k, ak := range a {
			ld[k] += ak
		}
		placed++
	}
	if placed >= m.Min(l) {
		return true
	}
	for c := hi - 1; c >= lo; c-- { // roll back, restoring the loads exactly
		if r := b.server[c]; r >= 0 {
			copy(b.load[r*K:(r+1)*K], b.save[c*K:(c+1)*K])
			b.server[c] = -1
		}
	}
	return false
}

type ogaGangState struct {
	Last    int     `json:"last"`
	Served  []int64 `json:"served,omitempty"`
	Arrived []int64 `json:"arrived,omitempty"`
	Check   string  `json:"check"`
}

func (s *ogaGangState) sum() string {
	h := snapshot.NewHasher(ogaGangFormat + ".state").Int(s.Last).Int(len(s.Served))
	for i := range s.Served {
		h.Int(int(s.Served[i])).Int(int(s.Arrived[i]))
	}
	return h.Sum()
}

// MarshalBinary implements encoding.BinaryMarshaler (see GangBaselineNames).
func (b *ogaGangBase) MarshalBinary() ([]byte, error) {
	st := ogaGangState{Last: b.last, Served: b.served, Arrived: b.arrived}
	st.Check = st.sum()
	return snapshot.Encode(ogaGangFormat, ogaGangVersion, b.model, st)
}

// UnmarshalBinary implements encoding.BinaryUnmarshaler: restore into a
// baseline of the same name on the same model. A mismatch, truncated or
// altered bytes, or counts that are negative, of the wrong length or with
// served > arrived give an error wrapping ogasched.ErrSnapshot; the policy
// is then unchanged.
func (b *ogaGangBase) UnmarshalBinary(data []byte) error {
	var st ogaGangState
	if err := snapshot.Decode(data, ogaGangFormat, ogaGangVersion, b.model, &st); err != nil {
		return fmt.Errorf("%w: baselines: %s: %w", ogasched.ErrSnapshot, b.name, err)
	}
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: baselines: %s: %w: "+format, append([]any{ogasched.ErrSnapshot, b.name, snapshot.ErrCorrupt}, args...)...)
	}
	if st.Last < -1 {
		return bad("last = %d, want >= -1", st.Last)
	}
	if len(st.Served) != len(b.served) || len(st.Arrived) != len(b.arrived) {
		return bad("len(served), len(arrived) = %d, %d, want %d", len(st.Served), len(st.Arrived), len(b.served))
	}
	for l := range st.Served {
		if st.Served[l] < 0 || st.Arrived[l] < st.Served[l] {
			return bad("served[%d] = %d, arrived[%d] = %d, want 0 <= served <= arrived", l, st.Served[l], l, st.Arrived[l])
		}
		// One arrival per Decide, slots 0..last: arrived <= last+1
		// (compared without overflow at last = MaxInt).
		if st.Arrived[l]-1 > int64(st.Last) {
			return bad("arrived[%d] = %d after the slots up to last = %d, want at most %d", l, st.Arrived[l], st.Last, int64(st.Last)+1)
		}
	}
	if st.Check != st.sum() {
		return bad("check = %q, want %q (the state was altered)", st.Check, st.sum())
	}
	b.last = st.Last
	copy(b.served, st.Served)
	copy(b.arrived, st.Arrived)
	return nil
}

// MarshalJSON returns the bytes of MarshalBinary.
func (b *ogaGangBase) MarshalJSON() ([]byte, error) { return b.MarshalBinary() }

// ChangeCluster moves the baseline, in place, onto model, a changed
// cluster built from its current model by a bipartite.GangModel edit
// method (AddServer, RemoveServer, AddJob, RemoveJob) with its mapping mp,
// under the cluster-change contract of package bipartite. The settings
// stay the baseline's. The slot of the last Decide carries over;
// FAIRNESS-gang's served and arrived counts follow their job types
// through mp.Jobs (0 for a new job type); DRF-gang's dominant shares are
// recomputed on model. A snapshot taken afterwards restores into the
// same constructor on model. On error (a nil model, a bad mapping:
// ogasched.ErrDimension) the baseline is unchanged.
func (b *ogaGangBase) ChangeCluster(model *bipartite.GangModel, mp bipartite.GangMapping) error {
	nb, err := newOgaGangBase(b.name, model, b.order, b.pick)
	if err != nil {
		return err
	}
	full, err := mp.Resolve(b.m, model)
	if err != nil {
		return fmt.Errorf("%w: baselines: %s: ChangeCluster: %w", ogasched.ErrDimension, b.name, err)
	}
	jobs := full.Jobs
	if b.served != nil {
		for l, ol := range jobs {
			if ol >= 0 {
				nb.served[l], nb.arrived[l] = b.served[ol], b.arrived[ol]
			}
		}
	}
	nb.last, nb.log = b.last, b.log
	*b = *nb
	if b.log != nil {
		b.log.LogAttrs(context.Background(), slog.LevelInfo, "rebuild", slog.String("family", "ogasched"), slog.String("policy", b.name),
			slog.Int("slot", b.last), slog.Int("jobs", model.NumJobs()), slog.Int("servers", model.NumServers()))
	}
	return nil
}

// UnmarshalJSON is UnmarshalBinary.
func (b *ogaGangBase) UnmarshalJSON(data []byte) error { return b.UnmarshalBinary(data) }

// GangDRF is DRF-gang (see GangBaselineNames).
type GangDRF struct{ *ogaGangBase }

// NewGangDRF returns DRF-gang on m; a nil model wraps ogasched.ErrDimension.
func NewGangDRF(m *bipartite.GangModel, s GangDRFSettings) (*GangDRF, error) {
	b, err := newOgaGangBase("DRF-gang", m, orderDRF, pickFirst)
	if err != nil {
		return nil, err
	}
	b.log = s.Logger
	return &GangDRF{b}, nil
}

// GangFairness is FAIRNESS-gang (see GangBaselineNames).
type GangFairness struct{ *ogaGangBase }

// NewGangFairness returns FAIRNESS-gang on m; a nil model wraps ogasched.ErrDimension.
func NewGangFairness(m *bipartite.GangModel, s GangFairnessSettings) (*GangFairness, error) {
	b, err := newOgaGangBase("FAIRNESS-gang", m, orderFair, pickFirst)
	if err != nil {
		return nil, err
	}
	b.log = s.Logger
	return &GangFairness{b}, nil
}

// GangBinPacking is BINPACKING-gang (see GangBaselineNames).
type GangBinPacking struct{ *ogaGangBase }

// NewGangBinPacking returns BINPACKING-gang on m; a nil model wraps ogasched.ErrDimension.
func NewGangBinPacking(m *bipartite.GangModel, s GangBinPackingSettings) (*GangBinPacking, error) {
	b, err := newOgaGangBase("BINPACKING-gang", m, orderIndex, pickMost)
	if err != nil {
		return nil, err
	}
	b.log = s.Logger
	return &GangBinPacking{b}, nil
}

// GangSpreading is SPREADING-gang (see GangBaselineNames).
type GangSpreading struct{ *ogaGangBase }

// NewGangSpreading returns SPREADING-gang on m; a nil model wraps ogasched.ErrDimension.
func NewGangSpreading(m *bipartite.GangModel, s GangSpreadingSettings) (*GangSpreading, error) {
	b, err := newOgaGangBase("SPREADING-gang", m, orderIndex, pickLeast)
	if err != nil {
		return nil, err
	}
	b.log = s.Logger
	return &GangSpreading{b}, nil
}

// GangFirstFit is FIRSTFIT-gang, the coscheduling plugin's behaviour (see
// GangBaselineNames).
type GangFirstFit struct{ *ogaGangBase }

// NewGangFirstFit returns FIRSTFIT-gang on m; a nil model wraps ogasched.ErrDimension.
func NewGangFirstFit(m *bipartite.GangModel, s GangFirstFitSettings) (*GangFirstFit, error) {
	b, err := newOgaGangBase("FIRSTFIT-gang", m, orderIndex, pickFirst)
	if err != nil {
		return nil, err
	}
	b.log = s.Logger
	return &GangFirstFit{b}, nil
}

// GangBaselineByName returns the gang baseline called name (one of
// GangBaselineNames) on m with its zero settings, as the family's
// interface: a helper for command lines and tables of policies. Code that
// knows which baseline it wants calls its constructor (NewGangDRF, ...),
// which returns the concrete type. An unknown name wraps
// ogasched.ErrSettings.
func GangBaselineByName(name string, m *bipartite.GangModel) (ogasched.GangOnlinePolicy, error) {
	switch name {
	case "DRF-gang":
		return ogaGangPolicy(NewGangDRF(m, GangDRFSettings{}))
	case "FAIRNESS-gang":
		return ogaGangPolicy(NewGangFairness(m, GangFairnessSettings{}))
	case "BINPACKING-gang":
		return ogaGangPolicy(NewGangBinPacking(m, GangBinPackingSettings{}))
	case "SPREADING-gang":
		return ogaGangPolicy(NewGangSpreading(m, GangSpreadingSettings{}))
	case "FIRSTFIT-gang":
		return ogaGangPolicy(NewGangFirstFit(m, GangFirstFitSettings{}))
	}
	return nil, fmt.Errorf("%w: baselines: unknown gang baseline %q (want one of %v)", ogasched.ErrSettings, name, GangBaselineNames)
}

func ogaGangPolicy[T ogasched.GangOnlinePolicy](pol T, err error) (ogasched.GangOnlinePolicy, error) {
	if err != nil {
		return nil, err
	}
	return pol, nil
}
