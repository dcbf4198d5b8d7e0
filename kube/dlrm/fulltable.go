package dlrm

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// quantile returns the q-quantile (nearest rank) of sorted s.
func quantile[T any](s []T, q float64) T {
	i := int(q*float64(len(s))+0.999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// WriteGangTable prints, per result, the columns of the gang comparison
// (issue 33): groups placed whole, groups ever half-bound and half-bound
// at the end, stranded pods, time to place p50/p99 in slots and in wall
// time (over every placed group), GPU-seconds held idle between Reserve
// and binding (members waiting at Permit), pods bound per wall second, and
// the wall time per replayed hourly slot (the time compression).
func WriteGangTable(w io.Writer, rs []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tgroups placed\tever half-bound\thalf-bound end\tstranded pods\tplace p50 slots\tplace p99 slots\tplace p50 wall\tplace p99 wall\tidle GPU-s at Permit\tpods/s\twall\twall/slot\t")
	for _, r := range rs {
		s50, s99, w50, w99 := "-", "-", "-", "-"
		if len(r.PlaceSlots) > 0 {
			s := slices.Clone(r.PlaceSlots)
			slices.Sort(s)
			s50, s99 = fmt.Sprint(quantile(s, 0.5)), fmt.Sprint(quantile(s, 0.99))
		}
		if len(r.PlaceWall) > 0 {
			s := slices.Clone(r.PlaceWall)
			slices.Sort(s)
			w50, w99 = quantile(s, 0.5).Round(100*time.Microsecond).String(), quantile(s, 0.99).Round(100*time.Microsecond).String()
		}
		perSlot := "-"
		if r.Slots > 0 {
			perSlot = (r.Wall / time.Duration(r.Slots)).Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%.1f\t%.0f\t%.1fs\t%s\t\n", r.Profile, r.Placed, r.Groups, r.HalfBound, r.PartialEnd,
			r.StrandedPods, s50, s99, w50, w99, r.IdleGPUSeconds, float64(r.PodsBound)/r.Wall.Seconds(), r.Wall.Seconds(), perSlot)
	}
	tw.Flush()
}
