package esdp

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// field, index and value (and the cause, with a second %w); test with
// errors.Is.
var (
	// ErrDimension: a length or shape does not match the model.
	ErrDimension = errors.New("esdp: mismatched dimension")
	// ErrValue: a value is out of range, NaN or infinite.
	ErrValue = errors.New("esdp: invalid value")
	// ErrTooLarge: a size exceeds its limit. The message after it names
	// the limit: a dynamic-programming table (OracleSettings.MaxBytes,
	// MaxCells, the int32 budget rows), MaxEdges, MaxVertices,
	// MaxGangChannels, or an omniscient oracle that could not prove its
	// optimum.
	ErrTooLarge = errors.New("esdp: size above limit")
	// ErrVersion: an Instance encoding of an unknown version.
	ErrVersion = errors.New("esdp: unsupported encoding version")
	// ErrSettings: invalid Settings, OracleSettings, Config or RunSettings.
	ErrSettings = errors.New("esdp: invalid settings")
	// ErrSlot: a Decide whose slot is negative or not after the previous
	// Decide's, or an Observe that does not follow the latest Decide once.
	ErrSlot = errors.New("esdp: slot out of order")
	// ErrSnapshot: saved state that cannot be restored (another format,
	// version or model, truncated or altered bytes); it also wraps the
	// internal snapshot cause.
	ErrSnapshot = errors.New("esdp: cannot restore snapshot")
	// ErrNotTerminated: an oracle result whose Status is NotTerminated.
	ErrNotTerminated = errors.New("esdp: oracle did not terminate")
	// ErrNodeLimit: an oracle result whose Status is NodeLimit.
	ErrNodeLimit = errors.New("esdp: oracle node limit: optimality not proven")
)
