package openb

import (
	"strconv"
	"strings"

	"github.com/msched/msched/kube/plugins/gpushare"
)

// msched's profiles of the FGD protocol that go past FGD (issue 32): the
// one-step lookahead of gpushare.Lookahead (γ = gpushare.LookaheadGamma),
// with the target workload told (FGD's prior) or learned online from the
// arrivals (gpushare.Learner, rebuilt every LearnEvery arrivals, as
// FGD-learned).
const (
	// Lookahead scores by a node's fragmentation now and after the next
	// pod drawn from the told workload (gpushare.Lookahead).
	Lookahead = "Lookahead"
	// LookaheadLearned is Lookahead over the workload learned online.
	LookaheadLearned = "Lookahead-learned"
)

// LearnEvery is the learned profiles' rebuild period (arrivals).
const LearnEvery = 100

// FGDMschedProfiles lists msched's lookahead profiles, in table order.
var FGDMschedProfiles = []string{Lookahead, LookaheadLearned}

// fgdMsched builds a lookahead profile: its scorer, its tie-breaker (tie,
// the "+BF" tie-breaker asked by the profile name, passed through) and
// its learner (nil when w is told).
//
// A lookahead profile name may end in "@γ" (Lookahead@0.2) to set γ in
// [0, 1] instead of gpushare.LookaheadGamma: the screening of γ runs
// through it.
func fgdMsched(name string, w *gpushare.Workload, tie gpushare.Scorer) (sc, tb gpushare.Scorer, l *gpushare.Learner, ok bool) {
	gamma := gpushare.LookaheadGamma
	base := name
	if b, g, found := strings.Cut(name, "@"); found {
		v, err := strconv.ParseFloat(g, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, nil, nil, false
		}
		base, gamma = b, v
	}
	switch base {
	case Lookahead:
		return &gpushare.Lookahead{W: func() *gpushare.Workload { return w }, Gamma: gamma, Label: name, Memo: gpushare.NewFragMemo()}, tie, nil, true
	case LookaheadLearned:
		l = gpushare.NewLearner(LearnEvery)
		return &gpushare.Lookahead{W: l.Workload, Gamma: gamma, Label: name, Memo: gpushare.NewFragMemo()}, tie, l, true
	}
	return nil, nil, nil, false
}
