package projection

import (
	"encoding/binary"
	"math"
	"testing"
)

// decodeFloats reads consecutive little-endian float64s from data.
func decodeFloats(data []byte) []float64 {
	v := make([]float64, len(data)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return v
}

// sanitize maps any float64 into the kernel's preconditions: finite, with
// magnitude at most 1e15.
func sanitize(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Mod(x, 1e15)
}

func fuzzSeeds(f *testing.F) {
	enc := func(vals ...float64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(), 0.0)
	f.Add(enc(5, 10), 3.0)
	f.Add(enc(1, 1, 1, 1, 1, 1), 2.0)
	f.Add(enc(3, 1, 2, 1, 1, 1), 1.0)
	f.Add(enc(1e12, 1e12, 1e-12, 1, 1, 1e-12), 1.0)
	f.Add(enc(-1, 0, 2, 0, 0.5, 3), 0.0)
	f.Add(enc(math.NaN(), 1, math.Inf(1), -1), -1.0)
	f.Add(enc(1, 2, 3, 1), math.NaN())
	f.Add(enc(math.Inf(1), 1, math.Inf(-1), 1), 1.0)
	f.Add(enc(math.MaxFloat64, math.MaxFloat64, -math.MaxFloat64, 1), math.MaxFloat64)
	f.Add(enc(1, math.NaN(), 2, 1, 3, 1), 1.0)
}

// FuzzCappedSimplex checks the KKT conditions on sanitised input: data
// holds (z_i, u_i) pairs, |u_i| is the bound and |c| the capacity.
func FuzzCappedSimplex(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, c float64) {
		v := decodeFloats(data)
		n := len(v) / 2
		z := make([]float64, n)
		u := make([]float64, n)
		for i := range n {
			z[i] = sanitize(v[2*i])
			u[i] = math.Abs(sanitize(v[2*i+1]))
		}
		c = math.Abs(sanitize(c))
		y := make([]float64, n)
		tau := CappedSimplex(y, z, u, c)
		if msg := checkKKT(instance{z, u, c}, y, tau, 1e-9); msg != "" {
			t.Fatalf("%s\nz=%v\nu=%v\nc=%v\ny=%v tau=%v", msg, z, u, c, y, tau)
		}
		if n > 0 {
			yn := make([]float64, n)
			tn := capNewton(yn, z, u, c)
			if msg := checkKKT(instance{z, u, c}, yn, tn, 1e-9); msg != "" {
				t.Fatalf("Newton path: %s\nz=%v\nu=%v\nc=%v\ny=%v tau=%v", msg, z, u, c, yn, tn)
			}
		}
		ys := make([]float64, n)
		CappedSimplexSort(ys, z, u, c)
		tol := 1e-9 * instance{z, u, c}.scale()
		for i := range y {
			if math.Abs(y[i]-ys[i]) > tol {
				t.Fatalf("y[%d] = %v, sort %v", i, y[i], ys[i])
			}
		}
	})
}

// FuzzProjectCappedSimplex feeds arbitrary floats to the validating entry
// point: it must return an error or a result satisfying KKT, never panic.
func FuzzProjectCappedSimplex(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, c float64) {
		v := decodeFloats(data)
		n := len(v) / 2
		z, u := v[:n], v[n:2*n]
		y := make([]float64, n)
		tau, err := ProjectCappedSimplex(y, z, u, c)
		if err != nil {
			return
		}
		if msg := checkKKT(instance{z, u, c}, y, tau, 1e-9); msg != "" {
			t.Fatalf("%s\nz=%v\nu=%v\nc=%v\ny=%v tau=%v", msg, z, u, c, y, tau)
		}
	})
}

// FuzzProjectCappedSimplexPaper feeds arbitrary floats, NaN and ±Inf
// included, to the validating wrapper of the paper's procedure: an error
// or finite output, never a panic or a hang (it looped forever on a NaN).
func FuzzProjectCappedSimplexPaper(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, c float64) {
		v := decodeFloats(data)
		n := len(v) / 2
		z, u := v[:n], v[n:2*n]
		y := make([]float64, n)
		tau, err := ProjectCappedSimplexPaper(y, z, u, c)
		if err != nil {
			return
		}
		if math.IsNaN(tau) {
			t.Fatalf("tau = NaN for z=%v u=%v c=%v", z, u, c)
		}
		for i, yi := range y {
			if math.IsNaN(yi) || math.IsInf(yi, 0) {
				t.Fatalf("y[%d] = %v for z=%v u=%v c=%v", i, yi, z, u, c)
			}
		}
	})
}

// FuzzCappedSimplexKernels projects sanitised input (as FuzzCappedSimplex)
// with every implementation of the inner passes this CPU runs, the Newton
// passes forced on blocks above 8 coordinates: the results must be equal
// bit for bit and satisfy the KKT conditions.
func FuzzCappedSimplexKernels(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte, c float64) {
		v := decodeFloats(data)
		n := len(v) / 2
		in := instance{z: make([]float64, n), u: make([]float64, n), c: math.Abs(sanitize(c))}
		for i := range n {
			in.z[i] = sanitize(v[2*i])
			in.u[i] = math.Abs(sanitize(v[2*i+1]))
		}
		var want []float64
		var wantTau float64
		forEachKernel(t, func(name string) {
			y := make([]float64, n)
			tau := capNewtonOrSmall(y, in)
			if want == nil {
				want, wantTau = y, tau
				if msg := checkKKT(in, y, tau, 1e-9); msg != "" {
					t.Fatalf("%s: %s", name, msg)
				}
				return
			}
			if math.Float64bits(tau) != math.Float64bits(wantTau) {
				t.Fatalf("%s: tau = %v, first kernel %v", name, tau, wantTau)
			}
			for i := range y {
				if math.Float64bits(y[i]) != math.Float64bits(want[i]) {
					t.Fatalf("%s: y[%d] = %v, first kernel %v", name, i, y[i], want[i])
				}
			}
		})
	})
}
