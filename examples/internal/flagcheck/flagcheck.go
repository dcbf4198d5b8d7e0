// Package flagcheck holds the flag checks the examples share: every
// float flag finite, counts not negative, lists without empty items. Each
// error names the flag, the value and what is wanted.
package flagcheck

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Finite returns an error naming every float64 flag of fs whose value is
// NaN or infinite (strconv accepts "NaN" and "Inf", and a NaN passes every
// range check written as a comparison that fails).
func Finite(fs *flag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		g, ok := f.Value.(flag.Getter)
		if !ok {
			return
		}
		if v, ok := g.Get().(float64); ok && (math.IsNaN(v) || math.IsInf(v, 0)) {
			errs = append(errs, fmt.Errorf("-%s = %v: want a finite number", f.Name, v))
		}
	})
	return errors.Join(errs...)
}

// NonNegative returns an error naming every listed int flag of fs whose
// value is negative (0 is each example's "default").
func NonNegative(fs *flag.FlagSet, names ...string) error {
	var errs []error
	for _, name := range names {
		f := fs.Lookup(name)
		if f == nil {
			errs = append(errs, fmt.Errorf("flagcheck: no flag -%s", name))
			continue
		}
		g, ok := f.Value.(flag.Getter)
		if !ok {
			continue
		}
		var v int64
		switch x := g.Get().(type) {
		case int:
			v = int64(x)
		case int64:
			v = x
		default:
			continue
		}
		if v < 0 {
			errs = append(errs, fmt.Errorf("-%s = %d: want >= 0 (0 for the default)", name, v))
		}
	}
	return errors.Join(errs...)
}

// Items splits a comma-separated list flag, trimming spaces. An empty
// list or an empty item ("1,,2", "1,", "") is an error naming the flag:
// it was skipped silently before.
func Items(name, s string) ([]string, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("-%s %q: item %d is empty", name, s, i+1)
		}
		parts[i] = p
	}
	return parts, nil
}

// Floats parses a comma-separated list of finite numbers in [lo, hi]
// (Items' rules, then each item), naming the flag and the item on error.
func Floats(name, s string, lo, hi float64) ([]float64, error) {
	items, err := Items(name, s)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, len(items))
	for _, it := range items {
		v, err := strconv.ParseFloat(it, 64)
		if err != nil || !(v >= lo && v <= hi) {
			return nil, fmt.Errorf("-%s: item %q: want a number in [%g, %g]", name, it, lo, hi)
		}
		out = append(out, v)
	}
	return out, nil
}
