package ogasched_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/msched/msched/ogasched"
)

// The default step is (53) in the instance's units; the experiments'
// literal eta0 = 25 (PaperGeometric) is far too large for these units and
// trails it, and y* (BestFixed) shows how much any policy could gain.
func Example_steps() {
	rng := rand.New(rand.NewPCG(1, 1))
	cfg := ogasched.DefaultConfig()
	cfg.Ports, cfg.Nodes = 4, 16
	p, err := ogasched.Generate(cfg, rng)
	if err != nil {
		panic(err)
	}
	const T = 300
	tr, err := ogasched.BernoulliTrace(p.NumPorts(), T, 0.7, rng)
	if err != nil {
		panic(err)
	}
	faithful, err := ogasched.New(p, ogasched.Settings{Horizon: T}) // Theory (53)
	if err != nil {
		panic(err)
	}
	defer faithful.Close()
	literal, err := ogasched.New(p, ogasched.Settings{Step: ogasched.PaperGeometric()})
	if err != nil {
		panic(err)
	}
	defer literal.Close()
	res, err := ogasched.Run(p, tr, []ogasched.OnlinePolicy{faithful, literal}, ogasched.RunSettings{})
	if err != nil {
		panic(err)
	}
	best, err := ogasched.BestFixed(p, tr, ogasched.BestFixedSettings{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("step (53):   %.1f per slot\n", res.Series[0].Total/T)
	fmt.Printf("eta0 = 25:   %.1f per slot\n", res.Series[1].Total/T)
	fmt.Printf("best fixed:  %.1f per slot\n", best.Value/T)
	// Output:
	// step (53):   44.5 per slot
	// eta0 = 25:   41.1 per slot
	// best fixed:  45.3 per slot
}
