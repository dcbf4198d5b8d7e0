package utility

import "errors"

var (
	// ErrKind reports an unknown utility kind.
	ErrKind = errors.New("utility: unknown kind")
	// ErrParameter reports a parameter outside its domain (a <= 0, NaN, Inf,
	// alpha < 0, alpha set for a kind that has none).
	ErrParameter = errors.New("utility: bad parameter")
	// ErrSyntax reports malformed JSON, an unknown field or data after the
	// JSON object.
	ErrSyntax = errors.New("utility: malformed JSON")
)
