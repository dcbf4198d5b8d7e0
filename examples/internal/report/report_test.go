package report

import (
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// render saves pl as an SVG (and so a PNG) in a temporary directory and
// returns the decoded PNG and the SVG text.
func render(t *testing.T, pl *Plot) (image.Image, string) {
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
	require.True(t, strings.Contains(svg, "serif;"), "SVG fonts have a generic fallback")
}
