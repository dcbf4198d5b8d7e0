package ocorp

import (
	"errors"
	"fmt"
)

// Sentinel errors. Returned errors wrap one of these with the offending
// index (or line) and value; test with errors.Is.
var (
	ErrValue      = errors.New("ocorp: invalid value")
	ErrDimension  = errors.New("ocorp: mismatched dimension")
	ErrVersion    = errors.New("ocorp: unsupported encoding version")
	ErrSettings   = errors.New("ocorp: invalid settings")
	ErrEmpty      = errors.New("ocorp: empty input")
	ErrInfeasible = errors.New("ocorp: infeasible decision")
	ErrFormat     = errors.New("ocorp: malformed input")
	// ErrUnfit: a job's memory exceeds every machine's, so it can never run.
	ErrUnfit = errors.New("ocorp: job fits no machine")
	// ErrTooLarge: a size or horizon beyond a documented limit.
	ErrTooLarge = errors.New("ocorp: input too large")
	// ErrNotFinished is returned by Run when jobs remain after the slot limit.
	ErrNotFinished = errors.New("ocorp: jobs unfinished after the slot limit")
	// ErrSlot: a slot out of order (Decide needs t >= 0 and t greater
	// than that of the previous Decide).
	ErrSlot = errors.New("ocorp: slot out of order")
	// ErrSnapshot: a saved state that cannot be restored into this policy
	// (wrong format or version, another model, corrupt or invalid values).
	ErrSnapshot = errors.New("ocorp: cannot restore snapshot")
	// ErrNotConverged: a solver stopped before its tolerance (Status.Err).
	ErrNotConverged = errors.New("ocorp: solver did not converge")
	// ErrMachine: a machine operation on an index out of range or that
	// would leave no machine.
	ErrMachine = errors.New("ocorp: invalid machine operation")
)

const (
	panicKnapsackLen = "ocorp: knapsack value, weight and dst lengths differ"
	panicQPLen       = "ocorp: QP dimensions do not match"
)

// UnfitError reports a job whose memory m_j exceeds every machine's, so
// that it can never run: policies return it from Decide (the job at
// Obs.Jobs[Index] with ID), Run before simulating (Index = ID = position
// in the job list). A caller's loop can drop that job and go on. It
// unwraps to ErrUnfit.
type UnfitError struct {
	Index, ID         int
	Memory, MaxMemory int
}

func (e *UnfitError) Error() string {
	return fmt.Sprintf("ocorp: job %d (id %d): memory %d > largest machine memory %d: fits no machine", e.Index, e.ID, e.Memory, e.MaxMemory)
}

// Unwrap returns ErrUnfit.
func (e *UnfitError) Unwrap() error { return ErrUnfit }
