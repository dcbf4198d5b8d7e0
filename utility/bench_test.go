package utility

import "testing"

var sink float64

func benchmarkEval(b *testing.B, u Utility, op func(Utility, float64) float64) {
	b.ReportAllocs()
	s := 0.0
	for i := 0; b.Loop(); i++ {
		s += op(u, float64(i&1023)*0.01+0.001)
	}
	sink = s
}

func BenchmarkValueLog(b *testing.B) {
	benchmarkEval(b, Utility{Kind: Log, A: 1.2}, Utility.Value)
}
func BenchmarkValuePoly(b *testing.B) {
	benchmarkEval(b, Utility{Kind: Poly, A: 1.2}, Utility.Value)
}
func BenchmarkDerivReciprocal(b *testing.B) {
	benchmarkEval(b, Utility{Kind: Reciprocal, A: 1.2}, Utility.Deriv)
}
func BenchmarkDerivAlphaFair(b *testing.B) {
	benchmarkEval(b, Utility{Kind: AlphaFair, A: 1.2, Alpha: 0.7}, Utility.Deriv)
}
func BenchmarkInvDerivLog(b *testing.B) {
	benchmarkEval(b, Utility{Kind: Log, A: 1.2}, Utility.InvDeriv)
}
func BenchmarkInvDerivPoly(b *testing.B) {
	benchmarkEval(b, Utility{Kind: Poly, A: 1.2}, Utility.InvDeriv)
}
