package onsocmax_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/onsocmax"
)

// Example draws a day of paper 001's setup, builds OnSocMax with the
// bounds of eq. (8) taken from the instance, and decides its first three
// slots.
func Example() {
	in, _ := onsocmax.Generate(onsocmax.DefaultConfig(), rand.New(rand.NewPCG(1, 1)))
	iota, v, _ := in.MarginalBounds(0)
	pol, err := onsocmax.New(in.Mesh, onsocmax.Settings{Iota: iota, V: v})
	if err != nil {
		fmt.Println(err)
		return
	}
	next := 0
	for t := range 3 {
		lo := next
		for next < len(in.Jobs) && in.Jobs[next].Arrival == t {
			next++
		}
		dec, err := pol.Decide(t, in.Jobs[lo:next])
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, o := range dec.Outcomes {
			fmt.Printf("slot %d: job %d %v %.2f\n", t, o.Job, o.Reason, o.Served)
		}
	}
	// Output:
	// slot 0: job 0 Allocated 17.66
	// slot 2: job 1 Allocated 21.92
	// slot 2: job 2 Allocated 21.87
	// slot 2: job 3 Allocated 18.39
	// slot 2: job 4 Allocated 18.27
}
