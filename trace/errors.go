package trace

import (
	"errors"
	"fmt"
)

var (
	// ErrHeader reports a missing or duplicated column in a CSV header.
	ErrHeader = errors.New("trace: bad header")
	// ErrSyntax reports a CSV syntax error (quotes, field count).
	ErrSyntax = errors.New("trace: bad CSV syntax")
	// ErrValue reports a field that is not a valid value for its column.
	ErrValue = errors.New("trace: bad value")
	// ErrOrder reports creation times that decrease down the file.
	ErrOrder = errors.New("trace: creation times not sorted")
	// ErrDuplicate reports a node or pod name seen twice.
	ErrDuplicate = errors.New("trace: duplicate name")
	// ErrNotFound reports a trace folder or file that does not exist.
	ErrNotFound = errors.New("trace: not found")
	// ErrTooLarge reports a value, record, row count or derived slot count
	// above its Limits field; the message names it, the value and the limit.
	ErrTooLarge = errors.New("trace: above limit")
	// ErrEmpty reports a trace (or a selection of it) with nothing to map.
	ErrEmpty = errors.New("trace: empty")
)

// ParseError locates a problem in a trace file: the file name given to the
// reader, the 1-based line, and the column name (empty for whole-row
// problems). Unwrap gives one of the sentinel errors.
type ParseError struct {
	File   string
	Line   int
	Column string
	Value  string
	Err    error
}

func (e *ParseError) Error() string {
	loc := fmt.Sprintf("%s:%d", e.File, e.Line)
	if e.Column != "" {
		return fmt.Sprintf("%s: column %s: value %q: %v", loc, e.Column, e.Value, e.Err)
	}
	return fmt.Sprintf("%s: %v", loc, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }
