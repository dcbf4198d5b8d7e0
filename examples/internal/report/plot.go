package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/msched/msched/internal/checked"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Limits of a plot: Func and Save return ErrSize beyond them rather than
// allocate or draw without bound.
const (
	// MaxPoints is the most points one series may have.
	MaxPoints = 1 << 22
	// MaxSide is the largest Width or Height, 40 inches (3840 pixels).
	MaxSide = 40 * vg.Inch
	// MinSide is the smallest non-zero Width or Height.
	MinSide = 2 * vg.Inch
	// MinDPI and MaxDPI bound a non-zero DPI.
	MinDPI, MaxDPI = 36, 300
	// MaxPixels is the most pixels a PNG may have (64 Mpx, 256 MB).
	MaxPixels = 1 << 26
)

// Scale is how Save draws the y axis.
type Scale int

const (
	// Auto (the zero value) draws the y axis on a log scale when the series
	// lie more than two decades apart (the largest median of a series'
	// positive values over the smallest exceeds 100), at most 1 % of the
	// finite values are zero or negative, and every series with a finite
	// value has a positive one (else a log axis could not draw it);
	// linear otherwise. A series
	// that grows over decades by itself (a cumulative sum) stays linear:
	// it is the gap between series that squeezes curves into a flat line.
	Auto Scale = iota
	// Linear always draws a linear y axis.
	Linear
	// Log always draws a log y axis; values <= 0 are left out (a gap), and
	// a last legend line says how many.
	Log
)

// Plot is a line plot under construction: NewPlot, then Line, Func and
// Reference in the order the legend lists them, then Save. The series are
// kept until Save, which decides the layout from the data:
//
//   - the legend goes in a corner of the data area that no line crosses,
//     else in head room added above the data, else outside on the right;
//   - the y axis is linear or log (see [Scale]);
//   - each line's colour, dash and width come from its name (see
//     [StyleFor]), so a policy looks the same in every figure; the papers'
//     algorithms are solid, black and thicker, and drawn on top;
//   - a line that lies on another line over nearly all its length (OCORP+
//     with a small switching cost on OCORP) is drawn above every other
//     line, thinner, with hollow markers of a shape of its own at a few of
//     its points, which its legend entry shows too, so no line is hidden;
//   - NaN and ±Inf points are left out, leaving a gap in the line.
//
// A Plot is not safe for concurrent use; distinct Plots are. Saving the
// same Plot twice writes the same bytes.
type Plot struct {
	title, xlabel, ylabel string
	series                []series
	errs                  []error // from Func, returned by Save
	hint                  corner
	scale                 Scale
	primary               map[string]bool
	includeY              []float64
	cats                  []string // a bar chart's categories (see Bars)

	// Width of the saved figure; 0 means 8 inches.
	Width vg.Length
	// Height of the saved figure; 0 means 5 inches.
	Height vg.Length
	// DPI is the resolution of a PNG; 0 means 96 (768×480 px at the
	// default size). 144 or 192 keep text sharp on high-density screens.
	DPI int

	last layout // what the last Save decided, for tests
}

type series struct {
	name string
	pts  plotter.XYs
	ref  bool // a Reference: dashed grey, not a policy
}

// Margins around the plot, in points. The right one also absorbs the last
// x tick label: gonum centres tick labels on their tick and pads the data
// area just enough for the label's width in Liberation Serif, so a viewer
// that renders the SVG with a wider font clipped "2000" to "200".
const (
	marginLeft   = 4
	marginRight  = 18
	marginTop    = 10
	marginBottom = 4
	legendInset  = 6 // between the legend and the axes, in points
	// markersUpTo is the longest run drawn with a marker at each point: a
	// sweep over a few parameter values shows where the values are.
	markersUpTo = 30
)

// NewPlot starts a plot with a title and axis labels.
func NewPlot(title, xlabel, ylabel string) *Plot {
	return &Plot{title: title, xlabel: xlabel, ylabel: ylabel, hint: topRight}
}

// Legend names the corner of the data area to try first for the legend.
// It is a hint: Save moves the legend if a line crosses that corner.
func (pl *Plot) Legend(top, left bool) *Plot {
	switch {
	case top && left:
		pl.hint = topLeft
	case top:
		pl.hint = topRight
	case left:
		pl.hint = bottomLeft
	default:
		pl.hint = bottomRight
	}
	return pl
}

// IncludeY makes the y axis reach v, with a labelled tick there when v is
// a round number and a margin of 4 % of the axis beyond it, so that a line
// at or near v (a ratio of 1 to the optimum) is not drawn on the frame.
func (pl *Plot) IncludeY(v float64) *Plot {
	if !math.IsNaN(v) && !math.IsInf(v, 0) {
		pl.includeY = append(pl.includeY, v)
	}
	return pl
}

// LogY draws the y axis on a log scale whatever the data (see [Log]).
func (pl *Plot) LogY() *Plot { pl.scale = Log; return pl }

// LinearY draws a linear y axis whatever the data.
func (pl *Plot) LinearY() *Plot { pl.scale = Linear; return pl }

// Primary marks the line named name as the paper's algorithm: solid, black,
// thick, drawn on top. Without it, names of the papers' algorithms
// (OGASched, OnSocMax, ESDP, OCORP, OCORP+, OCORP+M) are primary, and when
// a plot has none of them, its first Line if its name is not a known
// baseline.
func (pl *Plot) Primary(name string) *Plot {
	if pl.primary == nil {
		pl.primary = map[string]bool{}
	}
	pl.primary[name] = true
	return pl
}

// Line adds a named line. Its NaN and ±Inf points are left out.
func (pl *Plot) Line(name string, pts plotter.XYs) *Plot {
	pl.series = append(pl.series, series{name: name, pts: pts})
	return pl
}

// Func adds a named line y(i) at x = i+1 for i in [0, n). A negative n or
// one above MaxPoints makes Save return ErrSize, a nil y ErrSeries; y is
// then not called.
func (pl *Plot) Func(name string, n int, y func(i int) float64) *Plot {
	if n < 0 || n > MaxPoints {
		pl.errs = append(pl.errs, fmt.Errorf("%w: Func %q: n = %d, want 0 <= n <= %d", ErrSize, name, n, MaxPoints))
		return pl
	}
	if y == nil {
		pl.errs = append(pl.errs, fmt.Errorf("%w: Func %q: nil function", ErrSeries, name))
		return pl
	}
	pts := make(plotter.XYs, n)
	for i := range pts {
		pts[i].X, pts[i].Y = float64(i+1), y(i)
	}
	return pl.Line(name, pts)
}

// Reference adds a named dashed grey line for a comparator that is not a
// policy: a bound, an optimum, the best fixed decision in hindsight.
func (pl *Plot) Reference(name string, pts plotter.XYs) *Plot {
	pl.series = append(pl.series, series{name: name, pts: pts, ref: true})
	return pl
}

// Level adds a Reference at height y across the x range of the other
// series: an optimum, a bound, the ratio 1 of a ratio plot.
func (pl *Plot) Level(name string, y float64) *Plot {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range pl.series {
		for _, p := range s.pts {
			if finite2(p) {
				lo, hi = min(lo, p.X), max(hi, p.X)
			}
		}
	}
	if lo > hi { // no other series yet: Save reports the plot's own errors
		lo, hi = 0, 1
	}
	return pl.Reference(name, plotter.XYs{{X: lo, Y: y}, {X: hi, Y: y}})
}

func (pl *Plot) size() (w, h vg.Length, err error) {
	w, h = pl.Width, pl.Height
	if w == 0 {
		w = 8 * vg.Inch
	}
	if h == 0 {
		h = 5 * vg.Inch
	}
	for _, s := range []struct {
		name string
		v    vg.Length
	}{{"Width", w}, {"Height", h}} {
		if !(s.v >= MinSide && s.v <= MaxSide) { // also catches NaN
			err = errors.Join(err, fmt.Errorf("%w: %s = %v pt, want 0 or in [%v, %v] pt", ErrSize, s.name, float64(s.v), float64(MinSide), float64(MaxSide)))
		}
	}
	if d := pl.DPI; d != 0 && (d < MinDPI || d > MaxDPI) {
		err = errors.Join(err, fmt.Errorf("%w: DPI = %d, want 0 or in [%d, %d]", ErrSize, d, MinDPI, MaxDPI))
	} else if err == nil {
		// Each side is at most 40 in × 300 dpi = 12000 px; the product
		// is checked before the PNG canvas allocates 4 bytes a pixel.
		px, py := int(float64(w/vg.Inch)*float64(pl.dpi())), int(float64(h/vg.Inch)*float64(pl.dpi()))
		if !checked.Within(MaxPixels, px, py) {
			err = fmt.Errorf("%w: PNG of %d×%d px at %d dpi, limit %d px", ErrSize, px, py, pl.dpi(), MaxPixels)
		}
	}
	return w, h, err
}

func (pl *Plot) dpi() int {
	if pl.DPI == 0 {
		return vgimg.DefaultDPI
	}
	return pl.DPI
}

// useLog decides the y scale from the finite y values of all series.
func (pl *Plot) useLog() bool {
	switch pl.scale {
	case Linear:
		return false
	case Log:
		return true
	}
	lo, hi := math.Inf(1), 0.0
	finite, nonpos := 0, 0
	var pos []float64
	for _, s := range pl.series {
		pos = pos[:0]
		sFinite := 0
		for _, p := range s.pts {
			if !finite2(p) {
				continue
			}
			finite++
			sFinite++
			if p.Y <= 0 {
				nonpos++
				continue
			}
			pos = append(pos, p.Y)
		}
		if len(pos) == 0 {
			if sFinite > 0 {
				// A series with values but none positive cannot be drawn
				// on a log axis: stay linear rather than fail in Save.
				return false
			}
			continue
		}
		slices.Sort(pos)
		m := pos[len(pos)/2]
		lo, hi = min(lo, m), max(hi, m)
	}
	return hi > 100*lo && nonpos*100 <= finite
}

func finite2(p plotter.XY) bool {
	return !math.IsNaN(p.X) && !math.IsInf(p.X, 0) && !math.IsNaN(p.Y) && !math.IsInf(p.Y, 0)
}

// line is a series ready to draw.
type line struct {
	name    string // legend text
	style   draw.LineStyle
	primary bool
	runs    []plotter.XYs // the drawable stretches between gaps
	dropped int           // values <= 0 left out of a log axis
	boxes   bool          // runs are the closed outlines of filled bars
	ref     bool          // a Reference
	glyph   int           // 1 + index into coincideGlyphs: a line on another line (see markCoincident)
	marks   plotter.XYs   // where a marked line's glyphs go
}

// layer is the pass in which build draws l: baselines and references
// first, then the paper's algorithm, then the lines that coincide with
// another line, so that nothing hides them.
func (l line) layer() int {
	switch {
	case l.glyph > 0:
		return 2
	case l.primary:
		return 1
	}
	return 0
}

// glyphStyle is the style of a marked line's markers.
func (l line) glyphStyle() draw.GlyphStyle {
	return draw.GlyphStyle{Color: l.style.Color, Radius: vg.Points(4), Shape: coincideGlyphs[l.glyph-1]}
}

// check returns the errors of the series and sizes, each naming its series.
func (pl *Plot) check() error {
	errs := append([]error(nil), pl.errs...)
	if _, _, err := pl.size(); err != nil {
		errs = append(errs, err)
	}
	if len(pl.series) == 0 && len(pl.errs) == 0 {
		errs = append(errs, fmt.Errorf("%w: the plot %q has no series", ErrSeries, pl.title))
	}
	// gonum cannot lay out an axis whose span overflows.
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for _, s := range pl.series {
		for _, p := range s.pts {
			if finite2(p) {
				xlo, xhi, ylo, yhi = min(xlo, p.X), max(xhi, p.X), min(ylo, p.Y), max(yhi, p.Y)
			}
		}
	}
	if math.IsInf(xhi-xlo, 1) || math.IsInf(yhi-ylo, 1) {
		errs = append(errs, fmt.Errorf("%w: x in [%g, %g], y in [%g, %g]: a span above %g", ErrSeries, xlo, xhi, ylo, yhi, math.MaxFloat64))
	}
	for i, s := range pl.series {
		switch n := len(s.pts); {
		case n == 0:
			errs = append(errs, fmt.Errorf("%w: series %d %q has no points", ErrSeries, i, s.name))
		case n > MaxPoints:
			errs = append(errs, fmt.Errorf("%w: series %d %q has %d points, limit %d", ErrSeries, i, s.name, n, MaxPoints))
		default:
			ok := false
			for _, p := range s.pts {
				if finite2(p) {
					ok = true
					break
				}
			}
			if !ok {
				errs = append(errs, fmt.Errorf("%w: series %d %q: all %d points are NaN or ±Inf", ErrSeries, i, s.name, n))
			}
		}
	}
	return errors.Join(errs...)
}

// lines splits the series into drawable runs and styles them. Within one
// figure:
//
//   - exactly one line is the paper's algorithm, black, solid, thick and on
//     top: the first line named by [Plot.Primary], else the first line of a
//     papers' algorithm drawn black in the palette (OGASched, OnSocMax,
//     ESDP, OCORP and their gang versions), else the first of the other
//     papers' algorithms (OCORP+, OCORP+M), else the first line if its name
//     is not a known baseline; any other line that would be black, or primary, gets a
//     colour of its own and the variant width;
//   - two policies never share a colour: a line whose colour another
//     policy of the figure already has gets the first spare colour no line
//     uses; lines of one policy with different measures ("X exact", "X
//     fractional") share its colour and differ by dash;
//   - no two lines look alike: a later line whose (colour, dash) is taken
//     steps its dash, then its colour.
func (pl *Plot) lines(logY bool) ([]line, error) {
	owner := -1 // the one primary line
	for _, pass := range []func(i int, s series) bool{
		func(_ int, s series) bool { return pl.primary[s.name] },
		func(_ int, s series) bool { st := styleOf(s.name); return st.primary && st.color == black },
		func(_ int, s series) bool { return styleOf(s.name).primary }, // OCORP+M where no OCORP is drawn
		func(i int, s series) bool { return i == 0 && prefixKey(styleBase(s.name)) == "" },
	} {
		for i, s := range pl.series {
			if owner < 0 && !s.ref && pass(i, s) {
				owner = i
			}
		}
	}
	out := make([]line, 0, len(pl.series))
	var errs []error
	used := map[[2]int]bool{} // (colour, dash) taken in this plot
	colorID := func(c color.RGBA) int { return int(c.R)<<16 | int(c.G)<<8 | int(c.B) }
	colourOf := map[string]color.RGBA{} // policy → its colour in this plot
	taken := map[int]bool{}             // colours some policy has in this plot
	// The palette colours of the figure's policies are reserved for them,
	// so that a spare colour handed to a variant never moves a baseline
	// off its own colour.
	reserved := map[int]bool{}
	for _, s := range pl.series {
		if !s.ref {
			reserved[colorID(styleOf(s.name).color)] = true
		}
	}
	free := func() color.RGBA {
		for _, c := range spare {
			if !taken[colorID(c)] && !reserved[colorID(c)] {
				return c
			}
		}
		for _, c := range spare {
			if !taken[colorID(c)] {
				return c
			}
		}
		return spare[len(taken)%len(spare)]
	}
	for i, s := range pl.series {
		st := styleOf(s.name)
		switch {
		case s.ref:
			st = refStyle()
		case i == owner:
			st = style{color: black, width: primaryWidth, primary: true}
		default:
			if st.primary { // another of the papers' algorithms: not thick, and a measure dashes it
				st.primary, st.width = false, variantWidth
				if _, tail := policyField(styleBase(s.name)); tail != "" {
					st.dash = 1 + int(hash(tail)%uint32(len(dashes)-1))
				}
			}
			// The policy this line belongs to: each bar series is one.
			key, _ := policyField(styleBase(s.name))
			if pl.cats != nil {
				key = s.name
			}
			c, seen := colourOf[key]
			switch {
			case seen && c != black:
				st.color = c
			case st.color == black || taken[colorID(st.color)]:
				st.color = free()
				if st.dash == 0 && pl.cats == nil {
					st.dash = 1
				}
			}
			colourOf[key] = st.color
			taken[colorID(st.color)] = true
		}
		if pl.cats != nil {
			st.dash = 0 // bars differ by colour only
		}
		// A later line never looks like an earlier one: step its dash,
		// then its colour, until the pair is free.
		for k := 0; used[[2]int{colorID(st.color), st.dash}] && k < len(dashes)*len(extra); k++ {
			st.dash = (st.dash + 1) % len(dashes)
			if k%len(dashes) == len(dashes)-1 {
				st.color = extra[(k/len(dashes))%len(extra)]
			}
		}
		used[[2]int{colorID(st.color), st.dash}] = true
		l := line{name: s.name, style: st.line(), primary: st.primary, ref: s.ref}
		var run plotter.XYs
		dropped := 0
		for _, p := range s.pts {
			ok := finite2(p)
			if ok && logY && p.Y <= 0 {
				ok = false
				dropped++
			}
			if ok {
				if logY {
					p.Y = math.Log10(p.Y)
				}
				run = append(run, p)
				continue
			}
			if len(run) > 0 {
				l.runs = append(l.runs, run)
				run = nil
			}
		}
		if len(run) > 0 {
			l.runs = append(l.runs, run)
		}
		for j, r := range l.runs {
			l.runs[j] = thin(r, maxDrawn)
		}
		l.dropped = dropped
		if len(l.runs) == 0 && logY {
			errs = append(errs, fmt.Errorf("%w: series %d %q has no positive value to draw on a log y axis", ErrSeries, i, s.name))
		}
		out = append(out, l)
	}
	return out, errors.Join(errs...)
}

// build makes the gonum plot (without legend) and the legend.
func (pl *Plot) build() (*plot.Plot, *plot.Legend, []line, bool, error) {
	if err := pl.check(); err != nil {
		return nil, nil, nil, false, err
	}
	logY := pl.useLog()
	ls, err := pl.lines(logY)
	if err != nil {
		return nil, nil, nil, false, err
	}
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pl.title, pl.xlabel, pl.ylabel
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.Title.Padding = vg.Points(8) // room between the title and the data
	p.X.Tick.Marker = niceTicks{}
	p.Y.Tick.Marker = niceTicks{}
	if logY {
		p.Y.Tick.Marker = logTicks{} // the runs hold log10 y
	}
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(30) // long enough to show a dash pattern
	if pl.cats != nil {
		if err := pl.bars(p, &leg, ls, logY); err != nil {
			return nil, nil, nil, false, err
		}
		return p, &leg, ls, logY, nil
	}
	// Baselines and references first, the papers' algorithms on top, and
	// on top of them the lines that coincide with another line.
	markCoincident(ls)
	for layer := range 3 {
		for _, l := range ls {
			if l.layer() != layer {
				continue
			}
			for _, r := range l.runs {
				if len(r) == 1 {
					s, err := plotter.NewScatter(r)
					if err != nil {
						return nil, nil, nil, false, err
					}
					s.GlyphStyle = draw.GlyphStyle{Color: l.style.Color, Radius: l.style.Width, Shape: draw.CircleGlyph{}}
					p.Add(s)
					continue
				}
				pline, err := plotter.NewLine(r)
				if err != nil {
					return nil, nil, nil, false, err
				}
				pline.LineStyle = l.style
				p.Add(pline)
				if len(r) <= markersUpTo && (!l.ref || len(r) > 2) { // not on a Level's ends
					s, err := plotter.NewScatter(r)
					if err != nil {
						return nil, nil, nil, false, err
					}
					s.GlyphStyle = draw.GlyphStyle{Color: l.style.Color, Radius: l.style.Width + vg.Points(1), Shape: draw.CircleGlyph{}}
					p.Add(s)
				}
			}
			if l.glyph > 0 && len(l.marks) > 0 {
				s, err := plotter.NewScatter(l.marks)
				if err != nil {
					return nil, nil, nil, false, err
				}
				s.GlyphStyle = l.glyphStyle()
				p.Add(s)
			}
		}
	}
	// An axis whose data start just above 0 (t = 1, a sum from its first
	// term) starts at 0, which gets a label.
	if 0 < p.X.Min && p.X.Min <= 0.05*(p.X.Max-p.X.Min) {
		p.X.Min = 0
	}
	if !logY && 0 < p.Y.Min && p.Y.Min <= 0.05*(p.Y.Max-p.Y.Min) {
		p.Y.Min = 0
	}
	for _, v := range pl.includeY {
		if logY {
			if v <= 0 {
				continue
			}
			v = math.Log10(v)
		}
		lo, hi := min(p.Y.Min, v), max(p.Y.Max, v)
		pad := 0.04 * (hi - lo)
		if v <= p.Y.Min {
			lo = v - pad
		}
		if v >= p.Y.Max {
			hi = v + pad
		}
		p.Y.Min, p.Y.Max = lo, hi
	}
	for _, l := range ls {
		if l.glyph > 0 {
			leg.Add(l.name, &plotter.Line{LineStyle: l.style}, &plotter.Scatter{GlyphStyle: l.glyphStyle()})
			continue
		}
		leg.Add(l.name, &plotter.Line{LineStyle: l.style})
	}
	if dropped := droppedTotal(ls); dropped > 0 {
		// Said once, as a legend line without a symbol.
		leg.Add(fmt.Sprintf("(log axis: %d value%s ≤ 0 left out)", dropped, plural(dropped)))
	}
	return p, &leg, ls, logY, nil
}

// Save draws the plot and writes the file named by path, in the format its
// extension names (.svg, .png, .pdf, …). A .svg path also gets a .png
// beside it, for READMEs and issue trackers. Save returns an error wrapping
// ErrSeries, naming the series, when a series is empty, only NaN or ±Inf,
// or has no positive value on a log axis, and ErrSize for a Width, Height
// or point count outside the limits.
func (pl *Plot) Save(path string) error {
	if err := pl.save(path); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".svg") {
		return pl.save(strings.TrimSuffix(path, ".svg") + ".png")
	}
	return nil
}

func (pl *Plot) save(path string) error {
	var buf bytes.Buffer
	if err := pl.encode(&buf, strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// encode renders the plot in format to w.
func (pl *Plot) encode(w io.Writer, format string) error {
	return encodeStack(w, format, []*Plot{pl})
}

// Stack saves plots one above the other in one figure, each with its own
// axes, legend and layout as [Plot.Save] gives it, at the width of the
// widest and the sum of their heights: a bound that dwarfs the policies
// gets a panel of its own, and the policies keep the full height of
// theirs. A .svg path also gets a .png beside it. The errors are Save's,
// and ErrSize when the summed height exceeds MaxSide.
func Stack(path string, plots ...*Plot) error {
	save := func(path string) error {
		var buf bytes.Buffer
		if err := encodeStack(&buf, strings.ToLower(strings.TrimPrefix(filepath.Ext(path), ".")), plots); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err := save(path); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".svg") {
		return save(strings.TrimSuffix(path, ".svg") + ".png")
	}
	return nil
}

// encodeStack renders plots one above the other in format to w.
func encodeStack(w io.Writer, format string, plots []*Plot) error {
	if len(plots) == 0 {
		return fmt.Errorf("%w: a stack of no plots", ErrSeries)
	}
	type built struct {
		p    *plot.Plot
		leg  *plot.Legend
		ls   []line
		logY bool
		h    vg.Length
	}
	var bs []built
	var wd, ht vg.Length
	for _, pl := range plots {
		p, leg, ls, logY, err := pl.build()
		if err != nil {
			return err
		}
		w, h, err := pl.size()
		if err != nil {
			return err
		}
		wd, ht = max(wd, w), ht+h
		bs = append(bs, built{p, leg, ls, logY, h})
	}
	if ht > MaxSide {
		return fmt.Errorf("%w: stacked height %v pt, limit %v pt", ErrSize, float64(ht), float64(MaxSide))
	}
	dpi := plots[0].dpi()
	if px, py := int(float64(wd/vg.Inch)*float64(dpi)), int(float64(ht/vg.Inch)*float64(dpi)); !checked.Within(MaxPixels, px, py) {
		return fmt.Errorf("%w: PNG of %d×%d px at %d dpi, limit %d px", ErrSize, px, py, dpi, MaxPixels)
	}
	var c vg.CanvasWriterTo
	var err error
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(wd, ht)
	default:
		if c, err = draw.NewFormattedCanvas(wd, ht, format); err != nil {
			return err
		}
	}
	top := ht
	for i, b := range bs {
		dc := draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Min: vg.Point{Y: top - b.h}, Max: vg.Point{X: wd, Y: top}}}
		top -= b.h
		plots[i].last = plots[i].draw(b.p, b.leg, b.ls, dc)
		plots[i].last.logY = b.logY
	}
	if format != "svg" {
		_, err := c.WriteTo(w)
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err = w.Write(svgFonts(buf.Bytes()))
	return err
}

// svgFonts gives every font-family of a gonum SVG a fallback: Liberation
// Serif and Sans are metric-compatible with Times New Roman and Arial, so a
// viewer without them draws text of the width the layout assumed.
func svgFonts(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Times,serif;"))
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// maxDrawn is the most points Save draws of one run: a figure is at most a
// few thousand pixels wide, and a million-point path makes a SVG of tens
// of megabytes that takes seconds to draw.
const maxDrawn = 4000

// thin returns r if it has at most n points, else the first and last point
// and, of each of about n/2 consecutive buckets of points, the lowest and
// the highest in their order: the envelope a reader sees is kept, spikes
// included.
func thin(r plotter.XYs, n int) plotter.XYs {
	if len(r) <= n {
		return r
	}
	buckets := n/2 - 1
	out := make(plotter.XYs, 0, n)
	out = append(out, r[0])
	inner := r[1 : len(r)-1]
	for b := range buckets {
		lo, hi := b*len(inner)/buckets, (b+1)*len(inner)/buckets
		if lo == hi {
			continue
		}
		mn, mx := lo, lo
		for i := lo + 1; i < hi; i++ {
			if inner[i].Y < inner[mn].Y {
				mn = i
			}
			if inner[i].Y > inner[mx].Y {
				mx = i
			}
		}
		if mn > mx {
			mn, mx = mx, mn
		}
		out = append(out, inner[mn])
		if mx != mn {
			out = append(out, inner[mx])
		}
	}
	return append(out, r[len(r)-1])
}
