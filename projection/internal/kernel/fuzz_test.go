package kernel

import (
	"encoding/binary"
	"math"
	"testing"
)

// FuzzKernels runs Piece, Piece0, Clip, TinyBrackets and TinySolve (c = |t|) with every implementation this
// CPU runs on (z_i, u_i) pairs decoded from data, made finite with u_i >= 0,
// and compares them bit for bit with the reference loops; the input must
// stay untouched and Clip must write nothing outside dst.
func FuzzKernels(f *testing.F) {
	enc := func(vals ...float64) []byte {
		b := make([]byte, 8*len(vals))
		for i, v := range vals {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	f.Add(enc(), 0.0, uint8(0))
	f.Add(enc(5, 10, 1, 1, 2, 0.5, 3, 3, 0, 1, -1, 2, 4, 4, 7, 1, 0.5, 0.5), 0.5, uint8(1))
	f.Add(enc(1e300, 1e300, -1e300, 0, 5e-324, 1e-300, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6), 1e-300, uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, tt float64, off uint8) {
		n := len(data) / 16
		z := make([]float64, n)
		u := make([]float64, n)
		for i := range n {
			z[i] = finite(math.Float64frombits(binary.LittleEndian.Uint64(data[16*i:])))
			u[i] = math.Abs(finite(math.Float64frombits(binary.LittleEndian.Uint64(data[16*i+8:]))))
		}
		tt = finite(tt)
		want := refPiece(z, u, tt)
		want0 := refPiece0(z, u)
		tau := math.Abs(tt)
		wantY := make([]float64, n)
		for i := range wantY {
			wantY[i] = min(max(z[i]-tau, 0), u[i])
		}
		o := int(off % 8)
		forEachImpl(t, func(t *testing.T) {
			zc, zok := copyAt(z, o)
			uc, uok := copyAt(u, 7-o)
			var l Lanes
			Piece(&l, zc, uc, tt)
			checkLanes(t, "Piece", &l, &want)
			Piece0(&l, zc, uc)
			checkLanes(t, "Piece0", &l, &want0)
			if gz, gok := l.Reduce0(); !gok || !same(gz, func() float64 { w, _ := want0.Reduce0(); return w }()) {
				t.Fatalf("Reduce0 = %v, %v", gz, gok)
			}
			dst, intact := guarded(n, o+1)
			Clip(dst, zc, uc, tau)
			if !intact() || !zok() || !uok() {
				t.Fatal("a write outside dst")
			}
			for i := range dst {
				if !same(dst[i], wantY[i]) {
					t.Fatalf("Clip: dst[%d] = %v, reference %v", i, dst[i], wantY[i])
				}
			}
			if n >= 1 && n <= 8 {
				var r Tiny
				TinyBrackets(&r, zc, uc, tau)
				if w := tinyRef(z, u, tau); !sameTiny(r, w) {
					t.Fatalf("TinyBrackets = %+v, reference %+v", r, w)
				}
				checkTinySolve(t, 0, z, u, tau)
			}
		})
	})
}

// finite maps x into the kernels' preconditions: finite, |x| <= 1e300 so
// that z - t and z - u cannot overflow.
func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Mod(x, 1e300)
}
