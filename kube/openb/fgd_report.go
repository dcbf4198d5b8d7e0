package openb

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"
)

// FGDPublished are FGD's published results on the default trace (its
// repository's expected results, mean ± std over seeds 42–51): GPU
// allocation at 90, 100 and 130 % arrived demand and the fragmented
// amount at 100 % (% of capacity). NaN: not published.
var FGDPublished = map[string][5]float64{
	"FGD":           {89.98, 95.23, 0.10, 95.39, 0.08},
	"BestFit":       {89.99, 92.86, 0.14, 93.08, 0.13},
	"GpuPacking":    {89.98, 91.78, 0.50, 92.00, 0.52},
	"GpuClustering": {89.98, 91.65, 0.58, 91.88, 0.59},
	"DotProd":       {89.98, 90.62, 0.18, 90.85, 0.19},
	"Random":        {85.02, 86.30, 0.31, 87.47, 0.30},
}

// FGDPublishedFrag100 is FGD's published fragmented amount at 100 %.
var FGDPublishedFrag100 = map[string]float64{
	"FGD": 4.73, "BestFit": 7.05, "GpuPacking": 8.13, "GpuClustering": 8.21, "DotProd": 9.30, "Random": 13.49,
}

// FGDSummary aggregates one profile's runs over seeds.
type FGDSummary struct {
	Name            string             `json:"name"`
	Seeds           []uint64           `json:"seeds"`
	Alloc           map[string]float64 `json:"alloc"`
	AllocStd        map[string]float64 `json:"alloc_std"`
	Curve           []float64          `json:"curve"`     // mean allocation per arrived-demand bin 0..130 %
	CurveStd        []float64          `json:"curve_std"` // its std over seeds
	FragAmount100   float64            `json:"frag_amount_100"`
	FragAmount      map[string]float64 `json:"frag_amount"` // 50..100 %
	FragRatio       map[string]float64 `json:"frag_ratio"`  // 50..100 %
	Unallocated130  float64            `json:"unallocated_130"`
	Failed          float64            `json:"failed"` // mean over seeds
	ThroughputRatio float64            `json:"throughput_ratio"`
	P99Ratio        float64            `json:"p99_ratio"`
	PodsPerSecond   float64            `json:"pods_per_second"`
	P99Micros       float64            `json:"p99_us"`
}

func meanStd(v []float64) (m, s float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	if len(v) > 1 {
		for _, x := range v {
			s += (x - m) * (x - m)
		}
		s = math.Sqrt(s / float64(len(v)-1))
	}
	return m, s
}

// SummarizeFGD aggregates runs (every seed of every profile) per profile,
// in the order the profiles first appear; throughput and p99 ratios are
// to the profile named base (pods per second of replay-loop time, p99 of
// the per-pod cycle), the median over seeds of the per-seed ratio.
func SummarizeFGD(runs []*FGDResult, base string) []*FGDSummary {
	var order []string
	by := map[string][]*FGDResult{}
	for _, r := range runs {
		if _, ok := by[r.Profile]; !ok {
			order = append(order, r.Profile)
		}
		by[r.Profile] = append(by[r.Profile], r)
	}
	baseBySeed := map[uint64]*FGDResult{}
	for _, r := range by[base] {
		baseBySeed[r.Seed] = r
	}
	var out []*FGDSummary
	for _, name := range order {
		rs := by[name]
		s := &FGDSummary{Name: name, Alloc: map[string]float64{}, AllocStd: map[string]float64{},
			FragAmount: map[string]float64{}, FragRatio: map[string]float64{}}
		col := func(f func(*FGDResult) float64) []float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = f(r)
			}
			return v
		}
		for _, r := range rs {
			s.Seeds = append(s.Seeds, r.Seed)
		}
		for k := 0; k <= FGDBins; k++ {
			m, sd := meanStd(col(func(r *FGDResult) float64 { return r.Alloc[k] }))
			s.Curve = append(s.Curve, m)
			s.CurveStd = append(s.CurveStd, sd)
		}
		for _, k := range []int{90, 100, 130} {
			key := strconv.Itoa(k)
			s.Alloc[key], s.AllocStd[key] = s.Curve[k], s.CurveStd[k]
		}
		for k := 50; k <= 100; k += 5 {
			key := strconv.Itoa(k)
			s.FragAmount[key], _ = meanStd(col(func(r *FGDResult) float64 { return r.FragAmount[k] }))
			s.FragRatio[key], _ = meanStd(col(func(r *FGDResult) float64 { return r.FragRatio[k] }))
		}
		s.FragAmount100 = s.FragAmount["100"]
		s.Unallocated130 = 100 - s.Alloc["130"]
		s.Failed, _ = meanStd(col(func(r *FGDResult) float64 { return float64(r.Failed) }))
		var tr, pr, pps, p99 []float64
		for _, r := range rs {
			busy, q := cycleStats(r.Cycles)
			pps = append(pps, float64(len(r.Cycles))/busy.Seconds())
			p99 = append(p99, float64(q.Microseconds()))
			if b := baseBySeed[r.Seed]; b != nil {
				bb, bq := cycleStats(b.Cycles)
				tr = append(tr, (float64(len(r.Cycles))/busy.Seconds())/(float64(len(b.Cycles))/bb.Seconds()))
				pr = append(pr, float64(q)/float64(bq))
			}
		}
		s.ThroughputRatio, s.P99Ratio = fgdMedian(tr), fgdMedian(pr)
		s.PodsPerSecond, s.P99Micros = fgdMedian(pps), fgdMedian(p99)
		out = append(out, s)
	}
	return out
}

func cycleStats(c []time.Duration) (sum, p99 time.Duration) {
	if len(c) == 0 {
		return 1, 0
	}
	s := slices.Clone(c)
	slices.Sort(s)
	for _, d := range s {
		sum += d
	}
	return max(sum, 1), s[min(len(s)-1, len(s)*99/100)]
}

func fgdMedian(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// WriteFGDTable writes the comparison table (Markdown) and, for the
// profiles FGD published, its numbers beside ours.
func WriteFGDTable(w io.Writer, sums []*FGDSummary, base string) {
	fmt.Fprintf(w, "| profile | seeds | alloc 90 %% | alloc 100 %% | alloc 130 %% | frag amount 100 %% | frag ratio 100 %% | unallocated GPUs 130 %% | failed pods | throughput ×%s | p99 ×%s |\n", base, base)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range sums {
		fmt.Fprintf(w, "| %s | %d | %.2f ± %.2f | %.2f ± %.2f | %.2f ± %.2f | %.2f | %.2f | %.2f | %.1f | %.2f | %.2f |\n",
			s.Name, len(s.Seeds), s.Alloc["90"], s.AllocStd["90"], s.Alloc["100"], s.AllocStd["100"], s.Alloc["130"], s.AllocStd["130"],
			s.FragAmount100, s.FragRatio["100"], s.Unallocated130, s.Failed, s.ThroughputRatio, s.P99Ratio)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| profile | alloc 100 % (ours / FGD's) | Δ | alloc 130 % (ours / FGD's) | Δ | frag amount 100 % (ours / FGD's) |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	for _, s := range sums {
		p, ok := FGDPublished[s.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(w, "| %s | %.2f ± %.2f / %.2f ± %.2f | %+.2f | %.2f ± %.2f / %.2f ± %.2f | %+.2f | %.2f / %.2f |\n",
			s.Name, s.Alloc["100"], s.AllocStd["100"], p[1], p[2], s.Alloc["100"]-p[1],
			s.Alloc["130"], s.AllocStd["130"], p[3], p[4], s.Alloc["130"]-p[3], s.FragAmount100, FGDPublishedFrag100[s.Name])
	}
}
