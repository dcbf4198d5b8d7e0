package onsocmax

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// index and value; test with errors.Is.
var (
	// ErrBounds reports marginal-welfare bounds that are not 0 < iota <= v < Inf.
	ErrBounds = errors.New("onsocmax: invalid marginal-welfare bounds")
	// ErrValue reports a NaN, infinite, negative or otherwise invalid datum.
	ErrValue = errors.New("onsocmax: invalid value")
	// ErrDimension reports slices of mismatched lengths.
	ErrDimension = errors.New("onsocmax: mismatched dimension")
	// ErrSettings reports invalid solver settings.
	ErrSettings = errors.New("onsocmax: invalid settings")
	// ErrVersion reports an unsupported encoding version.
	ErrVersion = errors.New("onsocmax: unsupported encoding version")
	// ErrTooLarge reports an offline problem beyond the documented size limit.
	ErrTooLarge = errors.New("onsocmax: problem too large")
	// ErrUnsupported reports an offline problem the exact solver cannot handle.
	ErrUnsupported = errors.New("onsocmax: unsupported problem")
	// ErrSlot reports a Decide at a negative slot or at one not after the
	// slot of the previous Decide.
	ErrSlot = errors.New("onsocmax: slot out of order")
	// ErrNode reports a node index that is out of range, or a node removed
	// twice.
	ErrNode = errors.New("onsocmax: invalid node")
	// ErrSnapshot reports saved state that cannot be restored: another
	// format or version, another model, corrupt or inconsistent data. It
	// is returned together with the internal/snapshot cause.
	ErrSnapshot = errors.New("onsocmax: cannot restore snapshot")
	// ErrDuplicate reports a job ID given twice where IDs must be unique.
	ErrDuplicate = errors.New("onsocmax: duplicate job id")
	// ErrIterationLimit reports a solver stopped by its iteration limit.
	ErrIterationLimit = errors.New("onsocmax: iteration limit reached")
)

const (
	panicLen = "onsocmax: mismatched slice lengths"
)
