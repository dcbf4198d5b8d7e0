// Command ogasched reproduces the experiments of the OGASched paper.
//
// Placeholder until the OGASched issue lands the reproduction.
package main

import "fmt"

func main() {
	fmt.Println("msched: the OGASched example is coming soon (see the OGASched issue).")
}
