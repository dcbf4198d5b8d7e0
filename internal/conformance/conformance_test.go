package conformance

import (
	"fmt"
	"strings"
	"testing"
)

// families lists every family's table; the gang families are in
// gang_test.go.
func families() []struct {
	name string
	s    suite
} {
	return []struct {
		name string
		s    suite
	}{
		{"ogasched", ogaFamily()},
		{"onsocmax", osmFamily()},
		{"esdp", esdpFamily()},
		{"ocorp", ocFamily()},
		{"ogasched-gang", ogaGangFamily()},
		{"esdp-gang", esdpGangFamily()},
	}
}

// TestConformance runs every policy of every family through every promise
// of the README's contract table (see the package doc) and, with -v,
// prints the policy × promise table.
func TestConformance(t *testing.T) {
	var table strings.Builder
	fmt.Fprintf(&table, "| family | policy | %s |\n|---|---|%s\n", strings.Join(promises, " | "), strings.Repeat("---|", len(promises)))
	rows, kept := 0, 0
	for _, fam := range families() {
		for _, row := range fam.s.rows() {
			fmt.Fprintf(&table, "| %s | %s |", fam.name, row)
			rows++
			for _, pr := range promises {
				ok := t.Run(fam.name+"/"+row+"/"+pr, func(t *testing.T) {
					if err := fam.s.check(t, row, pr); err != nil {
						t.Error(err)
					}
				})
				mark := "kept"
				if !ok {
					mark = "**broken**"
				} else {
					kept++
				}
				fmt.Fprintf(&table, " %s |", mark)
			}
			table.WriteString("\n")
		}
	}
	fmt.Fprintf(&table, "\n%d policies × %d promises: %d kept, %d broken\n", rows, len(promises), kept, rows*len(promises)-kept)
	if testing.Verbose() {
		fmt.Print("\n" + table.String())
	}
}
