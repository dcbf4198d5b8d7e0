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
)

const (
	panicKnapsackLen = "ocorp: knapsack value, weight and dst lengths differ"
	panicQPLen       = "ocorp: QP dimensions do not match"
)
