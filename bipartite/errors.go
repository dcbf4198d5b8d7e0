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
	// ErrTooLarge reports a size above its Limits field; the message names
	// the field, the value and the limit.
	ErrTooLarge = errors.New("bipartite: size above limit")
	// ErrSyntax reports malformed JSON or data after the JSON value.
	ErrSyntax = errors.New("bipartite: malformed JSON")
	// ErrNil reports a nil pointer argument (a *rand.Rand, a *Mesh).
	ErrNil = errors.New("bipartite: nil argument")
)
