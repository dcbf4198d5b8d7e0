package report

import (
	"math"
	"sort"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Lines that lie on another line (OCORP+ with a small switching cost on
// OCORP) would be hidden under it, the thick black line of the paper's
// algorithm most of all. Save draws each such line on top of the others,
// with its own dash, thinner than the paper's algorithm so that the black
// line still shows along its edges and through the gaps of the dash, and
// with hollow markers of a shape of its own at a
// few points of its data, staggered so that the markers of two coinciding
// lines do not fall on each other. The data are drawn as they are.
const (
	// coincideTol is how close, as a share of the y span of the plot's
	// data, a point must lie to another line to count as under it.
	coincideTol = 0.015
	// coincideShare is the share of a line's points that must lie under
	// one other line for the line to be marked.
	coincideShare = 0.9
	// coincideMarkers is how many markers a marked line gets.
	coincideMarkers = 10
	// coincideWidth is the width of a marked line, in points.
	coincideWidth = 1.2
)

// coincideGlyphs are the marker shapes of coinciding lines, hollow so
// that the line under a marker shows through.
var coincideGlyphs = []draw.GlyphDrawer{draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}}

// markCoincident sets glyph (1 + an index into coincideGlyphs) and marks,
// and thins the width to coincideWidth, of every line that is not the paper's algorithm, a reference or a bar,
// and whose points lie, coincideShare of them, within coincideTol of the
// y span of one other line that is not a reference. Lines whose x is not
// increasing are left alone.
func markCoincident(ls []line) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, l := range ls {
		for _, r := range l.runs {
			for _, p := range r {
				lo, hi = min(lo, p.Y), max(hi, p.Y)
			}
		}
	}
	tol := coincideTol * (hi - lo)
	if !(tol > 0) {
		tol = 0
	}
	var marked []int
	for i := range ls {
		if ls[i].primary || ls[i].ref || ls[i].boxes || !increasing(ls[i].runs) {
			continue
		}
		for j := range ls {
			if j != i && !ls[j].ref && !ls[j].boxes && increasing(ls[j].runs) && under(ls[i].runs, ls[j].runs, tol) {
				marked = append(marked, i)
				break
			}
		}
	}
	for k, i := range marked {
		ls[i].glyph = 1 + k%len(coincideGlyphs)
		ls[i].style.Width = min(ls[i].style.Width, vg.Points(coincideWidth))
		ls[i].marks = markPoints(ls[i].runs, (float64(k)+0.5)/float64(len(marked)))
	}
}

// increasing reports whether the x of the runs, one after the other,
// never decrease.
func increasing(runs []plotter.XYs) bool {
	last := math.Inf(-1)
	for _, r := range runs {
		for _, p := range r {
			if p.X < last {
				return false
			}
			last = p.X
		}
	}
	return true
}

// under reports whether coincideShare of the points of a lie within tol
// of b, read at the same x (linear between b's points); a point outside
// b's runs does not count as under it.
func under(a, b []plotter.XYs, tol float64) bool {
	n, in := 0, 0
	for _, r := range a {
		for _, p := range r {
			n++
			if y, ok := yAt(b, p.X); ok && math.Abs(y-p.Y) <= tol {
				in++
			}
		}
	}
	return n > 0 && float64(in) >= coincideShare*float64(n)
}

// yAt is the y of runs (non-empty, x increasing, see increasing) at x,
// linear between points, and whether x lies in one of the runs. It
// searches, so a line broken into many runs by gaps costs no more.
func yAt(runs []plotter.XYs, x float64) (float64, bool) {
	i := sort.Search(len(runs), func(i int) bool { r := runs[i]; return len(r) > 0 && r[len(r)-1].X >= x })
	if i == len(runs) || len(runs[i]) == 0 || x < runs[i][0].X {
		return 0, false
	}
	r := runs[i]
	k := sort.Search(len(r), func(k int) bool { return r[k].X >= x })
	if r[k].X == x || k == 0 {
		return r[k].Y, true
	}
	a, b := r[k-1], r[k]
	return a.Y + (b.Y-a.Y)*(x-a.X)/(b.X-a.X), true
}

// markPoints picks coincideMarkers of the line's own points, at about
// evenly spaced x, the first one phase (in [0, 1)) of a spacing from the
// start, so that lines with different phases have their markers apart.
func markPoints(runs []plotter.XYs, phase float64) plotter.XYs {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range runs {
		if len(r) > 0 {
			lo, hi = min(lo, r[0].X), max(hi, r[len(r)-1].X)
		}
	}
	if !(lo <= hi) {
		return nil
	}
	var out plotter.XYs
	step := (hi - lo) / coincideMarkers
	for m := range coincideMarkers {
		x := lo + (float64(m)+phase)*step
		best, d := plotter.XY{}, math.Inf(1)
		for _, r := range runs {
			k := sort.Search(len(r), func(k int) bool { return r[k].X >= x })
			for _, c := range []int{k - 1, k} {
				if c >= 0 && c < len(r) && math.Abs(r[c].X-x) < d {
					best, d = r[c], math.Abs(r[c].X-x)
				}
			}
		}
		if !math.IsInf(d, 1) && (len(out) == 0 || out[len(out)-1] != best) {
			out = append(out, best)
		}
	}
	return out
}
