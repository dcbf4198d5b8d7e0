package openb

import (
	"context"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/msched/msched/trace"
)

// ThroughputRow is one profile's scheduling speed over interleaved runs,
// beside the baseline (the first profile given to Throughput) measured in
// the same process on the same pods and nodes.
type ThroughputRow struct {
	Profile Profile
	// Scheduled is the pods bound in each round (the same pods every
	// round), PodsPerSec the pods bound per second of Result.Busy.
	Scheduled  []int
	PodsPerSec []float64
	// Cycles is the number of scheduling algorithm runs over all rounds;
	// P50 and P99 their median and 99th percentile (nearest rank, pooled
	// over the rounds).
	Cycles   int
	P50, P99 time.Duration
	// Ratios holds PodsPerSec / the baseline's PodsPerSec in the same
	// round, per round; Ratio is their median. P99Ratio is P99 / the
	// baseline's P99.
	Ratios          []float64
	Ratio, P99Ratio float64
	// PodsPerCPUSec (FGDThroughput only) is the pods bound per second of
	// the process's CPU time in each round, CPURatio the median of its
	// ratios to the baseline's in the same rounds.
	PodsPerCPUSec []float64
	CPURatio      float64
}

// Quantile returns the q-quantile of ds by nearest rank (the smallest d
// with at least q·len(ds) values at or below it), 0 for no values. It
// sorts a copy.
func Quantile(ds []time.Duration, q float64) time.Duration {
	if len(ds) == 0 || math.IsNaN(q) {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	k := int(math.Ceil(q*float64(len(s)))) - 1
	return s[min(max(k, 0), len(s)-1)]
}

// median returns the median of xs (the mean of the middle two for an even
// count), NaN for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Throughput runs every profile rounds times in one process, the order
// rotated each round (round r starts with profile r mod len), on the same
// trace subset and options, and returns one row per profile with its
// throughput and cycle latency as ratios to profiles[0]'s in the same
// rounds. Use a burst (Hold and a large ArrivalScale: every pod arrives
// at once) to keep the scheduler busy.
func Throughput(ctx context.Context, tr *trace.Trace, profiles []Profile, rounds int, o Options) ([]ThroughputRow, error) {
	if len(profiles) == 0 || rounds < 1 {
		return nil, fmt.Errorf("openb: throughput: %d profiles, %d rounds, want >= 1 of each", len(profiles), rounds)
	}
	rows := make([]ThroughputRow, len(profiles))
	cycles := make([][]time.Duration, len(profiles))
	for i, p := range profiles {
		rows[i].Profile = p
	}
	for r := range rounds {
		for k := range profiles {
			i := (k + r) % len(profiles)
			res, err := Run(ctx, tr, profiles[i], o)
			if err != nil {
				return nil, fmt.Errorf("%s round %d: %w", profiles[i], r, err)
			}
			rows[i].Scheduled = append(rows[i].Scheduled, res.Scheduled)
			rows[i].PodsPerSec = append(rows[i].PodsPerSec, rate(res.Scheduled, res.Busy))
			cycles[i] = append(cycles[i], res.Cycles...)
			if o.Logger.GetSink() != nil {
				o.Logger.Info("throughput run", "profile", profiles[i], "round", r, "scheduled", res.Scheduled, "busy", res.Busy, "cycles", len(res.Cycles))
			}
		}
	}
	fillRatios(rows, cycles)
	return rows, nil
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// fillRatios sets the quantiles and the ratios to rows[0] from the
// per-round rates and the pooled cycle durations.
func fillRatios(rows []ThroughputRow, cycles [][]time.Duration) {
	for i := range rows {
		rows[i].Cycles = len(cycles[i])
		rows[i].P50 = Quantile(cycles[i], 0.5)
		rows[i].P99 = Quantile(cycles[i], 0.99)
	}
	base := rows[0]
	for i := range rows {
		var ratios []float64
		for r, x := range rows[i].PodsPerSec {
			if r < len(base.PodsPerSec) && base.PodsPerSec[r] > 0 {
				ratios = append(ratios, x/base.PodsPerSec[r])
			}
		}
		rows[i].Ratios = ratios
		rows[i].Ratio = median(ratios)
		rows[i].P99Ratio = math.NaN()
		if base.P99 > 0 {
			rows[i].P99Ratio = float64(rows[i].P99) / float64(base.P99)
		}
	}
}

// WriteThroughputTable prints the rows of Throughput: median pods/s over
// rounds, its ratio to the first row (median and range over rounds), cycles, the p50 and p99 cycle
// latency and the p99 ratio.
func WriteThroughputTable(w io.Writer, rows []ThroughputRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "profile\tbound/round\tpods/s (median)\tx default\tx default min-max\tcycles\tp50 cycle\tp99 cycle\tp99 x default\t")
	for _, r := range rows {
		lo, hi := math.NaN(), math.NaN()
		if len(r.Ratios) > 0 {
			lo, hi = slices.Min(r.Ratios), slices.Max(r.Ratios)
		}
		fmt.Fprintf(tw, "%s\t%v\t%.1f\t%.2f\t%.2f-%.2f\t%d\t%.2fms\t%.2fms\t%.2f\t\n", r.Profile, r.Scheduled, median(r.PodsPerSec), r.Ratio,
			lo, hi, r.Cycles, float64(r.P50)/1e6, float64(r.P99)/1e6, r.P99Ratio)
	}
	tw.Flush()
}
