package baselines

import (
	"github.com/msched/msched/esdp"
	"github.com/msched/msched/internal/esdpx"
)

// The gang helpers package esdp shares with the baselines without
// exporting them (internal/esdpx); a mismatch of types panics at
// initialisation, so every test catches it.
var (
	esdpCarryGang      = esdpx.CarryGang.(func(from, to *esdp.GangChannels, st *esdp.Stats, jobs, servers []int) (esdp.Stats, error))
	esdpObserveGang    = esdpx.ObserveGang.(func(st *esdp.Stats, ch *esdp.GangChannels, x []int, decided bool, lastT, t int, fb esdp.GangFeedback) error)
	esdpCheckGangState = esdpx.CheckGangState.(func(ch *esdp.GangChannels, st *esdp.Stats, started bool, lastT int, pending []int) error)
)
