package utility_test

import (
	"encoding/json"
	"fmt"

	"github.com/msched/msched/utility"
)

func ExampleNew() {
	f, err := utility.New(utility.Log, 1.5)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%v: f(3) = %.4f, f'(3) = %.4f, f'(0) = %.4f\n", f, f.Value(3), f.Deriv(3), f.DerivBound())
	// Output:
	// log(a=1.5): f(3) = 2.0794, f'(3) = 0.3750, f'(0) = 1.5000
}

func ExampleUtility_InvDeriv() {
	// The amount a price-taker buys at unit price p maximises f(x) - p*x.
	f, _ := utility.New(utility.Poly, 2)
	for _, p := range []float64{0.25, 0.5, 1.5} {
		fmt.Printf("p = %.2f: x = %.4f\n", p, f.InvDeriv(p))
	}
	// Output:
	// p = 0.25: x = 15.0000
	// p = 0.50: x = 3.0000
	// p = 1.50: x = 0.0000
}

func ExampleNewAlphaFair() {
	f, _ := utility.NewAlphaFair(1, 2)
	fmt.Printf("f(1) = %.4f, f(inf) -> %.4f\n", f.Value(1), f.Value(1e12))
	// Output:
	// f(1) = 0.5000, f(inf) -> 1.0000
}

func ExampleUtility_UnmarshalJSON() {
	var fs []utility.Utility
	err := json.Unmarshal([]byte(`[{"kind":"linear","a":2},{"kind":"reciprocal","a":1.2}]`), &fs)
	fmt.Println(fs, err)
	err = json.Unmarshal([]byte(`[{"kind":"log","a":-1}]`), &fs)
	fmt.Println(err)
	// Output:
	// [linear(a=2) reciprocal(a=1.2)] <nil>
	// utility: bad parameter: a = -1 for log, want finite a > 0
}

func ExampleParseKind() {
	k, err := utility.ParseKind("sqrt")
	fmt.Println(k, err)
	// Output:
	// sqrt <nil>
}
