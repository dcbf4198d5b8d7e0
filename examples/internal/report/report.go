// Package report holds the output helpers shared by the example commands:
// the indented JSON summary on stdout, CSV files, and line plots and bar
// charts with gonum.org/v1/plot. It is internal to the examples so that
// the plotting dependency never reaches library code.
//
// # Figures
//
//	pl := report.NewPlot("Average reward until t (|L|=10, |R|=128, T=2000)", "slot t", "average reward")
//	pl.Func("OGASched", T, avg(0)).Func("DRF", T, avg(1)).Level("y* (best fixed)", ystar)
//	err := pl.Save("out/average_reward.svg") // also writes out/average_reward.png
//
// Save lays the figure out from its data, so that every example's figures
// read alike:
//
//   - tick labels stay inside the figure (margins; SVG fonts with the
//     metric-compatible fallbacks), labelled "750", "1.2M", not "750.00",
//     "1200000";
//   - the legend goes in a corner of the data area no line crosses, else
//     in head room above the data, else outside on the right;
//   - the y axis is log when the series lie more than two decades apart
//     (see [Scale]; [Plot.LogY], [Plot.LinearY] override);
//   - one palette keyed by policy name ([Families] lists every policy of
//     every family, gang ones included): a policy has the same colour and
//     dash in every figure ([StyleFor]), and no two policies of one figure
//     share a colour; exactly one line per figure, the paper's algorithm,
//     is black, solid, thick and on top; references ([Plot.Reference],
//     [Plot.Level]) are grey and dashed;
//   - a bound that dwarfs the policies goes on a panel of its own
//     ([Stack]); [Plot.IncludeY] puts a labelled tick at an optimum (1 on a
//     ratio axis) with a margin, so no line is drawn on the frame;
//   - NaN and ±Inf points leave gaps; an empty or all-NaN series is an
//     error naming it ([ErrSeries]).
//
// [Bars] draws grouped bar charts with the same rules, with room above
// the tallest bar.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
)

// PrintJSON writes v to stdout as indented JSON.
func PrintJSON(v any) error {
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteCSV writes a header and rows to path. Every row must have as many
// fields as the header (else ErrSeries, and no file is written).
func WriteCSV(path string, head []string, rows [][]string) error {
	for i, row := range rows {
		if len(row) != len(head) {
			return fmt.Errorf("%w: %s: row %d has %d fields, the header %d", ErrSeries, path, i+1, len(row), len(head))
		}
	}
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
// function, each called with the slot index 0..n-1. n must be in
// [0, MaxPoints] (else ErrSize) and names and cols must match one to one
// with no nil function (else ErrSeries); both are checked before the file
// is created. Rows are streamed, so memory does not grow with n (a
// negative n used to panic in makeslice, a huge one to build every row in
// memory first).
func Series(path string, n int, names []string, cols []func(t int) float64) error {
	if n < 0 || n > MaxPoints {
		return fmt.Errorf("%w: %s: n = %d, want 0 <= n <= %d", ErrSize, path, n, MaxPoints)
	}
	if len(names) != len(cols) {
		return fmt.Errorf("%w: %s: %d names for %d columns", ErrSeries, path, len(names), len(cols))
	}
	for i, c := range cols {
		if c == nil {
			return fmt.Errorf("%w: %s: column %q has no function", ErrSeries, path, names[i])
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(append([]string{"t"}, names...))
	row := make([]string, len(cols)+1)
	for t := range n {
		row[0] = strconv.Itoa(t + 1)
		for i, c := range cols {
			row[i+1] = Ftoa(c(t))
		}
		if err := w.Write(row); err != nil {
			break
		}
	}
	w.Flush()
	return errors.Join(w.Error(), f.Close())
}

// Ftoa formats a value for CSV with 10 significant digits.
func Ftoa(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
