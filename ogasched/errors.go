package ogasched

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// field, index and value (and the underlying cause, also with %w); test
// with errors.Is.
var (
	ErrDimension = errors.New("ogasched: mismatched dimension")
	ErrValue     = errors.New("ogasched: invalid value")
	ErrVersion   = errors.New("ogasched: unsupported encoding version")
	ErrSettings  = errors.New("ogasched: invalid settings")
	// ErrSlot: a slot out of order (negative, not after the previous
	// Decide, or an Observe that does not name the latest Decide once).
	ErrSlot = errors.New("ogasched: slot out of order")
	// ErrSnapshot: a snapshot that cannot be restored into this policy
	// (another format, version or model; truncated or altered bytes). The
	// internal/snapshot cause is wrapped too.
	ErrSnapshot = errors.New("ogasched: cannot restore snapshot")
)

const (
	panicLenY = "ogasched: len(y) != NumEdges*K"
	panicLenX = "ogasched: len(x) != NumPorts"
)
