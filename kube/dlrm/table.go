package dlrm

import (
	"fmt"
	"io"
	"slices"
	"text/tabwriter"
	"time"
)

// WriteTable prints one row per result: groups placed whole, groups ever
// half-bound and still half-bound at the end, the pods they strand, pods
// bound, refused bindings, the groups placed in their arrival slot, the
// mean slots a placed group waited, and the median and largest wall time
// to place of the groups placed in their arrival slot.
func WriteTable(w io.Writer, rs []*Result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tgroups placed\tever half-bound\thalf-bound end\tstranded pods\tpods bound\trefused\ton arrival\tslots waited\tplace p50\tplace max\twall\t")
	for _, r := range rs {
		p50, pmax := "-", "-"
		if n := len(r.PlaceTimes); n > 0 {
			s := slices.Clone(r.PlaceTimes)
			slices.Sort(s)
			p50 = s[(n-1)/2].Round(100 * time.Microsecond).String()
			pmax = s[n-1].Round(100 * time.Microsecond).String()
		}
		onArrival, waited := 0, 0
		for _, w := range r.PlaceSlots {
			if w == 0 {
				onArrival++
			}
			waited += w
		}
		mean := "-"
		if len(r.PlaceSlots) > 0 {
			mean = fmt.Sprintf("%.2f", float64(waited)/float64(len(r.PlaceSlots)))
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%d\t%d/%d\t%d\t%d\t%s\t%s\t%s\t%.1fs\t\n", r.Profile, r.Placed, r.Groups, r.HalfBound, r.PartialEnd,
			r.StrandedPods, r.PodsBound, r.Pods, r.Violations, onArrival, mean, p50, pmax, r.Wall.Seconds())
	}
	tw.Flush()
}
