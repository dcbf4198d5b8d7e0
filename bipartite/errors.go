package bipartite

import "errors"

// Sentinel errors. Returned errors wrap one of these with the offending
// index and value; test with errors.Is.
var (
	ErrEmpty         = errors.New("bipartite: empty graph")
	ErrVertexRange   = errors.New("bipartite: vertex out of range")
	ErrDuplicateEdge = errors.New("bipartite: duplicate edge")
	ErrDimension     = errors.New("bipartite: bad dimension")
	ErrProbability   = errors.New("bipartite: probability outside [0,1]")
	ErrCapacity      = errors.New("bipartite: invalid capacity")
	ErrVersion       = errors.New("bipartite: unsupported encoding version")
	ErrInterval      = errors.New("bipartite: invalid time interval")
)
