// Package dlrmslots builds the gang knapsacks of the DLRM trace that the
// gang oracle's benchmark (esdp BenchmarkGangOracleDLRM) and the HiGHS
// comparison (scripts/gangbench) both solve, so the two measure the same
// instances: the trace as trace.DLRMGangInstance maps it with its defaults,
// and three slots of it — the median slot (by the number of apps arriving,
// among the slots with an arrival), the busiest slot, and every app
// arrived. The trace has no rewards: channel values are uniform in
// [0.1, 1] (the ESDP papers' range of means), seeded.
package dlrmslots

import (
	"errors"
	"math/rand/v2"
	"slices"

	"github.com/msched/msched/esdp"
	"github.com/msched/msched/trace"
)

// Slots are the three knapsacks, in the order of Names; Median and Busiest
// give the slots' indices and their numbers of arriving apps.
type Slots struct {
	Names            []string
	Knapsacks        []*esdp.GangKnapsack
	Median, Busiest  int
	MedianApps, Apps int
	BusiestApps      int
	WithArrivals     int
	// Every lists every slot with an arrival, in time order, with its
	// knapsack (the same channels and values, its arrived apps): the
	// sweep of scripts/gangbench -sweep.
	Every          []int
	EveryKnapsacks []*esdp.GangKnapsack
}

// Load reads the DLRM trace in dir and builds the three knapsacks.
func Load(dir string) (*Slots, error) {
	tr, err := trace.LoadDLRM(dir)
	if err != nil {
		return nil, err
	}
	g, err := trace.DLRMGangInstance(tr, trace.DLRMGangSettings{})
	if err != nil {
		return nil, err
	}
	ch, err := esdp.NewGangChannels(g.Model)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(29, 2025))
	val := make([]float64, ch.Len())
	for i := range val {
		val[i] = 0.1 + 0.9*rng.Float64()
	}
	type slot struct{ t, n int }
	var slots []slot
	for t, x := range g.Arrivals {
		n := 0
		for _, v := range x {
			if v > 0 {
				n++
			}
		}
		if n > 0 {
			slots = append(slots, slot{t, n})
		}
	}
	if len(slots) == 0 {
		return nil, errors.New("dlrmslots: no slot of the trace has an arrival")
	}
	slices.SortStableFunc(slots, func(a, b slot) int { return a.n - b.n })
	arr := func(t int) []bool {
		a := make([]bool, g.Model.NumJobs())
		for l, v := range g.Arrivals[t] {
			a[l] = v > 0
		}
		return a
	}
	all := make([]bool, g.Model.NumJobs())
	for l := range all {
		all[l] = true
	}
	every := make([]int, len(slots))
	for i, x := range slots {
		every[i] = x.t
	}
	slices.Sort(every)
	everyK := make([]*esdp.GangKnapsack, len(every))
	for i, t := range every {
		everyK[i] = &esdp.GangKnapsack{Channels: ch, Value: val, Arrived: arr(t)}
	}
	med, busy := slots[len(slots)/2], slots[len(slots)-1]
	return &Slots{
		Every: every, EveryKnapsacks: everyK,
		Names: []string{"median", "busiest", "all"},
		Knapsacks: []*esdp.GangKnapsack{
			{Channels: ch, Value: val, Arrived: arr(med.t)},
			{Channels: ch, Value: val, Arrived: arr(busy.t)},
			{Channels: ch, Value: val, Arrived: all},
		},
		Median: med.t, MedianApps: med.n, Busiest: busy.t, BusiestApps: busy.n,
		Apps: len(all), WithArrivals: len(slots),
	}, nil
}
