package baselines

import (
	"context"
	"fmt"
	"log/slog"
)

// The constructors follow the family shape NewX(model, XSettings) (*X,
// error): the zero XSettings is the paper's baseline, Validate reports
// every problem of the settings, and Logger (nil = off) receives one Debug
// record "decide" per successful Decide with the attributes family,
// policy and slot (the log vocabulary of every msched family).
//
// For one release (v0.2.x) the settings argument is variadic, so that the
// older one-argument calls (NewDRF(p)) still compile; they are deprecated,
// and v0.3.0 makes the settings argument required. Passing more than one
// settings value is an error wrapping the family's ErrSettings.

// DRFSettings configures DRF. The zero value is the paper's DRF.
type DRFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide
	// (family, policy, slot).
	Logger *slog.Logger
}

// Validate returns nil: every DRFSettings is valid.
func (s DRFSettings) Validate() error { return nil }

// FairnessSettings configures FAIRNESS. The zero value is the paper's.
type FairnessSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every FairnessSettings is valid.
func (s FairnessSettings) Validate() error { return nil }

// BinPackingSettings configures BINPACKING and SPREADING, fractional or
// whole-pod. The zero value is the paper's.
type BinPackingSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every BinPackingSettings is valid.
func (s BinPackingSettings) Validate() error { return nil }

// OGASchedBaselineSettings configures the baseline NewOGASchedBaseline
// selects by name. The zero value is the paper's.
type OGASchedBaselineSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every OGASchedBaselineSettings is valid.
func (s OGASchedBaselineSettings) Validate() error { return nil }

// HSWFSettings configures HSWF. The zero value is the papers'.
type HSWFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every HSWFSettings is valid.
func (s HSWFSettings) Validate() error { return nil }

// LCFSettings configures LCF. The zero value is the papers'.
type LCFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every LCFSettings is valid.
func (s LCFSettings) Validate() error { return nil }

// LWTFSettings configures LWTF. The zero value is the papers'.
type LWTFSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every LWTFSettings is valid.
func (s LWTFSettings) Validate() error { return nil }

// MaxFirstSettings configures MAX-FIRST. The zero value is the paper's.
type MaxFirstSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every MaxFirstSettings is valid.
func (s MaxFirstSettings) Validate() error { return nil }

// EqualShareSettings configures EQUAL-SHARE. The zero value is the paper's.
type EqualShareSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every EqualShareSettings is valid.
func (s EqualShareSettings) Validate() error { return nil }

// PrioritySettings configures SRPT, SRVF, SVF and SRF. The zero value is
// the paper's.
type PrioritySettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every PrioritySettings is valid.
func (s PrioritySettings) Validate() error { return nil }

// TetrisSettings configures Tetris. The zero value is the paper's
// description (Section VII).
type TetrisSettings struct {
	// Logger, if not nil, receives one Debug record "decide" per Decide.
	Logger *slog.Logger
}

// Validate returns nil: every TetrisSettings is valid.
func (s TetrisSettings) Validate() error { return nil }

// oneSettings returns the single optional settings value of a variadic
// constructor: the zero value for none, an error wrapping sentinel for
// more than one.
func oneSettings[S any](sentinel error, name string, s []S) (S, error) {
	var zero S
	switch len(s) {
	case 0:
		return zero, nil
	case 1:
		return s[0], nil
	}
	return zero, fmt.Errorf("%w: baselines: %s: %d settings values, want at most 1", sentinel, name, len(s))
}

// logDecide writes the "decide" record of a baseline; l must not be nil.
func logDecide(l *slog.Logger, family, policy string, slot int, attrs ...slog.Attr) {
	base := []slog.Attr{slog.String("family", family), slog.String("policy", policy), slog.Int("slot", slot)}
	l.LogAttrs(context.Background(), slog.LevelDebug, "decide", append(base, attrs...)...)
}
