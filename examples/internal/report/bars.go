package report

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// Bars is a grouped bar chart under construction: NewBars with the
// categories of the x axis, then Add one series of values per policy (one
// bar per category, coloured as [StyleFor] colours the policy's line),
// then Save. Its layout follows [Plot]: the legend where no bar is, a log
// y axis when the series lie more than two decades apart (bars then start
// at the power of ten below the smallest value), errors naming a bad
// series. A NaN value draws no bar.
type Bars struct {
	title, xlabel, ylabel string
	cats                  []string
	series                []series
	errs                  []error
	scale                 Scale

	// Width of the saved figure; 0 means 8 inches.
	Width vg.Length
	// Height of the saved figure; 0 means 5 inches.
	Height vg.Length
	// DPI is the resolution of a PNG; 0 means 96.
	DPI int

	last layout
}

// NewBars starts a bar chart with a title, axis labels and the categories
// along the x axis, in order.
func NewBars(title, xlabel, ylabel string, categories ...string) *Bars {
	return &Bars{title: title, xlabel: xlabel, ylabel: ylabel, cats: append([]string(nil), categories...)}
}

// Add adds a series: values[i] is the height of its bar in category i.
// Save returns ErrSeries if len(values) is not the number of categories.
func (b *Bars) Add(name string, values []float64) *Bars {
	if len(values) != len(b.cats) {
		b.errs = append(b.errs, fmt.Errorf("%w: bars %q: %d values for %d categories", ErrSeries, name, len(values), len(b.cats)))
		return b
	}
	pts := make(plotter.XYs, len(values))
	for i, v := range values {
		pts[i] = plotter.XY{X: float64(i), Y: v}
	}
	b.series = append(b.series, series{name: name, pts: pts})
	return b
}

// LogY draws the y axis on a log scale whatever the data (see [Log]).
func (b *Bars) LogY() *Bars { b.scale = Log; return b }

// LinearY draws a linear y axis whatever the data.
func (b *Bars) LinearY() *Bars { b.scale = Linear; return b }

// Save draws the chart and writes path as [Plot.Save] does (a .svg path
// also gets a .png), with the same errors.
func (b *Bars) Save(path string) error {
	pl := &Plot{title: b.title, xlabel: b.xlabel, ylabel: b.ylabel, series: b.series, scale: b.scale,
		errs: b.errs, cats: b.cats, Width: b.Width, Height: b.Height, DPI: b.DPI, hint: topRight}
	if len(b.cats) == 0 {
		pl.errs = append(pl.errs, fmt.Errorf("%w: bars %q: no categories", ErrSeries, b.title))
	}
	err := pl.Save(path)
	b.last = pl.last
	return err
}

// barGroup is the share of a category's width its group of bars takes.
const barGroup = 0.8

// barPad is the share of the y range added above the tallest bar.
const barPad = 0.05

// bars adds the bars of ls to p as filled polygons in data coordinates,
// replacing each line's runs by the outlines of its bars (for the legend
// placement), and fixes the x axis to the categories.
func (pl *Plot) bars(p *plot.Plot, leg *plot.Legend, ls []line, logY bool) error {
	base := 0.0
	if logY {
		// The runs hold log10 values: start at the power of ten below the
		// smallest, at least 0.3 decade below it so that its bar shows.
		lo := math.Inf(1)
		for _, l := range ls {
			for _, r := range l.runs {
				for _, q := range r {
					lo = min(lo, q.Y)
				}
			}
		}
		base = math.Floor(lo - 0.3)
	}
	w := barGroup / float64(len(ls))
	for k := range ls {
		l := &ls[k]
		var boxes []plotter.XYs
		for _, r := range l.runs {
			for _, q := range r {
				x0 := q.X - barGroup/2 + float64(k)*w
				boxes = append(boxes, plotter.XYs{{X: x0, Y: base}, {X: x0, Y: q.Y}, {X: x0 + w, Y: q.Y}, {X: x0 + w, Y: base}, {X: x0, Y: base}})
			}
		}
		l.runs, l.boxes = boxes, true
		for _, box := range boxes {
			poly, err := plotter.NewPolygon(box)
			if err != nil {
				return err
			}
			poly.Color = l.style.Color
			poly.LineStyle.Width = 0
			p.Add(poly)
		}
		leg.Add(l.name, &plotter.Polygon{Color: l.style.Color})
	}
	ticks := make([]plot.Tick, len(pl.cats))
	for i, c := range pl.cats {
		ticks[i] = plot.Tick{Value: float64(i), Label: c}
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.5, float64(len(pl.cats))-0.5
	if !logY {
		p.Y.Min = min(p.Y.Min, 0)
		p.Y.Max = max(p.Y.Max, 0)
	}
	// Room above the tallest bar (and below the lowest negative one), so
	// that no bar ends on the frame and looks clipped.
	pad := barPad * (p.Y.Max - p.Y.Min)
	if p.Y.Max > 0 || logY {
		p.Y.Max += pad
	}
	if p.Y.Min < 0 && !logY {
		p.Y.Min -= pad
	}
	if n := droppedTotal(ls); n > 0 {
		leg.Add(fmt.Sprintf("(log axis: %d value%s ≤ 0 left out)", n, plural(n)))
	}
	leg.ThumbnailWidth = vg.Points(12)
	return nil
}

func droppedTotal(ls []line) int {
	n := 0
	for _, l := range ls {
		n += l.dropped
	}
	return n
}
