package ocorp

import (
	"fmt"

	"github.com/msched/msched/internal/checked"
)

// ActiveJob is an unfinished job visible in slot t (a_j <= t).
type ActiveJob struct {
	// ID is the caller's identifier of the job across slots: any int,
	// unique within one observation (the simulator uses the job's index).
	// Decisions name jobs by ID.
	// Policies keep per-job state (lambda_j, previous placement) by ID for
	// the jobs of the last observation only: a job left out of an
	// observation is forgotten and starts afresh if it comes back. IDs
	// also break ties between equal priorities.
	ID int
	Job
	// Remaining is the remaining work d_j p_j(t) in core-slots (>= 1).
	// With integral cores it stays an integer; p_j(t) = Remaining / d_j.
	Remaining int64
}

// Obs is the observation of slot t: the unfinished jobs that have arrived.
type Obs struct {
	Jobs []ActiveJob
}

// Placement is one non-zero entry of a decision: the job whose
// ActiveJob.ID is Job gets Cores = u_j^i = d_j x_j^i >= 1 cores on machine
// Machine (an index into the policy's current machines), with memory
// admitted (z_j^i = 1) if Admit. Cores placed without memory count against
// (4b) but do no work.
type Placement struct {
	Job, Machine, Cores int
	Admit               bool
}

// Decision lists the placements of slot t; absent pairs have x = z = 0.
type Decision struct {
	Placements []Placement
}

// Checker verifies decisions against the constraints (4b)-(4f): job IDs
// of the observation, machine indices in range, Cores >= 1 (integral by type), no duplicate (job, machine) pair,
// sum_j u_j^i <= C_i (4b), sum_j m_j z_j^i <= M_i (4c), sum_i u_j^i <= d_j
// (4d). It keeps its buffers, so Check allocates nothing in steady state.
type Checker struct {
	ms                []Machine
	cores, mem, stamp []int
	per, head, next   []int
	byID              map[int]int
}

// NewChecker returns a Checker for the machines.
func NewChecker(ms []Machine) (*Checker, error) {
	if err := ValidateMachines(ms); err != nil {
		return nil, err
	}
	m := len(ms)
	return &Checker{ms: append([]Machine(nil), ms...), cores: make([]int, m), mem: make([]int, m), stamp: make([]int, m), byID: map[int]int{}}, nil
}

// Check returns nil if d is feasible for obs, else an error wrapping
// ErrInfeasible that names the constraint, index and value.
func (c *Checker) Check(obs Obs, d Decision) error {
	n, np := len(obs.Jobs), len(d.Placements)
	c.per = grow(c.per, n)
	c.head = grow(c.head, n)
	c.next = grow(c.next, np)
	clear(c.cores)
	clear(c.mem)
	clear(c.per)
	for j := range c.head {
		c.head[j] = -1
	}
	clear(c.byID)
	for k, a := range obs.Jobs {
		if _, dup := c.byID[a.ID]; dup {
			return fmt.Errorf("%w: job %d: duplicate id %d", ErrValue, k, a.ID)
		}
		c.byID[a.ID] = k
	}
	for k, p := range d.Placements {
		jk, ok := c.byID[p.Job]
		if !ok || p.Machine < 0 || p.Machine >= len(c.ms) {
			return fmt.Errorf("%w: placement %d: job id %d (observed: %v) machine %d (of %d)", ErrInfeasible, k, p.Job, ok, p.Machine, len(c.ms))
		}
		p.Job = jk
		if p.Cores < 1 {
			return fmt.Errorf("%w: placement %d: cores %d", ErrInfeasible, k, p.Cores)
		}
		j := &obs.Jobs[p.Job]
		var ok1, ok3 bool
		ok2 := true
		c.cores[p.Machine], ok1 = checked.Add(c.cores[p.Machine], p.Cores)
		if p.Admit {
			c.mem[p.Machine], ok2 = checked.Add(c.mem[p.Machine], j.Memory)
		}
		c.per[p.Job], ok3 = checked.Add(c.per[p.Job], p.Cores)
		if !ok1 || !ok2 || !ok3 {
			return fmt.Errorf("%w: placement %d: cores or memory on machine %d or job id %d overflow int", ErrInfeasible, k, p.Machine, obs.Jobs[p.Job].ID)
		}
		if c.per[p.Job] > j.Cores {
			return fmt.Errorf("%w: (4d) job id %d gets %d cores > d_j = %d", ErrInfeasible, j.ID, c.per[p.Job], j.Cores)
		}
		c.next[k] = c.head[p.Job]
		c.head[p.Job] = k
	}
	for i, m := range c.ms {
		if c.cores[i] > m.Cores {
			return fmt.Errorf("%w: (4b) machine %d uses %d cores > C_i = %d", ErrInfeasible, i, c.cores[i], m.Cores)
		}
		if c.mem[i] > m.Memory {
			return fmt.Errorf("%w: (4c) machine %d uses %d memory > M_i = %d", ErrInfeasible, i, c.mem[i], m.Memory)
		}
		c.stamp[i] = -1
	}
	for j, h := range c.head {
		for k := h; k >= 0; k = c.next[k] {
			i := d.Placements[k].Machine // valid: checked above
			if c.stamp[i] == j {
				return fmt.Errorf("%w: job id %d placed twice on machine %d", ErrInfeasible, obs.Jobs[j].ID, i)
			}
			c.stamp[i] = j
		}
	}
	return nil
}

// grow returns s resized to n, reusing its storage when possible.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n, max(n, 2*cap(s)))
}
