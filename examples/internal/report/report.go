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
