// Package strictjson checks a JSON document against the Go type it is about
// to be decoded into, before encoding/json sees it, for the three things
// encoding/json accepts silently:
//
//   - a key given twice in one object (encoding/json keeps the last one, so
//     {"rho":19.5,"rho":1} decodes as rho = 1);
//   - a key that matches a field only up to case ({"LEFT":5} sets Left);
//   - a key that matches no field (only with DisallowUnknownFields).
//
// Check walks the document and the type together: objects of a struct type
// must use the exact json tag names (or exact field names), once each; maps
// must not repeat a key; values of a type with its own UnmarshalJSON are
// checked only for repeated keys, their own decoder being responsible for
// the rest. Check allocates only for the walk and never decodes values.
//
// Complete does what Check does and also reports a struct field that the
// document leaves out although its json tag has no omitempty: a decoder of
// saved state uses it so that a missing field cannot silently decode as its
// zero value.
package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// MaxDepth is the deepest nesting of arrays and objects Check accepts: that
// of encoding/json, which refuses a deeper document when decoding.
const MaxDepth = 10000

// ErrKey reports a repeated, miscased or unknown key; the message names the
// path of the object ("jobs[3].utility[0]") and the key.
var ErrKey = errors.New("strictjson: bad key")

// ErrMissing reports a required key that an object leaves out; the
// message names the path of the object and the key.
var ErrMissing = errors.New("strictjson: missing key")

// ErrDepth reports a document nested deeper than MaxDepth; the message
// names the depth reached, the byte offset and the limit.
var ErrDepth = errors.New("strictjson: nesting too deep")

// ErrSyntax reports malformed JSON (only from Valid and Members: Check and
// Complete leave malformed JSON to the decoder); the message names the
// byte offset.
var ErrSyntax = errors.New("strictjson: malformed JSON")

// Check reports the first repeated, miscased or unknown key of b for a
// value of the type of v (a pointer or a value), or a nesting deeper than
// MaxDepth. Malformed JSON is not reported: Check stops quietly and leaves
// it to the decoder.
func Check(b []byte, v any) error { return check(b, v, false) }

// Complete is Check that also reports, wrapping ErrMissing, the first
// object of a struct type that lacks a field whose json tag has no
// omitempty (a null value counts as present).
func Complete(b []byte, v any) error { return check(b, v, true) }

// Valid is Complete that also reports malformed JSON, wrapping ErrSyntax:
// b must hold exactly one JSON value, with only white space around it.
// A nil v checks syntax, depth and repeated keys only.
func Valid(b []byte, v any) error {
	var t reflect.Type
	if v != nil {
		t = reflect.TypeOf(v)
	}
	w := walker{b: b, complete: true}
	if err := w.value(t); err != nil {
		return w.report(err)
	}
	w.space()
	if w.i != len(w.b) {
		return fmt.Errorf("%w: data after the JSON value at byte %d", ErrSyntax, w.i)
	}
	return nil
}

// Member is one key of an object and its raw value, both slices of the
// document.
type Member struct {
	Key   string
	Value []byte
}

// Members checks b as Valid(b, nil) does and, b being an object, returns
// its members in order, their values slices of b (not copies). A value
// other than an object is an ErrSyntax error.
func Members(b []byte) ([]Member, error) {
	w := walker{b: b, complete: true}
	w.space()
	if w.i >= len(b) || b[w.i] != '{' {
		return nil, fmt.Errorf("%w: want an object at byte %d", ErrSyntax, w.i)
	}
	w.i++
	w.depth = 1
	var ms []Member
	var seen keySet
	for first := true; ; first = false {
		w.space()
		if first && w.i < len(b) && b[w.i] == '}' {
			w.i++
			break
		}
		key, err := w.key(&seen)
		if err == errDup {
			return nil, fmt.Errorf("%w: $: key %q given twice", ErrKey, key)
		}
		if err != nil {
			return nil, w.report(err)
		}
		w.space()
		start := w.i
		if err := w.value(nil); err != nil {
			return nil, w.report(err)
		}
		ms = append(ms, Member{Key: string(key), Value: b[start:w.i]})
		w.space()
		if w.i < len(b) && b[w.i] == ',' {
			w.i++
			continue
		}
		if w.i < len(b) && b[w.i] == '}' {
			w.i++
			break
		}
		return nil, w.report(errMalformed)
	}
	w.space()
	if w.i != len(b) {
		return nil, fmt.Errorf("%w: data after the JSON value at byte %d", ErrSyntax, w.i)
	}
	return ms, nil
}

func check(b []byte, v any, complete bool) error {
	w := walker{b: b, complete: complete}
	err := w.value(reflect.TypeOf(v))
	if err == errMalformed {
		return nil
	}
	return w.report(err)
}

var errMalformed = errors.New("malformed")

// report turns the walker's internal errors into messages.
func (w *walker) report(err error) error {
	switch err {
	case nil:
		return nil
	case errMalformed:
		return fmt.Errorf("%w: at byte %d", ErrSyntax, w.i)
	case errDepth:
		return fmt.Errorf("%w: depth %d at byte %d, limit MaxDepth=%d", ErrDepth, w.depth, w.i, MaxDepth)
	}
	return err
}

var (
	errDepth = errors.New("depth")
	errDup   = errors.New("repeated key")
)

// step is one element of the path to the value being walked: an object key
// (a slice of the document, or unescaped) or an array index.
type step struct {
	key   []byte
	index int
	isKey bool
}

type walker struct {
	b        []byte
	i        int
	depth    int
	complete bool
	noKeys   bool // skip only: no repeated-key check (Decode's fallback)
	path     []step
}

// pathString renders the path for an error message: "$", "$.jobs[3].a".
func (w *walker) pathString() string {
	var sb strings.Builder
	sb.WriteByte('$')
	for _, s := range w.path {
		if s.isKey {
			sb.WriteByte('.')
			sb.Write(s.key)
		} else {
			sb.WriteByte('[')
			sb.WriteString(strconv.Itoa(s.index))
			sb.WriteByte(']')
		}
	}
	return sb.String()
}

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

type fieldSet struct {
	index    map[string]int    // exact name -> field number
	types    []reflect.Type    // by field number
	names    []string          // by field number
	lower    map[string]string // lower-cased name -> exact name
	required []int             // field numbers without omitempty, in field order
}

var cache sync.Map // reflect.Type -> *fieldSet

func fields(t reflect.Type) *fieldSet {
	if fs, ok := cache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{index: map[string]int{}, lower: map[string]string{}}
	addFields(fs, t)
	cache.Store(t, fs)
	return fs
}

func addFields(fs *fieldSet, t reflect.Type) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				addFields(fs, ft)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		n, ok := fs.index[name]
		if !ok {
			n = len(fs.types)
			fs.types = append(fs.types, nil)
			fs.names = append(fs.names, name)
			fs.index[name] = n
		}
		fs.types[n] = resolve(f.Type)
		fs.lower[strings.ToLower(name)] = name
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") {
			fs.required = append(fs.required, n)
		}
	}
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// keySet remembers the keys of one object to catch a repeat: a linear scan
// while the object is small, a map after that.
type keySet struct {
	small [8][]byte
	n     int
	big   map[string]struct{}
}

// add reports whether key was new.
func (s *keySet) add(key []byte) bool {
	if s.big != nil {
		if _, ok := s.big[string(key)]; ok {
			return false
		}
		s.big[string(key)] = struct{}{}
		return true
	}
	for _, k := range s.small[:s.n] {
		if string(k) == string(key) {
			return false
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = key
		s.n++
		return true
	}
	s.big = make(map[string]struct{}, 2*len(s.small))
	for _, k := range s.small {
		s.big[string(k)] = struct{}{}
	}
	s.big[string(key)] = struct{}{}
	return true
}

func (w *walker) space() {
	for w.i < len(w.b) {
		switch w.b[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// str reads a string at w.i (after its opening quote has been seen at
// w.i) and returns its contents, unescaped if it holds escapes.
func (w *walker) str() ([]byte, error) {
	b := w.b
	w.i++ // opening quote
	start := w.i
	escaped := false
	for w.i < len(b) {
		c := b[w.i]
		switch {
		case c == '"':
			s := b[start:w.i]
			w.i++
			if escaped {
				var u string
				if err := json.Unmarshal(b[start-1:w.i], &u); err != nil {
					return nil, errMalformed
				}
				return []byte(u), nil
			}
			return s, nil
		case c == '\\':
			escaped = true
			if w.i+1 >= len(b) {
				return nil, errMalformed
			}
			switch b[w.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				w.i += 2
			case 'u':
				if w.i+6 > len(b) {
					return nil, errMalformed
				}
				for _, h := range b[w.i+2 : w.i+6] {
					if !isHex(h) {
						return nil, errMalformed
					}
				}
				w.i += 6
			default:
				return nil, errMalformed
			}
		case c < 0x20:
			return nil, errMalformed
		default:
			w.i++
		}
	}
	return nil, errMalformed
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// number reads a number at w.i: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (w *walker) number() error {
	b := w.b
	if w.i < len(b) && b[w.i] == '-' {
		w.i++
	}
	switch {
	case w.i < len(b) && b[w.i] == '0':
		w.i++
	case w.i < len(b) && isDigit(b[w.i]):
		for w.i < len(b) && isDigit(b[w.i]) {
			w.i++
		}
	default:
		return errMalformed
	}
	if w.i < len(b) && b[w.i] == '.' {
		w.i++
		if w.i >= len(b) || !isDigit(b[w.i]) {
			return errMalformed
		}
		for w.i < len(b) && isDigit(b[w.i]) {
			w.i++
		}
	}
	if w.i < len(b) && (b[w.i] == 'e' || b[w.i] == 'E') {
		w.i++
		if w.i < len(b) && (b[w.i] == '+' || b[w.i] == '-') {
			w.i++
		}
		if w.i >= len(b) || !isDigit(b[w.i]) {
			return errMalformed
		}
		for w.i < len(b) && isDigit(b[w.i]) {
			w.i++
		}
	}
	return nil
}

func (w *walker) literal(lit string) error {
	if len(w.b)-w.i < len(lit) || string(w.b[w.i:w.i+len(lit)]) != lit {
		return errMalformed
	}
	w.i += len(lit)
	return nil
}

// key reads an object key and the colon after it, and checks it against
// seen.
func (w *walker) key(seen *keySet) ([]byte, error) {
	if w.i >= len(w.b) || w.b[w.i] != '"' {
		return nil, errMalformed
	}
	key, err := w.str()
	if err != nil {
		return nil, err
	}
	w.space()
	if w.i >= len(w.b) || w.b[w.i] != ':' {
		return nil, errMalformed
	}
	w.i++
	if !w.noKeys && !seen.add(key) {
		return key, errDup
	}
	return key, nil
}

// resolve returns the type whose keys the walk checks for a value of type
// t: t without its pointers, or nil (any type) for a type with its own
// UnmarshalJSON, whose decoder checks its keys (the walk still catches
// repeats). Resolved once per field, element or root type, not per value.
func resolve(t reflect.Type) reflect.Type {
	for k := 0; t != nil && t.Kind() == reflect.Pointer; k++ {
		if t.Implements(unmarshaler) || k == 64 { // type P *P never ends
			return nil
		}
		t = t.Elem()
	}
	if t != nil && reflect.PointerTo(t).Implements(unmarshaler) {
		return nil
	}
	return t
}

// value consumes one value of type t (nil: any type), with the white space
// before it.
func (w *walker) value(t reflect.Type) error { return w.resolved(resolve(t)) }

// resolved is value for a type resolve returned.
func (w *walker) resolved(t reflect.Type) error {
	w.space()
	if w.i >= len(w.b) {
		return errMalformed
	}
	switch c := w.b[w.i]; {
	case c == '{':
		return w.object(t)
	case c == '[':
		return w.array(t)
	case c == '"':
		_, err := w.str()
		return err
	case c == 't':
		return w.literal("true")
	case c == 'f':
		return w.literal("false")
	case c == 'n':
		return w.literal("null")
	case c == '-' || isDigit(c):
		return w.number()
	}
	return errMalformed
}

func (w *walker) enter() error {
	w.depth++
	if w.depth > MaxDepth {
		return errDepth
	}
	w.i++
	return nil
}

func (w *walker) object(t reflect.Type) error {
	if err := w.enter(); err != nil {
		return err
	}
	var fs *fieldSet
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fs = fields(t)
		case reflect.Map:
			elem = resolve(t.Elem())
		}
	}
	var seen keySet
	var mask uint64            // fields seen, when at most 64
	var seenField map[int]bool // fields seen, beyond 64
	w.path = append(w.path, step{isKey: true})
	top := len(w.path) - 1
	w.space()
	if w.i < len(w.b) && w.b[w.i] == '}' {
		w.i++
	} else {
		for {
			w.space()
			var key []byte
			var err error
			if fs != nil {
				// Fields are tracked by number: no key set needed.
				if w.i >= len(w.b) || w.b[w.i] != '"' {
					return errMalformed
				}
				if key, err = w.str(); err != nil {
					return err
				}
				w.space()
				if w.i >= len(w.b) || w.b[w.i] != ':' {
					return errMalformed
				}
				w.i++
			} else if key, err = w.key(&seen); err != nil {
				if err == errDup {
					w.path = w.path[:top]
					return fmt.Errorf("%w: %s: key %q given twice", ErrKey, w.pathString(), key)
				}
				return err
			}
			sub := elem
			if fs != nil {
				n, ok := fs.index[string(key)]
				if !ok {
					w.path = w.path[:top]
					if exact, ok := fs.lower[strings.ToLower(string(key))]; ok {
						return fmt.Errorf("%w: %s: key %q, want %q spelled exactly", ErrKey, w.pathString(), key, exact)
					}
					return fmt.Errorf("%w: %s: unknown key %q", ErrKey, w.pathString(), key)
				}
				var dup bool
				if n < 64 {
					dup = mask&(1<<n) != 0
					mask |= 1 << n
				} else {
					if seenField == nil {
						seenField = map[int]bool{}
					}
					dup = seenField[n]
					seenField[n] = true
				}
				if dup {
					w.path = w.path[:top]
					return fmt.Errorf("%w: %s: key %q given twice", ErrKey, w.pathString(), key)
				}
				sub = fs.types[n]
			}
			w.path[top].key = key
			if err := w.resolved(sub); err != nil {
				return err
			}
			w.space()
			if w.i < len(w.b) && w.b[w.i] == ',' {
				w.i++
				continue
			}
			if w.i < len(w.b) && w.b[w.i] == '}' {
				w.i++
				break
			}
			return errMalformed
		}
	}
	w.path = w.path[:top]
	w.depth--
	if w.complete && fs != nil {
		for _, n := range fs.required {
			if !(n < 64 && mask&(1<<n) != 0 || n >= 64 && seenField[n]) {
				return fmt.Errorf("%w: %s: key %q", ErrMissing, w.pathString(), fs.names[n])
			}
		}
	}
	return nil
}

func (w *walker) array(t reflect.Type) error {
	if err := w.enter(); err != nil {
		return err
	}
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = resolve(t.Elem())
	}
	w.path = append(w.path, step{})
	top := len(w.path) - 1
	w.space()
	if w.i < len(w.b) && w.b[w.i] == ']' {
		w.i++
	} else {
		for n := 0; ; n++ {
			w.path[top].index = n
			if err := w.resolved(elem); err != nil {
				return err
			}
			w.space()
			if w.i < len(w.b) && w.b[w.i] == ',' {
				w.i++
				continue
			}
			if w.i < len(w.b) && w.b[w.i] == ']' {
				w.i++
				break
			}
			return errMalformed
		}
	}
	w.path = w.path[:top]
	w.depth--
	return nil
}
