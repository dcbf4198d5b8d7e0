package ogasched

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// index and value; test with errors.Is.
var (
	ErrDimension = errors.New("ogasched: mismatched dimension")
	ErrValue     = errors.New("ogasched: invalid value")
	ErrVersion   = errors.New("ogasched: unsupported encoding version")
	ErrSettings  = errors.New("ogasched: invalid settings")
)

const (
	panicLenY = "ogasched: len(y) != NumEdges*K"
	panicLenX = "ogasched: len(x) != NumPorts"
)
