package ocorp

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/msched/msched/internal/snapshot"
)

// snapshotVersion is the schema version of every state this package saves.
const snapshotVersion = 1

// Formats of the saved states (the "format" of the snapshot envelope).
const (
	formatPolicy   = "msched/ocorp.Policy"
	formatM        = "msched/ocorp.M"
	formatPlus     = "msched/ocorp.Plus"
	formatPriority = "msched/ocorp.Priority"
)

// dualState is the saved state of OCORP, OCORP+M and OCORP+:
//
//	{"last": t, "gmax": ..., "vol": ..., "gamma": ...,
//	 "jobs": [{"id": ID, "lambda": ..., "tau": ..., "prev": true,
//	           "machines": [i, ...], "rates": [x, ...]}, ...],
//	 "decisions": n, "nu": [...]}
//
// last is the slot of the last Decide (-1 before the first), gmax and vol
// the running terms of Gamma (27), gamma the last Gamma, jobs the live
// jobs (those of the last observation) with lambda_j; OCORP+ adds per job
// its multiplier tau_j and its rates x_j^i of the previous decision
// (machines and rates; prev says the job was in that decision), the count
// of QP decisions and the machine prices nu (the QP's warm start).
type dualState struct {
	Last      int        `json:"last"`
	GMax      float64    `json:"gmax"`
	Vol       float64    `json:"vol"`
	Gamma     float64    `json:"gamma"`
	Jobs      []jobSaved `json:"jobs"`
	Decisions int        `json:"decisions,omitempty"`
	Nu        []float64  `json:"nu,omitempty"`
}

type jobSaved struct {
	ID       int       `json:"id"`
	Lambda   float64   `json:"lambda"`
	Tau      float64   `json:"tau,omitempty"`
	Prev     bool      `json:"prev,omitempty"`
	Machines []int     `json:"machines,omitempty"`
	Rates    []float64 `json:"rates,omitempty"`
}

func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// fingerprint hashes what decisions depend on: the format, the machines,
// the settings and extra (OCORP+'s own settings).
func (d *dual) fingerprint(format string, extra func(*snapshot.Hasher)) string {
	h := snapshot.NewHasher(format)
	h.Int(len(d.ms))
	for _, m := range d.ms {
		h.Int(m.Cores).Int(m.Memory)
	}
	d.s.hash(h)
	if extra != nil {
		extra(h)
	}
	return h.Sum()
}

func (d *dual) save() dualState {
	st := dualState{Last: d.last, GMax: d.gMax, Vol: d.vol, Gamma: d.gamma, Jobs: make([]jobSaved, len(d.st))}
	for e, s := range d.st {
		st.Jobs[e] = jobSaved{ID: s.id, Lambda: s.lambda}
	}
	return st
}

// Bounds of a restored state. A run of a policy whose last Decide was
// slot L >= 0 (0-based) cannot exceed them; UnmarshalBinary refuses a
// state that does (see the package doc, "Snapshots"). maxP is the largest
// processing time a Job may declare (math.MaxInt).
//
//   - gmax <= L + 2 maxP (the terms max(a_j + 2 p_j, 2 a_j) of (27) with
//     a_j <= L); vol <= (L+1) maxObs maxP, each of at most L+1
//     observations adding at most maxObs jobs (a slice holds at most
//     math.MaxInt / sizeof(ActiveJob) elements) of volume p_j d_j <=
//     math.MaxInt; gmax >= 2 and vol >= the number of live jobs when a job
//     is live (p_j, d_j >= 1).
//   - Gamma: Settings.Gamma if set; else gmax <= Gamma <= max(gmax, 4 vol)
//     (Gamma = max(gmax, 4 vol / sum_i C_i) with sum_i C_i >= 1).
//   - lambda_j <= 2 (InitLambda + (L+1) mu* B): at most L+1 dual updates
//     (10), each adding at most mu(t) p_j / (Gamma - a_j) <= mu* B, where
//     mu* = max_{t <= L} mu(t) (mu(L) for ExperimentStep, which grows with
//     t; the constant of TheoryStep; no bound for another Step), B = 1/2
//     with the running Gamma (Gamma >= a_j + 2 p_j) and maxP / delta with
//     a fixed Gamma (a_j <= ceil(Gamma) - 1, delta = Gamma - ceil(Gamma) +
//     1). The factor 2 absorbs rounding.
//   - OCORP+: tau_j, nu_i <= 2 (2 alpha + c*), from the stationarity of the
//     QP (a positive multiplier needs some x_ji > 0, so tau_j + d_j nu_i
//     <= 2 alpha xbar_ji - c_j with xbar <= 1, d_j >= 1), where c* bounds
//     |c_j|: 1 with Normalize, else max(lambda bound, (L+1)^k + maxP^(k-1))
//     (the weight (9) at slot L); decisions <= L + 1; the rates of a job in
//     the previous decision sum to at most 1.
type stateBounds struct {
	last        int
	gmax        float64
	vol         float64
	gamma       float64 // fixed Gamma, 0 for the running one
	lambda      float64
	multipliers float64
}

const maxP = float64(math.MaxInt)

// maxObs bounds the jobs of one observation: a slice holds at most
// math.MaxInt bytes.
var maxObs = float64(math.MaxInt / int(unsafe.Sizeof(ActiveJob{})))

func capInf(v float64) float64 {
	if !(v < math.MaxFloat64) { // +Inf or NaN: no bound
		return math.MaxFloat64
	}
	return v
}

// bounds returns the bounds of a state whose last Decide was slot last
// (>= 0) for settings s (normalised) and, for OCORP+, alpha and normalize.
func (s *Settings) bounds(last int, alpha float64, normalize bool) stateBounds {
	L := float64(last)
	b := stateBounds{last: last, gmax: L + 2*maxP, vol: (L + 1) * maxObs * maxP, gamma: s.Gamma}
	var mu float64
	switch st := s.Step.(type) {
	case ExperimentStep:
		mu = st.Mu(last)
	case TheoryStep:
		mu = st.Mu(0)
	default:
		mu = math.Inf(1)
	}
	B := 0.5
	if s.Gamma > 0 {
		B = maxP / (s.Gamma - math.Ceil(s.Gamma) + 1)
	}
	b.lambda = capInf(2 * (s.InitLambda + (L+1)*mu*B))
	c := 1.0
	if !normalize {
		c = max(b.lambda, capInf(math.Pow(L+1, s.K)+math.Pow(maxP, s.K-1)))
	}
	b.multipliers = capInf(2 * (2*alpha + c))
	return b
}

// check validates a decoded state for m machines and settings s (OCORP+
// parts only if plus, with its alpha and normalize): every number finite,
// within the bounds above and consistent with the rest; it names the first
// bad field.
func (st *dualState) check(m int, s *Settings, plus bool, alpha float64, normalize bool) error {
	if st.Last < -1 {
		return fmt.Errorf("last = %d < -1", st.Last)
	}
	if !finiteNonNeg(st.GMax) || !finiteNonNeg(st.Vol) || !finiteNonNeg(st.Gamma) {
		return fmt.Errorf("gmax = %v, vol = %v, gamma = %v: want finite >= 0", st.GMax, st.Vol, st.Gamma)
	}
	if st.Decisions < 0 || (!plus && (st.Decisions != 0 || st.Nu != nil)) {
		return fmt.Errorf("decisions = %d, nu of length %d", st.Decisions, len(st.Nu))
	}
	if plus && st.Nu != nil && len(st.Nu) != m {
		return fmt.Errorf("nu has %d entries for %d machines", len(st.Nu), m)
	}
	if st.Last == -1 {
		if len(st.Jobs) > 0 || st.GMax != 0 || st.Vol != 0 || st.Gamma != 0 || st.Decisions != 0 {
			return fmt.Errorf("before the first slot: %d jobs, gmax = %v, vol = %v, gamma = %v, decisions = %d, want none and 0",
				len(st.Jobs), st.GMax, st.Vol, st.Gamma, st.Decisions)
		}
	}
	b := s.bounds(max(st.Last, 0), alpha, normalize)
	if st.GMax > b.gmax || st.Vol > b.vol {
		return fmt.Errorf("gmax = %v, vol = %v: above %v and %v, the largest a run to slot %d reaches", st.GMax, st.Vol, b.gmax, b.vol, st.Last)
	}
	if len(st.Jobs) > 0 && (st.GMax < 2 || st.Vol < float64(len(st.Jobs))) {
		return fmt.Errorf("gmax = %v, vol = %v with %d live jobs: want gmax >= 2 and vol >= %d", st.GMax, st.Vol, len(st.Jobs), len(st.Jobs))
	}
	if st.Last >= 0 {
		if b.gamma > 0 && st.Gamma != b.gamma {
			return fmt.Errorf("gamma = %v, want Settings.Gamma = %v", st.Gamma, b.gamma)
		}
		if b.gamma == 0 && (st.Gamma < st.GMax || st.Gamma > max(st.GMax, 4*st.Vol)) {
			return fmt.Errorf("gamma = %v, want in [gmax, max(gmax, 4 vol)] = [%v, %v]", st.Gamma, st.GMax, max(st.GMax, 4*st.Vol))
		}
	}
	if st.Decisions-1 > st.Last { // decisions <= last+1, without overflow at last = MaxInt
		return fmt.Errorf("decisions = %d after the slots up to %d", st.Decisions, st.Last)
	}
	for i, v := range st.Nu {
		if !finiteNonNeg(v) || v > b.multipliers {
			return fmt.Errorf("nu[%d] = %v: want finite in [0, %v]", i, v, b.multipliers)
		}
	}
	seen := make(map[int]struct{}, len(st.Jobs))
	for k, j := range st.Jobs {
		if _, dup := seen[j.ID]; dup {
			return fmt.Errorf("jobs[%d]: duplicate id %d", k, j.ID)
		}
		seen[j.ID] = struct{}{}
		if !finiteNonNeg(j.Lambda) || j.Lambda > b.lambda {
			return fmt.Errorf("jobs[%d] (id %d): lambda = %v: want finite in [0, %v]", k, j.ID, j.Lambda, b.lambda)
		}
		if !finiteNonNeg(j.Tau) || j.Tau > b.multipliers {
			return fmt.Errorf("jobs[%d] (id %d): tau = %v: want finite in [0, %v]", k, j.ID, j.Tau, b.multipliers)
		}
		if !plus && (j.Tau != 0 || j.Prev || j.Machines != nil || j.Rates != nil) {
			return fmt.Errorf("jobs[%d] (id %d): OCORP+ fields in a state without them", k, j.ID)
		}
		if j.Prev && st.Decisions == 0 {
			return fmt.Errorf("jobs[%d] (id %d): in a previous decision, but decisions = 0", k, j.ID)
		}
		if len(j.Machines) != len(j.Rates) || len(j.Machines) > m || (!j.Prev && len(j.Machines) > 0) {
			return fmt.Errorf("jobs[%d] (id %d): %d machines, %d rates (prev %v, %d machines in the cluster)", k, j.ID, len(j.Machines), len(j.Rates), j.Prev, m)
		}
		sum := 0.0
		for e, i := range j.Machines {
			if i < 0 || i >= m {
				return fmt.Errorf("jobs[%d] (id %d): machines[%d] = %d not in [0, %d)", k, j.ID, e, i, m)
			}
			for _, i2 := range j.Machines[:e] {
				if i2 == i {
					return fmt.Errorf("jobs[%d] (id %d): machine %d twice", k, j.ID, i)
				}
			}
			if r := j.Rates[e]; !(r > 0 && r <= 1) {
				return fmt.Errorf("jobs[%d] (id %d): rates[%d] = %v not in (0, 1]", k, j.ID, e, r)
			}
			sum += j.Rates[e]
		}
		if sum > 1+1e-9 {
			return fmt.Errorf("jobs[%d] (id %d): rates sum to %v > 1", k, j.ID, sum)
		}
	}
	return nil
}

// install replaces the per-job state with st (validated).
func (d *dual) install(st *dualState) {
	d.last, d.gMax, d.vol, d.gamma = st.Last, st.GMax, st.Vol, st.Gamma
	d.idx = make(map[int]int, len(st.Jobs))
	d.st = make([]jobState, len(st.Jobs))
	d.calls = 0
	for e, j := range st.Jobs {
		d.idx[j.ID] = e
		d.st[e] = jobState{id: j.ID, lambda: j.Lambda, tau: j.Tau, prevDec: -1}
	}
}

func decodeDual(data []byte, format, model string, d *dual, plus bool, alpha float64, normalize bool) (*dualState, error) {
	var st dualState
	if err := snapshot.Decode(data, format, snapshotVersion, model, &st); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if err := st.check(len(d.ms), &d.s, plus, alpha, normalize); err != nil {
		return nil, fmt.Errorf("%w: %w: %w", ErrSnapshot, snapshot.ErrCorrupt, err)
	}
	return &st, nil
}

// MarshalBinary saves the policy's learned state (format
// "msched/ocorp.Policy", version 1): the slot of the last Decide, the
// running terms of Gamma and lambda_j of every live job by ID,
// fingerprinted on the machines and the settings (not Name or Logger).
func (o *Policy) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(formatPolicy, snapshotVersion, o.c.d.fingerprint(formatPolicy, nil), o.c.d.save())
}

// UnmarshalBinary restores a state saved by MarshalBinary into a policy
// built by New on the same machines and settings. Any mismatch (format,
// version, model, a corrupt or invalid value) is an error wrapping
// ErrSnapshot, and the policy is then unchanged.
func (o *Policy) UnmarshalBinary(data []byte) error {
	st, err := decodeDual(data, formatPolicy, o.c.d.fingerprint(formatPolicy, nil), &o.c.d, false, 0, false)
	if err != nil {
		return err
	}
	o.c.d.install(st)
	return nil
}

// MarshalJSON is MarshalBinary (the snapshot is JSON).
func (o *Policy) MarshalJSON() ([]byte, error) { return o.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (o *Policy) UnmarshalJSON(data []byte) error { return o.UnmarshalBinary(data) }

// MarshalBinary saves OCORP+M's state, as Policy.MarshalBinary does
// (format "msched/ocorp.M").
func (o *M) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(formatM, snapshotVersion, o.c.d.fingerprint(formatM, o.hashPacking), o.c.d.save())
}

// UnmarshalBinary restores a state saved by MarshalBinary, as
// Policy.UnmarshalBinary does.
func (o *M) UnmarshalBinary(data []byte) error {
	st, err := decodeDual(data, formatM, o.c.d.fingerprint(formatM, o.hashPacking), &o.c.d, false, 0, false)
	if err != nil {
		return err
	}
	o.c.d.install(st)
	return nil
}

// MarshalJSON is MarshalBinary.
func (o *M) MarshalJSON() ([]byte, error) { return o.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (o *M) UnmarshalJSON(data []byte) error { return o.UnmarshalBinary(data) }

func (o *Plus) hashSettings(h *snapshot.Hasher) {
	h.Float(o.ps.Alpha).Float(o.ps.QP.Tol).Int(o.ps.QP.MaxSweeps)
	if o.ps.Normalize {
		h.Int(1)
	} else {
		h.Int(0)
	}
}

// MarshalBinary saves OCORP+'s state (format "msched/ocorp.Plus"): that
// of Policy.MarshalBinary plus, per live job, its multiplier tau_j and its
// rates in the previous decision (the xbar of the switching cost (32)),
// and the machine prices nu that warm-start the next QP; fingerprinted on
// the machines and all settings.
func (o *Plus) MarshalBinary() ([]byte, error) {
	st := o.d.save()
	if o.ps.Alpha > 0 {
		st.Decisions = o.decisions
		st.Nu = o.res.Nu
		for e, s := range o.d.st {
			j := &st.Jobs[e]
			j.Tau = s.tau
			if o.decisions > 0 && s.prevDec == o.decisions {
				j.Prev = true
				for k := s.prevStart; k < s.prevStart+s.prevLen; k++ {
					if i := o.prevM[k]; i >= 0 {
						j.Machines = append(j.Machines, i)
						j.Rates = append(j.Rates, o.prevR[k])
					}
				}
			}
		}
	}
	return snapshot.Encode(formatPlus, snapshotVersion, o.d.fingerprint(formatPlus, o.hashSettings), st)
}

// UnmarshalBinary restores a state saved by MarshalBinary, as
// Policy.UnmarshalBinary does.
func (o *Plus) UnmarshalBinary(data []byte) error {
	m := len(o.d.ms)
	st, err := decodeDual(data, formatPlus, o.d.fingerprint(formatPlus, o.hashSettings), &o.d, o.ps.Alpha > 0, o.ps.Alpha, o.ps.Normalize)
	if err != nil {
		return err
	}
	o.d.install(st)
	o.decisions = st.Decisions
	o.res.Nu = make([]float64, m)
	copy(o.res.Nu, st.Nu)
	o.prevM, o.prevR = o.prevM[:0], o.prevR[:0]
	for e, j := range st.Jobs {
		if !j.Prev {
			continue
		}
		s := &o.d.st[e]
		s.prevDec, s.prevStart, s.prevLen = o.decisions, len(o.prevM), len(j.Machines)
		o.prevM = append(o.prevM, j.Machines...)
		o.prevR = append(o.prevR, j.Rates...)
	}
	return nil
}

// MarshalJSON is MarshalBinary.
func (o *Plus) MarshalJSON() ([]byte, error) { return o.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (o *Plus) UnmarshalJSON(data []byte) error { return o.UnmarshalBinary(data) }

type prioritySaved struct {
	Last int `json:"last"`
}

func (p *Priority) fingerprint() string {
	h := snapshot.NewHasher(formatPriority).String(p.name).Int(len(p.pk.ms))
	for _, m := range p.pk.ms {
		h.Int(m.Cores).Int(m.Memory)
	}
	return h.Sum()
}

// MarshalBinary saves the only state a priority scheduler keeps across
// slots, the slot of its last Decide (format "msched/ocorp.Priority"),
// fingerprinted on its name and machines (the Key, a function, is not:
// restore into a scheduler built with the same one).
func (p *Priority) MarshalBinary() ([]byte, error) {
	return snapshot.Encode(formatPriority, snapshotVersion, p.fingerprint(), prioritySaved{Last: p.last})
}

// UnmarshalBinary restores a state saved by MarshalBinary; a mismatch is
// an error wrapping ErrSnapshot and leaves p unchanged.
func (p *Priority) UnmarshalBinary(data []byte) error {
	var st prioritySaved
	if err := snapshot.Decode(data, formatPriority, snapshotVersion, p.fingerprint(), &st); err != nil {
		return fmt.Errorf("%w: %w", ErrSnapshot, err)
	}
	if st.Last < -1 {
		return fmt.Errorf("%w: %w: last = %d < -1", ErrSnapshot, snapshot.ErrCorrupt, st.Last)
	}
	p.last = st.Last
	return nil
}

// MarshalJSON is MarshalBinary.
func (p *Priority) MarshalJSON() ([]byte, error) { return p.MarshalBinary() }

// UnmarshalJSON is UnmarshalBinary.
func (p *Priority) UnmarshalJSON(data []byte) error { return p.UnmarshalBinary(data) }

// hashPacking adds OCORP+M's Packing to its fingerprint. PackPooled, the
// only packing before Settings.Packing existed, adds nothing, so its
// earlier snapshots restore into a policy with PackPooled and fail into
// one with another packing.
func (o *M) hashPacking(h *snapshot.Hasher) {
	if p := o.c.d.s.Packing; p != PackPooled {
		h.String("packing").Int(int(p))
	}
}
