package baselines_test

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/msched/msched/internal/snapshottest"
)

// The restore fuzz targets, one per family, cover every UnmarshalBinary of
// the family and its baselines (which selects the policy). Their property
// (snapshottest.Restore) is stronger than "no panic": the bytes as given,
// and resealed with a recomputed check so that altered states reach the
// semantic validation, are either refused with the family's ErrSnapshot,
// leaving the policy unchanged, or the restored policy runs 10 more slots
// on valid input with every decision feasible, and the snapshot it then
// saves restores into a fresh policy that saves the same bytes. Slots stay
// 1024 below math.MaxInt (valid input must be able to follow); OCORP+ runs
// only from slots below 2^20 (its QP at extreme slot numbers is the
// subject of issue 22's class 2, not of restore).

func familyCases(prefix ...string) []stateful {
	var out []stateful
	for _, c := range allStateful() {
		for _, p := range prefix {
			if c.name == p {
				out = append(out, c)
			}
		}
	}
	return out
}

var (
	ogaFamily   = []string{"ogasched.Policy", "DRF", "FAIRNESS", "BINPACKING", "SPREADING"}
	osmFamily   = []string{"onsocmax.Policy", "MAX-FIRST", "EQUAL-SHARE"}
	esdpFamily  = []string{"esdp.Policy", "HSWF", "LCF", "LWTF", "CUCB", "Thompson", "HSWF-channel"}
	ocorpFamily = []string{"OCORP", "OCORP+M", "OCORP+", "SRPT", "SRVF", "SVF", "SRF", "Tetris", "FirstFit"}
)

func fuzzRestore(f *testing.F, family []string) {
	cases := familyCases(family...)
	if len(cases) != len(family) {
		f.Fatalf("%d cases for %v", len(cases), family)
	}
	for i, c := range cases {
		p := c.fresh(f)
		c.drive(f, p, 0, 4)
		data := must[[]byte](f)(p.MarshalBinary())
		f.Add(uint8(i), data)
		f.Add(uint8(i), data[:len(data)-7])
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		c := cases[int(which)%len(cases)]
		snapshottest.Restore(t, data, c.sentinel, func() snapshottest.Policy { return c.fresh(t) }, run10(t, c))
	})
}

// run10 drives a restored policy for up to 10 slots after its last one.
func run10(t *testing.T, c stateful) func(snapshottest.Policy) error {
	return func(p snapshottest.Policy) error {
		last := -1
		for _, k := range []string{"last", "last_t", "decided", "now"} {
			if v, ok := snapshottest.Int(p, k); ok {
				last = v
				break
			}
		}
		if c.name == "OCORP+" && last >= 1<<20 {
			return nil
		}
		if s := snapshottest.Slots(last, 10, 1<<10); len(s) > 0 {
			c.drive(t, p, s[0], s[0]+len(s))
		}
		return nil
	}
}

func FuzzRestoreOGASched(f *testing.F) { fuzzRestore(f, ogaFamily) }
func FuzzRestoreOnSocMax(f *testing.F) { fuzzRestore(f, osmFamily) }
func FuzzRestoreESDP(f *testing.F)     { fuzzRestore(f, esdpFamily) }
func FuzzRestoreOCORP(f *testing.F)    { fuzzRestore(f, ocorpFamily) }

// TestWriteRestoreCorpus writes the committed seed corpora of the restore
// fuzz targets (testdata/fuzz/FuzzRestore*/) when MSCHED_WRITE_CORPUS=1:
// per policy a clean snapshot after 4 slots, and resealed states that the
// semantic validation must refuse, so that the fuzzer starts past the
// check.
func TestWriteRestoreCorpus(t *testing.T) {
	if os.Getenv("MSCHED_WRITE_CORPUS") != "1" {
		t.Skip("set MSCHED_WRITE_CORPUS=1 to rewrite testdata/fuzz/FuzzRestore*")
	}
	for target, family := range map[string][]string{
		"FuzzRestoreOGASched": ogaFamily, "FuzzRestoreOnSocMax": osmFamily,
		"FuzzRestoreESDP": esdpFamily, "FuzzRestoreOCORP": ocorpFamily,
	} {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for i, c := range familyCases(family...) {
			p := c.fresh(t)
			c.drive(t, p, 0, 4)
			data := must[[]byte](t)(p.MarshalBinary())
			write := func(kind string, b []byte) {
				name := strings.NewReplacer(".", "-", "+", "plus").Replace(c.name) + "-" + kind
				body := fmt.Sprintf("go test fuzz v1\nbyte(%q)\n[]byte(%q)\n", rune(i), b)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("valid", data)
			write("empty-state", snapshottest.Edit(t, data, func(st map[string]any) { clear(st) }))
			write("big-numbers", snapshottest.Edit(t, data, func(st map[string]any) {
				for k, v := range st {
					if _, ok := v.(interface{ Int64() (int64, error) }); ok {
						st[k] = json.Number("9223372036854775807")
					}
				}
			}))
		}
	}
}

// numberLeaves returns setters for every number of a decoded state, in a
// fixed order (keys sorted).
func numberLeaves(v any) []func(json.Number) {
	var out []func(json.Number)
	var walk func(v any, set func(any))
	walk = func(v any, set func(any)) {
		switch x := v.(type) {
		case json.Number:
			out = append(out, func(n json.Number) { set(n) })
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k], func(n any) { x[k] = n })
			}
		case []any:
			for i := range x {
				walk(x[i], func(n any) { x[i] = n })
			}
		}
	}
	walk(v, func(any) {})
	return out
}

// FuzzRestoreNumbers sets one number of a valid state of any stateful
// policy (which) to an arbitrary float or integer and reseals it, so that
// every input reaches the semantic validation: the restore property of
// snapshottest.Restore must hold (refused and unchanged, or 10 feasible
// slots and a round trip). Random byte mutation rarely produces a valid
// JSON state; this target explores the values.
func FuzzRestoreNumbers(f *testing.F) {
	cases := allStateful()
	valid := make([][]byte, len(cases))
	for i, c := range cases {
		p := c.fresh(f)
		c.drive(f, p, 0, 4)
		valid[i] = must[[]byte](f)(p.MarshalBinary())
	}
	f.Add(index(cases, "ogasched.Policy"), uint16(0), 1e308, int64(0), false)
	f.Add(index(cases, "OCORP"), uint16(3), 1e308, int64(0), false)
	f.Add(index(cases, "OCORP+"), uint16(1), math.Inf(1), int64(0), false)
	f.Add(index(cases, "LWTF"), uint16(0), 0.0, int64(math.MaxInt64), true)
	f.Add(index(cases, "onsocmax.Policy"), uint16(2), -1.0, int64(-1), true)
	f.Fuzz(func(t *testing.T, which uint8, leaf uint16, fv float64, iv int64, asInt bool) {
		restoreEdited(t, cases, valid, which, []setLeaf{{leaf, fv, iv, asInt}})
	})
}

// index returns the position of the case named name (a seed's which).
func index(cases []stateful, name string) uint8 {
	for i, c := range cases {
		if c.name == name {
			return uint8(i)
		}
	}
	panic("no stateful policy " + name)
}

// setLeaf sets number leaf (modulo their count) of a state to fv, or to
// iv if asInt.
type setLeaf struct {
	leaf  uint16
	fv    float64
	iv    int64
	asInt bool
}

func restoreEdited(t *testing.T, cases []stateful, valid [][]byte, which uint8, sets []setLeaf) {
	i := int(which) % len(cases)
	c := cases[i]
	for _, e := range sets {
		if !e.asInt && (math.IsNaN(e.fv) || math.IsInf(e.fv, 0)) {
			return // not JSON
		}
	}
	data := snapshottest.Edit(t, valid[i], func(st map[string]any) {
		ls := numberLeaves(st)
		if len(ls) == 0 {
			return
		}
		for _, e := range sets {
			n := json.Number(strconv.FormatInt(e.iv, 10))
			if !e.asInt {
				n = json.Number(strconv.FormatFloat(e.fv, 'g', -1, 64))
			}
			ls[int(e.leaf)%len(ls)](n)
		}
	})
	snapshottest.Restore(t, data, c.sentinel, func() snapshottest.Policy { return c.fresh(t) }, run10(t, c))
}

// FuzzRestoreTwoNumbers is FuzzRestoreNumbers with two numbers changed at
// once, to reach states whose parts contradict each other (a slot and a
// counter, a multiplier and the slot that bounds it).
func FuzzRestoreTwoNumbers(f *testing.F) {
	cases := allStateful()
	valid := make([][]byte, len(cases))
	for i, c := range cases {
		p := c.fresh(f)
		c.drive(f, p, 0, 4)
		valid[i] = must[[]byte](f)(p.MarshalBinary())
	}
	f.Add(index(cases, "OCORP+"), uint16(0), 1e300, int64(0), false, uint16(5), 0.0, int64(1<<40), true)
	f.Add(index(cases, "LWTF"), uint16(1), 0.0, int64(1<<62), true, uint16(3), 0.0, int64(1<<62), true)
	f.Fuzz(func(t *testing.T, which uint8, l1 uint16, f1 float64, i1 int64, b1 bool, l2 uint16, f2 float64, i2 int64, b2 bool) {
		restoreEdited(t, cases, valid, which, []setLeaf{{l1, f1, i1, b1}, {l2, f2, i2, b2}})
	})
}
