package onsocmax

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/msched/msched/bipartite"
	"github.com/msched/msched/internal/checked"
	"github.com/msched/msched/internal/strictjson"
	"github.com/msched/msched/utility"
)

// Job is one multi-server job: the quadruple {rho_n, R_n, xbar_n, f_n} of
// Algorithm 1 line 3 with its arrival slot and the weights beta_nr of g_nr.
// Units lists R_n as mesh unit indices; XBar, Beta and Utility are aligned
// with Units. Every unit's slot must lie in [Arrival, Deadline] (eq. (1)).
type Job struct {
	ID       int               `json:"id"`
	Arrival  int               `json:"arrival"`  // a_n (slot)
	Deadline int               `json:"deadline"` // d_n (slot, inclusive)
	Rho      float64           `json:"rho"`      // target workload rho_n
	Units    []int             `json:"units"`    // R_n
	XBar     []float64         `json:"xbar"`     // xbar_nr
	Beta     []float64         `json:"beta"`     // beta_nr
	Utility  []utility.Utility `json:"utility"`  // f_nr
}

// MaxValue bounds a job's Rho, XBar and Beta (1e15): with utility scales
// in [utility.MinA, utility.MaxA] every welfare term and sum stays finite.
const MaxValue = 1e15

// Validate checks j against mesh m: aligned slices, 0 <= Arrival <=
// Deadline, Rho, XBar and Beta finite in [0, MaxValue], valid utilities, and
// distinct units of m whose slots lie in [Arrival, Deadline].
func (j *Job) Validate(m *bipartite.Mesh) error {
	return j.check(m.NumUnits(), func(r int) int { _, s := m.NodeSlot(r); return s }, nil)
}

// check is Validate for nu units whose slot slotOf gives. seen, if not
// nil, is the caller's reusable set for long unit lists (cleared here).
func (j *Job) check(nu int, slotOf func(r int) int, seen map[int]struct{}) error {
	k := len(j.Units)
	if len(j.XBar) != k || len(j.Beta) != k || len(j.Utility) != k {
		return fmt.Errorf("%w: job %d has %d units, %d xbar, %d beta, %d utilities",
			ErrDimension, j.ID, k, len(j.XBar), len(j.Beta), len(j.Utility))
	}
	if j.Arrival < 0 || j.Deadline < j.Arrival {
		return fmt.Errorf("%w: job %d arrival %d deadline %d", ErrValue, j.ID, j.Arrival, j.Deadline)
	}
	if !finiteNonNeg(j.Rho) || j.Rho > MaxValue {
		return fmt.Errorf("%w: job %d rho %v, want finite in [0, MaxValue = %g]", ErrValue, j.ID, j.Rho, MaxValue)
	}
	// Long unit lists use a set; short ones are scanned.
	switch {
	case k <= 32:
		seen = nil
	case seen == nil:
		seen = make(map[int]struct{}, k)
	default:
		clear(seen)
	}
	for i, r := range j.Units {
		if r < 0 || r >= nu {
			return fmt.Errorf("%w: job %d unit index %d value %d (mesh has %d units)", ErrValue, j.ID, i, r, nu)
		}
		if t := slotOf(r); t < j.Arrival || t > j.Deadline {
			return fmt.Errorf("%w: job %d unit index %d (unit %d) is in slot %d outside [%d, %d]", ErrValue, j.ID, i, r, t, j.Arrival, j.Deadline)
		}
		if seen != nil {
			if _, dup := seen[r]; dup {
				return fmt.Errorf("%w: job %d repeats unit %d (index %d)", ErrValue, j.ID, r, i)
			}
			seen[r] = struct{}{}
		} else {
			for _, q := range j.Units[:i] {
				if q == r {
					return fmt.Errorf("%w: job %d repeats unit %d (index %d)", ErrValue, j.ID, r, i)
				}
			}
		}
		if !finiteNonNeg(j.XBar[i]) || j.XBar[i] > MaxValue {
			return fmt.Errorf("%w: job %d xbar index %d value %v, want finite in [0, MaxValue = %g]", ErrValue, j.ID, i, j.XBar[i], MaxValue)
		}
		if !finiteNonNeg(j.Beta[i]) || j.Beta[i] > MaxValue {
			return fmt.Errorf("%w: job %d beta index %d value %v, want finite in [0, MaxValue = %g]", ErrValue, j.ID, i, j.Beta[i], MaxValue)
		}
		if err := j.Utility[i].Validate(); err != nil {
			return fmt.Errorf("%w: job %d utility index %d: %w", ErrValue, j.ID, i, err)
		}
	}
	return nil
}

// Instance is one arrival instance A of P1: a mesh and the jobs in arrival
// order (non-decreasing Arrival; jobs of the same slot are processed in the
// given order).
type Instance struct {
	Mesh *bipartite.Mesh
	Jobs []Job
}

// Validate checks the mesh, every job, unique IDs and the arrival order.
func (in *Instance) Validate() error {
	if in == nil {
		return fmt.Errorf("%w: nil instance", ErrValue)
	}
	if err := checkMesh(in.Mesh); err != nil {
		return err
	}
	ids := make(map[int]bool, len(in.Jobs))
	for n := range in.Jobs {
		j := &in.Jobs[n]
		if err := j.Validate(in.Mesh); err != nil {
			return err
		}
		if ids[j.ID] {
			return fmt.Errorf("%w: job index %d repeats id %d", ErrValue, n, j.ID)
		}
		ids[j.ID] = true
		if n > 0 && j.Arrival < in.Jobs[n-1].Arrival {
			return fmt.Errorf("%w: job index %d arrives at %d before job index %d at %d (unsorted)", ErrValue, n, j.Arrival, n-1, in.Jobs[n-1].Arrival)
		}
		if j.Arrival >= in.Mesh.Slots {
			return fmt.Errorf("%w: job index %d arrives at slot %d beyond the horizon %d", ErrValue, n, j.Arrival, in.Mesh.Slots)
		}
	}
	return nil
}

// ValidateMesh is the check every constructor and decoder of the family
// applies to a mesh (policies and baselines call it): m is not nil, its
// Nodes*Slots neither overflows nor exceeds MaxUnits, and it passes
// bipartite's Validate. Errors wrap ErrValue, ErrTooLarge or bipartite's
// sentinels.
func ValidateMesh(m *bipartite.Mesh) error { return checkMesh(m) }

// checkMesh validates m and, with overflow-safe arithmetic, that
// Nodes*Slots neither overflows (a product that wraps around to
// len(Capacity) passes bipartite's check) nor exceeds MaxUnits.
func checkMesh(m *bipartite.Mesh) error {
	if m == nil {
		return fmt.Errorf("%w: nil mesh", ErrValue)
	}
	if m.Nodes <= 0 || m.Slots <= 0 {
		return fmt.Errorf("%w: mesh nodes = %d, slots = %d, want >= 1", ErrValue, m.Nodes, m.Slots)
	}
	n, ok := checked.Mul(m.Nodes, m.Slots)
	if !ok || n > MaxUnits {
		return fmt.Errorf("%w: mesh nodes %d x slots %d > MaxUnits = %d", ErrTooLarge, m.Nodes, m.Slots, MaxUnits)
	}
	if err := m.Validate(); err != nil {
		// The package's own sentinel first, bipartite's kept as a second
		// cause (%w twice).
		sentinel := ErrValue
		switch {
		case errors.Is(err, bipartite.ErrDimension):
			sentinel = ErrDimension
		case errors.Is(err, bipartite.ErrTooLarge):
			sentinel = ErrTooLarge
		}
		return fmt.Errorf("%w: mesh: %w", sentinel, err)
	}
	return nil
}

// DefaultMinUnit is the workload at which a utility with f'(0) = +Inf
// (utility.Sqrt) is differentiated to obtain a finite v in MarginalBounds.
const DefaultMinUnit = 0.01

// MarginalBounds returns iota and v of eq. (8) for the instance (which it
// validates first; minUnit must not be NaN or +Inf): the
// minimum and maximum over jobs, units of positive capacity and x in
// [0, xbar_nr] of f'_nr(x) + beta_nr/C_r. A utility with f'(0) = +Inf is
// differentiated at minUnit (<= 0 means DefaultMinUnit) instead of 0, so
// that bound is not a true bound near 0 (see the package documentation).
func (in *Instance) MarginalBounds(minUnit float64) (iota, v float64, err error) {
	if err := in.Validate(); err != nil {
		return 0, 0, err
	}
	if !(minUnit <= 0) && !(minUnit > 0 && !math.IsInf(minUnit, 1)) {
		return 0, 0, fmt.Errorf("%w: minUnit = %v", ErrValue, minUnit)
	}
	if minUnit <= 0 {
		minUnit = DefaultMinUnit
	}
	iota, v = math.Inf(1), 0
	for n := range in.Jobs {
		j := &in.Jobs[n]
		for i, r := range j.Units {
			c := in.Mesh.Capacity[r]
			if c <= 0 {
				continue
			}
			lo, hi := marginalWelfareRange(j.Utility[i], j.XBar[i], j.Beta[i], c, minUnit)
			iota, v = math.Min(iota, lo), math.Max(v, hi)
		}
	}
	if math.IsInf(iota, 1) {
		return 0, 0, fmt.Errorf("%w: instance has no unit of positive capacity", ErrBounds)
	}
	return iota, v, checkBounds(iota, v)
}

// Pricing returns NewPricing of the instance's MarginalBounds(minUnit).
func (in *Instance) Pricing(minUnit float64) (Pricing, error) {
	iota, v, err := in.MarginalBounds(minUnit)
	if err != nil {
		return Pricing{}, err
	}
	return NewPricing(iota, v)
}

// Welfare returns the P1 objective of an allocation x given per job and
// aligned with Job.Units: sum f_nr(x_nr) + beta_nr x_nr / C_r. in must be
// valid (Validate). It panics if x does not have one row per job of the
// job's length (a programmer error; CheckFeasible returns an error
// instead).
func (in *Instance) Welfare(x [][]float64) float64 {
	checkRows(x, in)
	var w float64
	for n := range in.Jobs {
		j := &in.Jobs[n]
		for i, r := range j.Units {
			if x[n][i] == 0 {
				continue
			}
			w += j.Utility[i].Value(x[n][i]) + j.Beta[i]*x[n][i]/in.Mesh.Capacity[r]
		}
	}
	return w
}

// CheckFeasible returns an error naming the first constraint of P1 that x
// violates by more than tol (relative to max(1, bound)).
func (in *Instance) CheckFeasible(x [][]float64, tol float64) error {
	if in == nil {
		return fmt.Errorf("%w: nil instance", ErrValue)
	}
	if len(x) != len(in.Jobs) {
		return fmt.Errorf("%w: %d allocation rows for %d jobs", ErrDimension, len(x), len(in.Jobs))
	}
	load := make([]float64, in.Mesh.NumUnits())
	for n := range in.Jobs {
		j := &in.Jobs[n]
		if len(x[n]) != len(j.Units) {
			return fmt.Errorf("%w: job %d has %d allocations for %d units", ErrDimension, j.ID, len(x[n]), len(j.Units))
		}
		var s float64
		for i, r := range j.Units {
			xi := x[n][i]
			if math.IsNaN(xi) || xi < -tol || xi > j.XBar[i]+tol*math.Max(1, j.XBar[i]) {
				return fmt.Errorf("%w: job %d unit %d: x = %v outside [0, %v] (7)", ErrValue, j.ID, r, xi, j.XBar[i])
			}
			s += xi
			load[r] += xi
		}
		if s > j.Rho+tol*math.Max(1, j.Rho) {
			return fmt.Errorf("%w: job %d: sum x = %v > rho = %v (4)", ErrValue, j.ID, s, j.Rho)
		}
	}
	for r, l := range load {
		if c := in.Mesh.Capacity[r]; l > c+tol*math.Max(1, c) {
			return fmt.Errorf("%w: unit %d: load %v > C = %v (6)", ErrValue, r, l, c)
		}
	}
	return nil
}

// encodingVersion is the schema version of Instance JSON.
const encodingVersion = 1

type instanceJSON struct {
	Version int             `json:"version"`
	Mesh    *bipartite.Mesh `json:"mesh"`
	Jobs    []Job           `json:"jobs"`
}

// MarshalJSON encodes {"version":1,"mesh":{"nodes":N,"slots":T,
// "capacity":[C_r]},"jobs":[{"id","arrival","deadline","rho","units",
// "xbar","beta","utility":[{"kind":"linear","a":2}]}]}.
func (in *Instance) MarshalJSON() ([]byte, error) {
	return json.Marshal(instanceJSON{encodingVersion, in.Mesh, in.Jobs})
}

// MaxInstanceBytes bounds the encoded size ReadInstance accepts (1 GiB);
// the decoded instance takes a small multiple of it.
const MaxInstanceBytes = 1 << 30

// ReadInstance decodes one instance written by MarshalJSON from r,
// reading at most MaxInstanceBytes, and validates it. Anything after the
// JSON object other than white space is an error, as is a mesh whose
// Nodes*Slots overflows or exceeds MaxUnits.
func ReadInstance(r io.Reader) (*Instance, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: nil io.Reader", ErrValue)
	}
	lr := &io.LimitedReader{R: r, N: MaxInstanceBytes + 1}
	b, err := io.ReadAll(lr)
	if err != nil {
		return nil, fmt.Errorf("%w: read instance: %w", ErrValue, err)
	}
	if len(b) > MaxInstanceBytes {
		return nil, fmt.Errorf("%w: instance larger than MaxInstanceBytes = %d", ErrTooLarge, MaxInstanceBytes)
	}
	var in Instance
	// json.Unmarshal rejects trailing data after the top-level value.
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, err
	}
	return &in, nil
}

// UnmarshalJSON decodes and validates an instance written by MarshalJSON.
// The mesh's Nodes*Slots is checked for overflow and against MaxUnits
// before the mesh is built.
func (in *Instance) UnmarshalJSON(b []byte) error {
	var v instanceJSON
	if err := strictjson.Check(b, &v); err != nil {
		return fmt.Errorf("%w: decode instance: %w", ErrValue, err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return fmt.Errorf("%w: decode instance: %w", ErrValue, err)
	}
	if v.Version != encodingVersion {
		return fmt.Errorf("%w: instance version %d, want %d", ErrVersion, v.Version, encodingVersion)
	}
	if v.Mesh == nil {
		return fmt.Errorf("%w: missing mesh", ErrValue)
	}
	if err := checkMesh(v.Mesh); err != nil {
		return err
	}
	m, err := bipartite.NewMesh(v.Mesh.Nodes, v.Mesh.Slots, v.Mesh.Capacity)
	if err != nil {
		return fmt.Errorf("%w: mesh: %w", ErrValue, err)
	}
	out := Instance{Mesh: m, Jobs: v.Jobs}
	if err := out.Validate(); err != nil {
		return err
	}
	*in = out
	return nil
}

// ValidateWindow checks j for a rolling mesh of nodes nodes and a window
// of W slots (Policy, the baselines): as Validate, with unit r naming node
// r/W in the slot WindowSlot(r, j.Arrival, W), which must not pass
// Deadline. nodes and window must be positive.
func (j *Job) ValidateWindow(nodes, window int) error {
	if nodes <= 0 || window <= 0 || !checked.Within(MaxUnits, nodes, window) {
		return fmt.Errorf("%w: window of %d nodes x %d slots", ErrValue, nodes, window)
	}
	return j.check(nodes*window, func(r int) int { _, s := WindowSlot(r, j.Arrival, window); return s }, nil)
}

// WindowSlot returns the node and absolute slot of unit r for a job
// arriving at slot arrival >= 0 on a rolling mesh with a window of W
// slots: node r/W and the slot s in [arrival, arrival+W) with
// s%W == r%W. For arrival = 0 it is Mesh.NodeSlot.
func WindowSlot(r, arrival, window int) (node, slot int) {
	col := r % window
	return r / window, arrival + ((col-arrival%window)+window)%window
}
