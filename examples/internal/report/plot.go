package report

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Plot is a line plot under construction: NewPlot, then Line, Func and
// Reference in the order the legend lists them, then Save. The series are
// kept until Save, which decides the layout from the data.
type Plot struct {
	title, xlabel, ylabel string
	series                []series
	// Width of the saved figure; 0 means 8 inches.
	Width vg.Length
	// Height of the saved figure; 0 means 5 inches.
	Height vg.Length
}

type series struct {
	name string
	pts  plotter.XYs
	ref  bool // a Reference: dashed, not a policy
}

// Margins around the plot. The right one also absorbs the last x tick
// label: gonum centres tick labels on their tick and pads the data area
// just enough for the label's width in Liberation Serif, so a viewer that
// renders the SVG with a wider font clipped "2000" to "200".
const (
	marginLeft   = 4
	marginRight  = 18
	marginTop    = 4
	marginBottom = 4
)

// NewPlot starts a plot with a title and axis labels.
func NewPlot(title, xlabel, ylabel string) *Plot {
	return &Plot{title: title, xlabel: xlabel, ylabel: ylabel}
}

// Legend is kept for source compatibility; it is a hint since Save places
// the legend where it hides no data.
func (pl *Plot) Legend(top, left bool) *Plot { return pl }

// Line adds a named line.
func (pl *Plot) Line(name string, pts plotter.XYs) *Plot {
	pl.series = append(pl.series, series{name: name, pts: pts})
	return pl
}

// Func adds a named line y(i) at x = i+1 for i in [0, n).
func (pl *Plot) Func(name string, n int, y func(i int) float64) *Plot {
	pts := make(plotter.XYs, n)
	for i := range pts {
		pts[i].X, pts[i].Y = float64(i+1), y(i)
	}
	return pl.Line(name, pts)
}

// Reference adds a named dashed line for a comparator that is not a policy:
// a bound, an optimum, the best fixed decision in hindsight.
func (pl *Plot) Reference(name string, pts plotter.XYs) *Plot {
	pl.series = append(pl.series, series{name: name, pts: pts, ref: true})
	return pl
}

func (pl *Plot) size() (w, h vg.Length) {
	w, h = pl.Width, pl.Height
	if w == 0 {
		w = 8 * vg.Inch
	}
	if h == 0 {
		h = 5 * vg.Inch
	}
	return w, h
}

// build makes the gonum plot of the series.
func (pl *Plot) build() (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = pl.title, pl.xlabel, pl.ylabel
	var args []any
	for _, s := range pl.series {
		if !s.ref {
			args = append(args, s.name, s.pts)
		}
	}
	if err := plotutil.AddLines(p, args...); err != nil {
		return nil, err
	}
	for _, s := range pl.series {
		if !s.ref {
			continue
		}
		l, err := plotter.NewLine(s.pts)
		if err != nil {
			return nil, err
		}
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	return p, nil
}

// draw fills c with the background and draws p inside the margins.
func (pl *Plot) draw(p *plot.Plot, c draw.Canvas) {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	p.Draw(draw.Crop(c, marginLeft, -marginRight, marginBottom, -marginTop))
}

// Save draws the plot and writes the file named by path, in the format its
// extension names (.svg, .png, .pdf, …). A .svg path also gets a .png
// beside it, for READMEs and issue trackers.
func (pl *Plot) Save(path string) error {
	p, err := pl.build()
	if err != nil {
		return err
	}
	if err := pl.save(p, path); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".svg") {
		return pl.save(p, strings.TrimSuffix(path, ".svg")+".png")
	}
	return nil
}

func (pl *Plot) save(p *plot.Plot, path string) error {
	var buf bytes.Buffer
	if err := pl.encode(&buf, p, strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))); err != nil {
		return fmt.Errorf("report: %s: %w", path, err)
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// encode renders p in format to w.
func (pl *Plot) encode(w io.Writer, p *plot.Plot, format string) error {
	wd, ht := pl.size()
	var c vg.CanvasWriterTo
	switch format {
	case "png":
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(wd, ht), vgimg.UseBackgroundColor(color.White))}
	case "svg":
		c = vgsvg.New(wd, ht)
	default:
		var err error
		if c, err = draw.NewFormattedCanvas(wd, ht, format); err != nil {
			return err
		}
	}
	pl.draw(p, draw.NewCanvas(c, wd, ht))
	if format != "svg" {
		_, err := c.WriteTo(w)
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(svgFonts(buf.Bytes()))
	return err
}

// svgFonts gives every font-family of a gonum SVG a fallback: Liberation
// Serif and Sans are metric-compatible with Times New Roman and Arial, so a
// viewer without them draws text of the width the layout assumed.
func svgFonts(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("font-family:Liberation Serif;"), []byte("font-family:'Liberation Serif','Times New Roman',Times,serif;"))
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:'Liberation Sans',Arial,Helvetica,sans-serif;"))
}
