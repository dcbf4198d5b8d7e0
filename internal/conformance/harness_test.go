package conformance

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/msched/msched/bipartite"
)

// The promises of the README's contract table, in the order of the
// printed table.
var promises = []string{"determinism", "lifetime", "snapshot", "change", "logger", "errors"}

// A suite is one family's table, type-erased so that TestConformance
// ranges over every family alike.
type suite interface {
	rows() []string
	check(t *testing.T, row, promise string) error
}

// family describes one family to the suite: its model and one cluster
// edit, its observations and feedback, its sentinels, and the table of
// its policies. M is the model type, Map the Mapping, Obs/Dec/Fb the
// family's observation, decision and feedback types.
type family[M, Map, Obs, Dec, Fb any] struct {
	// log is the family attribute of the log records ("ogasched", ...).
	log string
	// sentinels are the family's errors.go sentinels; a failed call must
	// wrap one of them.
	sentinels []error
	// model builds the small model every policy runs on.
	model func() (M, error)
	// edit returns a changed model and its Mapping, built by the model's
	// edit method, and an invalid mapping for the same changed model.
	edit func(M) (M, Map, Map, error)
	// obs is slot s's observation on model m (a function of m and s only).
	obs func(m M, s int) Obs
	// bad is a malformed observation on m (wrong length, invalid job).
	bad func(m M, s int) Obs
	// valid checks a decision independently of the policy (nil: none).
	valid func(m M, obs Obs, d Dec) error
	// feedback is slot s's feedback on decision d (it copies what it
	// keeps); nil when the family has no learners.
	feedback func(m M, s int, obs Obs, d Dec) Fb
	// slots is the length of a run.
	slots    int
	policies []entry[M, Obs, Dec]
}

// entry is one row: a policy and how to build it with a logger; alt, if
// set, builds the same policy with other workers (or any setting that
// must not change a decision), which determinism compares bit for bit.
type entry[M, Obs, Dec any] struct {
	name string
	mk   func(m M, log *slog.Logger) (any, error)
	alt  func(m M) (any, error)
}

type snapshotter interface {
	MarshalBinary() ([]byte, error)
	UnmarshalBinary([]byte) error
}

type jsonSnapshotter interface {
	MarshalJSON() ([]byte, error)
	UnmarshalJSON([]byte) error
}

type changer[M, Map any] interface {
	ChangeCluster(M, Map) error
}

func (f *family[M, Map, Obs, Dec, Fb]) rows() []string {
	var out []string
	for _, e := range f.policies {
		out = append(out, e.name)
	}
	return out
}

func (f *family[M, Map, Obs, Dec, Fb]) entry(row string) entry[M, Obs, Dec] {
	for _, e := range f.policies {
		if e.name == row {
			return e
		}
	}
	panic("conformance: no row " + row)
}

// fresh builds row's policy on m.
func (f *family[M, Map, Obs, Dec, Fb]) fresh(row string, m M, log *slog.Logger) (bipartite.OnlinePolicy[Obs, Dec], error) {
	p, err := f.entry(row).mk(m, log)
	if err != nil {
		return nil, fmt.Errorf("build: %w", err)
	}
	op, ok := p.(bipartite.OnlinePolicy[Obs, Dec])
	if !ok {
		return nil, fmt.Errorf("%T is not the family's OnlinePolicy", p)
	}
	return op, nil
}

// step runs slot s on p: Decide, encode, check, build the feedback from
// the decision, then (hostile) overwrite the decision with garbage, then
// Observe. It returns the decision's encoding and the feedback given.
func (f *family[M, Map, Obs, Dec, Fb]) step(p bipartite.OnlinePolicy[Obs, Dec], m M, s int, hostile bool) (string, error) {
	obs := f.obs(m, s)
	d, err := p.Decide(s, obs)
	if err != nil {
		return "", fmt.Errorf("Decide(%d): %w", s, err)
	}
	enc := encode(d)
	if f.valid != nil {
		if err := f.valid(m, obs, d); err != nil {
			return "", fmt.Errorf("Decide(%d): invalid decision: %w", s, err)
		}
	}
	l, learns := p.(bipartite.Learner[Fb])
	var fb Fb
	if learns && f.feedback != nil {
		fb = f.feedback(m, s, obs, d)
	}
	if hostile {
		garble(reflect.ValueOf(d))
	}
	if learns && f.feedback != nil {
		if err := l.Observe(s, fb); err != nil {
			return "", fmt.Errorf("Observe(%d): %w", s, err)
		}
	}
	return enc, nil
}

// run runs slots [from, to) and returns the encoded decisions.
func (f *family[M, Map, Obs, Dec, Fb]) run(p bipartite.OnlinePolicy[Obs, Dec], m M, from, to int, hostile bool) ([]string, error) {
	var out []string
	for s := from; s < to; s++ {
		e, err := f.step(p, m, s, hostile)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func (f *family[M, Map, Obs, Dec, Fb]) check(t *testing.T, row, promise string) error {
	m, err := f.model()
	if err != nil {
		return fmt.Errorf("model: %w", err)
	}
	switch promise {
	case "determinism":
		return f.determinism(row, m)
	case "lifetime":
		return f.lifetime(row, m)
	case "snapshot":
		return f.snapshot(row, m)
	case "change":
		return f.change(row, m)
	case "logger":
		return f.logger(row, m)
	case "errors":
		return f.errors(row, m)
	}
	return fmt.Errorf("unknown promise %q", promise)
}

// twins builds n policies of row on m.
func (f *family[M, Map, Obs, Dec, Fb]) twins(row string, m M, n int) ([]bipartite.OnlinePolicy[Obs, Dec], error) {
	out := make([]bipartite.OnlinePolicy[Obs, Dec], n)
	for i := range out {
		p, err := f.fresh(row, m, nil)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}

func sameRun(what string, a, b []string) error {
	if len(a) != len(b) {
		return fmt.Errorf("%s: %d decisions, want %d", what, len(b), len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			return fmt.Errorf("%s: decision %d differs:\n want %s\n got  %s", what, i, clip(a[i]), clip(b[i]))
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func (f *family[M, Map, Obs, Dec, Fb]) determinism(row string, m M) error {
	ps, err := f.twins(row, m, 2)
	if err != nil {
		return err
	}
	a, err := f.run(ps[0], m, 0, f.slots, false)
	if err != nil {
		return err
	}
	b, err := f.run(ps[1], m, 0, f.slots, false)
	if err != nil {
		return err
	}
	if err := sameRun("twin", a, b); err != nil {
		return err
	}
	alt := f.entry(row).alt
	if alt == nil {
		return nil
	}
	p, err := alt(m)
	if err != nil {
		return fmt.Errorf("build the variant: %w", err)
	}
	if c, ok := p.(interface{ Close() }); ok {
		defer c.Close()
	}
	c, err := f.run(p.(bipartite.OnlinePolicy[Obs, Dec]), m, 0, f.slots, false)
	if err != nil {
		return err
	}
	return sameRun("other worker count", a, c)
}

func (f *family[M, Map, Obs, Dec, Fb]) lifetime(row string, m M) error {
	ps, err := f.twins(row, m, 2)
	if err != nil {
		return err
	}
	a, err := f.run(ps[0], m, 0, f.slots, false)
	if err != nil {
		return err
	}
	b, err := f.run(ps[1], m, 0, f.slots, true)
	if err != nil {
		return fmt.Errorf("with returned decisions overwritten: %w", err)
	}
	return sameRun("with returned decisions overwritten", a, b)
}

// pair returns p's binary and JSON snapshots, which must be the same bytes.
func pair(p any) (snapshotter, []byte, error) {
	s, ok := p.(snapshotter)
	if !ok {
		return nil, nil, fmt.Errorf("%T has no MarshalBinary/UnmarshalBinary", p)
	}
	j, ok := p.(jsonSnapshotter)
	if !ok {
		return nil, nil, fmt.Errorf("%T has no MarshalJSON/UnmarshalJSON", p)
	}
	bin, err := s.MarshalBinary()
	if err != nil {
		return nil, nil, fmt.Errorf("MarshalBinary: %w", err)
	}
	js, err := j.MarshalJSON()
	if err != nil {
		return nil, nil, fmt.Errorf("MarshalJSON: %w", err)
	}
	if string(bin) != string(js) {
		return nil, nil, errors.New("MarshalBinary and MarshalJSON differ")
	}
	return s, bin, nil
}

// restored builds row on m and restores data into it, through the binary
// (json false) or the JSON method.
func (f *family[M, Map, Obs, Dec, Fb]) restored(row string, m M, data []byte, json bool) (bipartite.OnlinePolicy[Obs, Dec], error) {
	p, err := f.fresh(row, m, nil)
	if err != nil {
		return nil, err
	}
	if json {
		j, ok := p.(jsonSnapshotter)
		if !ok {
			return nil, fmt.Errorf("%T has no UnmarshalJSON", p)
		}
		err = j.UnmarshalJSON(data)
	} else {
		s, ok := p.(snapshotter)
		if !ok {
			return nil, fmt.Errorf("%T has no UnmarshalBinary", p)
		}
		err = s.UnmarshalBinary(data)
	}
	if err != nil {
		return nil, fmt.Errorf("restore (json %v): %w", json, err)
	}
	_, again, err := pair(p)
	if err != nil {
		return nil, err
	}
	if string(again) != string(data) {
		return nil, fmt.Errorf("restore (json %v): the restored policy's snapshot differs from the one restored", json)
	}
	return p, nil
}

func (f *family[M, Map, Obs, Dec, Fb]) snapshot(row string, m M) error {
	ps, err := f.twins(row, m, 1)
	if err != nil {
		return err
	}
	p, half := ps[0], f.slots/2
	first, err := f.run(p, m, 0, half, false)
	if err != nil {
		return err
	}
	_, data, err := pair(p)
	if err != nil {
		return err
	}
	want, err := f.run(p, m, half, f.slots, false)
	if err != nil {
		return err
	}
	for _, json := range []bool{false, true} {
		q, err := f.restored(row, m, data, json)
		if err != nil {
			return err
		}
		got, err := f.run(q, m, half, f.slots, false)
		if err != nil {
			return fmt.Errorf("after restore (json %v): %w", json, err)
		}
		if err := sameRun(fmt.Sprintf("continuation after restore (json %v)", json), want, got); err != nil {
			return err
		}
	}
	_ = first
	return nil
}

// wraps reports whether err wraps one of the family's sentinels.
func (f *family[M, Map, Obs, Dec, Fb]) wraps(err error) bool {
	for _, s := range f.sentinels {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}

// failed checks that err is a failure wrapping a sentinel and that p's
// snapshot still equals before.
func (f *family[M, Map, Obs, Dec, Fb]) failed(what string, p any, before []byte, err error) error {
	if err == nil {
		return fmt.Errorf("%s: no error", what)
	}
	if !f.wraps(err) {
		return fmt.Errorf("%s: error %q wraps none of the family's sentinels", what, err)
	}
	_, after, err2 := pair(p)
	if err2 != nil {
		return err2
	}
	if string(after) != string(before) {
		return fmt.Errorf("%s: the failed call changed the policy's state", what)
	}
	return nil
}

func (f *family[M, Map, Obs, Dec, Fb]) change(row string, m M) error {
	m2, mp, bad, err := f.edit(m)
	if err != nil {
		return fmt.Errorf("edit: %w", err)
	}
	ps, err := f.twins(row, m, 1)
	if err != nil {
		return err
	}
	p, half := ps[0], f.slots/2
	if _, err := f.run(p, m, 0, half, false); err != nil {
		return err
	}
	c, ok := p.(changer[M, Map])
	if !ok {
		var mm M
		var mpp Map
		return fmt.Errorf("%T has no ChangeCluster(%T, %T)", p, mm, mpp)
	}
	_, before, err := pair(p)
	if err != nil {
		return err
	}
	if err := f.failed("ChangeCluster with a bad mapping", p, before, c.ChangeCluster(m2, bad)); err != nil {
		return err
	}
	var none M
	if err := f.failed("ChangeCluster with a nil model", p, before, guard(func() error { return c.ChangeCluster(none, mp) })); err != nil {
		return err
	}
	if err := c.ChangeCluster(m2, mp); err != nil {
		return fmt.Errorf("ChangeCluster: %w", err)
	}
	_, data, err := pair(p)
	if err != nil {
		return err
	}
	want, err := f.run(p, m2, half, f.slots, false)
	if err != nil {
		return fmt.Errorf("after ChangeCluster: %w", err)
	}
	q, err := f.restored(row, m2, data, false)
	if err != nil {
		return fmt.Errorf("snapshot taken after ChangeCluster on the changed model: %w", err)
	}
	got, err := f.run(q, m2, half, f.slots, false)
	if err != nil {
		return err
	}
	if err := sameRun("continuation of a snapshot taken after ChangeCluster", want, got); err != nil {
		return err
	}
	old, err := f.fresh(row, m, nil)
	if err != nil {
		return err
	}
	_, oldBefore, err := pair(old)
	if err != nil {
		return err
	}
	return f.failed("restoring a snapshot taken after ChangeCluster on the old model", old, oldBefore, old.(snapshotter).UnmarshalBinary(data))
}

// guard turns a panic of f into an error that wraps no sentinel.
func guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return f()
}

// records is a slog.Handler that keeps every record.
type records struct {
	mu    sync.Mutex
	attrs []slog.Attr
	out   *[]slog.Record
}

func (h *records) Enabled(context.Context, slog.Level) bool { return true }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	r = r.Clone()
	r.AddAttrs(h.attrs...)
	*h.out = append(*h.out, r)
	return nil
}
func (h *records) WithAttrs(as []slog.Attr) slog.Handler {
	return &records{attrs: append(slices.Clone(h.attrs), as...), out: h.out}
}
func (h *records) WithGroup(string) slog.Handler { return h }

var vocabulary = map[string]bool{"decide": true, "observe": true, "rebuild": true, "outcome": true}

func (f *family[M, Map, Obs, Dec, Fb]) logger(row string, m M) error {
	var recs []slog.Record
	p, err := f.fresh(row, m, slog.New(&records{out: &recs}))
	if err != nil {
		return err
	}
	half := f.slots / 2
	if _, err := f.run(p, m, 0, half, false); err != nil {
		return err
	}
	m2, mp, _, err := f.edit(m)
	if err != nil {
		return err
	}
	c, ok := p.(changer[M, Map])
	if ok {
		if err := c.ChangeCluster(m2, mp); err != nil {
			return fmt.Errorf("ChangeCluster: %w", err)
		}
		if _, err := f.run(p, m2, half, f.slots, false); err != nil {
			return err
		}
	}
	slots := map[int64]bool{}
	for _, r := range recs {
		if !vocabulary[r.Message] {
			return fmt.Errorf("record %q: not one of decide, observe, rebuild, outcome", r.Message)
		}
		got := map[string]slog.Value{}
		r.Attrs(func(a slog.Attr) bool { got[a.Key] = a.Value; return true })
		if v, ok := got["family"]; !ok || v.String() != f.log {
			return fmt.Errorf("record %q: family = %v, want %q", r.Message, v, f.log)
		}
		if v, ok := got["policy"]; !ok || v.String() != p.Name() {
			return fmt.Errorf("record %q: policy = %v, want Name() = %q", r.Message, v, p.Name())
		}
		v, ok := got["slot"]
		if !ok || v.Kind() != slog.KindInt64 {
			return fmt.Errorf("record %q: slot = %v, want an int attribute", r.Message, v)
		}
		slots[v.Int64()] = true
	}
	if len(slots) < f.slots {
		return fmt.Errorf("records for %d of %d slots: Settings.Logger missing or unused", len(slots), f.slots)
	}
	return nil
}

func (f *family[M, Map, Obs, Dec, Fb]) errors(row string, m M) error {
	ps, err := f.twins(row, m, 2)
	if err != nil {
		return err
	}
	p, twin, half := ps[0], ps[1], f.slots/2
	if _, err := f.run(p, m, 0, half, false); err != nil {
		return err
	}
	if _, err := f.run(twin, m, 0, half, false); err != nil {
		return err
	}
	_, before, err := pair(p)
	if err != nil {
		return err
	}
	type call struct {
		what string
		do   func() error
	}
	calls := []call{
		{"Decide at the slot already decided", func() error { _, err := p.Decide(half-1, f.obs(m, half-1)); return err }},
		{"Decide at slot -1", func() error { _, err := p.Decide(-1, f.obs(m, half)); return err }},
		{"Decide on a malformed observation", func() error { _, err := p.Decide(half, f.bad(m, half)); return err }},
		{"UnmarshalBinary of garbage", func() error { return p.(snapshotter).UnmarshalBinary([]byte(`{"format":"nonsense"}`)) }},
		{"UnmarshalBinary of another policy's snapshot", func() error { return p.(snapshotter).UnmarshalBinary(alien) }},
	}
	if l, ok := p.(bipartite.Learner[Fb]); ok && f.feedback != nil {
		calls = append(calls, call{"Observe of a slot not decided", func() error {
			var fb Fb
			return l.Observe(half+3, fb)
		}})
	}
	for _, c := range calls {
		if err := f.failed(c.what, p, before, guard(c.do)); err != nil {
			return err
		}
	}
	a, err := f.run(p, m, half, f.slots, false)
	if err != nil {
		return fmt.Errorf("after the failed calls: %w", err)
	}
	b, err := f.run(twin, m, half, f.slots, false)
	if err != nil {
		return err
	}
	return sameRun("after the failed calls", b, a)
}

// alien is a well-formed snapshot envelope of no msched policy.
var alien = []byte(`{"format":"msched/none.Policy","version":1,"model":"0","check":"0","state":{}}`)

// encode writes a decision bit for bit: every float as its bits.
func encode(d any) string {
	var b strings.Builder
	enc(&b, reflect.ValueOf(d))
	return b.String()
}

func enc(b *strings.Builder, v reflect.Value) {
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		fmt.Fprintf(b, "%x ", math.Float64bits(v.Float()))
	case reflect.Slice, reflect.Array:
		b.WriteString("[")
		for i := range v.Len() {
			enc(b, v.Index(i))
		}
		b.WriteString("]")
	case reflect.Struct:
		b.WriteString("{")
		for i := range v.NumField() {
			enc(b, v.Field(i))
		}
		b.WriteString("}")
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			b.WriteString("nil ")
			return
		}
		enc(b, v.Elem())
	default:
		fmt.Fprintf(b, "%v ", v)
	}
}

// garble overwrites everything reachable through the slices of v, as a
// caller reusing a returned decision for its own data would.
func garble(v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		for i := range v.Len() {
			garble(v.Index(i))
		}
		// Also scribble over the spare capacity a policy may keep.
		if v.Cap() > v.Len() {
			w := v.Slice(v.Len(), v.Cap())
			for i := range w.Len() {
				garble(w.Index(i))
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			garble(v.Field(i))
		}
	case reflect.Pointer:
		if !v.IsNil() {
			garble(v.Elem())
		}
	}
	if !v.CanSet() {
		return
	}
	switch v.Kind() {
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.NaN())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(-7777)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7777)
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.String:
		v.SetString("garbage")
	}
}
