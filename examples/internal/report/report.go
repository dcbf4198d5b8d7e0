// Package report holds the output helpers shared by the example commands:
// the indented JSON summary on stdout, CSV files and SVG line plots with
// gonum.org/v1/plot. It is internal to the examples so that the plotting
// dependency never reaches library code.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// PrintJSON writes v to stdout as indented JSON.
func PrintJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteCSV writes a header and rows to path.
func WriteCSV(path string, head []string, rows [][]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(head)
	w.WriteAll(rows) // flushes
	return errors.Join(w.Error(), f.Close())
}

// Series writes a per-slot CSV: a "t" column 1..n and one column per
// function, each called with the slot index 0..n-1.
func Series(path string, n int, names []string, cols []func(t int) float64) error {
	rows := make([][]string, n)
	for t := range rows {
		row := make([]string, 0, len(cols)+1)
		row = append(row, strconv.Itoa(t+1))
		for _, c := range cols {
			row = append(row, Ftoa(c(t)))
		}
		rows[t] = row
	}
	return WriteCSV(path, append([]string{"t"}, names...), rows)
}

// Ftoa formats a value for CSV with 10 significant digits.
func Ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

// Plot is a line plot under construction.
type Plot struct {
	p    *plot.Plot
	args []any
	refs []ref
	// Width of the saved SVG; 0 means 8 inches (height is 5 inches).
	Width vg.Length
}

// NewPlot starts a plot with a title and axis labels.
func NewPlot(title, xlabel, ylabel string) *Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, ylabel
	return &Plot{p: p}
}

// Legend places the legend at the top (and left) of the plot.
func (pl *Plot) Legend(top, left bool) *Plot {
	pl.p.Legend.Top, pl.p.Legend.Left = top, left
	return pl
}

// Line adds a named line.
func (pl *Plot) Line(name string, pts plotter.XYs) *Plot {
	pl.args = append(pl.args, name, pts)
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

type ref struct {
	name string
	pts  plotter.XYs
}

// Reference adds a named dashed line for a comparator that is not a policy:
// a bound, an optimum, the best fixed decision in hindsight.
func (pl *Plot) Reference(name string, pts plotter.XYs) *Plot {
	pl.refs = append(pl.refs, ref{name, pts})
	return pl
}

// Save draws the lines with plotutil's styles and writes the file named by
// path, in the format its extension names (.svg, .png, …). A .svg path also
// gets a .png beside it, for READMEs and issue trackers.
func (pl *Plot) Save(path string) error {
	if err := plotutil.AddLines(pl.p, pl.args...); err != nil {
		return err
	}
	for _, r := range pl.refs {
		l, err := plotter.NewLine(r.pts)
		if err != nil {
			return err
		}
		l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		pl.p.Add(l)
		pl.p.Legend.Add(r.name, l)
	}
	w := pl.Width
	if w == 0 {
		w = 8 * vg.Inch
	}
	if err := pl.p.Save(w, 5*vg.Inch, path); err != nil {
		return err
	}
	if strings.HasSuffix(path, ".svg") {
		return pl.p.Save(w, 5*vg.Inch, strings.TrimSuffix(path, ".svg")+".png")
	}
	return nil
}
