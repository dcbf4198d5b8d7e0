package strictjson

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Decode decodes b, one JSON value, into v (a non-nil pointer) with the
// result json.Unmarshal gives, in one pass for the kinds saved states are
// made of: structs (fields by their exact json name), pointers, slices,
// strings, bools, integers and floats. Anything else (maps, arrays,
// interfaces, types with their own UnmarshalJSON or UnmarshalText, a key
// that matches a field only up to case, a value of the wrong kind, a
// string with escapes, an integer out of range) is handed, value by
// value, to json.Unmarshal, which also gives the error. Unlike
// json.Unmarshal it stops at the first error, leaving v partly written.
// Keys are not checked: call Valid or Complete first.
func Decode(b []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return json.Unmarshal(b, v)
	}
	d := decoder{walker: walker{b: b}}
	if err := d.value(rv.Elem()); err != nil {
		return d.report(err)
	}
	d.space()
	if d.i != len(b) {
		return fmt.Errorf("%w: data after the JSON value at byte %d", ErrSyntax, d.i)
	}
	return nil
}

type decoder struct {
	walker
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	numberType      = reflect.TypeFor[json.Number]()
)

// decField is a struct field the fast path sets.
type decField struct {
	index int
	typ   reflect.Type
}

// decInfo is what the fast path knows of a type: whether it handles it
// (own is false for types json.Unmarshal must decode) and, for a struct,
// its fields by exact json name.
type decInfo struct {
	own    bool
	fields map[string]decField
}

var decCache sync.Map // reflect.Type -> *decInfo

func info(t reflect.Type) *decInfo {
	if di, ok := decCache.Load(t); ok {
		return di.(*decInfo)
	}
	di := &decInfo{own: true}
	if t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler) ||
		t.Implements(textUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) || t == numberType {
		di.own = false
	}
	switch t.Kind() {
	case reflect.Struct:
		di.fields = map[string]decField{}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous || hasOpt(opts, "string") {
				di.own = false // embedded fields and ,string: json's rules
				break
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !plainName(name) {
				di.own = false // json's rules for unusual tag names
				break
			}
			if _, dup := di.fields[name]; dup {
				di.own = false
				break
			}
			di.fields[name] = decField{index: i, typ: f.Type}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			di.own = false // base64
		}
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Pointer {
			di.own = false // **T (and type P *P, which would never end)
		}
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		di.own = false // maps, arrays, interfaces, ...
	}
	decCache.Store(t, di)
	return di
}

// fallback decodes the value at d.i into v with json.Unmarshal.
func (d *decoder) fallback(v reflect.Value) error {
	d.space()
	start := d.i
	w := walker{b: d.b, i: d.i, depth: d.depth, noKeys: true}
	if err := w.value(nil); err != nil {
		d.i, d.depth = w.i, w.depth
		return err
	}
	d.i = w.i
	if !v.CanAddr() {
		return fmt.Errorf("strictjson: cannot decode into an unaddressable %v", v.Type())
	}
	return json.Unmarshal(d.b[start:d.i], v.Addr().Interface())
}

// isNull consumes a null at d.i if there is one.
func (d *decoder) isNull() bool {
	if d.i < len(d.b) && d.b[d.i] == 'n' && d.literal("null") == nil {
		return true
	}
	return false
}

func (d *decoder) value(v reflect.Value) error { return d.valueInfo(v, info(v.Type())) }

// valueInfo is value with the decInfo of v's type (a slice looks it up
// once for all its elements).
func (d *decoder) valueInfo(v reflect.Value, di *decInfo) error {
	d.space()
	if d.i >= len(d.b) {
		return errMalformed
	}
	t := v.Type()
	if !di.own {
		return d.fallback(v)
	}
	c := d.b[d.i]
	switch t.Kind() {
	case reflect.Pointer:
		if d.isNull() {
			v.SetZero()
			return nil
		}
		if v.IsNil() {
			v.Set(reflect.New(t.Elem()))
		}
		return d.value(v.Elem())
	case reflect.Struct:
		if c != '{' {
			if d.isNull() {
				return nil
			}
			return d.fallback(v)
		}
		return d.object(v, di)
	case reflect.Slice:
		if c != '[' {
			if d.isNull() {
				v.SetZero()
				return nil
			}
			return d.fallback(v)
		}
		return d.slice(v)
	case reflect.String:
		if c != '"' {
			if d.isNull() {
				return nil
			}
			return d.fallback(v)
		}
		start := d.i
		s, plain := d.plainString()
		if !plain {
			d.i = start
			return d.fallback(v)
		}
		v.SetString(s)
		return nil
	case reflect.Bool:
		switch c {
		case 't':
			if d.literal("true") == nil {
				v.SetBool(true)
				return nil
			}
		case 'f':
			if d.literal("false") == nil {
				v.SetBool(false)
				return nil
			}
		case 'n':
			if d.isNull() {
				return nil
			}
		}
		return d.fallback(v)
	}
	// Numbers.
	if c == 'n' && d.isNull() {
		return nil
	}
	if c != '-' && !isDigit(c) {
		return d.fallback(v)
	}
	start := d.i
	if err := d.number(); err != nil {
		return err
	}
	num := unsafeString(d.b[start:d.i])
	var ok bool
	switch t.Kind() {
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(num, t.Bits())
		if ok = err == nil; ok {
			v.SetFloat(f)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(num, 10, t.Bits())
		if ok = err == nil; ok {
			v.SetInt(n)
		}
	default:
		n, err := strconv.ParseUint(num, 10, t.Bits())
		if ok = err == nil; ok {
			v.SetUint(n)
		}
	}
	if !ok {
		d.i = start
		return d.fallback(v)
	}
	return nil
}

// plainString reads a string at d.i and returns it if it has no escape
// and is valid UTF-8 (what json.Unmarshal would return unchanged).
func (d *decoder) plainString() (string, bool) {
	b := d.b
	i := d.i + 1
	ascii := true
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s := b[d.i+1 : i]
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			d.i = i + 1
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		i++
	}
	return "", false
}

func (d *decoder) object(v reflect.Value, di *decInfo) error {
	start := d.i
	if err := d.enter(); err != nil {
		return err
	}
	d.space()
	if d.i < len(d.b) && d.b[d.i] == '}' {
		d.i++
		d.depth--
		return nil
	}
	for {
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != '"' {
			return errMalformed
		}
		key, plain := d.plainString()
		f, found := di.fields[key]
		if !plain || !found {
			// Escaped, miscased or unknown key: json's rules for the
			// whole object (fields already set get the same values).
			d.i, d.depth = start, d.depth-1
			return d.fallback(v)
		}
		d.space()
		if d.i >= len(d.b) || d.b[d.i] != ':' {
			return errMalformed
		}
		d.i++
		if err := d.value(v.Field(f.index)); err != nil {
			return err
		}
		d.space()
		if d.i < len(d.b) && d.b[d.i] == ',' {
			d.i++
			continue
		}
		if d.i < len(d.b) && d.b[d.i] == '}' {
			d.i++
			break
		}
		return errMalformed
	}
	d.depth--
	return nil
}

func (d *decoder) slice(v reflect.Value) error {
	if err := d.enter(); err != nil {
		return err
	}
	t := v.Type()
	d.space()
	if d.i < len(d.b) && d.b[d.i] == ']' {
		d.i++
		d.depth--
		v.Set(reflect.MakeSlice(t, 0, 0)) // as json.Unmarshal: empty, not nil
		return nil
	}
	// As json.Unmarshal: decode into v's elements in place (merging),
	// growing the slice when it is full (json.Unmarshal's SetLen exposes
	// the elements between len and cap the same way).
	s := v
	if s.Cap() > 0 {
		s = s.Slice(0, s.Cap())
	}
	ei := info(t.Elem())
	n := 0
	for {
		if n >= s.Len() {
			ns := reflect.MakeSlice(t, max(4, 2*s.Len()), max(4, 2*s.Len()))
			reflect.Copy(ns, s)
			s = ns
		}
		if err := d.valueInfo(s.Index(n), ei); err != nil {
			return err
		}
		n++
		d.space()
		if d.i < len(d.b) && d.b[d.i] == ',' {
			d.i++
			continue
		}
		if d.i < len(d.b) && d.b[d.i] == ']' {
			d.i++
			break
		}
		return errMalformed
	}
	d.depth--
	v.Set(s.Slice(0, n))
	return nil
}

// plainName reports whether a json name is made of letters, digits, '_'
// and '-' only: names json.Unmarshal surely takes as written.
func plainName(name string) bool {
	for _, r := range name {
		if !(r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			return false
		}
	}
	return name != ""
}
