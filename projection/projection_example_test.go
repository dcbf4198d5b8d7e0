package projection_test

import (
	"errors"
	"fmt"
	"math"

	"github.com/msched/msched/projection"
)

// Project three ports' requests z onto one server's capacity c = 2 with
// per-port bounds u: the sum constraint binds and tau = 1.2 is subtracted
// from every coordinate before clipping to [0, u].
func ExampleCappedSimplex() {
	z := []float64{3, 2, -1}
	u := []float64{10, 0.2, 1}
	y := make([]float64, len(z))
	tau := projection.CappedSimplex(y, z, u, 2)
	fmt.Printf("y = %.4f, tau = %.4f\n", y, tau)

	// With enough capacity the projection is the clip to [0, u].
	tau = projection.CappedSimplex(y, z, u, 100)
	fmt.Printf("y = %.4f, tau = %.4f\n", y, tau)
	// Output:
	// y = [1.8000 0.2000 0.0000], tau = 1.2000
	// y = [3.0000 0.2000 0.0000], tau = 0.0000
}

// The paper's procedure on the same data caps only the port with the
// largest z, so port 2 exceeds its bound 0.2; and with slack capacity it
// still fills c (its rho is negative).
func ExampleCappedSimplexPaper() {
	z := []float64{3, 2, -1}
	u := []float64{10, 0.2, 1}
	y := make([]float64, len(z))
	tau := projection.CappedSimplexPaper(y, z, u, 2)
	fmt.Printf("y = %.4f, tau = %.4f\n", y, tau)

	tau = projection.CappedSimplexPaper(y[:2], []float64{0.1, 0.1}, []float64{1, 1}, 1)
	fmt.Printf("y = %.4f, tau = %.4f\n", y[:2], tau)
	// Output:
	// y = [1.5000 0.5000 0.0000], tau = 1.5000
	// y = [0.5000 0.5000], tau = -0.4000
}

// ProjectCappedSimplex validates untrusted data and names what is wrong.
func ExampleProjectCappedSimplex() {
	y := make([]float64, 2)
	_, err := projection.ProjectCappedSimplex(y, []float64{1, math.NaN()}, []float64{1, 1}, 1)
	fmt.Println(err, errors.Is(err, projection.ErrNaN))
	_, err = projection.ProjectCappedSimplex(y, []float64{1, 2}, []float64{1, -1}, 1)
	fmt.Println(err)
	tau, err := projection.ProjectCappedSimplex(y, []float64{1, 2}, []float64{1, 1}, 1)
	fmt.Printf("y = %.4f, tau = %.4f, err = %v\n", y, tau, err)
	// Output:
	// projection: NaN value: z index 1 value NaN true
	// projection: negative upper bound: index 1 value -1
	// y = [0.0000 1.0000], tau = 1.0000, err = <nil>
}

// A Projector projects the independent (r,k) blocks of OGASched's (32):
// here two servers with one resource, ports {0,1} on server 0 and {2,3,4}
// on server 1. The result does not depend on the number of workers.
func ExampleProjector() {
	z := []float64{0.9, 0.8, 0.5, 0.5, 0.5}
	u := []float64{1, 1, 0.4, 0.4, 0.4}
	bs := projection.Blocks{Offsets: []int{0, 2, 5}, Caps: []float64{1, 1}}
	y := make([]float64, len(z))
	tau := make([]float64, bs.NumBlocks())
	p := projection.NewProjector(2)
	defer p.Close()
	p.Project(y, z, u, bs, tau)
	fmt.Printf("y = %.4f\ntau = %.4f\n", y, tau)
	// Output:
	// y = [0.5500 0.4500 0.3333 0.3333 0.3333]
	// tau = [0.3500 0.1667]
}

func ExampleCappedSimplexSort() {
	z := []float64{3, 1, 0.5, -1}
	u := []float64{2, 2, 2, 2}
	y := make([]float64, len(z))
	tau := projection.CappedSimplexSort(y, z, u, 2)
	fmt.Printf("tau = %.4f, y = %.4f\n", tau, y)
	// Output:
	// tau = 1.0000, y = [2.0000 0.0000 0.0000 0.0000]
}

// ProjectCappedSimplexPaper validates untrusted data for the paper's
// procedure, which would otherwise panic on a NaN (it used to loop
// forever).
func ExampleProjectCappedSimplexPaper() {
	y := make([]float64, 3)
	_, err := projection.ProjectCappedSimplexPaper(y, []float64{3, 2, -1}, []float64{10, 0.2, 1}, math.NaN())
	fmt.Println(err)
	tau, err := projection.ProjectCappedSimplexPaper(y, []float64{3, 2, -1}, []float64{10, 0.2, 1}, 2)
	fmt.Printf("y = %.4f, tau = %.4f, err = %v\n", y, tau, err)
	// Output:
	// projection: NaN value: c = NaN
	// y = [1.5000 0.5000 0.0000], tau = 1.5000, err = <nil>
}

// Eight blocks of three coordinates, interleaved: coordinate i of block b
// at 8i+b. Each block gets CappedSimplex's projection.
func ExampleCappedSimplex8() {
	var z, u [24]float64
	var c, tau [8]float64
	for b := 0; b < 8; b++ {
		for i := 0; i < 3; i++ {
			z[8*i+b] = float64(i+1) + float64(b)/4
			u[8*i+b] = 2
		}
		c[b] = float64(b) / 2
	}
	var dst [24]float64
	projection.CappedSimplex8(dst[:], z[:], u[:], &c, &tau)
	for _, b := range []int{0, 3, 7} {
		fmt.Printf("block %d: y = [%.3f %.3f %.3f], tau = %.3f\n", b, dst[b], dst[8+b], dst[16+b], tau[b])
	}
	// Output:
	// block 0: y = [0.000 0.000 0.000], tau = 3.000
	// block 3: y = [0.000 0.250 1.250], tau = 2.500
	// block 7: y = [0.250 1.250 2.000], tau = 2.500
}

// Untrusted data: the error names the block and coordinate of the bad
// value.
func ExampleProjectCappedSimplex8() {
	z, u := make([]float64, 16), make([]float64, 16)
	for i := range u {
		z[i], u[i] = 1, 1
	}
	u[11] = -0.5
	c := [8]float64{1, 1, 1, 1, 1, 1, 1, 1}
	var tau [8]float64
	dst := make([]float64, 16)
	err := projection.ProjectCappedSimplex8(dst, z, u, &c, &tau)
	fmt.Println(err)
	fmt.Println(errors.Is(err, projection.ErrNegativeCap))
	// Output:
	// projection: negative upper bound: index 11 (block 3, coordinate 1) value -0.5
	// true
}
