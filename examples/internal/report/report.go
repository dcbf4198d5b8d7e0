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
//   - a policy has the same colour and dash in every figure ([StyleFor]);
//     the papers' algorithms are black, solid, thick and on top, and
//     references ([Plot.Reference], [Plot.Level]) are grey and dashed;
//   - NaN and ±Inf points leave gaps; an empty or all-NaN series is an
//     error naming it ([ErrSeries]).
//
// [Bars] draws grouped bar charts with the same rules.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"strconv"
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
