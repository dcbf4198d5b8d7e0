package kernel_test

import (
	"fmt"

	"github.com/msched/msched/projection/internal/kernel"
)

// phi(x) = sum_i clip(z_i - x, 0, u_i) around t = 0.5: coordinate 0 is
// capped (z - t >= u), 1 and 2 are free, 3 is zero.
func ExamplePiece() {
	z := []float64{3, 1, 0.8, -1}
	u := []float64{1, 1, 1, 1}
	var l kernel.Lanes
	kernel.Piece(&l, z, u, 0.5)
	sum, free, left, right := l.Reduce()
	fmt.Printf("phi(x) = %v - %d x on [%v, %v]\n", sum, free, left, right)
	// Output: phi(x) = 2.8 - 2 x on [0, 0.8]
}

// At t = 0 coordinates 0 and 1 are capped, 2 is free; a negative bound
// fails the check.
func ExamplePiece0() {
	z := []float64{3, 1, 0.8, -1}
	u := []float64{1, 1, 1, 1}
	var l kernel.Lanes
	kernel.Piece0(&l, z, u)
	sum, free, _, _ := l.Reduce()
	zmax, ok := l.Reduce0()
	fmt.Println(sum, free, zmax, ok)
	u[3] = -1
	kernel.Piece0(&l, z, u)
	_, ok = l.Reduce0()
	fmt.Println(ok)
	// Output:
	// 2.8 1 3 true
	// false
}

func ExampleClip() {
	z := []float64{3, 1, 0.8, -1}
	u := []float64{1, 1, 1, 1}
	dst := make([]float64, 4)
	kernel.Clip(dst, z, u, 0.5)
	fmt.Println(dst)
	// Output: [1 0.5 0.30000000000000004 0]
}

// The capacity 1.5 binds (phi(0) = 2.8); phi is linear between the
// breakpoints 0 and 0.8 and crosses 1.5 there (phi(x) = 2.8 - 2x on that
// piece, so the root is 0.65).
func ExampleTinyBrackets() {
	z := []float64{3, 1, 0.8, -1}
	u := []float64{1, 1, 1, 1}
	var r kernel.Tiny
	kernel.TinyBrackets(&r, z, u, 1.5)
	fmt.Println(r.State, r.Phi0, r.Lo, r.Hi)
	kernel.TinyBrackets(&r, z, u, 3)
	fmt.Println(r.State)
	// Output:
	// 1 2.8 0 0.8
	// 0
}
