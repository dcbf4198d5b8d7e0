package ocorp

import "errors"

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
)

const (
	panicKnapsackLen = "ocorp: knapsack value, weight and dst lengths differ"
	panicQPLen       = "ocorp: QP dimensions do not match"
)
