package esdp

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// index and value; test with errors.Is.
var (
	ErrDimension = errors.New("esdp: mismatched dimension")
	ErrValue     = errors.New("esdp: invalid value")
	ErrTooLarge  = errors.New("esdp: dynamic-programming table too large")
	ErrVersion   = errors.New("esdp: unsupported encoding version")
	ErrSettings  = errors.New("esdp: invalid settings")
)
