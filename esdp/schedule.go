package esdp

import (
	"fmt"
	"math"
)

// The sequences delta(t) of P3(t) and g(t) of (9)-(10). The argument t is
// the paper's slot index 1, 2, ... (Policy.Decide passes slot+1); m is
// max ||x||_1 (alpha |E| in the experiments).

// DeltaLogLog is the experiments' default delta(t) = 1/(ln(ln(t+1)+1)+1).
func DeltaLogLog(t int) float64 { return 1 / (math.Log(math.Log(float64(t)+1)+1) + 1) }

// DeltaLog is delta(t) = 1/(ln(t+1)+1), the first sequence of Fig. 7.
func DeltaLog(t int) float64 { return 1 / (math.Log(float64(t)+1) + 1) }

// DeltaLogLogBare is delta(t) = 1/ln(ln(t+1)+1), the second sequence of
// Fig. 7 (larger than 1 for small t).
func DeltaLogLogBare(t int) float64 { return 1 / math.Log(math.Log(float64(t)+1)+1) }

// DeltaLogLogLog is delta(t) = 1/(ln(ln(ln(t+1)+1)+1)+1), the third
// sequence of Fig. 7.
func DeltaLogLogLog(t int) float64 {
	return 1 / (math.Log(math.Log(math.Log(float64(t)+1)+1)+1) + 1)
}

// GDefault is the experiments' g(t) = ln(t+1) + 4 ln(ln(t+1)+1) m, eq. (10)
// with t+1 for t.
func GDefault(t int, m float64) float64 {
	return math.Log(float64(t)+1) + 4*math.Log(math.Log(float64(t)+1)+1)*m
}

// GLogLog is g(t) = 4 ln(ln(t+1)+1) m, the second sequence of Fig. 8.
func GLogLog(t int, m float64) float64 { return 4 * math.Log(math.Log(float64(t)+1)+1) * m }

// GLog is g(t) = ln(t+1), the third sequence of Fig. 8 (the paper's best).
func GLog(t int, m float64) float64 { return math.Log(float64(t) + 1) }

// Exploration names a g(t) of (9)-(10) (Settings.Exploration): the
// experiments' default and the other sequences of the paper's Fig. 8.
type Exploration int

const (
	// ExploreDefault (the zero value) is GDefault, g(t) = ln(t+1) +
	// 4 ln(ln(t+1)+1) m, the experiments' setting.
	ExploreDefault Exploration = iota
	// ExploreLog is GLog, g(t) = ln(t+1), the best sequence of Fig. 8.
	ExploreLog
	// ExploreLogLog is GLogLog, g(t) = 4 ln(ln(t+1)+1) m.
	ExploreLogLog
)

// String returns "default", "log" or "loglog" (ParseExploration's names).
func (x Exploration) String() string {
	switch x {
	case ExploreDefault:
		return "default"
	case ExploreLog:
		return "log"
	case ExploreLogLog:
		return "loglog"
	}
	return fmt.Sprintf("Exploration(%d)", int(x))
}

// G returns the sequence g(t, m) of x (nil for an unknown value).
func (x Exploration) G() func(t int, m float64) float64 {
	switch x {
	case ExploreDefault:
		return GDefault
	case ExploreLog:
		return GLog
	case ExploreLogLog:
		return GLogLog
	}
	return nil
}

// ParseExploration returns the Exploration named s ("default", "log",
// "loglog"); another name is an error wrapping ErrSettings.
func ParseExploration(s string) (Exploration, error) {
	for x := ExploreDefault; x <= ExploreLogLog; x++ {
		if x.String() == s {
			return x, nil
		}
	}
	return 0, fmt.Errorf("%w: exploration %q, want default, log or loglog", ErrSettings, s)
}
