package openb

import (
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
func fgdMsched(name string, w *gpushare.Workload, tie gpushare.Scorer) (sc, tb gpushare.Scorer, l *gpushare.Learner, ok bool) {
	switch name {
	case Lookahead:
		return &gpushare.Lookahead{W: func() *gpushare.Workload { return w }, Gamma: gpushare.LookaheadGamma, Label: name}, tie, nil, true
	case LookaheadLearned:
		l = gpushare.NewLearner(LearnEvery)
		return &gpushare.Lookahead{W: l.Workload, Gamma: gpushare.LookaheadGamma, Label: name}, tie, l, true
	}
	return nil, nil, nil, false
}
