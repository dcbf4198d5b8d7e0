package openb

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestQuantileNearestRank(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		var d []time.Duration
		for _, x := range xs {
			d = append(d, time.Duration(x)*time.Millisecond)
		}
		return d
	}
	// 100 values 1..100 ms, shuffled: p99 is 99 ms, p50 50 ms, p100 100 ms.
	var xs []int
	for i := range 100 {
		xs = append(xs, (i*37)%100+1)
	}
	d := ms(xs...)
	assert.Equal(t, 99*time.Millisecond, Quantile(d, 0.99))
	assert.Equal(t, 50*time.Millisecond, Quantile(d, 0.5))
	assert.Equal(t, 100*time.Millisecond, Quantile(d, 1))
	assert.Equal(t, 1*time.Millisecond, Quantile(d, 0))
	assert.Equal(t, time.Duration((xs[0]))*time.Millisecond, d[0], "Quantile must not sort its input")
	// Few values: p99 of 3 values is the largest.
	assert.Equal(t, 7*time.Millisecond, Quantile(ms(5, 7, 1), 0.99))
	assert.Equal(t, time.Duration(0), Quantile(nil, 0.99))
	assert.Equal(t, time.Duration(0), Quantile(d, math.NaN()))
}

func TestFillRatios(t *testing.T) {
	rows := []ThroughputRow{
		{Profile: LeastAllocated, PodsPerSec: []float64{100, 200, 50}},
		{Profile: OGASched, PodsPerSec: []float64{90, 220, 25}},
	}
	cycles := [][]time.Duration{
		{1 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond},
		{3 * time.Millisecond, 6 * time.Millisecond},
	}
	fillRatios(rows, cycles)
	// Per-round ratios 0.9, 1.1, 0.5: median 0.9 (not the ratio of medians, 90/100).
	assert.InDelta(t, 0.9, rows[1].Ratio, 1e-12)
	assert.InDeltaSlice(t, []float64{0.9, 1.1, 0.5}, rows[1].Ratios, 1e-12)
	assert.InDelta(t, 1, rows[0].Ratio, 1e-12)
	assert.Equal(t, 4*time.Millisecond, rows[0].P99)
	assert.Equal(t, 6*time.Millisecond, rows[1].P99)
	assert.InDelta(t, 1.5, rows[1].P99Ratio, 1e-12)
	assert.Equal(t, 2, rows[1].Cycles)
	assert.InDelta(t, 2.5, median([]float64{4, 1, 3, 2}), 1e-12)
}
