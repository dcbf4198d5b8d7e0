package main

import (
	"fmt"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/msched/msched/kube/openb"
)

// palette: distinguishable colours (Okabe–Ito plus greys), FGD and the
// msched profiles solid, the others dashed.
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {120, 120, 120, 255}, {0, 0, 0, 255},
	{240, 228, 66, 255}, {150, 75, 0, 255}, {100, 0, 150, 255}, {200, 0, 0, 255}, {0, 90, 50, 255},
}

// plotFGD draws each profile's mean allocation curve over arrived GPU
// demand 60–130 % with a ± std band, one line per profile.
func plotFGD(path string, sums []*openb.FGDSummary, seeds string) error {
	if err := plotFGDRange(path, sums, seeds, 60, 0); err != nil {
		return err
	}
	zoom := strings.TrimSuffix(path, ".png") + "_zoom.png"
	return plotFGDRange(zoom, sums, seeds, 88, 86)
}

// plotFGDRange draws arrived demand from..130 %; ymin 0 picks the floor.
func plotFGDRange(path string, sums []*openb.FGDSummary, seeds string, from int, ymin float64) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("OpenB on FGD's protocol: GPU allocation (mean ± std, seeds %s)", seeds)
	p.X.Label.Text = "arrived GPU demand (% of capacity)"
	p.Y.Label.Text = "GPU allocation ratio (%)"
	p.Legend.Top = false
	p.Legend.Left = false
	p.Legend.XOffs = -vg.Points(4)
	p.Legend.YOffs = vg.Points(4)
	p.Add(plotter.NewGrid())
	lo := 100.0
	for i, s := range sums {
		c := palette[i%len(palette)]
		var line, band plotter.XYs
		for k := from; k < len(s.Curve); k++ {
			line = append(line, plotter.XY{X: float64(k), Y: s.Curve[k]})
			lo = math.Min(lo, s.Curve[k])
		}
		for k := from; k < len(s.Curve); k++ {
			band = append(band, plotter.XY{X: float64(k), Y: s.Curve[k] + nz(s.CurveStd[k])})
		}
		for k := len(s.Curve) - 1; k >= from; k-- {
			band = append(band, plotter.XY{X: float64(k), Y: s.Curve[k] - nz(s.CurveStd[k])})
		}
		poly, err := plotter.NewPolygon(band)
		if err != nil {
			return err
		}
		poly.Color = color.NRGBA{c.R, c.G, c.B, 45}
		poly.LineStyle.Width = 0
		poly.LineStyle.Color = color.Transparent
		l, err := plotter.NewLine(line)
		if err != nil {
			return err
		}
		l.Color = c
		l.Width = vg.Points(1.6)
		if i >= 8 { // beyond the 8 published/default profiles: msched's
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			l.Width = vg.Points(2)
		}
		p.Add(poly, l)
		p.Legend.Add(fmt.Sprintf("%s (%.2f at 130%%)", s.Name, s.Alloc["130"]), l)
	}
	p.X.Min, p.X.Max = float64(from), 130
	p.Y.Min, p.Y.Max = math.Floor(lo/5)*5, 100
	if ymin > 0 {
		p.Y.Min, p.Y.Max = ymin, 96
		p.Legend.YOffs = vg.Points(75) // above Random's curve
	}
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(24)
	_ = draw.LineStyle{}
	return p.Save(11*vg.Inch, 7*vg.Inch, path)
}

func nz(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
