package report

import (
	"fmt"
	"github.com/msched/msched/baselines"
	"html"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

type saver interface{ Save(string) error }

// render saves pl as an SVG (and so a PNG) in a temporary directory and
// returns the decoded PNG and the SVG text.
func render(t *testing.T, pl saver) (image.Image, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, pl.Save(filepath.Join(dir, "fig.svg")))
	f, err := os.Open(filepath.Join(dir, "fig.png"))
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	svg, err := os.ReadFile(filepath.Join(dir, "fig.svg"))
	require.NoError(t, err)
	return img, string(svg)
}

// ink counts the pixels of r that are not near-white.
func ink(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr < 0xe000 || cg < 0xe000 || cb < 0xe000 {
				n++
			}
		}
	}
	return n
}

func rising(n int, scale float64) plotter.XYs {
	pts := make(plotter.XYs, n)
	for i := range pts {
		pts[i].X, pts[i].Y = float64(i+1), scale*float64(i+1)
	}
	return pts
}

// TestSaveSizeAndMargins renders a plot whose last x tick is a four-digit
// label at the right end of the axis ("2000", clipped to "200" before) and
// checks the PNG: its size, ink in the data area, and no ink within a few
// pixels of any edge, so no label touches the border.
func TestSaveSizeAndMargins(t *testing.T) {
	pl := NewPlot("margins", "t", "y")
	pl.Width, pl.Height = 4*vg.Inch, 3*vg.Inch
	pl.Line("A", rising(2000, 1)).Line("B", rising(2000, 0.5))
	img, svg := render(t, pl)
	b := img.Bounds()
	require.Equal(t, 4*96, b.Dx(), "width in pixels at 96 dpi")
	require.Equal(t, 3*96, b.Dy(), "height in pixels at 96 dpi")
	mid := image.Rect(b.Dx()/4, b.Dy()/4, 3*b.Dx()/4, 3*b.Dy()/4)
	require.Positive(t, ink(img, mid), "the data area is blank")
	const edge = 4
	for name, r := range map[string]image.Rectangle{
		"left":   image.Rect(0, 0, edge, b.Dy()),
		"right":  image.Rect(b.Dx()-edge, 0, b.Dx(), b.Dy()),
		"top":    image.Rect(0, 0, b.Dx(), edge),
		"bottom": image.Rect(0, b.Dy()-edge, b.Dx(), b.Dy()),
	} {
		require.Zero(t, ink(img, r), "ink within %d px of the %s edge: a label is clipped", edge, name)
	}
	require.Contains(t, svg, ">2000<", "the last x tick label")
	pl.DPI = 144
	img, _ = render(t, pl)
	require.Equal(t, image.Rect(0, 0, 4*144, 3*144), img.Bounds(), "size at 144 dpi")
	require.True(t, strings.Contains(svg, "serif;"), "SVG fonts have a generic fallback")
}

// names of the legend entries in an SVG: the text of its <text> elements.
func svgTexts(svg string) []string {
	var out []string
	for _, part := range strings.Split(svg, "</text>")[:max(0, strings.Count(svg, "</text>"))] {
		if i := strings.LastIndexByte(part, '>'); i >= 0 {
			out = append(out, html.UnescapeString(part[i+1:]))
		}
	}
	return out
}

func TestLegendListsEverySeries(t *testing.T) {
	names := []string{"OGASched", "DRF", "FAIRNESS", "BINPACKING", "some & other"}
	pl := NewPlot("legend", "t", "reward")
	for i, n := range names {
		pl.Line(n, rising(50, float64(i+1)))
	}
	pl.Reference("y*", rising(50, 7))
	_, svg := render(t, pl)
	texts := svgTexts(svg)
	for _, n := range append(names, "y*") {
		require.Contains(t, texts, n, "legend entry of %q", n)
	}
	require.Equal(t, append(names, "y*"), pl.last.entries)
}

// TestLegendCorner checks the placement on data whose empty corners are
// known: a line from bottom left to top right leaves the top-left and
// bottom-right corners free; data that fill the area force head room;
// a legend too tall for head room goes outside.
func TestLegendCorner(t *testing.T) {
	diag := func(pl *Plot) { pl.Line("A", rising(100, 1)) }
	fill := func(pl *Plot) {
		for k := range 3 {
			pts := make(plotter.XYs, 200)
			for i := range pts {
				// A zigzag over the whole range in x and y.
				pts[i].X, pts[i].Y = float64(i), float64((i*7+k*13)%50)
			}
			pl.Line(string(rune('A'+k)), pts)
		}
	}
	tall := func(pl *Plot) {
		fill(pl)
		for k := range 12 {
			pl.Line(strings.Repeat("x", k+1), rising(10, 5))
		}
	}
	for _, tc := range []struct {
		name      string
		add       func(*Plot)
		top, left bool
		want      []corner
	}{
		{"diagonal, default hint", diag, true, false, []corner{topLeft, bottomRight}},
		{"diagonal, hint top left", diag, true, true, []corner{topLeft}},
		{"diagonal, hint bottom right", diag, false, false, []corner{bottomRight}},
		{"filled", fill, true, false, []corner{headroom}},
		{"filled, tall legend", tall, true, false, []corner{outside}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := NewPlot(tc.name, "x", "y").Legend(tc.top, tc.left)
			pl.Width, pl.Height = 5*vg.Inch, 3*vg.Inch
			tc.add(pl)
			render(t, pl)
			require.Contains(t, tc.want, pl.last.legend, "legend at %v", pl.last.legend)
		})
	}
}

// TestCrossesAgainstSampling checks the segment–rectangle test against
// dense sampling of the segment.
func TestCrossesAgainstSampling(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	disagree, trials := 0, 20000
	if testing.Short() {
		trials = 2000
	}
	for range trials {
		ax, ay, bx, by := rng.Float64()*10, rng.Float64()*10, rng.Float64()*10, rng.Float64()*10
		x0, y0 := rng.Float64()*8, rng.Float64()*8
		x1, y1 := x0+rng.Float64()*3, y0+rng.Float64()*3
		if rng.IntN(10) == 0 {
			bx = ax // vertical segments
		}
		sampled := false
		const n = 4000
		for i := 0; i <= n && !sampled; i++ {
			f := float64(i) / n
			x, y := ax+f*(bx-ax), ay+f*(by-ay)
			sampled = x >= x0 && x <= x1 && y >= y0 && y <= y1
		}
		if got := crosses(ax, ay, bx, by, x0, y0, x1, y1); got != sampled {
			if !got { // sampling cannot find a crossing that is not there
				t.Fatalf("crosses(%v,%v,%v,%v, [%v,%v]x[%v,%v]) = false, sampling found a point inside", ax, ay, bx, by, x0, x1, y0, y1)
			}
			disagree++ // a crossing shorter than the sampling step
		}
	}
	require.Less(t, disagree, trials/1000+1, "crossings missed by sampling")
}

func TestLogAxis(t *testing.T) {
	spread := func(lo, hi float64) plotter.XYs { return plotter.XYs{{X: 1, Y: lo}, {X: 2, Y: hi}} }
	for _, tc := range []struct {
		name string
		make func() *Plot
		log  bool
	}{
		{"two decades exactly", func() *Plot { return NewPlot("", "", "").Line("a", spread(1, 100)) }, false},
		{"three decades in one series", func() *Plot { return NewPlot("", "", "").Line("a", spread(1, 1000)) }, false},
		{"series three decades apart", func() *Plot {
			return NewPlot("", "", "").Line("a", spread(1, 2)).Line("b", spread(1000, 2000))
		}, true},
		{"series two decades apart", func() *Plot {
			return NewPlot("", "", "").Line("a", spread(1, 2)).Line("b", spread(100, 200))
		}, false},
		{"medians, not extremes", func() *Plot {
			// Both series start near 0 and end near 1000: cumulative sums.
			return NewPlot("", "", "").Line("a", rising(1000, 1)).Line("b", rising(1000, 0.9))
		}, false},
		{"negative values", func() *Plot {
			return NewPlot("", "", "").Line("a", spread(-1, 1)).Line("b", spread(1000, 2000))
		}, false},
		{"forced linear", func() *Plot { return NewPlot("", "", "").Line("a", spread(1, 1e6)).LinearY() }, false},
		{"forced log", func() *Plot { return NewPlot("", "", "").Line("a", spread(1, 2)).LogY() }, true},
		{"an all-zero series among series decades apart", func() *Plot {
			// Issue 12: 200 constant series 0..199 chose a log axis (the
			// zeros are under 1 % of the values), then Save failed on
			// series "0", which a log axis cannot draw.
			pl := NewPlot("", "", "")
			for i := range 200 {
				pl.Func(fmt.Sprint(i), 3, func(int) float64 { return float64(i) })
			}
			return pl
		}, false},
		{"one zero in 200 points", func() *Plot {
			pts := rising(200, 1)
			pts[0].Y = 0
			return NewPlot("", "", "").Line("a", pts).Line("b", rising(200, 1000))
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl := tc.make()
			render(t, pl)
			require.Equal(t, tc.log, pl.last.logY)
		})
	}
	// On a log axis the values <= 0 are left out, and the legend says so.
	pts := rising(10, 1)
	pts[3].Y, pts[4].Y = 0, -2
	pl := NewPlot("", "", "").Line("a", pts).LogY()
	_, svg := render(t, pl)
	require.Contains(t, svgTexts(svg), "(log axis: 2 values ≤ 0 left out)")
	// A series with nothing to draw on a log axis is an error naming it.
	pl = NewPlot("", "", "").Line("a", rising(10, 1)).Line("negative", rising(10, -1)).LogY()
	err := pl.Save(filepath.Join(t.TempDir(), "x.png"))
	require.ErrorIs(t, err, ErrSeries)
	require.ErrorContains(t, err, `"negative"`)
}

func TestSaveErrors(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		pl   *Plot
		err  error
		says string
	}{
		{"all NaN", NewPlot("", "", "").Line("ok", rising(3, 1)).Line("bad", plotter.XYs{{X: 1, Y: nan}, {X: 2, Y: nan}}), ErrSeries, `"bad"`},
		{"all Inf", NewPlot("", "", "").Line("inf", plotter.XYs{{X: 1, Y: math.Inf(1)}}), ErrSeries, `"inf"`},
		{"NaN x", NewPlot("", "", "").Func("nx", 0, nil).Line("nanx", plotter.XYs{{X: nan, Y: 1}}), ErrSeries, `"nanx"`},
		{"empty", NewPlot("", "", "").Line("empty", nil), ErrSeries, `"empty"`},
		{"reference", NewPlot("", "", "").Line("a", rising(3, 1)).Reference("bound", plotter.XYs{{X: 1, Y: nan}}), ErrSeries, `"bound"`},
		{"no series", NewPlot("nothing", "", ""), ErrSeries, "no series"},
		{"overflowing span", NewPlot("", "", "").Line("wide", plotter.XYs{{X: 1, Y: -1e308}, {X: 2, Y: 1e308}}), ErrSeries, "span"},
		{"Func n < 0", NewPlot("", "", "").Func("neg", -1, nil), ErrSize, "n = -1"},
		{"Func nil y", NewPlot("", "", "").Func("nil", 3, nil), ErrSeries, `"nil": nil function`},
		{"Func n huge", NewPlot("", "", "").Func("huge", math.MaxInt, nil), ErrSize, "huge"},
		{"huge width", func() *Plot { p := NewPlot("", "", "").Line("a", rising(3, 1)); p.Width = 1e9; return p }(), ErrSize, "Width"},
		{"NaN height", func() *Plot { p := NewPlot("", "", "").Line("a", rising(3, 1)); p.Height = vg.Length(nan); return p }(), ErrSize, "Height"},
		{"DPI too high", func() *Plot { p := NewPlot("", "", "").Line("a", rising(3, 1)); p.DPI = 100000; return p }(), ErrSize, "DPI"},
		{"DPI negative", func() *Plot { p := NewPlot("", "", "").Line("a", rising(3, 1)); p.DPI = -1; return p }(), ErrSize, "DPI"},
		{"too many pixels", func() *Plot {
			p := NewPlot("", "", "").Line("a", rising(3, 1))
			p.Width, p.Height, p.DPI = 40*vg.Inch, 40*vg.Inch, 300
			return p
		}(), ErrSize, "px"},
		{"negative width", func() *Plot { p := NewPlot("", "", "").Line("a", rising(3, 1)); p.Width = -1; return p }(), ErrSize, "Width"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.pl.Save(filepath.Join(t.TempDir(), "x.svg"))
			require.ErrorIs(t, err, tc.err)
			require.ErrorContains(t, err, tc.says)
		})
	}
}

// TestGaps checks that NaN and Inf split a line into runs instead of being
// drawn at 0, and that a lone finite point is still drawn.
func TestGaps(t *testing.T) {
	nan := math.NaN()
	pts := plotter.XYs{{X: 1, Y: 5}, {X: 2, Y: 6}, {X: 3, Y: nan}, {X: 4, Y: 7}, {X: 5, Y: math.Inf(-1)}, {X: 6, Y: 8}, {X: 7, Y: 9}}
	pl := NewPlot("", "", "").Line("a", pts)
	ls, err := pl.lines(false)
	require.NoError(t, err)
	require.Len(t, ls, 1)
	require.Equal(t, []plotter.XYs{{{X: 1, Y: 5}, {X: 2, Y: 6}}, {{X: 4, Y: 7}}, {{X: 6, Y: 8}, {X: 7, Y: 9}}}, ls[0].runs)
	img, _ := render(t, pl)
	require.Positive(t, ink(img, img.Bounds()))
}

func TestStyles(t *testing.T) {
	// The same name looks the same in two plots with other companions.
	a := NewPlot("", "", "").Line("OGASched", rising(5, 1)).Line("DRF", rising(5, 2)).Line("SPREADING", rising(5, 3))
	b := NewPlot("", "", "").Line("SPREADING", rising(5, 3)).Line("unknown policy", rising(5, 1)).Line("OGASched", rising(5, 2))
	la, err := a.lines(false)
	require.NoError(t, err)
	lb, err := b.lines(false)
	require.NoError(t, err)
	require.Equal(t, la[0].style, lb[2].style, "OGASched")
	require.Equal(t, la[2].style, lb[0].style, "SPREADING")
	// The paper's algorithm: solid, black, thickest, drawn on top.
	require.True(t, la[0].primary)
	require.Empty(t, la[0].style.Dashes)
	require.Equal(t, color.Color(black), la[0].style.Color)
	for _, l := range append(la[1:], lb[:2]...) {
		require.Less(t, l.style.Width, la[0].style.Width, l.name)
		require.False(t, l.primary, l.name)
	}
	// A ratio OGASched/B is drawn as B; a variant keeps its base colour
	// and is never solid; unknown names are stable.
	require.Equal(t, StyleFor("DRF"), StyleFor("OGASched/DRF"))
	v := StyleFor("OCORP+(a=10)")
	require.Equal(t, StyleFor("OCORP+").Color, v.Color)
	require.NotEmpty(t, v.Dashes)
	require.Equal(t, StyleFor("my policy"), StyleFor("my policy"))
	// A variant of a black algorithm is not black; a measure after a
	// space keeps the policy's colour and changes its dash.
	require.NotEqual(t, color.Color(black), StyleFor("OGASched(paper-proj)").Color)
	require.Equal(t, StyleFor("OCORP-fill").Color, StyleFor("OCORP-fill exact").Color)
	require.Equal(t, color.Color(black), StyleFor("OCORP exact").Color)
	require.Empty(t, StyleFor("OCORP exact").Dashes, "the paper's algorithm stays solid")
	require.Equal(t, StyleFor("SRPT").Color, StyleFor("2-D SRPT").Color)
	require.Equal(t, StyleFor("1-D SRPT").Dashes, StyleFor("1-D SVF").Dashes, "the setting sets the dash")
	// References are grey and dashed.
	r := NewPlot("", "", "").Line("ESDP", rising(5, 1)).Reference("y*", rising(5, 2)).Reference("bound", rising(5, 3))
	lr, err := r.lines(false)
	require.NoError(t, err)
	for _, l := range lr[1:] {
		require.NotEmpty(t, l.style.Dashes, l.name)
		cr, cg, cb, _ := l.style.Color.RGBA()
		require.True(t, cr == cg && cg == cb, "%s is grey", l.name)
	}
	require.NotEqual(t, lr[1].style.Dashes, lr[2].style.Dashes, "two references differ")
	// No two lines of one plot look alike, even when names collide.
	c := NewPlot("", "", "")
	for _, n := range []string{"OCORP+(a=0)", "OCORP+(a=10)", "OCORP+(a=100)", "OCORP+(a=1000)", "x", "x", "x", "x", "x", "x", "x", "x"} {
		c.Line(n, rising(3, 1))
	}
	lc, err := c.lines(false)
	require.NoError(t, err)
	seen := map[string]string{}
	for _, l := range lc {
		k := fmt.Sprint(l.style.Color, l.style.Dashes)
		require.NotContains(t, seen, k, "%s looks like %s", l.name, seen[k])
		seen[k] = l.name
	}
	// First line primary when nothing else is.
	d := NewPlot("", "", "").Line("my algorithm", rising(3, 1)).Line("DRF", rising(3, 1))
	ld, err := d.lines(false)
	require.NoError(t, err)
	require.True(t, ld[0].primary)
	e := NewPlot("", "", "").Line("DRF", rising(3, 1)).Line("mine", rising(3, 1)).Primary("mine")
	le, err := e.lines(false)
	require.NoError(t, err)
	require.False(t, le[0].primary)
	require.True(t, le[1].primary)
}

func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want []string
	}{
		{[]float64{0, 250, 500, 750}, []string{"0", "250", "500", "750"}},
		{[]float64{0, 0.25, 0.5}, []string{"0", "0.25", "0.50"}},
		{[]float64{0, 400000, 800000, 1200000}, []string{"0", "0.4M", "0.8M", "1.2M"}},
		{[]float64{0, 10000, 20000}, []string{"0", "10k", "20k"}},
		{[]float64{500, 1000, 1500, 2000}, []string{"500", "1000", "1500", "2000"}},
		{[]float64{-1, 0, 1}, []string{"-1", "0", "1"}},
	} {
		require.Equal(t, tc.want, tickLabels(tc.in), "%v", tc.in)
	}
	var labels []string
	for _, tk := range (logTicks{}).Ticks(math.Log10(0.5), math.Log10(2000)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"1", "10", "100", "1000"}, labels)
	labels = labels[:0]
	for _, tk := range (logTicks{}).Ticks(math.Log10(3), math.Log10(40)) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"5", "10", "20"}, labels, "fewer than two powers of ten: 2 and 5 labelled too")
	labels = labels[:0]
	for _, tk := range (niceTicks{}).Ticks(1, 2000) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		}
	}
	require.Equal(t, []string{"500", "1000", "1500", "2000"}, labels)
}

func TestLevel(t *testing.T) {
	pl := NewPlot("", "", "").Line("a", plotter.XYs{{X: 3, Y: 1}, {X: math.NaN(), Y: 2}, {X: 9, Y: 2}}).Level("y*", 1.5)
	require.Equal(t, plotter.XYs{{X: 3, Y: 1.5}, {X: 9, Y: 1.5}}, pl.series[1].pts)
	require.True(t, pl.series[1].ref)
}

func TestBars(t *testing.T) {
	cats := []string{"0-100 s", "100-1000 s", "1000-10000 s", ">=10000 s"}
	b := NewBars("mean wait by size", "job size", "mean wait (s)", cats...)
	b.Width, b.Height = 5*vg.Inch, 3*vg.Inch
	b.Add("OCORP", []float64{500, 600, 2800, 16000}).Add("SRPT", []float64{10, math.NaN(), 30, 3500}).Add("Tetris", []float64{1, 2, 3, 4})
	img, svg := render(t, b)
	require.Positive(t, ink(img, img.Bounds()))
	texts := svgTexts(svg)
	for _, n := range append([]string{"OCORP", "SRPT", "Tetris"}, cats...) {
		require.Contains(t, texts, n)
	}
	// The bars are filled with the policies' line colours.
	for _, n := range []string{"SRPT", "Tetris"} {
		r, g, bb, _ := StyleFor(n).Color.RGBA()
		require.Contains(t, svg, fmt.Sprintf("fill:#%02X%02X%02X", r>>8, g>>8, bb>>8), n)
	}
	require.True(t, b.last.logY, "medians 1700, 30 and 2.5 lie three decades apart")
	require.ErrorIs(t, NewBars("", "", "", "a", "b").Add("short", []float64{1}).Save(filepath.Join(t.TempDir(), "x.png")), ErrSeries)
	require.ErrorIs(t, NewBars("", "", "").Save(filepath.Join(t.TempDir(), "x.png")), ErrSeries)
	err := NewBars("", "", "", "a").Add("nan", []float64{math.NaN()}).Save(filepath.Join(t.TempDir(), "x.png"))
	require.ErrorIs(t, err, ErrSeries)
	require.ErrorContains(t, err, `"nan"`)
}

// TestThin checks the decimation of long runs against the run itself:
// at most n points, the ends kept, the points a subsequence of the run,
// and the maximum and minimum of every bucket kept.
func TestThin(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	r := make(plotter.XYs, 100001)
	for i := range r {
		r[i] = plotter.XY{X: float64(i), Y: rng.NormFloat64()}
	}
	r[777].Y, r[55555].Y = 100, -100 // spikes must survive
	const n = 4000
	out := thin(r, n)
	require.LessOrEqual(t, len(out), n)
	require.Equal(t, r[0], out[0])
	require.Equal(t, r[len(r)-1], out[len(out)-1])
	j := 0
	for _, q := range out {
		for j < len(r) && r[j] != q {
			j++
		}
		require.Less(t, j, len(r), "%v is not a point of the run in order", q)
	}
	require.Contains(t, out, r[777])
	require.Contains(t, out, r[55555])
	short := r[:n]
	require.Equal(t, short, thin(short, n))
	// A long series still renders.
	pl := NewPlot("", "", "").Line("long", r)
	img, _ := render(t, pl)
	require.Positive(t, ink(img, img.Bounds()))
}

// TestDeterministic: the same plot saved twice gives the same bytes.
func TestDeterministic(t *testing.T) {
	files := func() [][]byte {
		dir := t.TempDir()
		pl := NewPlot("det", "t", "y")
		for _, n := range []string{"OCORP", "OCORP+(a=10)", "SRPT", "unknown", "2-D SRF"} {
			pl.Line(n, rising(300, float64(len(n))))
		}
		pl.Level("bound", 100)
		require.NoError(t, pl.Save(filepath.Join(dir, "f.svg")))
		var out [][]byte
		for _, f := range []string{"f.svg", "f.png"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			require.NoError(t, err)
			out = append(out, b)
		}
		return out
	}
	require.Equal(t, files(), files())
}

// TestSeriesCSVHostile is issue 12 for the CSV writers: a negative n
// panicked in makeslice and a huge one built every row in memory; now n,
// the names and the functions are checked before the file is created, and
// rows are streamed.
func TestSeriesCSVHostile(t *testing.T) {
	dir := t.TempDir()
	one := []func(int) float64{func(t int) float64 { return float64(t) / 2 }}
	for _, tc := range []struct {
		name  string
		n     int
		names []string
		cols  []func(int) float64
		err   error
	}{
		{"negative n", -1, []string{"a"}, one, ErrSize},
		{"n above MaxPoints", MaxPoints + 1, []string{"a"}, one, ErrSize},
		{"n MaxInt", math.MaxInt, []string{"a"}, one, ErrSize},
		{"names without columns", 2, []string{"a", "b"}, one, ErrSeries},
		{"nil column", 2, []string{"a"}, []func(int) float64{nil}, ErrSeries},
	} {
		path := filepath.Join(dir, tc.name+".csv")
		err := Series(path, tc.n, tc.names, tc.cols)
		require.ErrorIs(t, err, tc.err, tc.name)
		_, statErr := os.Stat(path)
		require.True(t, os.IsNotExist(statErr), "%s: file created on error", tc.name)
	}
	path := filepath.Join(dir, "ok.csv")
	require.NoError(t, Series(path, 3, []string{"half"}, one))
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "t,half\n1,0\n2,0.5\n3,1\n", string(b))
	require.NoError(t, Series(path, 0, nil, nil))
	err = WriteCSV(filepath.Join(dir, "arity.csv"), []string{"a", "b"}, [][]string{{"1", "2"}, {"3"}})
	require.ErrorIs(t, err, ErrSeries)
	require.ErrorContains(t, err, "row 2")
}

// TestPalette checks the one palette every example draws with: every
// policy name of every family has a colour of its own in the table, the
// names of one family have distinct colours, the paper's algorithm (first
// of each list) is black and no other name is, and the gang baselines of
// package baselines are all listed.
func TestPalette(t *testing.T) {
	colorID := func(c color.RGBA) int { return int(c.R)<<16 | int(c.G)<<8 | int(c.B) }
	require.Len(t, Families, 6)
	for fam, names := range Families {
		seen := map[int]string{}
		for i, n := range names {
			k, ok := table[n]
			require.True(t, ok, "%s: %q has no entry in the palette", fam, n)
			require.NotEqual(t, grey, k.color, "%s: %q is grey, the colour of references", fam, n)
			if i == 0 {
				require.Equal(t, black, k.color, "%s: the paper's algorithm %q is black", fam, n)
				require.True(t, k.primary, n)
				st := styleOf(n)
				require.Equal(t, primaryWidth, st.width, n)
				require.Zero(t, st.dash, n)
			} else {
				require.NotEqual(t, black, k.color, "%s: %q is black, the colour of the paper's algorithm", fam, n)
			}
			id := colorID(k.color)
			require.NotContains(t, seen, id, "%s: %q has the colour of %q", fam, n, seen[id])
			seen[id] = n
		}
	}
	for _, n := range baselines.GangBaselineNames {
		require.Contains(t, Families["ogasched-gang"], n)
	}
	for _, n := range []string{"HSWF-gang", "LCF-gang", "LWTF-gang"} {
		require.Contains(t, Families["esdp-gang"], n)
	}
}

// TestFigureColours draws each family's policies, and mixes of them, in
// one figure and checks the rules Save keeps in every figure: one black
// line, thick and solid, and it is the paper's algorithm; no two policies
// in one colour; no two lines alike.
func TestFigureColours(t *testing.T) {
	check := func(name string, pl *Plot, wantBlack string) {
		t.Helper()
		ls, err := pl.lines(false)
		require.NoError(t, err, name)
		blacks, primaries := 0, 0
		owner := map[string]string{} // colour → policy
		look := map[string]string{}
		for _, l := range ls {
			c := fmt.Sprint(l.style.Color)
			if l.style.Color == color.Color(black) {
				blacks++
				require.Equal(t, wantBlack, l.name, name)
				require.Empty(t, l.style.Dashes, name)
				require.Equal(t, vg.Points(primaryWidth), l.style.Width, name)
			}
			if l.primary {
				primaries++
			}
			if !l.ref {
				key, _ := policyField(styleBase(l.name))
				if o, ok := owner[c]; ok {
					require.Equal(t, o, key, "%s: %q has the colour of %q", name, l.name, o)
				}
				owner[c] = key
			}
			k := fmt.Sprint(l.style.Color, l.style.Dashes)
			require.NotContains(t, look, k, "%s: %q looks like %q", name, l.name, look[k])
			look[k] = l.name
		}
		require.Equal(t, 1, blacks, name)
		require.Equal(t, 1, primaries, name)
	}
	for fam, names := range Families {
		pl := NewPlot("", "", "")
		for i, n := range names {
			pl.Line(n, rising(4, float64(i)))
		}
		pl.Level("bound", 3)
		check(fam, pl, names[0])
		// Reversed, the algorithm is still the one black line.
		rev := NewPlot("", "", "")
		for i := len(names) - 1; i >= 0; i-- {
			rev.Line(names[i], rising(4, float64(i)))
		}
		check(fam+" reversed", rev, names[0])
	}
	// The cases: the algorithm under two step sizes; OCORP beside
	// OCORP+ and its switching weights; every OCORP policy with SRF; a
	// setting after the name; all gang policies of both families.
	check("two OGASched readings", NewPlot("", "", "").Line("OGASched", rising(3, 1)).Line("OGASched eta0=25", rising(3, 2)).Line("DRF", rising(3, 3)), "OGASched")
	plus := NewPlot("", "", "").Line("OCORP+(a=0)", rising(3, 1)).Line("OCORP", rising(3, 1)).Line("OCORP+(a=10)", rising(3, 1)).Line("OCORP+(a=100)", rising(3, 1)).Line("OCORP+", rising(3, 1))
	check("OCORP+", plus, "OCORP")
	check("exact and fractional", NewPlot("", "", "").Line("OCORP exact", rising(3, 1)).Line("OCORP fractional", rising(3, 1)).Line("SRF exact", rising(3, 1)).Line("SRF fractional", rising(3, 1)), "OCORP exact")
	gang := NewPlot("", "", "")
	for _, n := range append(append([]string{}, Families["ogasched-gang"]...), Families["esdp-gang"][1:4]...) {
		gang.Line(n, rising(3, 1))
	}
	check("gang", gang, "OGASched-gang")
	mine := NewPlot("", "", "").Line("OGASched", rising(3, 1)).Line("mine", rising(3, 2)).Primary("mine")
	check("Primary", mine, "mine")
	// Bars: each series its own colour, OCORP black, SRF not red like it.
	b := NewBars("", "", "", "a", "b")
	for _, n := range Families["ocorp"] {
		b.Add(n, []float64{1, 2})
	}
	pb := &Plot{series: b.series, cats: b.cats}
	check("bars", pb, "OCORP")
}

// stack saves plots with Stack, for render.
type stack []*Plot

func (s stack) Save(path string) error { return Stack(path, s...) }

// TestStack: two panels one above the other, the height the sum of
// theirs, each panel inked and laid out by itself, the bound of the lower
// one not on the upper one's axis; errors as Save's.
func TestStack(t *testing.T) {
	top := NewPlot("policies", "t", "reward").Line("OGASched-gang", rising(50, 10)).Line("DRF-gang", rising(50, 5))
	bottom := NewPlot("against the bound", "t", "reward").Line("OGASched-gang", rising(50, 10)).Level("bound", 1000).LogY()
	top.Height, bottom.Height = 3*vg.Inch, 2*vg.Inch
	img, svg := render(t, stack{top, bottom})
	require.Equal(t, 8*96, img.Bounds().Dx())
	require.Equal(t, 5*96, img.Bounds().Dy())
	require.Positive(t, ink(img, image.Rect(0, 0, 8*96, 3*96)), "top panel")
	require.Positive(t, ink(img, image.Rect(0, 3*96, 8*96, 5*96)), "bottom panel")
	for _, s := range []string{"policies", "against the bound", "bound"} {
		require.Contains(t, svgTexts(svg), s)
	}
	require.False(t, top.last.logY)
	require.True(t, bottom.last.logY)
	dir := t.TempDir()
	require.ErrorIs(t, Stack(filepath.Join(dir, "x.png")), ErrSeries)
	require.ErrorIs(t, Stack(filepath.Join(dir, "x.png"), top, NewPlot("", "", "")), ErrSeries)
	tall := NewPlot("", "", "").Line("a", rising(3, 1))
	tall.Height = 30 * vg.Inch
	require.ErrorIs(t, Stack(filepath.Join(dir, "x.png"), tall, tall), ErrSize)
}

// TestIncludeY: a ratio plot whose best line sits just above 1 gets a
// labelled tick at 1 and a margin below it, so the line is not drawn on
// the frame (the OnSocMax figure had no tick at 1.0).
func TestIncludeY(t *testing.T) {
	pts := func(y ...float64) plotter.XYs {
		out := make(plotter.XYs, len(y))
		for i, v := range y {
			out[i] = plotter.XY{X: float64(4 * (i + 1)), Y: v}
		}
		return out
	}
	for _, include := range []bool{false, true} {
		pl := NewPlot("OPT/policy", "C", "ratio").Line("OnSocMax", pts(1.16, 1.05, 1.02, 1.01, 1.003)).
			Line("MAX-FIRST", pts(1.23, 1.27, 1.3, 1.31, 1.32)).Reference("α̂", pts(2.9, 2.9, 2.9, 2.9, 2.9))
		if include {
			pl.IncludeY(1)
		}
		p, _, _, _, err := pl.build()
		require.NoError(t, err)
		labels := map[string]bool{}
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Label != "" {
				labels[tk.Label] = true
			}
		}
		if !include {
			require.False(t, labels["1"] || labels["1.0"], "without IncludeY the old axis starts at 1.003: %v", labels)
			continue
		}
		require.True(t, labels["1"] || labels["1.0"], "a labelled tick at 1: %v", labels)
		require.Less(t, p.Y.Min, 1-0.03*(p.Y.Max-1), "a margin below 1")
	}
}

// TestSpareColoursKeepBaselines: a variant that needs a spare colour (its
// own is taken) never takes the colour of a baseline drawn later in the
// same figure, so every baseline keeps its palette colour (SRPT turned
// orange behind two OCORP+ variants).
func TestSpareColoursKeepBaselines(t *testing.T) {
	pl := NewPlot("", "", "")
	for _, n := range []string{"OCORP", "OCORP-fill", "OCORP+(a=10)", "OCORP+(a=100)", "SRPT", "SRVF", "SVF", "SRF", "Tetris"} {
		pl.Line(n, rising(3, 1))
	}
	ls, err := pl.lines(false)
	require.NoError(t, err)
	for _, l := range ls[4:] {
		require.Equal(t, StyleFor(l.name).Color, l.style.Color, l.name)
	}
}

// TestBarsNotClipped: the tallest bar ends below the top of the axis (the
// OCORP bar charts had their tallest bars cut by the frame).
func TestBarsNotClipped(t *testing.T) {
	for _, logY := range []bool{false, true} {
		b := NewBars("", "", "", "a", "b").Add("OCORP", []float64{500, 16000}).Add("SRF", []float64{300, 900})
		pl := &Plot{series: b.series, cats: b.cats, hint: topRight}
		if logY {
			pl.scale = Log
		} else {
			pl.scale = Linear
		}
		p, _, _, _, err := pl.build()
		require.NoError(t, err)
		top := 16000.0
		if logY {
			top = math.Log10(top)
		}
		require.Greater(t, p.Y.Max, top+0.04*(p.Y.Max-p.Y.Min), "log %v", logY)
	}
}

// TestPaperAlgorithmBlackWithoutOCORP: in a 2-D OCORP figure the paper's
// algorithm is OCORP+M, which the palette draws in wine beside OCORP; with
// no OCORP line it is the figure's black line (it was wine, and the figure
// had no black line).
func TestPaperAlgorithmBlackWithoutOCORP(t *testing.T) {
	pl := NewPlot("", "", "").Line("OCORP+M", rising(3, 1)).Line("OCORP+M-fill", rising(3, 2)).Line("SRPT", rising(3, 3))
	ls, err := pl.lines(false)
	require.NoError(t, err)
	require.Equal(t, color.Color(black), ls[0].style.Color)
	require.True(t, ls[0].primary)
	both := NewPlot("", "", "").Line("OCORP+", rising(3, 1)).Line("OCORP", rising(3, 2))
	ls, err = both.lines(false)
	require.NoError(t, err)
	require.True(t, ls[1].primary, "OCORP, drawn black in the palette, comes first")
	require.NotEqual(t, color.Color(black), ls[0].style.Color)
	// A measure of the black line's algorithm is dashed, not a second solid line.
	ex := NewPlot("", "", "").Line("OCORP+M exact", rising(3, 1)).Line("OCORP+M fractional", rising(3, 2))
	ls, err = ex.lines(false)
	require.NoError(t, err)
	require.Empty(t, ls[0].style.Dashes)
	require.NotEmpty(t, ls[1].style.Dashes)
}

// TestCoincidingLinesVisible: OCORP+ with a small switching cost lies on
// OCORP (the OCORP example's flowtime figure hid both OCORP+ lines under
// the thick black one). Each line that lies on another gets a marker
// shape of its own, on points of its own data, staggered from the other's,
// a width under the algorithm's, and is drawn above it; OCORP stays the
// one thick black line; lines that part (SRF) or lie apart (SRPT) and the
// bound are left as they were; and each coinciding line shows in the PNG.
func TestCoincidingLinesVisible(t *testing.T) {
	const n = 1000
	wave := func(scale float64) plotter.XYs {
		pts := make(plotter.XYs, n)
		for i := range pts {
			x := float64(i + 1)
			pts[i] = plotter.XY{X: x, Y: scale * (x + 50*math.Sin(x/40))}
		}
		return pts
	}
	ocorp := wave(1)
	parts := wave(1)
	for i := n / 2; i < n; i++ {
		parts[i].Y *= 0.7 // apart for the second half
	}
	pl := NewPlot("", "t", "flowtime").
		Reference("lower bound", wave(0.4)).
		Line("OCORP", ocorp).
		Line("OCORP+(a=10)", wave(1.003)).
		Line("OCORP+(a=100)", wave(0.998)).
		Line("SRPT", wave(0.6)).
		Line("SRF", parts)
	_, _, ls, _, err := pl.build()
	require.NoError(t, err)
	byName := map[string]line{}
	for _, l := range ls {
		byName[l.name] = l
	}
	require.True(t, byName["OCORP"].primary)
	require.Zero(t, byName["OCORP"].glyph)
	require.Equal(t, vg.Points(primaryWidth), byName["OCORP"].style.Width)
	for _, name := range []string{"lower bound", "SRPT", "SRF"} {
		require.Zero(t, byName[name].glyph, name)
		require.Zero(t, byName[name].layer(), name)
	}
	a, b := byName["OCORP+(a=10)"], byName["OCORP+(a=100)"]
	require.Positive(t, a.glyph)
	require.Positive(t, b.glyph)
	require.NotEqual(t, a.glyph, b.glyph, "each coinciding line its own marker shape")
	for _, l := range []line{a, b} {
		require.Greater(t, l.layer(), byName["OCORP"].layer(), "%s drawn above OCORP", l.name)
		require.Less(t, l.style.Width, byName["OCORP"].style.Width, l.name)
		require.NotEqual(t, color.Color(black), l.style.Color, l.name)
		require.Len(t, l.marks, coincideMarkers, l.name)
		own := map[plotter.XY]bool{}
		for _, r := range l.runs {
			for _, p := range r {
				own[p] = true
			}
		}
		for _, m := range l.marks {
			require.True(t, own[m], "%s: marker %v is not one of its points", l.name, m)
		}
	}
	for k := range a.marks {
		require.Greater(t, math.Abs(a.marks[k].X-b.marks[k].X), float64(n)/coincideMarkers/4, "markers staggered")
	}
	// In the PNG each coinciding line's colour shows.
	img, _ := render(t, pl)
	for _, l := range []line{a, b} {
		cr, cg, cb, _ := l.style.Color.RGBA()
		seen := 0
		bounds := img.Bounds()
		for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
			for x := bounds.Min.X; x < bounds.Max.X; x++ {
				r, g, bl, _ := img.At(x, y).RGBA()
				d := math.Abs(float64(r)-float64(cr)) + math.Abs(float64(g)-float64(cg)) + math.Abs(float64(bl)-float64(cb))
				if d < 3*0x1000 {
					seen++
				}
			}
		}
		require.Greater(t, seen, 200, "%s: %d pixels of its colour", l.name, seen)
	}
}

// TestUnder: the coincidence test reads the other line between its
// points and ignores x outside it.
func TestUnder(t *testing.T) {
	a := []plotter.XYs{{{X: 1, Y: 1}, {X: 3, Y: 3}}}
	y, ok := yAt(a, 2)
	require.True(t, ok)
	require.InDelta(t, 2, y, 1e-12)
	_, ok = yAt(a, 4)
	require.False(t, ok)
	b := []plotter.XYs{{{X: 1, Y: 1.01}, {X: 2, Y: 2.01}, {X: 3, Y: 3.01}}}
	require.True(t, under(b, a, 0.02))
	require.False(t, under(b, a, 0.001))
	require.False(t, under([]plotter.XYs{{{X: 5, Y: 5}}}, a, 1))
	require.False(t, increasing([]plotter.XYs{{{X: 2}, {X: 1}}}))
}
