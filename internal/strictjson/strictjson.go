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
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// ErrKey reports a repeated, miscased or unknown key; the message names the
// path of the object ("jobs[3].utility[0]") and the key.
var ErrKey = errors.New("strictjson: bad key")

// Check reports the first repeated, miscased or unknown key of b for a
// value of the type of v (a pointer or a value). Malformed JSON is not
// reported: Check stops quietly and leaves it to the decoder.
func Check(b []byte, v any) error { return check(b, v, false) }

// Complete is Check that also reports, wrapping ErrMissing, the first
// object of a struct type that lacks a field whose json tag has no
// omitempty (a null value counts as present).
func Complete(b []byte, v any) error { return check(b, v, true) }

// ErrMissing reports a required key that an object leaves out; the
// message names the path of the object and the key.
var ErrMissing = errors.New("strictjson: missing key")

func check(b []byte, v any, complete bool) error {
	t := reflect.TypeOf(v)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	w := walker{dec: dec, complete: complete}
	err := w.walk(t, "$")
	if errors.Is(err, errMalformed) {
		return nil
	}
	return err
}

type walker struct {
	dec      *json.Decoder
	complete bool
}

var errMalformed = errors.New("malformed")

var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

type fieldSet struct {
	exact    map[string]reflect.Type
	lower    map[string]string // lower-cased name -> exact name
	required []string          // names without omitempty, in field order
}

var cache sync.Map // reflect.Type -> *fieldSet

func fields(t reflect.Type) *fieldSet {
	if fs, ok := cache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{exact: map[string]reflect.Type{}, lower: map[string]string{}}
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
		fs.exact[name] = f.Type
		fs.lower[strings.ToLower(name)] = name
		if !hasOpt(opts, "omitempty") && !hasOpt(opts, "omitzero") {
			fs.required = append(fs.required, name)
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

// walk consumes one value of type t (nil: any type) from dec.
func (w *walker) walk(t reflect.Type, path string) error {
	dec := w.dec
	for t != nil && t.Kind() == reflect.Pointer {
		if t.Implements(unmarshaler) {
			t = nil
			break
		}
		t = t.Elem()
	}
	if t != nil && reflect.PointerTo(t).Implements(unmarshaler) {
		t = nil // its own decoder checks its keys; we still catch repeats
	}
	tok, err := dec.Token()
	if err != nil {
		return errMalformed
	}
	switch tok {
	case json.Delim('{'):
		var fs *fieldSet
		var elem reflect.Type
		if t != nil {
			switch t.Kind() {
			case reflect.Struct:
				fs = fields(t)
			case reflect.Map:
				elem = t.Elem()
			}
		}
		seen := map[string]bool{}
		for dec.More() {
			kt, err := dec.Token()
			if err != nil {
				return errMalformed
			}
			key, ok := kt.(string)
			if !ok {
				return errMalformed
			}
			if seen[key] {
				return fmt.Errorf("%w: %s: key %q given twice", ErrKey, path, key)
			}
			seen[key] = true
			sub := elem
			if fs != nil {
				ft, ok := fs.exact[key]
				if !ok {
					if exact, ok := fs.lower[strings.ToLower(key)]; ok {
						return fmt.Errorf("%w: %s: key %q, want %q spelled exactly", ErrKey, path, key, exact)
					}
					return fmt.Errorf("%w: %s: unknown key %q", ErrKey, path, key)
				}
				sub = ft
			}
			if err := w.walk(sub, path+"."+key); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return errMalformed
		}
		if w.complete && fs != nil {
			for _, name := range fs.required {
				if !seen[name] {
					return fmt.Errorf("%w: %s: key %q", ErrMissing, path, name)
				}
			}
		}
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for i := 0; dec.More(); i++ {
			if err := w.walk(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return errMalformed
		}
	}
	return nil
}
