package esdp

import (
	"errors"
	"strings"
	"testing"
)

// TestExportedHelpersRejectNil: every exported helper that takes a
// pointer returns an error wrapping a sentinel for nil, never panics
// (issue 30; CheckGangState, ObserveGang, CarryGang, Fingerprint and
// GangFingerprint are no longer exported).
func TestExportedHelpersRejectNil(t *testing.T) {
	var st Stats
	for name, f := range map[string]func() error{
		"CheckState(nil stats)":     func() error { _, err := CheckState(nil, false, 0, nil, 3); return err },
		"CheckPending(nil cluster)": func() error { return CheckPending(nil, []bool{true}) },
		"Stats.Carry(nil graphs)":   func() error { _, err := st.Carry(nil, nil, nil, nil); return err },
		"NewGangChannels(nil)":      func() error { _, err := NewGangChannels(nil); return err },
		"SolveBudgeted(nil)":        func() error { _, err := SolveBudgeted(nil, OracleSettings{}); return err },
		"SolveKnapsack(nil)":        func() error { _, err := SolveKnapsack(nil, OracleSettings{}); return err },
		"Algorithm2(nil)":           func() error { _, err := Algorithm2(nil, OracleSettings{}); return err },
		"GangOracle.Solve(nil)":     func() error { var o GangOracle; _, err := o.Solve(nil, nil); return err },
		"Run(nil)":                  func() error { _, err := Run(nil, nil, RunSettings{}); return err },
		"RunGang(nil)":              func() error { _, err := RunGang(nil, nil, RunSettings{}); return err },
	} {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s panics: %v", name, r)
				}
			}()
			err := f()
			if err == nil || !(errors.Is(err, ErrDimension) || errors.Is(err, ErrValue) || errors.Is(err, ErrSnapshot)) {
				t.Errorf("%s: %v, want an error wrapping ErrDimension, ErrValue or ErrSnapshot", name, err)
			}
		}()
	}
}

// TestErrTooLargeNamesTheLimit: the sentinel no longer calls every limit a
// dynamic-programming table; the message after it names the limit.
func TestErrTooLargeNamesTheLimit(t *testing.T) {
	if strings.Contains(ErrTooLarge.Error(), "dynamic-programming") {
		t.Fatalf("ErrTooLarge = %q names one limit for all", ErrTooLarge)
	}
	p := &Budgeted{K: 1, Demand: []int{3, 5}, Capacity: []int{1 << 40}, Upsilon: []int{1, 1}, Sigma2: []float64{1, 1}, MaxBudget: 1}
	_, err := Algorithm2(p, OracleSettings{MaxBytes: 1 << 20})
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "OracleSettings.MaxBytes") {
		t.Fatalf("%v: want ErrTooLarge naming OracleSettings.MaxBytes", err)
	}
}
