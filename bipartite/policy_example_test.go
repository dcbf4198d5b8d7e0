package bipartite_test

import (
	"fmt"

	"github.com/msched/msched/bipartite"
)

// roundRobin is a toy policy: it sends each slot's arrival to the next server.
type roundRobin struct{ servers, next int }

func (p *roundRobin) Name() string { return "round-robin" }

func (p *roundRobin) Decide(t int, arrivals int) ([]int, error) {
	out := make([]int, arrivals)
	for i := range out {
		out[i] = p.next
		p.next = (p.next + 1) % p.servers
	}
	return out, nil
}

// Compile-time check, as every policy in msched does.
var _ bipartite.OnlinePolicy[int, []int] = (*roundRobin)(nil)

func ExampleOnlinePolicy() {
	var p bipartite.OnlinePolicy[int, []int] = &roundRobin{servers: 3}
	for t, arrivals := range []int{2, 0, 3} {
		d, _ := p.Decide(t, arrivals)
		fmt.Println(p.Name(), t, d)
	}
	// Output:
	// round-robin 0 [0 1]
	// round-robin 1 []
	// round-robin 2 [2 0 1]
}
