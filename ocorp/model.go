package ocorp

import (
	"fmt"
	"math"

	"github.com/msched/msched/internal/checked"
)

// Job is one job of the model (Section II-A): it arrives at slot Arrival
// (a_j), needs Cores CPU cores (d_j) and Memory units of memory (m_j) to run
// at full speed, and then completes after Processing slots (p_j). All are
// integers; Cores and Processing are at least 1, Arrival and Memory at least 0.
// Memory 0 gives the single-resource setting of Section IV.
type Job struct {
	Arrival    int `json:"arrival"`
	Cores      int `json:"cores"`
	Memory     int `json:"memory"`
	Processing int `json:"processing"`
}

// Volume returns v_j = p_j d_j, the job's work in core-slots. Validate
// rejects jobs whose volume overflows int.
func (j Job) Volume() int64 { return int64(j.Processing) * int64(j.Cores) }

// Validate reports whether the job's fields are in range: Arrival and
// Memory >= 0, Cores and Processing >= 1, and the volume p_j d_j at most
// math.MaxInt (so that every sum of a job's work is exact).
func (j Job) Validate() error {
	switch {
	case j.Arrival < 0:
		return fmt.Errorf("%w: arrival %d", ErrValue, j.Arrival)
	case j.Cores < 1:
		return fmt.Errorf("%w: cores %d", ErrValue, j.Cores)
	case j.Memory < 0:
		return fmt.Errorf("%w: memory %d", ErrValue, j.Memory)
	case j.Processing < 1:
		return fmt.Errorf("%w: processing %d", ErrValue, j.Processing)
	}
	if _, ok := checked.Mul(j.Processing, j.Cores); !ok {
		return fmt.Errorf("%w: volume processing %d * cores %d exceeds %d", ErrValue, j.Processing, j.Cores, math.MaxInt)
	}
	return nil
}

// Machine is server i with Cores C_i and Memory M_i (integers, Cores >= 1,
// Memory >= 0).
type Machine struct {
	Cores  int `json:"cores"`
	Memory int `json:"memory"`
}

// Validate reports whether the machine's fields are in range.
func (m Machine) Validate() error {
	if m.Cores < 1 {
		return fmt.Errorf("%w: cores %d", ErrValue, m.Cores)
	}
	if m.Memory < 0 {
		return fmt.Errorf("%w: memory %d", ErrValue, m.Memory)
	}
	return nil
}

// ValidateJobs checks every job and names the first bad one.
func ValidateJobs(jobs []Job) error {
	for i, j := range jobs {
		if err := j.Validate(); err != nil {
			return fmt.Errorf("job %d: %w", i, err)
		}
	}
	return nil
}

// ValidateMachines checks that there is at least one machine, every
// machine is valid, and the cluster's total cores and total memory are at
// most math.MaxInt (sums of cores and memory are then exact).
func ValidateMachines(ms []Machine) error {
	if len(ms) == 0 {
		return fmt.Errorf("%w: no machines", ErrEmpty)
	}
	cores, mem := 0, 0
	for i, m := range ms {
		if err := m.Validate(); err != nil {
			return fmt.Errorf("machine %d: %w", i, err)
		}
		var ok1, ok2 bool
		cores, ok1 = checked.Add(cores, m.Cores)
		mem, ok2 = checked.Add(mem, m.Memory)
		if !ok1 || !ok2 {
			return fmt.Errorf("%w: machine %d: total cores or memory of machines 0..%d exceeds %d", ErrValue, i, i, math.MaxInt)
		}
	}
	return nil
}

// TotalCores returns sum_i C_i (exact for machines that pass
// ValidateMachines).
func TotalCores(ms []Machine) int {
	s := 0
	for _, m := range ms {
		s += m.Cores
	}
	return s
}

// Weight returns the fractional-flowtime weight of eq. (5) of job j in the
// 0-based slot t, the paper's slot t+1 (the time interval [t, t+1)):
// (t + 1 - a_j)^k / p_j + p_j^(k-1). A unit rate in slot t costs this much.
func Weight(j Job, t int, k float64) float64 {
	p := float64(j.Processing)
	return math.Pow(float64(t)+1-float64(j.Arrival), k)/p + math.Pow(p, k-1)
}

// Gamma returns Gamma of eq. (27):
//
//	max{ max_j max(a_j + 2 p_j, 2 a_j), 4 sum_j p_j d_j / sum_i C_i }.
//
// It needs the whole job list (an offline quantity, as in the paper's
// experiments); policies with Settings.Gamma = 0 use the running version
// over the jobs seen so far instead.
func Gamma(jobs []Job, ms []Machine) (float64, error) {
	if err := ValidateJobs(jobs); err != nil {
		return 0, err
	}
	if err := ValidateMachines(ms); err != nil {
		return 0, err
	}
	g := 0.0
	vol := 0.0
	for _, j := range jobs {
		g = math.Max(g, gammaTerm(j))
		vol += float64(j.Volume())
	}
	return math.Max(g, 4*vol/float64(TotalCores(ms))), nil
}

// gammaTerm is max(a_j + 2 p_j, 2 a_j) of (27), in floating point so that
// it cannot overflow.
func gammaTerm(j Job) float64 {
	a, p := float64(j.Arrival), float64(j.Processing)
	return math.Max(a+2*p, 2*a)
}

// LongTerm returns g_j of eq. (7) for a slot in which the job received the
// total rate y = sum_i x_j^i z_j^i: p_j / (Gamma - a_j) - y. Gamma must exceed
// a_j.
func LongTerm(j Job, gamma, y float64) float64 {
	return float64(j.Processing)/(gamma-float64(j.Arrival)) - y
}

// LkNorm returns (sum_j f_j^k)^(1/k), the l_k norm of a flowtime vector.
func LkNorm(f []float64, k float64) float64 {
	s := 0.0
	for _, v := range f {
		s += math.Pow(v, k)
	}
	return math.Pow(s, 1/k)
}

// FractionalFlowtime returns the fractional k-th power flowtime of eq. (5)
// of a job served at rates y[s] in the 0-based slots a_j+s:
// sum_s Weight(j, a_j+s, k) y[s] = sum_s ((s+1)^k / p_j + p_j^(k-1)) y[s].
// For a job served to completion, (FractionalFlowtime)^(1/k) approximates
// its flowtime; Example 1 of the paper gives 3, 5.25 and 7 1/6 for k = 1.
func FractionalFlowtime(j Job, y []float64, k float64) float64 {
	s := 0.0
	for i, r := range y {
		s += Weight(j, j.Arrival+i, k) * r
	}
	return s
}

// Discretize converts jobs whose Arrival and Processing are in time units
// (seconds) to slots of the given length: a_j = floor(arrival/slot),
// p_j = ceil(processing/slot) (at least 1). dst may alias src.
func Discretize(dst, src []Job, slot int) ([]Job, error) {
	if slot < 1 {
		return nil, fmt.Errorf("%w: slot length %d", ErrSettings, slot)
	}
	if err := ValidateJobs(src); err != nil {
		return nil, err
	}
	dst = append(dst[:0], src...)
	for i := range dst {
		dst[i].Arrival /= slot
		p := dst[i].Processing // ceil(p/slot) without overflow
		q := p / slot
		if p%slot != 0 {
			q++
		}
		dst[i].Processing = max(1, q)
	}
	return dst, nil
}

// CPUOnly returns a copy of jobs with Memory = 0: the single-resource
// setting of Section IV (OCORP and OCORP+).
func CPUOnly(jobs []Job) []Job {
	out := append([]Job(nil), jobs...)
	for i := range out {
		out[i].Memory = 0
	}
	return out
}
