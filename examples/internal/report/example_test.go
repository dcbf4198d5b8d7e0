package report_test

import (
	"errors"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/msched/msched/examples/internal/report"
)

// Every figure draws a policy with the same colour and dash: the paper's
// algorithm black and solid, its baselines in fixed colours, a ratio
// "OGASched/DRF" like DRF, a setting ("2-D SRPT") with the policy's colour
// and a dash of its own.
func ExampleStyleFor() {
	hex := func(c color.Color) string {
		r, g, b, _ := c.RGBA()
		return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
	}
	for _, name := range []string{"OGASched", "DRF", "OGASched/DRF", "SRPT", "2-D SRPT"} {
		s := report.StyleFor(name)
		fmt.Printf("%-13s %s width %.1f dashes %v\n", name, hex(s.Color), s.Width.Points(), s.Dashes)
	}
	// Output:
	// OGASched      #000000 width 2.5 dashes []
	// DRF           #0072B2 width 1.5 dashes []
	// OGASched/DRF  #0072B2 width 1.5 dashes []
	// SRPT          #0072B2 width 1.5 dashes []
	// 2-D SRPT      #0072B2 width 1.5 dashes [12 4]
}

// A figure of two policies and a reference; Save writes the SVG and a PNG
// beside it, and names a series it cannot draw.
func ExamplePlot() {
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	const T = 200
	pl := report.NewPlot("Average reward until t (T = 200)", "slot t", "average reward")
	pl.Func("OGASched", T, func(t int) float64 { return 10 - 5/math.Sqrt(float64(t+1)) })
	pl.Func("DRF", T, func(t int) float64 { return 8 })
	pl.Level("y* (best fixed allocation)", 10)
	fmt.Println(pl.Save(filepath.Join(dir, "average_reward.svg")))
	for _, f := range []string{"average_reward.svg", "average_reward.png"} {
		_, err := os.Stat(filepath.Join(dir, f))
		fmt.Println(f, err == nil)
	}

	bad := report.NewPlot("", "", "").Func("diverged", 3, func(int) float64 { return math.NaN() })
	err = bad.Save(filepath.Join(dir, "bad.svg"))
	fmt.Println(errors.Is(err, report.ErrSeries), strings.TrimPrefix(err.Error(), dir))
	// Output:
	// <nil>
	// average_reward.svg true
	// average_reward.png true
	// true /bad.svg: report: bad series: series 0 "diverged": all 3 points are NaN or ±Inf
}
