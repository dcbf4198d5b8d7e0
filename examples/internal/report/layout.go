package report

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// corner is where the legend goes.
type corner int

const (
	topRight corner = iota
	topLeft
	bottomRight
	bottomLeft
	headroom // top right, in room added above the data
	outside  // right of the data area
)

func (c corner) String() string {
	return [...]string{"top right", "top left", "bottom right", "bottom left", "head room", "outside"}[c]
}

// layout is what Save decided; tests read it.
type layout struct {
	legend  corner
	logY    bool
	entries []string
}

// maxHeadroom is the largest share of the data area's height the legend
// may take as head room above the data before it goes outside instead.
const maxHeadroom = 0.35

// draw lays out and draws p and its legend on c. The legend goes in the
// first corner of the data area (the hint, then top right, top left,
// bottom right, bottom left) that no drawn line or point comes within a
// few points of; else in head room added to the top of the y range when
// the legend needs at most maxHeadroom of the height; else outside, on
// the right.
func (pl *Plot) draw(p *plot.Plot, leg *plot.Legend, ls []line, c draw.Canvas) layout {
	c.SetColor(color.White)
	c.Fill(c.Rectangle.Path())
	c = draw.Crop(c, marginLeft, -marginRight, marginBottom, -marginTop)
	// The legend is drawn from its left edge; 15 % more width leaves room
	// for a viewer that draws the SVG's text in a wider font (DejaVu Serif
	// where Liberation Serif and Times are missing).
	size := leg.Rectangle(c).Size()
	size.X *= 1.15
	lay := layout{legend: outside}
	for _, l := range ls {
		lay.entries = append(lay.entries, l.name)
	}
	order := []corner{pl.hint}
	for _, k := range []corner{topRight, topLeft, bottomRight, bottomLeft} {
		if k != pl.hint {
			order = append(order, k)
		}
	}
	data := p.DataCanvas(c)
	for _, k := range order {
		if r := legendRect(data, size, k); empty(p, data, ls, r) {
			lay.legend = k
			break
		}
	}
	if lay.legend == outside && float64(size.Y+2*legendInset) <= maxHeadroom*float64(data.Max.Y-data.Min.Y) {
		// Extend the y range so that its top share f of the data area is
		// free: with the data in [lo, hi] (log10 of the data on a log
		// axis), the new top is hi + (hi-lo) f/(1-f).
		f := float64(size.Y+2*legendInset) / float64(data.Max.Y-data.Min.Y)
		lo, hi := p.Y.Min, p.Y.Max
		p.Y.Max = hi + (hi-lo)*f/(1-f)
		data = p.DataCanvas(c)
		if empty(p, data, ls, legendRect(data, size, topRight)) {
			lay.legend = headroom
		} else {
			p.Y.Max = hi
		}
	}
	var r vg.Rectangle
	switch lay.legend {
	case outside:
		inner := draw.Crop(c, 0, -(size.X + 2*legendInset), 0, 0)
		p.Draw(inner)
		data = p.DataCanvas(inner)
		r.Min.X = inner.Max.X + 2*legendInset
		r.Max = vg.Point{X: r.Min.X + size.X, Y: data.Max.Y}
		r.Min.Y = r.Max.Y - size.Y
	case headroom:
		p.Draw(c)
		r = legendRect(data, size, topRight)
	default:
		p.Draw(c)
		r = legendRect(data, size, lay.legend)
	}
	leg.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: r})
	return lay
}

// legendRect is the rectangle of a legend of the given size in corner k
// of the data area, inset from the axes.
func legendRect(data draw.Canvas, size vg.Point, k corner) vg.Rectangle {
	var r vg.Rectangle
	switch k {
	case topLeft, bottomLeft:
		r.Min.X = data.Min.X + legendInset
	default:
		r.Min.X = data.Max.X - legendInset - size.X
	}
	switch k {
	case bottomRight, bottomLeft:
		r.Min.Y = data.Min.Y + legendInset
	default:
		r.Min.Y = data.Max.Y - legendInset - size.Y
	}
	r.Max = r.Min.Add(size)
	return r
}

// empty reports whether no drawn line or point of ls comes within
// legendInset of r, in the coordinates of the data canvas.
func empty(p *plot.Plot, data draw.Canvas, ls []line, r vg.Rectangle) bool {
	x0, y0 := float64(r.Min.X-legendInset/2), float64(r.Min.Y-legendInset/2)
	x1, y1 := float64(r.Max.X+legendInset/2), float64(r.Max.Y+legendInset/2)
	at := func(x, y float64) (float64, float64) {
		return float64(data.X(p.X.Norm(x))), float64(data.Y(p.Y.Norm(y)))
	}
	for _, l := range ls {
		for _, run := range l.runs {
			if l.boxes { // a filled bar: its bounding box must miss r
				bx0, by0 := at(run[0].X, run[0].Y)
				bx1, by1 := bx0, by0
				for _, q := range run[1:] {
					x, y := at(q.X, q.Y)
					bx0, by0, bx1, by1 = min(bx0, x), min(by0, y), max(bx1, x), max(by1, y)
				}
				if bx0 <= x1 && bx1 >= x0 && by0 <= y1 && by1 >= y0 {
					return false
				}
				continue
			}
			ax, ay := at(run[0].X, run[0].Y)
			if ax >= x0 && ax <= x1 && ay >= y0 && ay <= y1 {
				return false
			}
			for _, q := range run[1:] {
				bx, by := at(q.X, q.Y)
				if crosses(ax, ay, bx, by, x0, y0, x1, y1) {
					return false
				}
				ax, ay = bx, by
			}
		}
	}
	return true
}

// crosses reports whether the segment (ax, ay)–(bx, by) meets the
// rectangle [x0, x1]×[y0, y1] (Liang–Barsky clipping).
func crosses(ax, ay, bx, by, x0, y0, x1, y1 float64) bool {
	dx, dy := bx-ax, by-ay
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{{-dx, ax - x0}, {dx, x1 - ax}, {-dy, ay - y0}, {dy, y1 - ay}} {
		pk, qk := e[0], e[1]
		if pk == 0 {
			if qk < 0 {
				return false
			}
			continue
		}
		t := qk / pk
		if pk < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// niceTicks put three to six labelled ticks at multiples of 1, 2, 2.5 or 5
// times a power of ten, with minor ticks between, and label them with
// tickLabels ("750", not "750.00"; "1.2M", not "1200000").
type niceTicks struct{}

func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	span := hi - lo
	if !(span > 0) || math.IsInf(span, 0) {
		return endTicks(lo, hi)
	}
	raw := span / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step, minor := 10*mag, 2*mag
	for _, m := range []struct{ step, minor float64 }{{1, 0.2}, {2, 0.5}, {2.5, 0.5}, {5, 1}} {
		if m.step*mag >= raw {
			step, minor = m.step*mag, m.minor*mag
			break
		}
	}
	k0, k1 := math.Ceil(lo/minor-1e-9), math.Floor(hi/minor+1e-9)
	// Far from 0 for its span (1e15 to 1e15+1), k+1 == k: no loop on k.
	if !(k1-k0 >= 0 && k1-k0 < 1000) || k0+1 == k0 || k1-1 == k1 {
		return endTicks(lo, hi)
	}
	var ts []plot.Tick
	var major []float64
	for i := 0; i <= int(k1-k0); i++ {
		v := (k0 + float64(i)) * minor
		if r := v / step; math.Abs(r-math.Round(r)) < 1e-6 {
			v = math.Round(r) * step
			major = append(major, v)
			ts = append(ts, plot.Tick{Value: v, Label: "x"})
			continue
		}
		ts = append(ts, plot.Tick{Value: v})
	}
	if len(major) < 2 {
		return endTicks(lo, hi)
	}
	labels := tickLabels(major)
	j := 0
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = labels[j]
			j++
		}
	}
	return ts
}

// endTicks labels just the ends of a range that has no round ticks.
func endTicks(lo, hi float64) []plot.Tick {
	return []plot.Tick{
		{Value: lo, Label: strconv.FormatFloat(lo, 'g', 6, 64)},
		{Value: hi, Label: strconv.FormatFloat(hi, 'g', 6, 64)},
	}
}

// tickLabels formats the values of a tick row with as few decimals as keep
// them exact to 1e-9 of the largest, in thousands ("12k") when the largest
// is at least 1e4 in magnitude, in millions ("1.2M"), billions (G) or
// trillions (T) from 1e6, 1e9, 1e12.
func tickLabels(vs []float64) []string {
	big := 0.0
	for _, v := range vs {
		big = max(big, math.Abs(v))
	}
	scale, suffix := 1.0, ""
	switch {
	case big >= 1e12:
		scale, suffix = 1e12, "T"
	case big >= 1e9:
		scale, suffix = 1e9, "G"
	case big >= 1e6:
		scale, suffix = 1e6, "M"
	case big >= 1e4:
		scale, suffix = 1e3, "k"
	}
	if big < 1e-3 && big > 0 {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = strconv.FormatFloat(v, 'g', 3, 64)
		}
		return out
	}
	for prec := 0; prec <= 9; prec++ {
		out := make([]string, len(vs))
		ok := true
		for i, v := range vs {
			s := strconv.FormatFloat(v/scale, 'f', prec, 64)
			back, _ := strconv.ParseFloat(s, 64)
			if math.Abs(back*scale-v) > 1e-9*math.Max(big, 1e-300) {
				ok = false
				break
			}
			if strings.Trim(s, "-0.") == "" {
				out[i] = "0"
				continue
			}
			out[i] = s + suffix
		}
		if ok {
			return out
		}
	}
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = strconv.FormatFloat(v, 'g', 4, 64)
	}
	return out
}

// logTicks are ticks for a log axis drawn as a linear axis of log10 of the
// data (gonum's LogScale centres the axis label on the linear midpoint of
// the range, which pushes the label, and so the whole data area, down): a
// labelled major tick at each power of ten in range, minor ticks at 2–9
// times it; when fewer than two powers of ten fall in range, 2 and 5 times
// each power are labelled too. Ticks receives and returns log10 values.
type logTicks struct{}

func (logTicks) Ticks(llo, lhi float64) []plot.Tick {
	lo, hi := math.Pow(10, llo), math.Pow(10, lhi)
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) || lhi-llo > 600 {
		return nil
	}
	e0, e1 := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	var vals []float64
	var major []bool
	in := 0
	for e := e0; e <= e1; e++ {
		p := math.Pow(10, float64(e))
		for m := 1; m <= 9; m++ {
			v := float64(m) * p
			if v < lo*(1-1e-12) || v > hi*(1+1e-12) {
				continue
			}
			vals = append(vals, v)
			major = append(major, m == 1)
			if m == 1 {
				in++
			}
		}
	}
	if in < 2 {
		for i, v := range vals {
			m := math.Round(v / math.Pow(10, math.Floor(math.Log10(v)+1e-12)))
			major[i] = m == 1 || m == 2 || m == 5
		}
	}
	ts := make([]plot.Tick, len(vals))
	for i, v := range vals {
		ts[i].Value = math.Log10(v)
		if major[i] {
			ts[i].Label = tickLabels([]float64{v})[0]
		}
	}
	return ts
}
