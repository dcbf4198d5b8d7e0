package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// table is a header-indexed streaming CSV reader shared by the node and pod
// readers: columns are found by name, so their order does not matter and
// extra columns are ignored.
type table struct {
	file string
	lim  Limits
	in   *recordLimiter
	r    *csv.Reader
	col  map[string]int
	rec  []string
	line int
	rows int
}

// utf8BOM is the byte-order mark some tools write at the start of a CSV.
const utf8BOM = "\ufeff"

func newTable(r io.Reader, file string, required, optional []string, lim Limits) (*table, error) {
	if err := lim.Validate(); err != nil {
		return nil, err
	}
	if r == nil {
		return nil, fmt.Errorf("%w: %s: nil io.Reader", ErrEmpty, file)
	}
	lim = lim.withDefaults()
	in := &recordLimiter{r: r, max: lim.MaxRecordBytes, line: 1, start: 1}
	cr := csv.NewReader(in)
	cr.ReuseRecord = true
	t := &table{file: file, lim: lim, in: in, r: cr, col: map[string]int{}}
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("%w: empty file, want columns %v", ErrHeader, required)}
	}
	if err != nil {
		return nil, t.csvError(err)
	}
	if len(head) > 0 {
		head[0] = strings.TrimPrefix(head[0], utf8BOM)
	}
	all := make(map[string]int, len(head))
	for i, h := range head {
		if j, dup := all[h]; dup {
			return nil, &ParseError{File: file, Line: 1, Column: h, Value: h,
				Err: fmt.Errorf("%w: column %q twice (fields %d and %d)", ErrHeader, h, j+1, i+1)}
		}
		all[h] = i
	}
	known := map[string]bool{}
	for _, c := range required {
		known[c] = true
	}
	for _, c := range optional {
		known[c] = true
	}
	for i, h := range head {
		if !known[h] {
			continue
		}
		if _, dup := t.col[h]; dup {
			return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("%w: column %q twice", ErrHeader, h)}
		}
		t.col[h] = i
	}
	for _, c := range required {
		if _, ok := t.col[c]; !ok {
			return nil, &ParseError{File: file, Line: 1, Err: fmt.Errorf("%w: missing column %q (have %v)", ErrHeader, c, head)}
		}
	}
	t.line = 1
	return t, nil
}

func (t *table) csvError(err error) error {
	if errors.Is(err, errRecordTooLong) {
		return &ParseError{File: t.file, Line: t.in.tooLong,
			Err: fmt.Errorf("%w: record longer than MaxRecordBytes = %d bytes", ErrTooLarge, t.lim.MaxRecordBytes)}
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &ParseError{File: t.file, Line: pe.Line, Err: fmt.Errorf("%w: %v", ErrSyntax, pe.Err)}
	}
	return fmt.Errorf("trace: %s: %w", t.file, err)
}

// next reads one record; it returns io.EOF at the end.
func (t *table) next() error {
	rec, err := t.r.Read()
	if err != nil {
		if err == io.EOF {
			return err
		}
		return t.csvError(err)
	}
	t.rec = rec
	t.line, _ = t.r.FieldPos(0)
	t.rows++
	if t.rows > t.lim.MaxRows {
		return &ParseError{File: t.file, Line: t.line, Err: fmt.Errorf("%w: more than MaxRows = %d rows", ErrTooLarge, t.lim.MaxRows)}
	}
	return nil
}

func (t *table) has(name string) bool { _, ok := t.col[name]; return ok }

func (t *table) str(name string) string {
	i, ok := t.col[name]
	if !ok {
		return ""
	}
	return t.rec[i]
}

func (t *table) fail(name, v string, format string, args ...any) error {
	return &ParseError{File: t.file, Line: t.line, Column: name, Value: v, Err: fmt.Errorf("%w: "+format, append([]any{ErrValue}, args...)...)}
}

// int64In parses a base-10 integer in [lo, hi].
func (t *table) int64In(name string, lo, hi int64) (int64, error) {
	s := t.str(name)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, t.fail(name, s, "not an integer")
	}
	if v < lo || v > hi {
		return 0, t.fail(name, s, "outside [%d, %d]", lo, hi)
	}
	return v, nil
}

// int64Limit parses a base-10 integer in [lo, limit]; above the limit the
// error wraps ErrTooLarge and names the Limits field.
func (t *table) int64Limit(name string, lo, limit int64, field string) (int64, error) {
	s := t.str(name)
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, t.fail(name, s, "not an integer")
	}
	if v < lo {
		return 0, t.fail(name, s, "outside [%d, %d]", lo, limit)
	}
	if v > limit {
		return 0, &ParseError{File: t.file, Line: t.line, Column: name, Value: s,
			Err: fmt.Errorf("%w: %d above %s = %d", ErrTooLarge, v, field, limit)}
	}
	return v, nil
}
